#!/bin/sh
# bench-baseline.sh — the baseline of `make bench`'s merge gate comparison
# (docs/benchmarks.md, "The gate beside a shell script"): what a merge gate written
# with the git CLI and `ssh-keygen -Y verify` does, one commit at a time.
#
#   scripts/bench-baseline.sh REPO BASE HEAD ALLOWED_SIGNERS PRINCIPAL
#
# For each commit of BASE..HEAD (git rev-list): `git notes --ref speccoder show C`;
# for every envelope line of the note: extract payload and signature (sed),
# base64-decode them, rebuild the DSSE PAE bytes
# ("DSSEv1 <len(type)> <type> <len(payload)> <payload>") and run
# `ssh-keygen -Y verify -n in-toto -f ALLOWED_SIGNERS -I PRINCIPAL -s SIG < PAE`;
# then `git rev-parse C^{tree}` compared with the task-verification
# statement's "tree". Prints "baseline: N commits, M signatures verified, F failures"
# and exits 1 when anything failed.
#
# It does less than `taskproof verify --branch`: no tick detection (every commit
# of the range is taken to be a tick with a note), no strict JSON decoding or
# schema validation, no line_hash, section hash or policy hash, no statement
# subject check, one signature per envelope, principal given rather than found.
#
# Requires: a POSIX shell, git, ssh-keygen (OpenSSH ≥ 8.1), base64 (coreutils
# `base64 -d`), sed, wc, mktemp. No jq or python.
set -eu

if [ $# -ne 5 ]; then
	echo "usage: $0 REPO BASE HEAD ALLOWED_SIGNERS PRINCIPAL" >&2
	exit 2
fi
repo=$1 base=$2 head=$3 allowed=$4 principal=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
type=application/vnd.in-toto+json

commits=0 sigs=0 failures=0
git -C "$repo" rev-list "$base..$head" >"$tmp/commits"
while read -r c; do
	commits=$((commits + 1))
	if ! git -C "$repo" notes --ref speccoder show "$c" >"$tmp/note" 2>/dev/null; then
		echo "baseline: $c: no note" >&2
		failures=$((failures + 1))
		continue
	fi
	tree=""
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		printf '%s' "$line" | sed -n 's/.*"payload":"\([^"]*\)".*/\1/p' | base64 -d >"$tmp/payload"
		printf '%s' "$line" | sed -n 's/.*"sig":"\([^"]*\)".*/\1/p' | base64 -d >"$tmp/sig"
		n=$(wc -c <"$tmp/payload" | tr -d ' ')
		{
			printf 'DSSEv1 %d %s %d ' ${#type} "$type" "$n"
			cat "$tmp/payload"
		} >"$tmp/pae"
		sigs=$((sigs + 1))
		if ! ssh-keygen -Y verify -n in-toto -f "$allowed" -I "$principal" -s "$tmp/sig" <"$tmp/pae" >/dev/null 2>&1; then
			echo "baseline: $c: bad signature" >&2
			failures=$((failures + 1))
		fi
		if t=$(sed -n 's/.*"tree":"\([0-9a-f]*\)".*/\1/p' "$tmp/payload") && [ -n "$t" ]; then
			tree=$t
		fi
	done <"$tmp/note"
	if [ "$(git -C "$repo" rev-parse "$c^{tree}")" != "$tree" ]; then
		echo "baseline: $c: tree mismatch" >&2
		failures=$((failures + 1))
	fi
done <"$tmp/commits"
echo "baseline: $commits commits, $sigs signatures verified, $failures failures"
[ "$failures" -eq 0 ]
