#!/usr/bin/env bash
# The GitHub Action's verify mode (action.yml runs it; runnable anywhere with the same
# environment). Every input arrives in its own TASKPROOF_* variable and is passed to taskproof as
# one quoted argument; nothing is expanded by the shell (no globbing: set -f; the free-form
# TASKPROOF_ARGS is split at blanks by read, see split_words).
#   1. deepen a shallow checkout, fetch the notes ref and the skip records from $TASKPROOF_REMOTE
#      and from each line of $TASKPROOF_NOTES_FROM (a fork), merging them into the checkout's own
#      (taskproof notes fetch: never forced);
#   2. run `taskproof verify --branch` with the trust inputs, writing the JSON report to
#      $RUNNER_TEMP and the chosen format (default github: annotations and the job summary);
#   3. write the step outputs conclusion, ticks, failing, summary and report.
# Exit code: taskproof verify's (docs/cli/exit-codes.md); 2 for an input the Action refuses.
set -euo pipefail
set -f

# shellcheck source=scripts/action-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/action-lib.sh"

bin=${TASKPROOF_BIN:?the install step sets TASKPROOF_BIN}
remote=${TASKPROOF_REMOTE:-origin}
notes_ref=${TASKPROOF_NOTES_REF:-refs/notes/speccoder}
format=${TASKPROOF_FORMAT:-github}
base=${TASKPROOF_BASE:-}
head=${TASKPROOF_HEAD:-HEAD}

case $format in github|text|json|sarif|junit) ;; *) fail 2 "format $format: want github, text, json, sarif or junit" ;; esac
bool_input() {
  case $2 in true|false) ;; *) fail 2 "$1: want true or false, not $2" ;; esac
}
bool_input require-verified "${TASKPROOF_REQUIRE_VERIFIED:-false}"
bool_input insecure-allow-unsigned "${TASKPROOF_INSECURE_ALLOW_UNSIGNED:-false}"
bool_input require-signed "${TASKPROOF_REQUIRE_SIGNED:-true}"
# require-signed is the deprecated spelling of insecure-allow-unsigned: both given is refused
# whatever their values, as taskproof refuses both of its flags; no order or value decides which
# one was meant.
if [ -n "${TASKPROOF_INSECURE_ALLOW_UNSIGNED:-}" ] && [ -n "${TASKPROOF_REQUIRE_SIGNED:-}" ]; then
  fail 2 "give one: insecure-allow-unsigned (require-signed is its deprecated spelling)"
fi
allow_unsigned=${TASKPROOF_INSECURE_ALLOW_UNSIGNED:-false}
if [ -n "${TASKPROOF_REQUIRE_SIGNED:-}" ]; then
  gh_annotate warning "taskproof action" "the input require-signed is deprecated: use insecure-allow-unsigned: \"true\" instead of require-signed: \"false\", and drop require-signed: \"true\" (the default)"
  [ "$TASKPROOF_REQUIRE_SIGNED" = false ] && allow_unsigned=true
fi
bool_input sigstore-public-good "${TASKPROOF_SIGSTORE_PUBLIC_GOOD:-false}"
# sigstore-tlog-threshold "0" is the deprecated spelling of insecure-ignore-tlog, by the same
# rules: both spellings given is refused whatever their values, the old one warns; a threshold of
# 1 or more with insecure-ignore-tlog "true" contradicts it, as taskproof's flags do.
bool_input insecure-ignore-tlog "${TASKPROOF_INSECURE_IGNORE_TLOG:-false}"
ignore_tlog=${TASKPROOF_INSECURE_IGNORE_TLOG:-false}
tlog_threshold=${TASKPROOF_SIGSTORE_TLOG_THRESHOLD:-}
if [ "$tlog_threshold" = 0 ]; then
  [ -z "${TASKPROOF_INSECURE_IGNORE_TLOG:-}" ] ||
    fail 2 "give one: insecure-ignore-tlog (sigstore-tlog-threshold \"0\" is its deprecated spelling)"
  gh_annotate warning "taskproof action" "the input sigstore-tlog-threshold: \"0\" is deprecated: use insecure-ignore-tlog: \"true\" instead"
  ignore_tlog=true
  tlog_threshold=
elif [ "$ignore_tlog" = true ] && [ -n "$tlog_threshold" ]; then
  fail 2 "insecure-ignore-tlog \"true\" accepts bundles without a transparency log entry, a sigstore-tlog-threshold requires some: give one"
fi

# Free-form extra flags: split, never expanded, and only those that neither decide trust nor the
# outcome (an allow-list: a flag taskproof adds later is refused until judged here). --at, which
# moves the time keys are judged at, is refused: the gate judges keys now.
split_words "${TASKPROOF_ARGS:-}"
extra=(${WORDS[@]+"${WORDS[@]}"})
allow_flags args "notes-from-remotes" ${extra[@]+"${extra[@]}"}

deepen_checkout "$remote"
# git does not fetch notes by default. `taskproof notes fetch` brings the remote's notes into the
# local ref the way a clone does: created, fast-forwarded or merged line by line, never forced, so
# notes an earlier step fetched (a fork's, docs/ci.md "Pull requests from forks") are kept. A
# remote without notes is not an error here: verify then exits 4 with its own message, never a
# pass.
if ! quiet "$bin" notes fetch --notes-ref "$notes_ref" -- "$remote"; then
  log "no $notes_ref fetched from $remote (attest and run 'taskproof notes push' first)"
fi
lines_of "${TASKPROOF_NOTES_FROM:-}"
for from in ${LINES[@]+"${LINES[@]}"}; do
  if ! quiet "$bin" notes fetch --notes-ref "$notes_ref" -- "$from"; then
    gh_annotate warning "taskproof verify" "no $notes_ref fetched from $from (notes-from): the gate runs without them"
  fi
done

if [ -z "$base" ]; then
  if [ -n "${GITHUB_BASE_REF:-}" ]; then
    quiet git fetch --no-tags "$remote" "+refs/heads/$GITHUB_BASE_REF:refs/remotes/$remote/$GITHUB_BASE_REF" ||
      fail 4 "cannot fetch the pull request's base branch $GITHUB_BASE_REF from $remote"
    base=$remote/$GITHUB_BASE_REF
  else
    base=$remote/main
  fi
fi

report_dir=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
report=$(mktemp "$report_dir/taskproof-verify-XXXXXX")
mv -f "$report" "$report.json"
report=$report.json

args=(verify --notes-ref "$notes_ref" --branch --base "$base" --format "$format" --json-report "$report")
[ -n "${TASKPROOF_ALLOWED_SIGNERS:-}" ] && args+=(--allowed-signers "$TASKPROOF_ALLOWED_SIGNERS")
[ -n "${TASKPROOF_ALLOWED_SIGNERS_REV:-}" ] && args+=(--allowed-signers-rev "$TASKPROOF_ALLOWED_SIGNERS_REV")
lines_of "${TASKPROOF_KEYRING:-}"
for f in ${LINES[@]+"${LINES[@]}"}; do args+=(--keyring "$(csv_quote "$f")"); done
lines_of "${TASKPROOF_KEY:-}"
for f in ${LINES[@]+"${LINES[@]}"}; do args+=(--key "$(csv_quote "$f")"); done
[ -n "${TASKPROOF_TRUSTED_ROOT:-}" ] && args+=(--trusted-root "$TASKPROOF_TRUSTED_ROOT")
[ "${TASKPROOF_SIGSTORE_PUBLIC_GOOD:-false}" = true ] && args+=(--sigstore-public-good)
[ -n "${TASKPROOF_CERTIFICATE_IDENTITY:-}" ] && args+=(--certificate-identity "$TASKPROOF_CERTIFICATE_IDENTITY")
[ -n "${TASKPROOF_CERTIFICATE_IDENTITY_REGEXP:-}" ] && args+=(--certificate-identity-regexp "$TASKPROOF_CERTIFICATE_IDENTITY_REGEXP")
[ -n "${TASKPROOF_CERTIFICATE_OIDC_ISSUER:-}" ] && args+=(--certificate-oidc-issuer "$TASKPROOF_CERTIFICATE_OIDC_ISSUER")
[ -n "$tlog_threshold" ] && args+=(--sigstore-tlog-threshold "$tlog_threshold")
[ "$ignore_tlog" = true ] && args+=(--insecure-ignore-tlog)
[ -n "${TASKPROOF_SIGSTORE_TIMESTAMP_THRESHOLD:-}" ] && args+=(--sigstore-timestamp-threshold "$TASKPROOF_SIGSTORE_TIMESTAMP_THRESHOLD")
[ -n "${TASKPROOF_POLICY:-}" ] && args+=(--policy "$TASKPROOF_POLICY")
[ -n "${TASKPROOF_POLICY_REV:-}" ] && args+=(--policy-rev "$TASKPROOF_POLICY_REV")
[ "${TASKPROOF_REQUIRE_VERIFIED:-false}" = true ] && args+=(--require-verified)
[ "$allow_unsigned" = true ] && args+=(--insecure-allow-unsigned)
args+=(${extra[@]+"${extra[@]}"} -- "$head")

log "taskproof ${args[*]}"
set +e
if [ "$format" = github ]; then
  # taskproof writes these workflow commands itself, escaped (docs/format.md#control-characters-in-reports).
  "$bin" "${args[@]}"
else
  quiet "$bin" "${args[@]}"
fi
code=$?
set -e

# The outputs come from the JSON report taskproof wrote: its top-level members are the lines
# indented by two spaces, the items of its top-level lists by four, and no JSON string holds a
# line break, so whatever the report quotes cannot be read as one of them.
if [ -s "$report" ]; then
  conclusion=$(awk '/^  "conclusion": "[a-z_]+",?$/ { sub(/^  "conclusion": "/, ""); sub(/",?$/, ""); print; exit }' "$report")
  counts=$(awk '
    /^  "ticks": \[/ { in_ticks = 1; next }
    in_ticks && /^  \]/ { in_ticks = 0 }
    in_ticks && /^    \{$/ { ticks++ }
    in_ticks && /^      "failing": true,?$/ { failing++ }
    /^  "summary": \{/ { in_summary = 1; next }
    in_summary && /^  \}/ { in_summary = 0 }
    in_summary && /^    "[a-z_]+": [0-9]+,?$/ { line = $0; sub(/^    /, "", line); sub(/,$/, "", line); summary = summary (summary == "" ? "" : ",") line }
    END { printf "%d %d {%s}", ticks, failing, summary }' "$report")
  ticks=${counts%% *}
  rest=${counts#* }
  failing=${rest%% *}
  summary_json=${rest#* }
  set_output conclusion "$conclusion"
  set_output ticks "$ticks"
  set_output failing "$failing"
  set_output summary "$summary_json"
  set_output report "$report"
  set_output exit-code "$code"
  if [ "$format" != github ]; then
    # --format github writes its own job summary; for the others, a line.
    summary "### taskproof verify
$(md_code "$conclusion"): $ticks tick(s), $failing failing (exit $code, base $(md_code "$base"))"
  fi
else
  set_output exit-code "$code"
  log "no JSON report was written (exit $code)"
fi
exit "$code"
