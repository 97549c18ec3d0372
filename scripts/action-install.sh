#!/usr/bin/env bash
# Installs taskproof for the GitHub Action's later steps (action.yml runs it once):
#
#   action-install.sh install  writes the step output `bin`, the path of the taskproof to run:
#     - $TASKPROOF_BIN when set (a binary the workflow built or installed beforehand);
#     - else, with $TASKPROOF_VERSION a release tag (vX.Y.Z), that release's binary for this OS
#       and architecture, downloaded now and checked against the release's SHA-256 file;
#     - else (the default) a binary built now from $GITHUB_ACTION_PATH — the files of the ref
#       that `uses: taskproof/taskproof@REF` pins — with the Go on the PATH (go.mod's go line:
#       1.26 or newer).
#   Either way the binary is written into a new directory of this job's own ($RUNNER_TEMP, which
#   the runner empties between jobs) and never taken from a place an earlier job could have
#   written (the tool cache outlives jobs on a self-hosted runner; a cache is restored from what
#   some job saved): the gate runs what this job built or downloaded and checked. Go's build cache
#   makes the build after the first one a link (docs/ci.md "Install").
#
# Building needs the modules of go.sum: from the module proxy, or offline from a module cache that
# holds them (GOPROXY=off works then). Exit 5 when no binary can be had, 2 for a bad version.
set -euo pipefail
set -f

# shellcheck source=scripts/action-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/action-lib.sh"

action_path=${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}

if command -v sha256sum >/dev/null 2>&1; then sha256=(sha256sum); else sha256=(shasum -a 256); fi

# source_digest is the SHA-256 over the Action's files (path and content of each, in byte order
# of the paths), without a .git directory or a bin/ a local build left.
source_digest() {
  (cd "$action_path" && find . -type f ! -path './.git/*' ! -path './bin/*' -print0 | LC_ALL=C sort -z |
    xargs -0 "${sha256[@]}" | "${sha256[@]}" | cut -d' ' -f1)
}

go_version() {
  if command -v go >/dev/null 2>&1; then go env GOVERSION 2>/dev/null || echo go-unknown; else echo no-go; fi
}

os_arch() {
  local os arch
  os=$(uname -s | tr '[:upper:]' '[:lower:]')
  case $(uname -m) in x86_64|amd64) arch=amd64 ;; aarch64|arm64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
  printf '%s_%s' "$os" "$arch"
}

# job_dir prints a new, empty directory of this job's own.
job_dir() {
  local d
  d=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/taskproof-$1-XXXXXX") || fail 5 "cannot make a directory under \$RUNNER_TEMP"
  printf '%s' "$d"
}

# release_binary VERSION sets BIN to the release's binary.
release_binary() {
  local version=$1 dir url
  case $version in
    v[0-9]*) ;;
    *) fail 2 "version $version: want a release tag such as v0.1.0, or leave it empty to build the Action's own files" ;;
  esac
  case $version in
    *[!A-Za-z0-9.+-]*) fail 2 "version $version: a release tag holds letters, digits, '.', '+' and '-' only" ;;
  esac
  command -v curl >/dev/null 2>&1 || fail 5 "version $version: curl is needed to download the release binary"
  dir=$(job_dir release)
  url="https://github.com/taskproof/taskproof/releases/download/$version/taskproof_$(os_arch)"
  if ! quiet curl -fsSL --retry 2 -o "$dir/taskproof" "$url" || ! quiet curl -fsSL --retry 2 -o "$dir/taskproof.sha256" "$url.sha256"; then
    fail 5 "no release binary at $url (leave version empty to build the Action's own files)"
  fi
  [ "$(cut -d' ' -f1 "$dir/taskproof.sha256")" = "$("${sha256[@]}" < "$dir/taskproof" | cut -d' ' -f1)" ] ||
    fail 5 "checksum mismatch for $url"
  chmod +x "$dir/taskproof"
  BIN=$dir/taskproof
}

# built_binary sets BIN to a binary built now from the Action's files.
built_binary() {
  local digest dir version ref
  command -v go >/dev/null 2>&1 ||
    fail 5 "Go is needed to build taskproof from the Action's files (go 1.26 or newer): add actions/setup-go with go-version: '1.26' before this step, or set version to a release tag"
  digest=$(source_digest)
  dir=$(job_dir build)
  ref=${TASKPROOF_ACTION_REF:-}
  case $ref in ''|*[!A-Za-z0-9._/+-]*) ref=devel ;; esac
  version="$ref+src.${digest:0:12}"
  log "building taskproof $version from $action_path with $(go_version) (source digest $digest)"
  # The Action's own module settings, whatever the workflow's: go.sum decides the modules
  # (read-only), no go.work of the caller's, no cgo (a static binary).
  if ! (cd "$action_path" && CGO_ENABLED=0 GOFLAGS=-mod=readonly GOWORK=off \
      quiet go build -trimpath -ldflags "-X github.com/taskproof/taskproof/attest.linkVersion=$version" -o "$dir/taskproof" ./cmd/taskproof); then
    fail 5 "building taskproof from $action_path failed (see the log above): it needs Go 1.26 or newer and its modules, from the module proxy or a module cache"
  fi
  BIN=$dir/taskproof
}

install() {
  BIN=
  if [ -n "${TASKPROOF_BIN:-}" ]; then
    [ -x "$TASKPROOF_BIN" ] || fail 5 "TASKPROOF_BIN=$TASKPROOF_BIN is not an executable file"
    BIN=$TASKPROOF_BIN
  elif [ -n "${TASKPROOF_VERSION:-}" ]; then
    release_binary "$TASKPROOF_VERSION"
  else
    built_binary
  fi
  log "taskproof: $BIN ($("$BIN" --version 2>&1 | head -n 1))"
  set_output bin "$BIN"
}

case ${1:-} in
  install) install ;;
  *) log "usage: action-install.sh install"; exit 2 ;;
esac
