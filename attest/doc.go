// Package attest builds, signs and decodes taskproof's attestations: in-toto
// Statements carrying the task-verification/v0 predicate, wrapped in DSSE v1
// envelopes (docs/format.md#statements, docs/format.md#signatures-dsse-v1) and
// written as git notes (docs/format.md#storage).
//
// Envelopes (envelope.go): [DecodeEnvelope] reads untrusted envelope bytes
// strictly (no duplicate or case-variant keys, valid UTF-8, the limits of
// docs/format.md#limits, standard or URL-safe base64 with or without padding);
// [Envelope.MarshalJSON] writes the docs/format.md#signatures-dsse-v1 form.
// Every decoding failure matches [ErrMalformed].
//
// Note lines (line.go): [DecodeLine] reads one note line as every reader
// should — a DSSE envelope, a Sigstore bundle holding one, another tool's
// (foreign) line, a blank or a malformed one (docs/format.md#note-lines).
//
// Signers (signer*.go): a [Signer] signs the DSSE pre-authentication encoding
// (PAE) of a payload in-process, never by running ssh-keygen or gpg. Three
// kinds exist, as docs/format.md#signatures-dsse-v1 lists them: SSH
// ([NewSSHSigner], [NewSSHAgentSigner]), OpenPGP ([NewOpenPGPSigner]) and raw
// PEM keys ([NewRawSigner]); [LoadSigner] picks one by kind. [Sign] wraps a
// canonical Statement into a signed envelope.
//
// Signature verification against the verifier's trust lives in package verify.
package attest
