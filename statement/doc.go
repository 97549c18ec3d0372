// Package statement is the in-toto Statement as taskproof writes and reads it
// (docs/format.md#statements): the codec ([Encode], [Decode]), the
// predicateTypes of a tick's statements ([TestResultType], [VSAType] beside
// predicate.PredicateType) and subject names ([SubjectName]).
//
// It also says which note lines belong to which tick (docs/format.md#storage,
// docs/format.md#statements-belong-to-a-unit): [FromLine] reads the Statement
// a note line holds, [Owned] tells the predicateTypes taskproof owns for a
// subject, and [Keys] pairs each statement with the task line ([TaskKey]) of
// the tick that wrote it.
//
// Writers (attest) and readers (verify, audit) both import it; it imports
// only the codecs (dsse, noteline, predicate), so a reader never needs a
// writer to know what a Statement is.
package statement
