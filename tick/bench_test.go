package tick_test

import (
	"path/filepath"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/benchrepo"
	"github.com/taskproof/taskproof/tick"
)

// BenchmarkWalk walks a generated history of 10,000 tick commits (20 spec-kit
// units of 500 tasks, one box ticked per commit: benchrepo.NewHistory), the
// tick walk `verify --branch` and `ticks` start with, from a freshly opened
// repository each op. It reports cpu-s/op (process CPU: the walk runs on all
// cores) beside ns/op.
//
//	go test -run '^$' -bench Walk -benchtime 5x -benchmem ./tick/
func BenchmarkWalk(b *testing.B) {
	h := benchrepo.NewHistory(b, filepath.Join(b.TempDir(), "repo"), 20, 500)
	want := len(h.Ticks)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchrepo.ReportCPU(b)
	for b.Loop() {
		r, err := gitref.Open(h.Dir)
		if err != nil {
			b.Fatal(err)
		}
		ticks, err := tick.Range(r, "", gitref.Hash(h.Head), tick.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(ticks) != want {
			b.Fatalf("%d ticks, want %d", len(ticks), want)
		}
		r.Close()
	}
	cpu()
}
