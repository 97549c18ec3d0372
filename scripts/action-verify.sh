#!/usr/bin/env bash
# The taskproof GitHub Action's logic (action.yml runs it); runnable anywhere.
#   1. install taskproof: $TASKPROOF_BIN if set (tests, pre-built binaries), else a release
#      binary for $TASKPROOF_VERSION, else `go install …/cmd/taskproof@$TASKPROOF_VERSION`;
#   2. fetch the notes ref and skip records from $TASKPROOF_REMOTE (default origin);
#   3. run `taskproof verify --branch --base $TASKPROOF_BASE --format $TASKPROOF_FORMAT` with the
#      trust inputs given, appending a summary to $GITHUB_STEP_SUMMARY when it is set.
# Exit code: taskproof verify's (SPEC §10), or 4 when the notes cannot be fetched.
set -euo pipefail

version=${TASKPROOF_VERSION:-latest}
remote=${TASKPROOF_REMOTE:-origin}
notes_ref=${TASKPROOF_NOTES_REF:-refs/notes/speccoder}
format=${TASKPROOF_FORMAT:-github}
base=${TASKPROOF_BASE:-}
head=${TASKPROOF_HEAD:-HEAD}
go_install=${TASKPROOF_GO_INSTALL:-true}

log() { printf 'taskproof-action: %s\n' "$*" >&2; }

# install_bin (shared with action-attest.sh)
# shellcheck source=scripts/action-install.sh
. "$(dirname "${BASH_SOURCE[0]}")/action-install.sh"

bin=$(install_bin)
log "using $("$bin" --version)"

# git does not fetch notes by default (SPEC §2). A remote without notes is not an
# error here: verify then exits 4 with its own message, never a pass.
if ! git fetch --no-tags "$remote" "+$notes_ref:$notes_ref" >&2; then
  log "no $notes_ref on $remote (attest and run 'taskproof notes push' first)"
fi
git fetch --no-tags "$remote" 'refs/speccoder/skipped/*:refs/speccoder/skipped/*' >&2 || true

if [ -z "$base" ]; then
  if [ -n "${GITHUB_BASE_REF:-}" ]; then
    git fetch --no-tags "$remote" "+refs/heads/$GITHUB_BASE_REF:refs/remotes/$remote/$GITHUB_BASE_REF" >&2
    base=$remote/$GITHUB_BASE_REF
  else
    base=$remote/main
  fi
fi

args=(verify --notes-ref "$notes_ref" --branch --base "$base" --format "$format")
[ -n "${TASKPROOF_ALLOWED_SIGNERS:-}" ] && args+=(--allowed-signers "$TASKPROOF_ALLOWED_SIGNERS")
[ -n "${TASKPROOF_ALLOWED_SIGNERS_REV:-}" ] && args+=(--allowed-signers-rev "$TASKPROOF_ALLOWED_SIGNERS_REV")
[ -n "${TASKPROOF_KEYRING:-}" ] && args+=(--keyring "$TASKPROOF_KEYRING")
[ -n "${TASKPROOF_KEY:-}" ] && args+=(--key "$TASKPROOF_KEY")
[ "${TASKPROOF_REQUIRE_VERIFIED:-false}" = true ] && args+=(--require-verified)
# shellcheck disable=SC2206 # extra arguments are split on spaces on purpose
[ -n "${TASKPROOF_ARGS:-}" ] && args+=($TASKPROOF_ARGS)
args+=("$head")

log "taskproof ${args[*]}"
set +e
"$bin" "${args[@]}"
code=$?
set -e
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ "$format" != github ]; then
  # --format github writes its own summary; for other formats, add a line.
  printf '### taskproof verify\n\nexit %s (base %s)\n' "$code" "$base" >> "$GITHUB_STEP_SUMMARY"
fi
exit "$code"
