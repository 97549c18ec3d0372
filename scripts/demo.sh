#!/usr/bin/env bash
# make demo: the main job, offline, on a small spec-kit repository built from testdata/demo/.
#   1. a signing key is generated (ssh-keygen, ed25519) and trusted in an allowed-signers file;
#   2. three tasks are ticked in three commits and each tick is attested (`taskproof attest tick`);
#   3. `taskproof verify --branch` succeeds;
#   4. a task ticked by hand without evidence and a tampered note make it fail, reasons shown.
# Every step checks the exit code it expects, so the demo itself fails if taskproof misbehaves.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TASKPROOF_BIN:-$root/bin/taskproof}
out=${DEMO_OUT:-$root/demo-out}

for tool in git ssh-keygen; do
  command -v "$tool" >/dev/null || { echo "demo: $tool is needed (apt-get install git openssh-client)" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "demo: $bin not built (run make build)" >&2; exit 1; }

rm -rf "$out"; mkdir -p "$out"
repo=$out/repo
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="Demo Dev" GIT_AUTHOR_EMAIL=dev@example.invalid
export GIT_COMMITTER_NAME="Demo Dev" GIT_COMMITTER_EMAIL=dev@example.invalid

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
# expect CODE CMD…: runs CMD and fails the demo unless it exits with CODE.
expect() {
  local want=$1; shift
  printf '$ %s\n' "$*"
  set +e; "$@"; local got=$?; set -e
  if [ "$got" != "$want" ]; then echo "demo: expected exit $want, got $got" >&2; exit 1; fi
  echo "(exit $got, as expected)"
}
tp() { "$bin" -C "$repo" "$@"; }

step "A spec-kit repository with one feature and four open tasks"
git init -q -b main "$repo"
cp -R "$root/testdata/demo/specs" "$root/testdata/demo/speccoder.toml" "$repo/"
git -C "$repo" add -A && git -C "$repo" commit -qm "spec: 001-greeting"
git -C "$repo" switch -q -c 001-greeting

step "A signing key, and the verifier's own trust (an allowed-signers file outside the repo)"
ssh-keygen -q -t ed25519 -N '' -C demo@example.invalid -f "$out/id_ed25519"
printf 'demo@example.invalid namespaces="in-toto" %s\n' "$(cat "$out/id_ed25519.pub")" > "$out/allowed_signers"
cat "$out/allowed_signers"

tick() { # tick TASK: ticks the task's box in tasks.md and commits
  sed -i "s/^- \[ \] $1 /- [x] $1 /" "$repo/specs/001-greeting/tasks.md"
  git -C "$repo" commit -qam "$1 done"
}

step "Three tasks pass their tests; each tick is attested and signed"
tick T001
run tp attest tick --signer ssh --key "$out/id_ed25519" --verdict regression_only \
  --regression-reason planning_work
tick T002
run tp attest tick --signer ssh --key "$out/id_ed25519" --verdict verified \
  --evidence "$root/testdata/demo/evidence.json" --red-output "$root/testdata/demo/red-output.txt" --red-kind assertion
tick T003
run tp attest tick --signer ssh --key "$out/id_ed25519" --verdict verified \
  --evidence "$root/testdata/demo/evidence.json" --red-output "$root/testdata/demo/red-output.txt" --red-kind assertion
run git -C "$repo" notes --ref speccoder list

step "The merge gate passes"
expect 0 tp verify --branch --base main --allowed-signers "$out/allowed_signers"

step "Someone ticks T004 by hand, with no evidence"
tick T004
expect 1 tp verify --branch --base main --allowed-signers "$out/allowed_signers"

step "…and someone edits the signed statement in T002's note"
t2=$(git -C "$repo" rev-list -n1 --grep='^T002 done' HEAD)
note=$(git -C "$repo" notes --ref speccoder show "$t2")
: > "$out/tampered"
while IFS= read -r line; do
  payload=$(printf '%s' "$line" | sed -n 's/.*"payload":"\([^"]*\)".*/\1/p')
  statement=$(printf '%s' "$payload" | base64 -d)
  case "$statement" in
    *speccoder.dev/task-verification*)
      # The reviewer-facing title is rewritten; the signature no longer matches.
      forged=$(printf '%s' "$statement" | sed 's/"title":"/"title":"(approved) /' | base64 -w0)
      line=${line/"$payload"/"$forged"} ;;
  esac
  printf '%s\n' "$line" >> "$out/tampered"
done <<<"$note"
git -C "$repo" notes --ref speccoder add -f -F "$out/tampered" "$t2"
expect 1 tp verify --branch --base main --allowed-signers "$out/allowed_signers"

step "Done: the repository is in $repo (try: taskproof -C $repo verify --branch --base main --allowed-signers $out/allowed_signers --format json)"
