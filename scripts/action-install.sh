#!/usr/bin/env bash
# Installs taskproof for the GitHub Action's later steps (action.yml runs it twice):
#
#   action-install.sh plan     writes the step outputs `key` and `dir`: the cache key and directory
#                              of a binary built from the Action's own files (the digest of every
#                              file under $GITHUB_ACTION_PATH, the Go version, OS and architecture);
#   action-install.sh install  writes the step output `bin`, the path of the taskproof to run:
#     - $TASKPROOF_BIN when set (a binary built beforehand, e.g. by the workflow);
#     - else, with $TASKPROOF_VERSION a release tag (vX.Y.Z), that release's binary for this OS
#       and architecture, checked against the release's SHA-256 file;
#     - else (the default) the binary built from $GITHUB_ACTION_PATH — the files of the ref that
#       `uses: taskproof/taskproof@REF` pins — with the Go on the PATH (go.mod's go line: 1.26 or
#       newer), reusing the one in `dir` when a cache restored it for the same digest.
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

build_dir() {
  printf '%s/taskproof/%s-%s' "${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}}" "$(os_arch)" "${1:0:24}"
}

plan() {
  local digest key
  digest=$(source_digest)
  key="taskproof-$(os_arch)-$(go_version)-$digest"
  set_output key "$key"
  set_output dir "$(build_dir "$digest")"
  set_output digest "$digest"
  log "source digest $digest"
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
  dir=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/taskproof-release-$version
  mkdir -p "$dir"
  url="https://github.com/taskproof/taskproof/releases/download/$version/taskproof_$(os_arch)"
  if ! quiet curl -fsSL --retry 2 -o "$dir/taskproof" "$url" || ! quiet curl -fsSL --retry 2 -o "$dir/taskproof.sha256" "$url.sha256"; then
    fail 5 "no release binary at $url (leave version empty to build the Action's own files)"
  fi
  [ "$(cut -d' ' -f1 "$dir/taskproof.sha256")" = "$("${sha256[@]}" < "$dir/taskproof" | cut -d' ' -f1)" ] ||
    fail 5 "checksum mismatch for $url"
  chmod +x "$dir/taskproof"
  BIN=$dir/taskproof
}

# built_binary sets BIN to the binary built from the Action's files.
built_binary() {
  local digest dir version ref
  digest=$(source_digest)
  dir=$(build_dir "$digest")
  if [ -x "$dir/taskproof" ] && [ "$(cat "$dir/taskproof.digest" 2>/dev/null || true)" = "$digest" ] && "$dir/taskproof" --version >/dev/null 2>&1; then
    log "using the taskproof built earlier from these files ($dir)"
    BIN=$dir/taskproof
    return
  fi
  command -v go >/dev/null 2>&1 ||
    fail 5 "Go is needed to build taskproof from the Action's files (go 1.26 or newer): add actions/setup-go with go-version: '1.26' before this step, or set version to a release tag"
  ref=${TASKPROOF_ACTION_REF:-}
  case $ref in ''|*[!A-Za-z0-9._/+-]*) ref=devel ;; esac
  version="$ref+src.${digest:0:12}"
  mkdir -p "$dir"
  log "building taskproof $version from $action_path with $(go_version)"
  # The Action's own module settings, whatever the workflow's: go.sum decides the modules
  # (read-only), no go.work of the caller's, no cgo (a static binary).
  if ! (cd "$action_path" && CGO_ENABLED=0 GOFLAGS=-mod=readonly GOWORK=off \
      quiet go build -trimpath -ldflags "-X github.com/taskproof/taskproof/attest.linkVersion=$version" -o "$dir/taskproof.new" ./cmd/taskproof); then
    fail 5 "building taskproof from $action_path failed (see the log above): it needs Go 1.26 or newer and its modules, from the module proxy or a module cache"
  fi
  mv -f "$dir/taskproof.new" "$dir/taskproof"
  printf '%s\n' "$digest" > "$dir/taskproof.digest"
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
  plan) plan ;;
  install) install ;;
  *) log "usage: action-install.sh plan|install"; exit 2 ;;
esac
