#!/usr/bin/env bash
# scripts/report-diff.sh OLD_BIN NEW_BIN — the behaviour check of a refactoring or an
# optimisation (docs/benchmarks.md): attest every tick commit of the shared corpora ($TASKPROOF_SHARED/corpora, default ../shared) with OLD_BIN
# (SSH key, regression_only), then run verify --branch / audit --all / ticks in every output
# format with both binaries on the same repositories and compare the bytes (the verifier's
# version string normalised). Prints IDENTICAL or the diffs; exit 0 identical, 1 different.
# The attested clones are cached in $REPORT_DIFF_DIR (default /tmp/report-diff-$USER) keyed
# by the OLD binary's checksum, so a second run only re-runs the reports.
set -euo pipefail
OLD=$(readlink -f "$1"); NEW=$(readlink -f "$2")
SHARED=${TASKPROOF_SHARED:-$(cd "$(dirname "$0")/.." && pwd)/../shared}
ROOT=${REPORT_DIFF_DIR:-/tmp/report-diff-$(id -un)}
sum=$(sha256sum "$OLD" | cut -c1-12)
W=$ROOT/$sum
AT=2026-12-01T00:00:00Z
corpora="speckit-youbencha openspec-agent-validator kiro-task-orchestrator-maxspec kiro-task-orchestrator"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com \
  GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com GIT_AUTHOR_DATE=2026-01-01T00:00:00Z \
  GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
prepare() {
  mkdir -p "$W.tmp"
  ssh-keygen -q -t ed25519 -N '' -C tester -f "$W.tmp/key"
  echo "tester@example.com namespaces=\"in-toto\" $(cat "$W.tmp/key.pub")" > "$W.tmp/allowed_signers"
  for c in $corpora; do
    b=$SHARED/corpora/$c.bundle; [ -f "$b" ] || continue
    git clone -q "$b" "$W.tmp/$c"
    ( cd "$W.tmp/$c"
      for commit in $("$OLD" ticks --format json HEAD | python3 -c '
import json,sys
seen=[]
for t in json.load(sys.stdin)["ticks"]:
    if t["kind"]=="tick" and t["commit"] not in seen: seen.append(t["commit"])
print("\n".join(seen))'); do
        "$OLD" attest tick --commit "$commit" --verdict regression_only --regression-reason planning_work \
          --key "$W.tmp/key" --signer ssh >/dev/null 2>&1 || echo "  (attest $c $commit: exit $?)" >&2
      done )
  done
  mv "$W.tmp" "$W"
}
[ -d "$W" ] || { rm -rf "$W.tmp"; echo "attesting the corpora with $OLD into $W (once)…" >&2; prepare; }
# one BIN ARGS… > OUT: stdout to OUT, stderr and the exit code to OUT.err
one() { local out=$1 rc=0; shift; (cd "$d" && "$@") >"$out" 2>"$out.err" || rc=$?; echo "exit $rc" >>"$out.err"; }
run() { # BIN OUTDIR
  local bin=$1 out=$2; mkdir -p "$out"
  for c in $corpora; do
    [ -d "$W/$c" ] || continue
    local d=$W/$c root; root=$(git -C "$d" rev-list --max-parents=0 HEAD | tail -1)
    for f in json text sarif junit github; do
      one "$out/$c.verify.$f" "$bin" verify --branch --base "$root" --allowed-signers "$W/allowed_signers" --at $AT --format $f
    done
    for f in json text csv markdown; do
      one "$out/$c.audit.$f" "$bin" audit --all --allowed-signers "$W/allowed_signers" --at $AT --format $f
    done
    for f in json text; do
      one "$out/$c.ticks.$f" "$bin" ticks --format $f HEAD
      one "$out/$c.ticks-fp.$f" "$bin" ticks --first-parent --format $f HEAD
    done
    one "$out/$c.objects.json" "$bin" verify HEAD~3 HEAD --allowed-signers "$W/allowed_signers" --at $AT --format json
  done
  # the verifier's own version differs between builds by design
  sed -i -E 's/("version": ?")[^"]*(")/\1X\2/g; s/taskproof [0-9a-zA-Z._+-]*(dirty|dev|base)[0-9a-zA-Z._+-]*/taskproof X/g' "$out"/* 
}
O=$(mktemp -d); N=$(mktemp -d)
run "$OLD" "$O"; run "$NEW" "$N"
if diff -r "$O" "$N" >/tmp/report-diff.$$ ; then echo IDENTICAL; rm -rf "$O" "$N" /tmp/report-diff.$$; exit 0; fi
echo "DIFFERENT (old $O, new $N):"; head -c 6000 /tmp/report-diff.$$; exit 1
