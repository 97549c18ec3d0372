// Package tickindex holds, in memory, what the passes after the judging
// read and change of a report's ticks while the ticks themselves are
// spooled to a temporary file (the merge gate over a long range): a tick's
// commit and line_hash as bytes, its unit, path, task ID, status, reason and
// verdict as indexes into tables of the distinct values, and the rare rest
// beside it, in about 90 bytes a tick. Package verify reads a spooled tick
// back whole with what the index changed.
package tickindex
