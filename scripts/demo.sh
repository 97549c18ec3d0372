#!/usr/bin/env bash
# make demo: the main job, offline, on a small spec-kit repository built from testdata/demo/.
#   1. a signing key is generated (ssh-keygen, ed25519) and trusted in an allowed-signers file;
#   2. three tasks are ticked in three commits and each tick is attested (`taskproof attest tick`):
#      T002 and T003 from the reports of real `go test -json` runs, red before the change and green
#      after (the verdict, red run, trace and collection follow from them, and the result line
#      says why: the report line that decided it);
#   3. `taskproof verify --branch` succeeds;
#   4. a task ticked by hand without evidence and a tampered note make it fail, reasons shown.
# Second act, a team: alice and bob share notes through a bare remote (`taskproof init`,
# `notes push`, `git fetch`, `notes fetch`); alice rebases her branch, the copied notes fail the
# gate, one `attest carry` over the two ranges re-attests it, and the gate passes for both.
# Every step checks the exit code it expects, so the demo itself fails if taskproof misbehaves.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TASKPROOF_BIN:-$root/bin/taskproof}
out=${DEMO_OUT:-$root/demo-out}

for tool in git ssh-keygen go; do
  command -v "$tool" >/dev/null || { echo "demo: $tool is needed (apt-get install git openssh-client; Go from go.dev)" >&2; exit 1; }
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

tick() { # tick TASK: ticks the task's box in tasks.md and commits it with the work
  sed -i "s/^- \[ \] $1 /- [x] $1 /" "$repo/specs/001-greeting/tasks.md"
  git -C "$repo" add -A && git -C "$repo" commit -qm "$1 done"
}

# gotest PHASE TASK: runs the repository's tests as `go test -json`, keeping the report (a red
# run fails: its exit code is the report's to tell).
gotest() {
  local report="$out/$2-$1.json"
  printf '$ go test -json ./... > %s\n' "$report"
  (cd "$repo" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go test -count=1 -json ./... > "$report") || true
}
# greet_code BODY [DECLS]: writes cmd/greet/main.go, whose greeting(name) runs BODY.
greet_code() {
  mkdir -p "$repo/cmd/greet"
  cat > "$repo/cmd/greet/main.go" <<EOF
// Command greet greets a person by name.
package main

import (
	"fmt"
	"os"
)
${2:-}
func greeting(name string) string {
	$1
}

func main() {
	name := ""
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	fmt.Println(greeting(name))
}
EOF
}

step "Three tasks pass their tests; each tick is attested and signed"
printf 'module example.invalid/greet\n\ngo 1.22\n' > "$repo/go.mod"
greet_code 'return ""'
tick T001
run tp attest tick --signer ssh --key "$out/id_ed25519" --verdict regression_only \
  --regression-reason planning_work

# T002: the acceptance test fails on an assertion (red); the greeting makes it pass (green).
cat > "$repo/cmd/greet/main_test.go" <<'EOF'
package main

import "testing"

func TestGreetAda(t *testing.T) {
	if got := greeting("Ada"); got != "Hello, Ada!" {
		t.Errorf("got %q, want %q", got, "Hello, Ada!")
	}
}
EOF
gotest red T002
greet_code 'return "Hello, " + name + "!"'
gotest green T002
tick T002
run tp attest tick --signer ssh --key "$out/id_ed25519" \
  --test-report red="$out/T002-red.json" --test-report green="$out/T002-green.json"

# T003: the new test names DefaultName, which does not exist yet (red: a missing symbol).
cat >> "$repo/cmd/greet/main_test.go" <<'EOF'

func TestGreetDefault(t *testing.T) {
	if got := greeting(""); got != "Hello, "+DefaultName+"!" {
		t.Errorf("got %q", got)
	}
}
EOF
gotest red T003
greet_code 'if name == "" {
		name = DefaultName
	}
	return "Hello, " + name + "!"' '
// DefaultName is who is greeted when no name is given.
const DefaultName = "world"
'
gotest green T003
tick T003
run tp attest tick --signer ssh --key "$out/id_ed25519" \
  --test-report red="$out/T003-red.json" --test-report green="$out/T003-green.json"
echo "# what the reports gave T003's statements (red kind, collected test file, verdict, report urls):"
tp attest show HEAD | grep -E '"(url|kind|path|state|verdict)":'
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

# ---- Second act: two clones share notes through a bare remote; one rebases and carries ----
remote=$out/remote.git alice=$out/alice bob=$out/bob
tpa() { "$bin" -C "$alice" "$@"; }
tpb() { "$bin" -C "$bob" "$@"; }

step "Act 2: a bare remote, and two clones (alice, bob), each with 'taskproof init'"
git init -q --bare -b main "$remote"
git clone -q "$remote" "$alice" 2>/dev/null
cp -R "$root/testdata/demo/specs" "$root/testdata/demo/speccoder.toml" "$alice/"
git -C "$alice" add -A && git -C "$alice" commit -qm "spec: 001-greeting" && git -C "$alice" push -q origin main
git clone -q "$remote" "$bob"
run tpa init
run tpb init
for who in alice bob; do ssh-keygen -q -t ed25519 -N '' -C "$who@example.invalid" -f "$out/$who.key"; done
{ for who in alice bob; do printf '%s@example.invalid namespaces="in-toto" %s\n' "$who" "$(cat "$out/$who.key.pub")"; done; } > "$out/team_signers"

step "alice ticks and attests T001 and T002 on a branch, pushes it and her notes"
git -C "$alice" switch -q -c 002-team
for t in T001 T002; do
  sed -i "s/^- \[ \] $t /- [x] $t /" "$alice/specs/001-greeting/tasks.md"
  git -C "$alice" commit -qam "$t done"
  run tpa attest tick --signer ssh --key "$out/alice.key" --verdict regression_only --regression-reason planning_work
done
git -C "$alice" push -q origin 002-team
run tpa notes push

step "bob fetches (git fetch mirrors the notes into refs/notes/remotes/origin/speccoder), merges them, and the gate passes"
run git -C "$bob" fetch -q
git -C "$bob" switch -q 002-team
run tpb notes fetch
expect 0 tpb verify --branch --base origin/main --allowed-signers "$out/team_signers"

step "main moves on; alice rebases her branch onto it (init made git copy the notes)"
printf 'news\n' > "$bob/NEWS"
git -C "$bob" switch -q main && git -C "$bob" add NEWS && git -C "$bob" commit -qm "news" && git -C "$bob" push -q origin main
run git -C "$alice" pull -q --rebase origin main
echo "the copied statements name the old commits:"
expect 1 tpa verify --branch --base origin/main --allowed-signers "$out/team_signers"

step "alice re-attests the rebased branch in one command, pairing commits by the tasks they tick"
run tpa attest carry ORIG_HEAD~2..ORIG_HEAD HEAD~2..HEAD --allowed-signers "$out/team_signers" \
  --signer ssh --key "$out/alice.key"
expect 0 tpa verify --branch --base origin/main --allowed-signers "$out/team_signers"
run git -C "$alice" push -q --force-with-lease origin 002-team
run tpa notes push

step "bob fetches the rebased branch and the notes: the gate passes for him too"
run git -C "$bob" fetch -q
git -C "$bob" switch -q 002-team && git -C "$bob" reset -q --hard origin/002-team
run tpb notes fetch
expect 0 tpb verify --branch --base origin/main --allowed-signers "$out/team_signers"

step "Act 2 done: the clones are $alice and $bob, the remote $remote"
