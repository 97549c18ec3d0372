#!/usr/bin/env bash
# The taskproof GitHub Action's attest mode (action.yml runs it with `mode: attest`); runnable
# anywhere:
#   1. install taskproof (see action-install.sh);
#   2. fetch the notes from $TASKPROOF_REMOTE (default origin), so that the push merges with them;
#   3. for every commit of $TASKPROOF_BASE..$TASKPROOF_HEAD that ticks tasks, oldest first, run
#      `taskproof attest tick --commit C` with the signer inputs (default: keyless Sigstore, the
#      workflow's OIDC token fetched by taskproof itself) and one `--test-report PHASE=FILE` per
#      line of $TASKPROOF_TEST_REPORTS; a commit whose note already exists is skipped;
#   4. push the notes (`taskproof notes push`, merging with whatever landed meanwhile).
# The base defaults to the push's previous head ($TASKPROOF_PUSH_BEFORE, github.event.before),
# else $remote/<default branch>. Exit code: the first failing taskproof command's.
set -euo pipefail

version=${TASKPROOF_VERSION:-latest}
remote=${TASKPROOF_REMOTE:-origin}
notes_ref=${TASKPROOF_NOTES_REF:-refs/notes/speccoder}
base=${TASKPROOF_BASE:-}
head=${TASKPROOF_HEAD:-HEAD}
go_install=${TASKPROOF_GO_INSTALL:-true}
signer=${TASKPROOF_SIGNER:-sigstore}

log() { printf 'taskproof-action: %s\n' "$*" >&2; }

# shellcheck source=scripts/action-install.sh
. "$(dirname "${BASH_SOURCE[0]}")/action-install.sh"

bin=$(install_bin)
log "using $("$bin" --version)"

# The notes already on the remote: a first attestation finds none, which is fine.
"$bin" notes fetch --notes-ref "$notes_ref" "$remote" >&2 || log "no notes fetched from $remote (a first attestation?)"

if [ -z "$base" ]; then
  before=${TASKPROOF_PUSH_BEFORE:-}
  if [ -n "$before" ] && [ "$before" != 0000000000000000000000000000000000000000 ] && git cat-file -e "$before^{commit}" 2>/dev/null; then
    base=$before
  else
    default=$(git symbolic-ref --quiet --short "refs/remotes/$remote/HEAD" 2>/dev/null || true)
    base=${default:-$remote/main}
  fi
fi

tick_args=(--notes-ref "$notes_ref" --signer "$signer")
if [ "$signer" = sigstore ]; then
  tick_args+=(--fulcio-url "${TASKPROOF_FULCIO_URL:-https://fulcio.sigstore.dev}" --rekor-url "${TASKPROOF_REKOR_URL:-https://rekor.sigstore.dev}")
fi
[ -n "${TASKPROOF_SIGNING_KEY:-}" ] && tick_args+=(--key "$TASKPROOF_SIGNING_KEY")
[ -n "${TASKPROOF_VERDICT:-}" ] && tick_args+=(--verdict "$TASKPROOF_VERDICT")
while IFS= read -r report; do
  report=${report#"${report%%[![:space:]]*}"}
  report=${report%"${report##*[![:space:]]}"}
  [ -n "$report" ] && tick_args+=(--test-report "$report")
done <<< "${TASKPROOF_TEST_REPORTS:-}"
# shellcheck disable=SC2206 # extra arguments are split on spaces on purpose
[ -n "${TASKPROOF_ARGS:-}" ] && tick_args+=($TASKPROOF_ARGS)

# Tick commits of the range, oldest first (ticks lists them in history order).
commits=$("$bin" ticks --notes-ref "$notes_ref" "$base..$head" | awk '$1 == "tick" {print $2}' | awk '!seen[$0]++')
if [ -z "$commits" ]; then
  log "no ticks in $base..$head: nothing to attest"
  exit 0
fi
attested=0
for c in $commits; do
  c=$(git rev-parse --verify "$c^{commit}")
  if git notes --ref "$notes_ref" list "$c" >/dev/null 2>&1; then
    log "$c already has a note under $notes_ref: skipped"
    continue
  fi
  log "taskproof attest tick --commit $c ${tick_args[*]}"
  "$bin" attest tick --commit "$c" "${tick_args[@]}"
  attested=$((attested + 1))
done
if [ "$attested" -gt 0 ]; then
  "$bin" notes push --notes-ref "$notes_ref" "$remote"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  printf '### taskproof attest\n\n%s tick commit(s) attested in %s..%s\n' "$attested" "$base" "$head" >> "$GITHUB_STEP_SUMMARY" || log "cannot write \$GITHUB_STEP_SUMMARY"
fi
