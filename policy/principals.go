package policy

import (
	"fmt"
	"sort"
	"strings"
)

// Who signed: the names a trusted signer is credited to, for the deciders
// (docs/format.md#deciders) and for [signers] count = "principals"
// (docs/format.md#signers-counted-by-principal).

// pgpMailbox is the address an OpenPGP user id names, as gpg reads it: the
// text between the one pair of angle brackets that ends it ("Alice
// <alice@example.com>"), or the whole user id when it is one address and
// nothing else (what `gpg --quick-gen-key alice@example.com` makes). ok is
// false for a user id that names no single address: no address, or more than
// one pair of angle brackets ("Mallory <m@evil> <alice@example.com>": gpg
// reads its first address, a reader of its end the last).
func pgpMailbox(uid string) (string, bool) {
	uid = strings.TrimSpace(uid)
	if strings.ContainsAny(uid, "<>") {
		i := strings.IndexByte(uid, '<')
		if strings.Count(uid, "<") != 1 || strings.Count(uid, ">") != 1 || !strings.HasSuffix(uid, ">") || i < 0 {
			return "", false
		}
		addr := uid[i+1 : len(uid)-1]
		return addr, addr != ""
	}
	if isMailbox(uid) {
		return uid, true
	}
	return "", false
}

// isMailbox is gpg's test of a bare user id as an address (is_valid_mailbox):
// one "@", neither first nor last, no "..", not ending in ".", and only the
// characters an address's local part and domain hold (no blank, no quote, no
// bracket).
func isMailbox(s string) bool {
	at := strings.IndexByte(s, '@')
	if at <= 0 || at == len(s)-1 || strings.Count(s, "@") != 1 || strings.Contains(s, "..") || strings.HasSuffix(s, ".") {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("@.!#$%&'*+-/=?^_`{|}~", r):
		default:
			return false
		}
	}
	return true
}

// principalNames are the names a signer is credited to, as a person: an SSH
// signer's principals, an OpenPGP signer's address (its whole primary user id
// when that names no address), a Sigstore signer's certificate identity; none
// for a raw key, which names no one. Lower case: two spellings of one address
// are one person.
func principalNames(s Signer) []string {
	var names []string
	switch s.Kind {
	case "ssh":
		names = strings.Split(s.Principal, ",")
	case "openpgp":
		if addr, ok := pgpMailbox(s.Principal); ok {
			names = []string{addr}
		} else {
			names = []string{s.Principal}
		}
	case "raw":
	default:
		names = []string{s.Principal}
	}
	var out []string
	for _, n := range names {
		if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// distinctPeople counts the people among signers: signers that share a key
// (Signer.Key, else kind and keyid) or a principal name are one, so one
// person's two keys count once, and so does one key trusted under two names.
// It also names each person (their principal names, joined by "/") and the
// signers that count as no one, as they name no principal.
func distinctPeople(signers []Signer) (people []string, unnamed []Signer) {
	parent := make([]int, len(signers))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	owner := map[string]int{}
	join := func(i int, name string) {
		if j, ok := owner[name]; ok {
			a, b := find(i), find(j)
			if a < b {
				a, b = b, a
			}
			parent[a] = b
		} else {
			owner[name] = i
		}
	}
	named := make([]bool, len(signers))
	for i, s := range signers {
		key := s.Key
		if key == "" {
			key = s.Kind + "\x00" + s.KeyID
		}
		join(i, "key\x00"+key)
		for _, n := range principalNames(s) {
			named[i] = true
			join(i, "principal\x00"+n)
		}
	}
	groups := map[int][]string{}
	var roots []int
	for i, s := range signers {
		r := find(i)
		if _, ok := groups[r]; !ok {
			groups[r] = nil
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], principalNames(s)...)
	}
	for _, r := range roots {
		// A person is a group with a name; a group of unnamed keys is no one.
		if len(groups[r]) == 0 {
			for i := range signers {
				if find(i) == r && !named[i] {
					unnamed = append(unnamed, signers[i])
				}
			}
			continue
		}
		seen := map[string]bool{}
		var ns []string
		for _, n := range groups[r] {
			if !seen[n] {
				seen[n] = true
				ns = append(ns, n)
			}
		}
		sort.Strings(ns)
		people = append(people, strings.Join(ns, "/"))
	}
	return people, unnamed
}

// principalsMessage says why count = "principals" is not met.
func principalsMessage(people []string, unnamed []Signer, min int) string {
	msg := fmt.Sprintf("%d distinct principal(s) signed with trusted keys, at least %d required", len(people), min)
	if len(people) > 0 {
		msg += fmt.Sprintf(" (%s)", strings.Join(quoteAll(people), ", "))
	}
	if len(unnamed) > 0 {
		var ks []string
		for _, s := range unnamed {
			ks = append(ks, s.Kind+" "+s.KeyID)
		}
		msg += fmt.Sprintf("; %s name(s) no principal and count as no one (a raw key is trusted as a key, not a person)", strings.Join(ks, ", "))
	}
	return msg
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}
