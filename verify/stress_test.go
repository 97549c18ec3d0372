package verify_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/taskproof/taskproof/gate"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/benchrepo"
	"github.com/taskproof/taskproof/verify"
)

// stressUnits × stressTasks is the stress test's history: a few thousand
// ticks, enough for many batches of the tick walk and several windows of the
// gate's object checks.
const (
	stressUnits = 6
	stressTasks = 500
)

// TestGateStress runs the merge gate (gate.BranchSpooled, as `verify
// --branch` runs it) over a generated history of stressUnits×stressTasks
// SSH-signed ticks at GOMAXPROCS 1, 2 and 8, twice at 8, each time on a newly
// opened repository, and checks that every JSON report is byte for byte the
// first. Run with -race (make race): the tick walk's workers, the gate's
// object checks and the repository's pool of readers share state across
// goroutines.
func TestGateStress(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a history of thousands of ticks")
	}
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	if err := os.Mkdir(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	_, signer, allowed := benchrepo.SSHKey(t, keys)
	h := benchrepo.NewHistory(t, filepath.Join(dir, "repo"), stressUnits, stressTasks)
	h.WriteSignedNotes(t, signer)
	g := &gateBench{h: h, allowed: allowed}
	at := benchrepo.Epoch.Add(time.Duration(len(h.Ticks)+1) * time.Second)
	var first []byte
	for k, procs := range []int{1, 2, 8, 8} {
		prev := runtime.GOMAXPROCS(procs)
		out := gateJSON(t, g, at)
		runtime.GOMAXPROCS(prev)
		if k == 0 {
			if n := bytes.Count(out, []byte(`"status": "evidenced"`)); n != len(h.Ticks) {
				t.Fatalf("GOMAXPROCS=%d: %d ticks evidenced, want %d", procs, n, len(h.Ticks))
			}
			first = out
			continue
		}
		if !bytes.Equal(out, first) {
			t.Fatalf("GOMAXPROCS=%d: the report differs from GOMAXPROCS=1's at byte %s", procs, firstDiff(out, first))
		}
	}
}

// gateJSON is the gate's JSON report over g's whole history, judged at at.
func gateJSON(t *testing.T, g *gateBench, at time.Time) []byte {
	t.Helper()
	v := g.verifier(t, gitref.Access{OnePass: true})
	v.At = at
	rep, err := gate.BranchSpooled(v, gitref.Hash(g.h.Root), gitref.Hash(g.h.Head), verify.GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close()
	var buf bytes.Buffer
	if err := verify.WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	v.Repo.Close()
	return buf.Bytes()
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("%d: %q against %q", i, a[lo:min(len(a), i+80)], b[lo:min(len(b), i+80)])
}
