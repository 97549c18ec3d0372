// Package attestcmd is `taskproof attest` and its commands: tick, decide,
// sign, show and carry, the writers of task-verification attestations. Each
// reads its flags into a request, calls package attest (and signer for the
// keys) and writes what was written, as text or JSON.
package attestcmd
