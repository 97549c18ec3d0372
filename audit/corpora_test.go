package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/audit"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/tick"
)

// corpusReasons are cycled through the corpora's tick commits: verified, then
// each regression reason of revision 3 with its details.
var corpusReasons = []string{"", "no_story", "no_scenarios:story=US1", "acceptance_off", "author_wrote_none",
	"author_failed:detail=no file in the answer", "already_passing:implemented_by=T001@abc1234", "already_passing",
	"not_red:red_class=timeout", "tests_not_collected", "planning_work"}

// TestCorpora attests every tick commit of the three corpora in-process
// (attest.Tick, cycling through the reasons), then runs the real binary's
// `audit --all`: its totals equal the ticks and born-ticked tasks tick.Range
// finds (what `taskproof ticks` lists), all of them evidenced; and the HTML report renders in headless
// Chromium with both charts visible.
func TestCorpora(t *testing.T) {
	bin := testenv.Binary(t)
	for _, name := range []string{"speckit-youbencha", "openspec-agent-validator", "kiro-task-orchestrator-maxspec"} {
		t.Run(name, func(t *testing.T) {
			dir := testenv.CloneBundle(t, name)
			repo, err := gitref.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer repo.Close()
			notes, err := repo.Notes("")
			if err != nil {
				t.Fatal(err)
			}
			head, err := repo.Resolve("HEAD")
			if err != nil {
				t.Fatal(err)
			}
			all, err := tick.Range(repo, "", head, tick.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var commits []gitref.Hash
			nticks := 0
			byCommit := map[gitref.Hash][]tick.Tick{}
			for _, tk := range all {
				if tk.Kind != tick.KindTick && tk.Kind != tick.KindBornTicked {
					continue
				}
				nticks++
				if byCommit[tk.Commit] == nil {
					commits = append(commits, tk.Commit)
				}
				byCommit[tk.Commit] = append(byCommit[tk.Commit], tk)
			}
			if nticks == 0 {
				t.Fatal("corpus has no ticks")
			}
			base := time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC)
			unevidenced := 0
			for i, c := range commits {
				if ticks := byCommit[c]; len(ticks) > 30 {
					// A tick writes two or more note lines per task (docs/format.md#statements); a
					// commit ticking many tasks at once gets attested decisions
					// (one line each), at most 64 (docs/format.md#limits), the rest none.
					for j, tk := range ticks {
						if j >= noteline.MaxNoteLines {
							unevidenced++
							continue
						}
						if _, err := attest.Decide(context.Background(), repo, notes, attest.DecideRequest{Commit: c, Task: tk.TaskID,
							UnitDir: tk.Unit.Dir, Verdict: predicate.Attested, By: "lead@example.invalid", Reason: "bulk tick",
							Time: base.Add(time.Duration(i) * 26 * time.Hour)}); err != nil {
							t.Fatalf("attest decide %s %s: %v", c, tk.TaskID, err)
						}
					}
					continue
				}
				req := attest.TickRequest{Commit: c, Verdict: predicate.Verified, Time: base.Add(time.Duration(i) * 26 * time.Hour)}
				if r := corpusReasons[i%len(corpusReasons)]; r != "" {
					req.Verdict = predicate.RegressionOnly
					if req.Regression, err = attest.ParseRegressionReason(r); err != nil {
						t.Fatal(err)
					}
					if r == "tests_not_collected" {
						req.Evidence = []byte(collectionEvidence)
					}
				}
				if _, err := attest.Tick(context.Background(), repo, notes, req); err != nil {
					// Corpus data attest refuses (a tasks file with a duplicate
					// task ID): these ticks stay without evidence, and audit must
					// still count them.
					t.Logf("attest tick %s: %v (its %d ticks stay without evidence)", c, err, len(byCommit[c]))
					unevidenced += len(byCommit[c])
				}
			}

			out := runBinary(t, bin, dir, "audit", "--all", "--format", "json")
			var rep audit.Report
			if err := json.Unmarshal(out, &rep); err != nil {
				t.Fatalf("audit json: %v", err)
			}
			if rep.Totals.Ticks != nticks || rep.Totals.Evidenced != nticks-unevidenced || rep.Totals.WithoutEvidence != unevidenced {
				t.Errorf("audit totals = %+v, want %d ticks, %d without evidence", rep.Totals, nticks, unevidenced)
			}
			sum := 0
			for _, n := range rep.Verdicts {
				sum += n
			}
			if sum != rep.Totals.Statements || rep.Totals.Statements < len(commits) {
				t.Errorf("verdicts sum %d, statements %d, tick commits %d", sum, rep.Totals.Statements, len(commits))
			}
			if len(rep.Problems) != 0 {
				t.Errorf("problems: %+v", rep.Problems)
			}

			html := runBinary(t, bin, dir, "audit", "--all", "--format", "html")
			checkScreenshot(t, html, &rep, name)
		})
	}
}

func runBinary(t *testing.T, bin, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-C", dir}, args...)...)
	cmd.Env = testenv.GitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("taskproof %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// chromium returns the headless browser, skipping when there is none (.ci/run
// installs Debian's chromium for this test).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not installed: skipping the HTML screenshot check (apt-get install chromium; .ci/run does)")
	return ""
}

// checkScreenshot renders html in headless Chromium and checks both charts
// drew: in each chart's region (audit.ChartRects of rep) at least 1% of the
// pixels are not white and at least 200 have a bar colour.
// With $TASKPROOF_SCREENSHOT_DIR set, the page and its screenshot are kept
// there as NAME.html and NAME.png, for a person to look at.
func checkScreenshot(t *testing.T, html []byte, rep *audit.Report, name string) {
	t.Helper()
	browser := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "audit.html")
	if err := os.WriteFile(page, html, 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--screenshot="+shot,
		"--window-size=1200,1600", "--force-device-scale-factor=1", "--hide-scrollbars",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	if keep := os.Getenv("TASKPROOF_SCREENSHOT_DIR"); keep != "" {
		for src, dst := range map[string]string{page: name + ".html", shot: name + ".png"} {
			b, err := os.ReadFile(src)
			if err == nil {
				err = os.WriteFile(filepath.Join(keep, dst), b, 0o644)
			}
			if err != nil {
				t.Errorf("keeping %s: %v", dst, err)
			}
		}
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	var palette []color.RGBA
	for _, hex := range append(append([]string{}, audit.ReasonColors...), audit.VerdictColors...) {
		n, _ := strconv.ParseUint(hex[1:], 16, 32)
		palette = append(palette, color.RGBA{uint8(n >> 16), uint8(n >> 8), uint8(n), 255})
	}
	reasons, trend := audit.ChartRects(rep)
	for name, r := range map[string]image.Rectangle{"reasons chart": reasons, "trend chart": trend} {
		r = r.Intersect(img.Bounds())
		if r.Empty() {
			t.Errorf("%s is outside the %v screenshot", name, img.Bounds())
			continue
		}
		nonWhite, bars := 0, 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				cr, cg, cb, _ := img.At(x, y).RGBA()
				c := color.RGBA{uint8(cr >> 8), uint8(cg >> 8), uint8(cb >> 8), 255}
				if c.R < 245 || c.G < 245 || c.B < 245 {
					nonWhite++
				}
				for _, p := range palette {
					if near(c, p) {
						bars++
						break
					}
				}
			}
		}
		if nonWhite*100 < r.Dx()*r.Dy() || bars < 200 {
			t.Errorf("%s looks blank: %d non-white pixels of %d, %d in bar colours", name, nonWhite, r.Dx()*r.Dy(), bars)
		} else {
			t.Logf("%s: %d non-white pixels of %d, %d in bar colours", name, nonWhite, r.Dx()*r.Dy(), bars)
		}
	}
}

func near(a, b color.RGBA) bool {
	d := func(x, y uint8) int {
		if x > y {
			return int(x - y)
		}
		return int(y - x)
	}
	return d(a.R, b.R) <= 6 && d(a.G, b.G) <= 6 && d(a.B, b.B) <= 6
}
