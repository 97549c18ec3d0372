// Package notescmd is `taskproof notes`: push and fetch the attestation
// notes (merged line by line when both sides moved) and list or resolve the
// conflicting statements a merge set aside.
package notescmd
