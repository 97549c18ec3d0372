// Package strictjson is the one JSON decoder taskproof reads untrusted bytes
// with, and the canonical JSON encoder its hashes and signatures are over
// (docs/format.md#canonical-json).
//
// [Decode] refuses what encoding/json would silently accept: duplicate keys,
// case-variant spellings of known keys (a [KnownKeys] table per format),
// invalid UTF-8, unpaired surrogates and nesting beyond [MaxDepth]. Envelopes,
// Statements, predicates and Sigstore bundles are all checked by it, so that
// the rules cannot drift apart between formats. [Canonical] writes a decoded
// tree back as canonical JSON.
package strictjson
