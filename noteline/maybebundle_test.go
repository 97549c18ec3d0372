package noteline

import "testing"

// mayBeBundleCases are note lines with what IsBundle says of them.
var mayBeBundleCases = []struct {
	name   string
	line   string
	bundle bool
}{
	{"dsse", `{"payload":"aGk/","payloadType":"application/vnd.in-toto+json","signatures":[]}`, false},
	{"bundle", `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","dsseEnvelope":{}}`, true},
	{"bundle escaped key", `{"m\u0065diaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`, true},
	{"bundle escaped value", `{"mediaType":"application/vnd.dev.sigstore.bundle\u002ev0.3+json"}`, true},
	{"broken bundle", `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json",`, true},
	{"other media type", `{"mediaType":"text/plain"}`, false},
	{"nested media type", `{"x":{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}}`, false},
	{"case variant key", `{"MediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`, false},
	{"not json", `mediaType`, false},
	{"empty", ``, false},
}

// TestMayBeBundle checks the shortcut never refuses a line IsBundle accepts,
// on lines of both kinds.
func TestMayBeBundle(t *testing.T) {
	for _, tt := range mayBeBundleCases {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsBundle([]byte(tt.line)); got != tt.bundle {
				t.Fatalf("IsBundle = %v, want %v (the table is out of date)", got, tt.bundle)
			}
			if tt.bundle && !mayBeBundle([]byte(tt.line)) {
				t.Errorf("mayBeBundle refuses a bundle line")
			}
		})
	}
	if mayBeBundle([]byte(mayBeBundleCases[0].line)) {
		t.Errorf("mayBeBundle accepts a DSSE line: no shortcut")
	}
}

// FuzzMayBeBundle: mayBeBundle is false only where IsBundle is false.
func FuzzMayBeBundle(f *testing.F) {
	for _, tt := range mayBeBundleCases {
		f.Add([]byte(tt.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !mayBeBundle(line) && IsBundle(line) {
			t.Fatalf("mayBeBundle refuses %q, which IsBundle takes for a bundle", line)
		}
	})
}
