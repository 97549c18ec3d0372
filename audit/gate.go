package audit

import (
	"fmt"
	"math"
	"strings"

	"github.com/taskproof/taskproof/predicate"
)

// GateOptions configure the soft gate of `audit --fail-on` and `--max-share`.
type GateOptions struct {
	// FailOn are the reasons gated; empty gates every regression_only statement.
	FailOn []predicate.Reason
	// MaxShare, when not nil, is the largest share (0–1) of the report's
	// statements the gated regression_only statements may make up. When nil and
	// FailOn is set, any gated statement fails. When both are unset, Gate never
	// fails.
	MaxShare *float64
}

// GateResult is the soft gate's verdict.
type GateResult struct {
	// Failed: the gate is exceeded (the CLI exits 1).
	Failed bool `json:"failed"`
	// FailOn echoes the gated reasons (empty: all).
	FailOn []string `json:"fail_on"`
	// MaxShare echoes the limit (null: none).
	MaxShare *float64 `json:"max_share"`
	// Gated is the number of regression_only statements with a gated reason.
	Gated int `json:"gated"`
	// Share is Gated / Totals.Statements (0 when there are none).
	Share float64 `json:"share"`
	// Message says why it failed, or what was checked.
	Message string `json:"message"`
}

// Validate refuses a MaxShare outside [0, 1] (or NaN) and unknown reasons;
// errors match ErrOptions.
func (o GateOptions) Validate() error {
	if o.MaxShare != nil && (math.IsNaN(*o.MaxShare) || *o.MaxShare < 0 || *o.MaxShare > 1) {
		return fmt.Errorf("%w: max share %v: want a share between 0 and 1 (0.2 is 20%%)", ErrOptions, *o.MaxShare)
	}
	known := map[predicate.Reason]bool{}
	for _, r := range allReasons {
		known[r] = true
	}
	for _, r := range o.FailOn {
		if !known[r] {
			return fmt.Errorf("%w: gated reasons: unknown reason %q", ErrOptions, r)
		}
	}
	return nil
}

// Active reports whether the options gate anything.
func (o GateOptions) Active() bool { return len(o.FailOn) > 0 || o.MaxShare != nil }

// Gate judges rep against opts: the gated statements are the regression_only
// ones whose reason is in opts.FailOn (all of them when FailOn is empty); the
// gate fails when their share of all statements exceeds MaxShare, or, without
// MaxShare, when FailOn is set and any is gated. Call Validate first.
func Gate(rep *Report, opts GateOptions) GateResult {
	gated := map[string]bool{}
	res := GateResult{FailOn: []string{}, MaxShare: opts.MaxShare}
	for _, r := range opts.FailOn {
		gated[string(r)] = true
		res.FailOn = append(res.FailOn, string(r))
	}
	for _, r := range rep.Ticks {
		if r.Regression != nil && (len(gated) == 0 || gated[r.Regression.Reason]) {
			res.Gated++
		}
	}
	if n := rep.Totals.Statements; n > 0 {
		res.Share = float64(res.Gated) / float64(n)
	}
	what := "regression_only statements"
	if len(res.FailOn) > 0 {
		what = "regression_only statements with reason " + strings.Join(res.FailOn, ", ")
	}
	switch {
	case opts.MaxShare != nil:
		res.Failed = res.Share > *opts.MaxShare
		cmp := "within"
		if res.Failed {
			cmp = "exceeds"
		}
		res.Message = fmt.Sprintf("%d %s of %d: share %.3f %s --max-share %.3f", res.Gated, what, rep.Totals.Statements, res.Share, cmp, *opts.MaxShare)
	case len(res.FailOn) > 0:
		res.Failed = res.Gated > 0
		res.Message = fmt.Sprintf("%d %s (--fail-on allows none)", res.Gated, what)
	default:
		res.Message = "no gate"
	}
	return res
}
