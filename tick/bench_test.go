package tick_test

import (
	"path/filepath"
	"strconv"
	"strings"
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

// BenchmarkMovePairing walks one commit that renames N small spec-kit units
// (20 tasks each, half ticked) and rewords half of each file's tasks, no box
// changed (benchrepo.NewMoveHistory): every removed file shares its task IDs
// with every added one, so the walk pairs the moves by their tasks. It reports
// cpu-s/op beside ns/op, from a freshly opened repository each op; every unit
// must be paired with its own move.
//
//	go test -run '^$' -bench MovePairing -benchtime 3x -benchmem ./tick/
func BenchmarkMovePairing(b *testing.B) {
	for _, units := range []int{500, 1500} {
		b.Run(strconv.Itoa(units), func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "repo")
			base, head := benchrepo.NewMoveHistory(b, dir, units, 20)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := benchrepo.ReportCPU(b)
			for b.Loop() {
				r, err := gitref.Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				w, err := tick.Walk(r, gitref.Hash(base), gitref.Hash(head), tick.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if len(w.Moves) != units || len(w.Ticks) != 0 {
					b.Fatalf("%d moves and %d ticks, want %d moves and none", len(w.Moves), len(w.Ticks), units)
				}
				for _, m := range w.Moves {
					if strings.TrimSuffix(m.Path, "-moved/tasks.md") != strings.TrimSuffix(m.OldPath, "-u/tasks.md") {
						b.Fatalf("%s paired with %s", m.Path, m.OldPath)
					}
				}
				r.Close()
			}
			cpu()
		})
	}
}
