package gatemodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/benchrepo"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/notesref"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/tick"
)

// modelKeys are the two keys the random histories are attested with: the
// verifier's allowed signers trust the first only.
type modelKeys struct {
	trusted, untrusted signer.Signer
	allowed            string
}

var (
	keysOnce sync.Once
	keys     modelKeys
	keysDir  string
)

func loadKeys(t *testing.T) modelKeys {
	keysOnce.Do(func() {
		var err error
		if keysDir, err = os.MkdirTemp("", "taskproof-model-keys-"); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{"trusted", "untrusted"} {
			if err := os.Mkdir(filepath.Join(keysDir, d), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		_, keys.trusted, keys.allowed = benchrepo.SSHKey(t, filepath.Join(keysDir, "trusted"))
		_, keys.untrusted, _ = benchrepo.SSHKey(t, filepath.Join(keysDir, "untrusted"))
	})
	if keys.trusted == nil {
		t.Fatal("the model's keys could not be made")
	}
	return keys
}

func TestMain(m *testing.M) {
	code := m.Run()
	if keysDir != "" {
		os.RemoveAll(keysDir)
	}
	os.Exit(code)
}

// modelSeeds is how many random histories TestModel builds: a few hundred,
// TASKPROOF_MODEL_SEEDS (`make model`) for more, from TASKPROOF_MODEL_FIRST.
func modelSeeds(t *testing.T) (first, n uint64) {
	first, n = 1, 300
	if testing.Short() {
		n = 40
	}
	for _, v := range []struct {
		env string
		to  *uint64
	}{{"TASKPROOF_MODEL_FIRST", &first}, {"TASKPROOF_MODEL_SEEDS", &n}} {
		if s := os.Getenv(v.env); s != "" {
			x, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				t.Fatalf("%s=%q: %v", v.env, s, err)
			}
			*v.to = x
		}
	}
	return first, n
}

// TestModel is the differential test of docs/format.md#the-gates-model: on
// random histories, whenever the real binary's gate passes, the reference
// finds every tick head's lines come from evidenced; every fourth history is
// honest (every tick attested with the trusted key, no line edited after its
// tick) and must pass both; every eighth is honest but for its Kiro parents,
// never attested, and its sub-tasks, moved between parents checked or open
// (their credit through their descendants decides it); and the gate is never
// stricter than the reference, but in the cases docs/format.md lists.
func TestModel(t *testing.T) {
	bin := testenv.Binary(t)
	k := loadKeys(t)
	first, n := modelSeeds(t)
	for seed := first; seed < first+n; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			checkSeed(t, bin, k, seed)
		})
	}
}

// checkSeed builds the history of one seed, attests it, and compares the
// gate's verdict with the reference's.
func checkSeed(t *testing.T, bin string, k modelKeys, seed uint64) {
	g := &gen{rnd: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), honest: seed%4 == 0 || seed%8 == 2, kiroParents: seed%8 == 2}
	base, head := g.build()
	dir := filepath.Join(t.TempDir(), "repo")
	if keep := os.Getenv("TASKPROOF_MODEL_KEEP"); keep != "" {
		// A history to look at after the test: its repository stays.
		dir = filepath.Join(keep, fmt.Sprintf("seed-%d", seed))
		os.RemoveAll(dir)
	}
	g.write(t, dir, g.main, head)
	attestHistory(t, dir, g, k)
	gate, gateOut := runGate(t, bin, dir, k.allowed, base.id, head.id)
	ref := newReference(t, dir, []string{k.trusted.KeyID()}).verdict(base.id, head.id)
	what := func() string {
		return fmt.Sprintf("seed %d (honest %v), base %d, head %d:\n  %s\nreference: %v\ngate (exit %d):\n%s",
			seed, g.honest, base.n, head.n, strings.Join(g.log, "\n  "), ref, gate, gateOut)
	}
	if os.Getenv("TASKPROOF_MODEL_LOG") != "" {
		t.Logf("%s", what())
	}
	switch {
	case gate == 0 && len(ref) > 0:
		t.Errorf("the gate passes what the model fails: %s", what())
	case g.honest && !g.kiroParents && (gate != 0 || len(ref) > 0):
		t.Errorf("an honest history fails: %s", what())
	case gate != 0 && len(ref) == 0:
		t.Errorf("the gate fails what the model passes: %s", what())
	}
}

// attestHistory attests the ticks of every commit of the history (as `attest
// tick` finds them: against the first parent): an honest history's all with
// the trusted key, another's each with the trusted key, the untrusted one or
// none at random.
func attestHistory(t *testing.T, dir string, g *gen, k modelKeys) {
	repo, err := gitref.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	notes, err := repo.Notes(notesref.Default)
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 5, 1, 9, 30, 0, 0, time.UTC)
	attested := false
	for _, c := range g.commits {
		ticks, err := tick.OfCommit(repo, gitref.Hash(c.id), nil)
		if err != nil {
			t.Fatal(err)
		}
		type group struct {
			unit string
			key  signer.Signer
		}
		groups := map[group][]string{}
		for _, tk := range ticks {
			if tk.Kind != tick.KindTick && tk.Kind != tick.KindBornTicked {
				continue
			}
			// A Kiro parent is attested less often than other tasks: Kiro
			// ticks it with its last sub-task and attests the sub-task, so
			// its credit through its descendants is what decides it.
			kiroParent := strings.HasPrefix(tk.Path, ".kiro/") && !strings.Contains(tk.TaskID, ".")
			trusted := 0.55
			if kiroParent {
				trusted = 0.2
			}
			var s signer.Signer
			switch r := g.rnd.Float64(); {
			case g.kiroParents && kiroParent:
				continue
			case g.honest || r < trusted:
				s = k.trusted
			case r < trusted+0.15:
				s = k.untrusted
			default:
				continue
			}
			gk := group{tk.Unit.Dir, s}
			groups[gk] = append(groups[gk], tk.TaskID)
		}
		var gks []group
		for gk := range groups {
			gks = append(gks, gk)
		}
		sort.Slice(gks, func(i, j int) bool {
			return gks[i].unit+gks[i].key.KeyID() < gks[j].unit+gks[j].key.KeyID()
		})
		for _, gk := range gks {
			req := attest.TickRequest{Commit: gitref.Hash(c.id), Tasks: groups[gk], Unit: gk.unit, Verdict: predicate.RegressionOnly,
				Regression: map[string]any{"reason": "planning_work"}, Signers: []signer.Signer{gk.key}, Time: when, Force: true}
			if _, err := attest.Tick(context.Background(), repo, notes, req); err != nil {
				t.Fatalf("attest tick %s (%d) %v: %v", c.id, c.n, groups[gk], err)
			}
			attested = true
		}
	}
	if !attested {
		// The notes ref exists (its absence is its own error): another tool's note.
		testenv.Git(t, dir, "notes", "--ref", "refs/notes/speccoder", "add", "-m", "not a statement", g.commits[0].id)
	}
}

// runGate runs `verify --branch` with the real binary and returns its exit
// code (0 or 1; anything else fails the test) and its JSON report.
func runGate(t *testing.T, bin, dir, allowed, base, head string) (int, string) {
	cmd := exec.Command(bin, "verify", "--branch", "--base", base, "--allowed-signers", allowed, "--format", "json", head)
	cmd.Dir, cmd.Env = dir, testenv.GitEnv()
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	if code != 0 && code != 1 {
		t.Fatalf("verify --branch exit %d: %s\n%s", code, out, ee.Stderr)
	}
	var rep struct {
		Ticks []struct {
			Commit  string `json:"commit"`
			Path    string `json:"path"`
			TaskID  string `json:"task_id"`
			Status  string `json:"status"`
			Reason  string `json:"reason"`
			Failing bool   `json:"failing"`
		} `json:"ticks"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("verify --format json: %v\n%s", err, out)
	}
	var lines []string
	for _, tk := range rep.Ticks {
		lines = append(lines, fmt.Sprintf("  %.10s %s %s %s/%s failing=%v", tk.Commit, tk.Path, tk.TaskID, tk.Status, tk.Reason, tk.Failing))
	}
	return code, strings.Join(lines, "\n")
}
