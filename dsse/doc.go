// Package dsse is taskproof's DSSE v1 envelope codec
// (docs/format.md#signatures-dsse-v1): the [Envelope] and its signatures ([Signature]),
// the pre-authentication encoding ([Envelope.PAE]) every signature covers,
// strict decoding of untrusted envelope bytes ([DecodeEnvelope]: no duplicate
// or case-variant keys, valid UTF-8, the limits of docs/format.md#limits),
// the base64 rules ([DecodeBase64]: standard or URL-safe, padded or not,
// nothing else) and the wire form ([Envelope.MarshalJSON]).
//
// Every decoding failure matches [ErrMalformed]; an envelope of another
// payloadType matches [ErrPayloadType] as well. Signing lives in package
// signer, reading note lines in package noteline, verifying signatures in
// package verify.
package dsse
