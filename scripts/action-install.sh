#!/usr/bin/env bash
# install_bin, sourced by the Action's scripts (action-verify.sh, action-attest.sh): prints the
# path of a taskproof binary — $TASKPROOF_BIN if set (tests, pre-built binaries), else a release
# binary for $version (checksum checked), else `go install …/cmd/taskproof@$version` when
# $go_install is true. Exits 5 when none can be had. The caller sets version, go_install and log.

install_bin() {
  if [ -n "${TASKPROOF_BIN:-}" ]; then
    [ -x "$TASKPROOF_BIN" ] || { log "TASKPROOF_BIN=$TASKPROOF_BIN is not executable"; exit 5; }
    printf '%s\n' "$TASKPROOF_BIN"; return
  fi
  local dir=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/taskproof-bin
  mkdir -p "$dir"
  local os arch
  os=$(uname -s | tr '[:upper:]' '[:lower:]')
  case $(uname -m) in x86_64|amd64) arch=amd64 ;; aarch64|arm64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
  if [ "$version" != latest ] && command -v curl >/dev/null; then
    local url="https://github.com/taskproof/taskproof/releases/download/${version}/taskproof_${os}_${arch}"
    if curl -fsSL --retry 2 -o "$dir/taskproof" "$url" && \
       curl -fsSL --retry 2 -o "$dir/taskproof.sha256" "$url.sha256"; then
      (cd "$dir" && echo "$(cut -d' ' -f1 taskproof.sha256)  taskproof" | sha256sum -c --quiet -) || {
        log "checksum mismatch for $url"; exit 5; }
      chmod +x "$dir/taskproof"; printf '%s\n' "$dir/taskproof"; return
    fi
    log "no release binary at $url"
  fi
  if [ "$go_install" = true ] && command -v go >/dev/null; then
    log "go install github.com/taskproof/taskproof/cmd/taskproof@$version"
    GOBIN=$dir go install "github.com/taskproof/taskproof/cmd/taskproof@$version" >&2
    printf '%s\n' "$dir/taskproof"; return
  fi
  log "cannot install taskproof $version (no release binary, and go-install is off or Go is missing)"
  exit 5
}
