package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// CIOptions configure the CI report formats (WriteSARIF, WriteGitHub,
// WriteGitHubSummary, WriteJUnit).
type CIOptions struct {
	// ToolVersion is taskproof's version, written as SARIF's
	// tool.driver.version ("" writes "unknown").
	ToolVersion string
	// Gate are the options the report was made with. In objects mode they decide
	// which objects fail, as they decided the report's conclusion: an unsigned
	// object passes only with AllowUnsigned, and RequireVerified fails every
	// verdict but verified (rule "not_verified"). Branch mode reads each tick's
	// Failing instead.
	Gate verify.GateOptions
}

// ErrReport is returned (wrapped) by the report writers when the report cannot
// be written as given: a nil report or an unknown mode.
var ErrReport = errors.New("verify: cannot write report")

// SARIF constants (SARIF 2.1.0, as GitHub code scanning reads it).
const (
	SARIFSchema     = "https://json.schemastore.org/sarif-2.1.0.json"
	SARIFVersion    = "2.1.0"
	ToolName        = "taskproof"
	ToolInformation = "https://github.com/taskproof/taskproof"
	// SARIFFingerprintKey names the partialFingerprints entry GitHub code
	// scanning dedupes alerts by: unit dir, task ID (or object) and rule.
	SARIFFingerprintKey = "taskproofTask/v1"
)

// RuleNotVerified is the rule of an object whose verdict is not verified under
// --require-verified (branch mode reports it as ReasonNotVerified).
const RuleNotVerified = verify.ReasonNotVerified

// ciItem is one line of a CI report: a tick (branch mode), an untick, or an
// object (objects mode), flattened so the three formats say the same thing.
type ciItem struct {
	task     string      // subject name <feature>/<task id>; "" when unknown
	taskID   string      // task id; "" when unknown
	title    string      // the task's title; "" when unknown
	unitDir  string      // repo-relative unit dir; "" when unknown
	commit   gitref.Hash // the tick commit or the object
	path     string      // repo-relative tasks file; "" when unknown
	line     int         // 1-based line in path; 0 when unknown
	status   string      // tick status, or the object's outcome
	reason   string      // the tick's sub-reason
	rule     string      // rule id when failing
	failing  bool
	unticked bool
	reasons  []verify.Reason
	message  string
	sameTree gitref.Hash
	evidence gitref.Hash
	verdict  string
	policy   []policy.Result
	signers  []trust.Signer  // the credited signers (docs/format.md#checks-in-order "signers")
	hint     string          // how to fix it, when failing
	warnings []verify.Reason // reported at level warning, deciding nothing
}

// statusText is "status" or "status (reason)".
func (it *ciItem) statusText() string {
	if it.reason != "" && it.reason != it.status {
		return it.status + " (" + it.reason + ")"
	}
	return it.status
}

// taskText names the item's task (with its title when its ID is derived
// from it: taskLabel), or "-" when there is none.
func (it *ciItem) taskText() string {
	if it.task == "" {
		return "-"
	}
	return taskLabel(it.task, it.taskID, it.title)
}

// location is "path:line", "path", or "".
func (it *ciItem) location() string {
	switch {
	case it.path == "":
		return ""
	case it.line > 0:
		return fmt.Sprintf("%s:%d", it.path, it.line)
	}
	return it.path
}

// headline is one sentence naming task, commit, location and status.
func (it *ciItem) headline() string {
	var b strings.Builder
	if it.task == "" {
		fmt.Fprintf(&b, "commit %s", printable.Short(string(it.commit)))
	} else {
		fmt.Fprintf(&b, "%s at %s", it.taskText(), printable.Short(string(it.commit)))
	}
	if loc := it.location(); loc != "" {
		fmt.Fprintf(&b, " (%s)", loc)
	}
	fmt.Fprintf(&b, ": %s", it.statusText())
	return b.String()
}

// details are the lines below the headline: the message, the credited
// signers, same_tree_as, and one line per reason with its code, field, expected
// and found.
func (it *ciItem) details() []string {
	var out []string
	if it.message != "" {
		out = append(out, it.message)
	}
	if len(it.signers) > 0 {
		out = append(out, "signed by "+signersText(it.signers))
	}
	if it.sameTree != "" {
		out = append(out, "same_tree_as "+string(it.sameTree)+" holds the evidence")
	}
	for _, r := range it.reasons {
		out = append(out, reasonText(r))
	}
	for _, r := range it.policy {
		out = append(out, printable.String(policyText(r)))
	}
	if it.hint != "" {
		out = append(out, "fix: "+it.hint)
	}
	return out
}

// text is the headline and the details, one per line.
func (it *ciItem) text() string {
	return strings.Join(append([]string{it.headline()}, it.details()...), "\n")
}

// signersText lists signers as signerText writes them, comma-separated.
func signersText(ss []trust.Signer) string {
	parts := make([]string, 0, len(ss))
	for _, s := range ss {
		parts = append(parts, signerText(s))
	}
	return strings.Join(parts, ", ")
}

// sarifSigners are the credited signers as SARIF result properties: kind,
// keyid and principal always (principal "" when the trust names none);
// identity, issuer and tlogIndex for a Sigstore signer (tlogIndex absent when
// the bundle has no transparency log entry).
func sarifSigners(ss []trust.Signer) []map[string]any {
	out := make([]map[string]any, 0, len(ss))
	for _, s := range ss {
		m := map[string]any{"kind": string(s.Kind), "keyid": s.KeyID, "principal": s.Principal}
		if s.Identity != "" || s.Issuer != "" {
			m["identity"], m["issuer"] = s.Identity, s.Issuer
		}
		if s.TlogIndex != nil {
			m["tlogIndex"] = *s.TlogIndex
		}
		out = append(out, m)
	}
	return out
}

// reasonText is one reason as "code field: expected E, found F — message".
func reasonText(r verify.Reason) string {
	var b strings.Builder
	b.WriteString(r.Code)
	if r.Field != "" {
		b.WriteString(" " + r.Field)
	}
	if r.Expected != "" || r.Found != "" {
		fmt.Fprintf(&b, ": expected %s, found %s", printable.OrNone(r.Expected), printable.OrNone(r.Found))
	}
	if r.Message != "" {
		b.WriteString(" — " + r.Message)
	}
	return b.String()
}

// fingerprint identifies the item's alert across runs: the same task failing
// the same rule is the same alert, wherever its line moved (SARIF
// partialFingerprints). Items without a task are identified by their commit.
func (it *ciItem) fingerprint() string {
	id := it.unitDir + "\x00" + it.taskID
	if it.task == "" {
		id = "\x00" + string(it.commit)
	}
	sum := sha256.Sum256([]byte(id + "\x00" + it.rule))
	return hex.EncodeToString(sum[:])
}

// ciItems flattens the report: ticks then unticks (branch mode), or objects.
func ciItems(rep *verify.Report, opts CIOptions) ([]ciItem, error) {
	if rep == nil {
		return nil, fmt.Errorf("%w: no report", ErrReport)
	}
	var items []ciItem
	switch rep.Mode {
	case "branch":
		for t, err := range rep.AllTicks() {
			if err != nil {
				return nil, err
			}
			it := ciItem{task: t.Task, taskID: t.TaskID, title: t.Title, unitDir: t.Unit.Dir, commit: t.Commit, path: t.Path, line: t.Line,
				status: t.Status, reason: t.Reason, failing: t.Failing, reasons: t.Reasons, message: t.Message,
				sameTree: t.SameTreeAs, evidence: t.Evidence, verdict: t.Verdict, policy: t.Policy, signers: t.Signers, hint: t.Hint, warnings: t.Warnings}
			if it.failing {
				it.rule = t.Reason
				if t.Reason == verify.ReasonPolicy {
					it.rule = policyRule(t.Policy)
				}
				if it.rule == "" {
					it.rule = t.Status
				}
				if it.rule == "" {
					it.rule = verify.StatusUnverifiable
				}
			}
			items = append(items, it)
		}
		for _, t := range rep.Unticks {
			items = append(items, ciItem{task: t.Task, taskID: t.TaskID, title: t.Title, unitDir: t.Unit.Dir, commit: t.Commit, path: t.Path,
				line: t.Line, status: "unticked", unticked: true, message: t.Message})
		}
	case "objects":
		for i := range rep.Objects {
			o := &rep.Objects[i]
			it := ciItem{task: o.Task, taskID: o.TaskID, title: o.Title, commit: o.Object, status: string(o.Outcome), reasons: o.Reasons, verdict: o.Verdict, policy: o.Policy, signers: o.Signers, warnings: o.Warnings}
			if dir, ok := safeUnitDir(o.Unit); ok {
				it.unitDir, it.path = dir, o.Unit.TasksPath()
			}
			it.failing = verify.ObjectFails(o, opts.Gate)
			it.hint = o.Hint
			if it.failing {
				it.rule = string(o.Outcome)
				switch {
				case o.Outcome != verify.OK && !(o.Outcome == verify.Unsigned && opts.Gate.AllowUnsigned):
				case policy.Failing(o.Policy):
					it.rule, it.reason = policyRule(o.Policy), verify.ReasonPolicy
					it.message = "policy: " + verify.FailingPolicyRules(o.Policy)
				default:
					it.rule, it.reason = RuleNotVerified, RuleNotVerified
					it.message = "--require-verified: the verdict is " + printable.OrNone(o.Verdict)
				}
			}
			items = append(items, it)
		}
	default:
		return nil, fmt.Errorf("%w: unknown mode %q (want branch or objects)", ErrReport, rep.Mode)
	}
	// What the repository wrote reaches CI logs and annotations as text:
	// escaped once here, for every CI format.
	for i := range items {
		it := &items[i]
		it.task, it.taskID, it.title, it.unitDir, it.path = printable.String(it.task), printable.String(it.taskID), printable.String(it.title), printable.String(it.unitDir), printable.String(it.path)
		it.message, it.verdict, it.reasons, it.hint = printable.String(it.message), printable.String(it.verdict), printableReasons(it.reasons), printable.String(it.hint)
	}
	return items, nil
}

// safeUnitDir returns u.Dir when u is a unit taskproof recognises (the object's
// predicate says so, and it may be forged: only a clean path of a known layout
// is used as a location).
func safeUnitDir(u specfmt.Unit) (string, bool) {
	if u.Dir == "" {
		return "", false
	}
	got, ok := specfmt.UnitForTasksPath(u.TasksPath())
	if !ok || !got.Format.Kin(u.Format) || got.Dir != u.Dir || got.Feature != u.Feature {
		return "", false
	}
	return u.Dir, true
}

// ruleInfo describes one SARIF rule.
type ruleInfo struct {
	name, short, full string
}

// rules describe every status and reason code a failing tick or object can
// carry (docs/format.md#checks-in-order).
var rules = map[string]ruleInfo{
	verify.CodePolicySHA256Unverified:  {"PolicySHA256Unverified", "Another writer's policy hash cannot be recomputed", "The attestation was written by another tool (speccoder hashes its own version into policy_sha256): its judge-configuration hash differs from taskproof's recomputation and cannot decide the tick. The signature, subject, tree and task line verified (docs/format.md#policy_sha256-of-other-writers)."},
	verify.CodeSpecAbsent:              {"DecisionWithoutSpec", "A decision does not record the cited section", "An attested or skipped decision omits spec on a task that cites a spec section; spec belongs to ticks, so the decision is not stale (docs/format.md#decisions-without-spec)."},
	verify.CodeVSAMissing:              {"VerificationSummaryMissing", "The tick has no verification summary", "The tick's note holds no VSA; a missing VSA is reported, not failed."},
	verify.StatusStale:                 {"StaleTick", "The requirement the tick cites changed since the tick", "The spec section cited by the task's attestation (spec.section_hash) differs from the section now: the requirement changed after the task was ticked, so the evidence no longer covers it (docs/format.md#gate-rules)."},
	verify.StatusUnverifiable:          {"UnverifiableTick", "The tick cannot be verified", "The tick's evidence could not be verified (docs/format.md#gate-rules)."},
	verify.ReasonTickedWithoutEvidence: {"TickedWithoutEvidence", "A task was ticked with no attestation", "The task was ticked but no note under the notes ref holds a task-verification statement for it (docs/format.md#gate-rules)."},
	verify.ReasonCommitUnreachable:     {"CommitUnreachable", "The tick's evidence is on another commit", "An attestation for the task exists, but on a commit other than the tick commit (a rebase or squash rewrote it); same_tree_as names a commit with the same tree when there is one (docs/format.md#gate-rules)."},
	verify.ReasonEditedAfterTick:       {"EditedAfterTick", "A ticked task line was edited after its tick", "The task line changed after the commit that ticked it, so the attestation's line_hash no longer describes the task as it reads now (docs/format.md#gate-rules)."},
	verify.ReasonNotRegular:            {"TasksFileNotRegular", "A tasks file path is a symbolic link or a submodule", "A tasks file, or a directory on a unit layout's tasks-file path, is a symbolic link or a submodule at head or in a commit of the range: git diffs the link, not its target, so the ticks behind it cannot be seen (docs/format.md#tasks-files-are-regular-files)."},
	verify.ReasonUnrecognizedTasksFile: {"UnrecognizedTasksFile", "A box was ticked in a tasks file of no unit layout", "A file named tasks.md that no unit layout claims and the verifier's policy does not ignore has a ticked box: add its layout to the policy ([[units]]) or ignore its path ([unit_paths] ignore) (docs/format.md#tasks-files)."},
	verify.ReasonTasksFileMovedOut:     {"TasksFileMovedOut", "A unit's tasks file was moved where it is no tasks file", "A commit of the range moved a unit's tasks file (its tasks paired by the move rule) to a path no unit layout claims and the verifier's policy does not ignore, or removed one and added a Markdown file that cannot be read to tell: ticks there are invisible to the gate. Move it back under a layout, or ignore its path in the policy ([unit_paths] ignore) (docs/format.md#tasks-files)."},
	verify.ReasonNotVerified:           {"NotVerified", "The verdict is not verified", "--require-verified fails ticks whose verdict is regression_only or attested (docs/format.md#gate-rules)."},
	string(verify.Missing):             {"MissingAttestation", "The object's note holds no task-verification statement", "The commit has no note under the notes ref, or its note holds no task-verification statement (missing; docs/format.md#checks-in-order)."},
	string(verify.Malformed):           {"MalformedAttestation", "The attestation cannot be read", "The note, an envelope, the Statement or the predicate is malformed: limits, strict JSON, payloadType, Statement type or schema (malformed; docs/format.md#checks-in-order)."},
	string(verify.BadSignature):        {"BadSignature", "A signature does not verify", "A signature of the attestation does not verify against the key that claims it (bad_signature; docs/format.md#checks-in-order)."},
	string(verify.Mismatch):            {"AttestationMismatch", "The attestation does not describe the commit", "The attestation's subject, tree, task line hash, spec section hash or policy hash differs from what the verifier computed from the commit (mismatch; docs/format.md#checks-in-order)."},
	string(verify.UntrustedSigner):     {"UntrustedSigner", "No trusted key signed the attestation", "The attestation's signatures verify only with keys the verifier does not trust, or trusts only for other namespaces or outside their validity window (untrusted_signer; docs/format.md#checks-in-order)."},
	string(verify.Unsigned):            {"UnsignedAttestation", "The attestation is not signed", "An envelope of the attestation has no signature (docs/format.md#checks-in-order unsigned; --insecure-allow-unsigned accepts it)."},
}

// ruleFor describes rule id, with a generic description for an id this
// version does not know.
func ruleFor(id string) ruleInfo {
	if r, ok := rules[id]; ok {
		return r
	}
	if name, ok := strings.CutPrefix(id, verify.RulePolicyPrefix); ok {
		return ruleInfo{"Policy_" + strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '_'
		}, name), "Policy rule " + name + " is violated", "The tick passed every verification check, but the verifier's policy rule " + name + " (level error) refuses it, or the rule failed to evaluate."}
	}
	return ruleInfo{"Taskproof_" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, id), "Verification failed: " + id, "taskproof verify reported " + id + "."}
}

// SARIF 2.1.0 objects, as much of them as taskproof writes.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool       sarifTool      `json:"tool"`
		Results    []sarifResult  `json:"results"`
		Properties map[string]any `json:"properties,omitempty"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string       `json:"id"`
		Name                 string       `json:"name"`
		ShortDescription     sarifMessage `json:"shortDescription"`
		FullDescription      sarifMessage `json:"fullDescription"`
		Help                 sarifMessage `json:"help"`
		DefaultConfiguration struct {
			Level string `json:"level"`
		} `json:"defaultConfiguration"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             sarifMessage      `json:"message"`
		Locations           []sarifLocation   `json:"locations"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Properties          map[string]any    `json:"properties,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
)

// WriteSARIF writes the report as a SARIF 2.1.0 log for GitHub code scanning:
// one run of tool "taskproof", a rule per status or reason code the
// results use, and one result of level "error" per failing tick (branch mode)
// or failing object (objects mode), located at the tasks file and line (an
// object: at its unit's tasks.md, without a region; an object of no known unit:
// at the notes ref's name, since GitHub rejects results without a location).
// Errors wrap ErrReport for a nil report or unknown mode, or are w's.
func WriteSARIF(w io.Writer, rep *verify.Report, opts CIOptions) error {
	items, err := ciItems(rep, opts)
	if err != nil {
		return err
	}
	version := opts.ToolVersion
	if version == "" {
		version = "unknown"
	}
	run := sarifRun{
		Tool:    sarifTool{Driver: sarifDriver{Name: ToolName, Version: version, InformationURI: ToolInformation, Rules: []sarifRule{}}},
		Results: []sarifResult{},
		Properties: map[string]any{
			"mode": rep.Mode, "conclusion": rep.Conclusion, "notesRef": rep.NotesRef,
		},
	}
	if rep.Base != "" {
		run.Properties["base"] = string(rep.Base)
	}
	if rep.Head != "" {
		run.Properties["head"] = string(rep.Head)
	}
	// Rules: the ids the results use, sorted, so ruleIndex is stable.
	used := map[string]bool{}
	for _, it := range items {
		if it.failing {
			used[it.rule] = true
		}
		for _, w := range it.warnings {
			used[w.Code] = true
		}
	}
	ids := make([]string, 0, len(used))
	for id := range used {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	index := map[string]int{}
	for i, id := range ids {
		info := ruleFor(id)
		r := sarifRule{ID: id, Name: info.name, ShortDescription: sarifMessage{info.short},
			FullDescription: sarifMessage{info.full}, Help: sarifMessage{info.full}}
		r.DefaultConfiguration.Level = "error"
		if warningCodes[id] {
			r.DefaultConfiguration.Level = "warning"
		}
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, r)
		index[id] = i
	}
	run.Results = append(run.Results, sarifWarnings(rep, items, index)...)
	for _, it := range items {
		if !it.failing {
			continue
		}
		uri := it.path
		if uri == "" {
			uri = rep.NotesRef
		}
		if uri == "" {
			uri = "refs/notes/speccoder"
		}
		loc, props := sarifPlace(it, uri)
		if it.reason != "" {
			props["reason"] = it.reason
		}
		if it.evidence != "" {
			props["evidence"] = string(it.evidence)
		}
		if it.sameTree != "" {
			props["sameTreeAs"] = string(it.sameTree)
		}
		if len(it.reasons) > 0 {
			codes := make([]string, 0, len(it.reasons))
			for _, r := range it.reasons {
				codes = append(codes, r.Code)
			}
			props["reasonCodes"] = codes
		}
		if len(it.signers) > 0 {
			props["signers"] = sarifSigners(it.signers)
		}
		run.Results = append(run.Results, sarifResult{
			RuleID: it.rule, RuleIndex: index[it.rule], Level: "error",
			Message:             sarifMessage{it.text()},
			Locations:           []sarifLocation{loc},
			PartialFingerprints: map[string]string{SARIFFingerprintKey: it.fingerprint()},
			Properties:          props,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: SARIFSchema, Version: SARIFVersion, Runs: []sarifRun{run}})
}

// sarifURI writes a repo-relative path as a relative URI reference: each path
// element percent-encoded where RFC 3986 requires (spaces, '%', '#', '?'), and
// "./" before a first element holding ':' so it cannot read as a scheme.
func sarifURI(path string) string {
	return (&url.URL{Path: path}).String()
}

// sarifPlace is a result's location for item it (uri, with its tasks-file line
// when it has one) and the properties every result of it carries: commit,
// status and task.
func sarifPlace(it ciItem, uri string) (sarifLocation, map[string]any) {
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: sarifURI(uri)}}}
	if it.path != "" && it.line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: it.line}
	}
	props := map[string]any{"commit": string(it.commit), "status": it.status}
	if it.task != "" {
		props["task"] = it.task
	}
	if it.title != "" {
		props["title"] = it.title
	}
	return loc, props
}
