package trust

import (
	"crypto/x509"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/noteline"
)

// identityPattern is a certificate identity regular expression as the
// verifier gave it and as taskproof applies it (docs/format.md#sigstore-certificates):
// the whole identity must match, so the pattern is applied as ^(?:given)$.
type identityPattern struct {
	given, applied string
	re             *regexp.Regexp
}

// compileIdentityPattern compiles given on its own first, then anchored.
// Compiled only anchored, a pattern that does not parse alone can close the
// group the anchoring opened: `A)|(.*B` is applied as `^(?:A)|(.*B)$`, whose
// second branch matches any identity ending in B. Errors match
// [ErrSigstoreOptions].
func compileIdentityPattern(given string) (*identityPattern, error) {
	if _, err := regexp.Compile(given); err != nil {
		return nil, fmt.Errorf("%w: certificate identity regular expression %s does not parse on its own: %v", ErrSigstoreOptions, quotePattern(given), err)
	}
	applied := "^(?:" + given + ")$"
	re, err := regexp.Compile(applied)
	if err != nil {
		// A pattern that parses alone and not inside the group (an unclosed
		// \Q quotes the anchoring's closing characters) means something else
		// anchored than alone.
		return nil, fmt.Errorf("%w: certificate identity regular expression %s does not parse anchored as %s: %v", ErrSigstoreOptions, quotePattern(given), quotePattern(applied), err)
	}
	return &identityPattern{given: given, applied: applied, re: re}, nil
}

// String names the pattern as given and as applied, for reports.
func (p *identityPattern) String() string {
	return fmt.Sprintf("regular expression %s (applied as %s)", quotePattern(p.given), quotePattern(p.applied))
}

// quotePattern writes a pattern between back quotes, as written (a
// backslash stays one backslash), or as a Go string literal when back quotes
// cannot hold it (a back quote or a character Printable escapes in it).
func quotePattern(s string) string {
	if strings.Contains(s, "`") || printable.String(s) != s {
		return strconv.Quote(s)
	}
	return "`" + s + "`"
}

// checkCodeSigningLeaf checks that a bundle's certificate has the profile of
// a Fulcio code-signing certificate (docs/format.md#sigstore-certificates): an
// end-entity certificate (not a CA, may not sign certificates or CRLs) whose
// key usage includes digitalSignature and whose extended key usage includes
// codeSigning. sigstore-go checks the chain and the extended key usage but
// neither of the others: a CA certificate issued under a trusted Fulcio root,
// or a certificate for key agreement only, would otherwise sign statements.
func checkCodeSigningLeaf(leaf *x509.Certificate) error {
	switch {
	case leaf.BasicConstraintsValid && leaf.IsCA:
		return fmt.Errorf("is a CA certificate (basicConstraints CA:TRUE), not a code-signing leaf")
	case leaf.KeyUsage&(x509.KeyUsageCertSign|x509.KeyUsageCRLSign) != 0:
		return fmt.Errorf("may sign certificates or CRLs (keyUsage keyCertSign/cRLSign), not a code-signing leaf")
	case leaf.KeyUsage&x509.KeyUsageDigitalSignature == 0:
		return fmt.Errorf("lacks the digitalSignature key usage a code-signing certificate has")
	case !slices.Contains(leaf.ExtKeyUsage, x509.ExtKeyUsageCodeSigning):
		return fmt.Errorf("lacks the codeSigning extended key usage")
	}
	return nil
}

// verifiedTlogIndex is the log index of the bundle's first transparency log
// entry that verifies against the trusted material on its own (a log the
// root names, its signed entry timestamp or inclusion proof, and the entry
// matching the bundle's signature, key and payload), or nil when none does.
// sigstore-go skips the entries of logs the root does not name and reports
// no index, so the first entry is not necessarily the one that counted.
//
// threshold is the number of entries sigstore-go already required to verify:
// with one entry and a threshold of at least one, that entry is the one.
func verifiedTlogIndex(b *noteline.Bundle, material root.TrustedMaterial, threshold int) *int64 {
	entries, err := b.Parsed.TlogEntries()
	if err != nil || len(entries) == 0 {
		return nil
	}
	if len(entries) == 1 && threshold >= 1 {
		i := entries[0].LogIndex()
		return &i
	}
	for _, e := range entries {
		if _, err := sgverify.VerifyTlogEntry(oneTlogEntry{b.Parsed, e}, material, 1, true); err == nil {
			i := e.LogIndex()
			return &i
		}
	}
	return nil
}

// oneTlogEntry is a bundle seen with one of its transparency log entries.
type oneTlogEntry struct {
	sgverify.SignedEntity
	entry *tlog.Entry
}

func (o oneTlogEntry) TlogEntries() ([]*tlog.Entry, error) { return []*tlog.Entry{o.entry}, nil }
