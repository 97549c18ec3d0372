package lineage_test

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/benchrepo"
	"github.com/taskproof/taskproof/lineage"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/tick"
)

// BenchmarkMerges is the model's cost on a history of pull-request merges
// (benchrepo.NewMergeHistory: N side branches of one tick each, merged into
// main): the tick walk indexed by lineage, the merges compared with their
// other parents, and every task head holds checked traced to its origin
// (each line passes every merge after its tick). It reports cpu-s/op.
//
//	go test -run '^$' -bench Merges -benchtime 1x ./lineage/
func BenchmarkMerges(b *testing.B) {
	for _, merges := range []int{1000, 5000} {
		b.Run(strconv.Itoa(merges), func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "repo")
			root, head := benchrepo.NewMergeHistory(b, dir, merges)
			b.ResetTimer()
			cpu := benchrepo.ReportCPU(b)
			for b.Loop() {
				r, err := gitref.Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				lin := walk(b, r, root, head)
				files, err := tick.TasksFiles(r, gitref.Hash(head), nil)
				if err != nil {
					b.Fatal(err)
				}
				traced := 0
				for _, f := range files {
					tf, err := specfmt.ParseTasks(f.Unit, f.Content)
					if err != nil {
						b.Fatal(err)
					}
					for _, t := range tf.Tasks {
						if !t.Ticked() {
							continue
						}
						res, err := lin.Trace(gitref.Hash(head), lineage.Task{Path: f.Path, ID: t.ID, Nth: 1})
						if err != nil {
							b.Fatal(err)
						}
						if len(res.Origins) != 1 || len(res.Entries) != 0 {
							b.Fatalf("%s %s: %+v, want one origin", f.Path, t.ID, res)
						}
						traced++
					}
				}
				if traced != merges {
					b.Fatalf("%d lines traced, want %d", traced, merges)
				}
				r.Close()
			}
			cpu()
		})
	}
}
