#!/usr/bin/env bash
# The GitHub Action's attest mode (action.yml runs it with `mode: attest`; runnable anywhere with
# the same environment). Every input arrives in its own TASKPROOF_* variable and is passed to
# taskproof as one quoted argument; nothing is expanded by the shell (set -f; the free-form
# TASKPROOF_ARGS is split at blanks by read, see split_words).
#   1. deepen a shallow checkout and fetch the notes from $TASKPROOF_REMOTE (default origin), so
#      that the push merges with them;
#   2. for every commit of BASE..HEAD that ticks tasks, oldest first, run
#      `taskproof attest tick --commit C --skip-attested` with the signer inputs (default: keyless Sigstore, the
#      workflow's OIDC token fetched by taskproof, which first refuses events whose commits the
#      repository may not own: docs/format.md#signing-in-github-actions) and the commit's own
#      test reports: a line `PHASE=FILE` of $TASKPROOF_TEST_REPORTS is a report of HEAD's tick,
#      a line `REV PHASE=FILE` one of the tick commit REV. Ticks whose statements the note holds
#      already are left as they are, tick by tick (another tick of the same commit is still
#      attested); a commit with no reports of its own is attested only with an explicit
#      $TASKPROOF_VERDICT, else its unattested ticks are left so with a warning (a run at HEAD
#      says nothing about an earlier commit);
#   3. push the notes (`taskproof notes push`, merging with whatever landed meanwhile), also after
#      a failed attestation, so that the ones made are kept;
#   4. write the step outputs attested, already-attested, unattested and conclusion.
# The base defaults to the push's previous head ($TASKPROOF_PUSH_BEFORE, github.event.before),
# else $remote's default branch. Exit code: the first failing taskproof command's; 2 for an input
# the Action refuses.
set -euo pipefail
set -f

# shellcheck source=scripts/action-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/action-lib.sh"

bin=${TASKPROOF_BIN:?the install step sets TASKPROOF_BIN}
remote=${TASKPROOF_REMOTE:-origin}
notes_ref=${TASKPROOF_NOTES_REF:-refs/notes/speccoder}
base=${TASKPROOF_BASE:-}
head=${TASKPROOF_HEAD:-HEAD}
signer=${TASKPROOF_SIGNER:-sigstore}

case $signer in sigstore|ssh|openpgp|raw) ;; *) fail 2 "signer $signer: want sigstore, ssh, openpgp or raw" ;; esac

# Free-form extra flags for attest tick: only those that shape a statement, never what signs it,
# which commit, or whether statements are replaced (an allow-list, see allow_flags).
split_words "${TASKPROOF_ARGS:-}"
extra=(${WORDS[@]+"${WORDS[@]}"})
allow_flags args "task= unit= evidence= red-output= red-kind= regression-reason= test-files= policy=
  key-passphrase-env= rsa-scheme= sigstore-timeout=" ${extra[@]+"${extra[@]}"}

deepen_checkout "$remote"
# The notes already on the remote: a first attestation finds none, which is fine.
quiet "$bin" notes fetch --notes-ref "$notes_ref" "$remote" || log "no notes fetched from $remote (a first attestation?)"

if [ -z "$base" ]; then
  before=${TASKPROOF_PUSH_BEFORE:-}
  if [ -n "$before" ] && [ "$before" != 0000000000000000000000000000000000000000 ] && git cat-file -e "$before^{commit}" 2>/dev/null; then
    base=$before
  else
    default=$(git symbolic-ref --quiet --short "refs/remotes/$remote/HEAD" 2>/dev/null || true)
    base=${default:-$remote/main}
  fi
fi
head_commit=$(git rev-parse --verify --quiet --end-of-options "$head^{commit}") || fail 2 "head $head is not a commit"

# Each tick commit's own reports: REPORT_COMMITS[i] holds REPORT_ARGS[i] (PHASE=FILE).
REPORT_COMMITS=()
REPORT_ARGS=()
lines_of "${TASKPROOF_TEST_REPORTS:-}"
for line in ${LINES[@]+"${LINES[@]}"}; do
  first=${line%%[[:space:]]*}
  case $first in
    *=*) commit=$head_commit report=$line ;;
    *)
      report=${line#"$first"}
      report=${report#"${report%%[![:space:]]*}"}
      case $report in
        [a-z]*=?*) ;;
        *) fail 2 "test-report line '$line': want PHASE=FILE (HEAD's tick) or REV PHASE=FILE" ;;
      esac
      commit=$(git rev-parse --verify --quiet --end-of-options "$first^{commit}") ||
        fail 2 "test-report line '$line': $first is not a commit of the checkout"
      ;;
  esac
  REPORT_COMMITS+=("$commit")
  REPORT_ARGS+=("$report")
done

tick_args=(--notes-ref "$notes_ref" --signer "$signer")
if [ "$signer" = sigstore ]; then
  tick_args+=(--fulcio-url "${TASKPROOF_FULCIO_URL:-https://fulcio.sigstore.dev}" --rekor-url "${TASKPROOF_REKOR_URL:-https://rekor.sigstore.dev}")
fi
[ -n "${TASKPROOF_SIGNING_KEY:-}" ] && tick_args+=(--key "$TASKPROOF_SIGNING_KEY")
[ -n "${TASKPROOF_VERDICT:-}" ] && tick_args+=(--verdict "$TASKPROOF_VERDICT")
tick_args+=(${extra[@]+"${extra[@]}"})
# The flags of args that choose which ticks are attested (--task, --unit, --policy's layouts): a
# commit without reports is checked with these alone.
scope_args=()
take=false
for w in ${extra[@]+"${extra[@]}"}; do
  if $take; then
    scope_args+=("$w")
    take=false
    continue
  fi
  case $w in
    --task=*|--unit=*|--policy=*) scope_args+=("$w") ;;
    --task|--unit|--policy) scope_args+=("$w"); take=true ;;
  esac
done

# Tick commits of the range, oldest first (ticks lists them in history order): commits with a tick
# or a task born ticked, which attest tick attests, in a tasks file a unit layout claims.
ticks_out=$("$bin" ticks --notes-ref "$notes_ref" "$base..$head_commit") || fail $? "taskproof ticks $base..$head failed"
commits=$(printf '%s\n' "$ticks_out" | awk '($1 == "tick" || $1 == "born_ticked") && $2 ~ /^[0-9a-f]+$/ && !/unrecognized_tasks_file/ {print $2}' | awk '!seen[$0]++')

# A report for a commit that ticks nothing in the range would be silently unused.
i=0
while [ "$i" -lt "${#REPORT_COMMITS[@]}" ]; do
  found=false
  for c in $commits; do
    [ "$(git rev-parse --verify "$c^{commit}")" = "${REPORT_COMMITS[$i]}" ] && found=true
  done
  $found || gh_annotate warning "taskproof attest" "test report ${REPORT_ARGS[$i]} is for ${REPORT_COMMITS[$i]}, which ticks no task in $base..$head: not used"
  i=$((i + 1))
done

# attest_commit C ARGS…: runs `attest tick --commit C --skip-attested --format json ARGS…`, which
# attests the ticks of C whose statements the note does not hold and leaves the others; sets
# WROTE to the number of ticks attested, HELD to those already attested, and returns its exit code.
attest_commit() {
  local c=$1 out err rc
  shift
  out=$(mktemp "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/taskproof-attest-XXXXXX")
  err=$out.err
  rc=0
  "$bin" attest tick --commit "$c" --skip-attested --format json "$@" > "$out" 2> "$err" || rc=$?
  quiet cat "$err"
  # The written list's items are the lines indented by four spaces, their members by six; no JSON
  # string holds a line break, so nothing a statement quotes can be read as one of them.
  WROTE=$(awk '/^    \{$/ { n++ } /^      "already_(held|attested)": true,?$/ { held++ } END { print n - held }' "$out")
  HELD=$(awk '/^      "already_(held|attested)": true,?$/ { held++ } END { print held + 0 }' "$out")
  rm -f "$out" "$err"
  return "$rc"
}

# A tick commit counts as attested when this run wrote statements for one of its ticks, as already
# attested when its note held statements for every tick (attest tick decides per tick, never by
# whether the commit has a note), and as unattested when ticks are left without statements.
attested=0 already=0 unattested=0 code=0
for c in $commits; do
  c=$(git rev-parse --verify "$c^{commit}")
  reports=()
  i=0
  while [ "$i" -lt "${#REPORT_COMMITS[@]}" ]; do
    [ "${REPORT_COMMITS[$i]}" = "$c" ] && reports+=(--test-report "${REPORT_ARGS[$i]}")
    i=$((i + 1))
  done
  if [ "${#reports[@]}" -eq 0 ] && [ -z "${TASKPROOF_VERDICT:-}" ]; then
    # Nothing to attest it with: only check that every tick is attested already (exit 2 naming
    # those that are not; --unsigned: nothing is written, so nothing needs a key).
    set +e
    attest_commit "$c" --notes-ref "$notes_ref" --unsigned ${scope_args[@]+"${scope_args[@]}"}
    rc=$?
    set -e
    case $rc in
      0)
        log "$c: every tick is attested already under $notes_ref"
        already=$((already + 1))
        ;;
      2)
        gh_annotate warning "taskproof attest" "$c ticks tasks whose statements its note does not hold, and has no test reports of its own and no verdict input: not attested (give its reports as a line '$c PHASE=FILE' of test-report, or attest it where its tests ran)"
        unattested=$((unattested + 1))
        ;;
      *)
        code=$rc
        gh_annotate error "taskproof attest" "attest tick --commit $c --skip-attested failed (exit $code); see the log"
        break
        ;;
    esac
    continue
  fi
  log "taskproof attest tick --commit $c --skip-attested ${tick_args[*]} ${reports[*]+${reports[*]}}"
  set +e
  attest_commit "$c" "${tick_args[@]}" ${reports[@]+"${reports[@]}"}
  code=$?
  set -e
  if [ "$code" -ne 0 ]; then
    gh_annotate error "taskproof attest" "attest tick --commit $c failed (exit $code); see the log"
    break
  fi
  if [ "$WROTE" -gt 0 ]; then
    attested=$((attested + 1))
  else
    log "$c: every tick is attested already under $notes_ref: kept as it is"
    already=$((already + 1))
  fi
done

if [ "$attested" -gt 0 ]; then
  quiet "$bin" notes push --notes-ref "$notes_ref" "$remote" || { pcode=$?; [ "$code" -ne 0 ] || code=$pcode; gh_annotate error "taskproof attest" "taskproof notes push to $remote failed (exit $pcode)"; }
fi
if [ "$code" -ne 0 ]; then
  conclusion=failure
elif [ "$unattested" -gt 0 ]; then
  conclusion=incomplete
else
  conclusion=success
fi
set_output attested "$attested"
set_output already-attested "$already"
set_output unattested "$unattested"
set_output conclusion "$conclusion"
summary "### taskproof attest
$attested tick commit(s) attested, $already already attested, $unattested without reports of their own in $(md_code "$base..$head")"
if [ -z "$commits" ]; then
  log "no ticks in $base..$head: nothing to attest"
fi
exit "$code"
