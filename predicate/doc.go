// Package predicate is speccoder's task-verification predicate
// (https://speccoder.dev/task-verification/v0, revision 3) as Go types, with
// the JSON machinery taskproof signs and verifies it with
// (docs/format.md#statements, docs/format.md#canonical-json,
// docs/format.md#hash-recipes):
//
//   - [Decode]: a predicate from untrusted bytes, read by taskproof's one
//     strict JSON decoder (internal/strictjson) with the predicate's known keys
//     ([KnownKeys]): duplicate keys at any depth, case-variant spellings of
//     known keys, invalid UTF-8, unpaired surrogate escapes and excessive
//     nesting are refused; every error is a [*DecodeError] naming the key path
//     and matches [ErrMalformed]. Numbers are kept as written ([json.Number]).
//   - [Predicate.Canonical]: the canonical JSON encoding signed bytes use
//     (docs/format.md#canonical-json): keys sorted by byte order at every
//     level, no insignificant whitespace, strings escaped as serde_json does,
//     numbers as written.
//   - [Validate]: validation against the published JSON Schema, embedded.
//   - [Predicate] and its parts: typed fields that keep unknown members and keep
//     null distinct from absent, so decode→encode gives back the same canonical
//     bytes; [Predicate.Read] gives the revision-aware view (docs/format.md#hash-recipes).
//   - The hash recipes of docs/format.md#hash-recipes: [LineHash], [SectionHash], [NewRed] (the red
//     excerpt and its withholding rules), [OutputSHA256], [PolicySHA256].
//   - [Build]: a revision 3 predicate from a tick's or decision's facts and the
//     evidence object.
//
// The package has no git in it and does no I/O.
package predicate
