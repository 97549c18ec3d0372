package verify

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/trust"
)

// fixHints say how to fix a failing tick or object, one entry per status, tick
// sub-reason, outcome or reason code (docs/gate.md "When the gate fails"). A
// template's placeholders are filled per tick or object: {commit} the tick
// commit (or object), {task} its task ID, {path} its tasks file, {old} the
// commit holding its evidence (same_tree_as, else the evidence commit, else
// "OLD"), and, in a reason code's hint, {found} and {expected} of that reason.
// Values from the repository are shell-quoted where they land in a command.
// Codes without an entry get hintFallback. Entries for codes other parts of
// the gate report are welcome here: the table is the one place hints live.
var fixHints = map[string]string{
	// Tick statuses and sub-reasons (branch mode).
	StatusStale:                 "the requirement the task cites changed after the tick: check the task against it, then untick the task in one commit, tick it again in the next and attest the new tick (taskproof attest tick --task {task} --verdict verified …)",
	StatusEdited:                "the ticked task line was edited after its tick: untick the task in one commit, tick it again in the next and attest the new tick (taskproof attest tick --task {task} --verdict …)",
	ReasonEditedAfterTick:       "the ticked task line was edited after its tick: untick the task in one commit, tick it again in the next and attest the new tick (taskproof attest tick --task {task} --verdict …)",
	StatusUnverifiable:          "the tick's evidence does not verify: see the reasons",
	ReasonTickedWithoutEvidence: "attest the tick on its commit and share the notes: taskproof attest tick --commit {commit} --task {task} --verdict verified|regression_only … && taskproof notes push (attested in another clone? taskproof notes fetch)",
	ReasonCommitUnreachable:     "the evidence is on another commit: if the tick commit is a rewrite of it (a rebase, amend or squash), taskproof attest carry {old} {commit} --allowed-signers FILE && taskproof notes push; otherwise attest the tick on its commit (taskproof attest tick --commit {commit} --task {task} --verdict …)",
	HintSquashCarry:             "the tick commit is the squash merge of {range}, which holds the evidence: carry it here for every task of the squash in one command, taskproof attest carry {range} {commit} --allowed-signers FILE && taskproof notes push",
	HintCarry:                   "the tick commit is a rewrite of {old}, which holds the evidence: carry it here, taskproof attest carry {old} {commit} --allowed-signers FILE && taskproof notes push",
	ReasonNotVerified:           "--require-verified accepts only verified ticks: attest the task with --verdict verified and its red run (taskproof attest tick --commit {commit} --task {task} --verdict verified --red-output FILE …)",
	ReasonPolicy:                "the verifier's policy rejects the tick (rule below): attest the task so that the rule holds, or change the policy on the base branch",
	StatusRejected:              "the verifier's policy rejects the tick (rule below): attest the task so that the rule holds, or change the policy on the base branch",
	hintPolicyEvalError:         "a rule of the verifier's policy could not be evaluated on the statement (rule below), which fails the tick: the statement lacks a member the rule reads; guard such members with has() in the rule (its when, or require = \"!has(…) || …\"), on the base branch",
	StatusBornTicked:            "the task is ticked in a tasks file new in the range, with no evidence: attest it on the commit that ticks it (taskproof attest tick --commit {commit} --task {task} --verdict …), or allow born-ticked tasks for this path in the verifier's policy",
	"superseded":                "nothing to fix: a later tick of the line is judged instead",
	"tasks_file_not_regular":    "{path}, or a directory on its path, is a symlink or a submodule: commit the tasks file as a regular file at its own path",
	HintTwinProjects:            "{commit} ticks {task}'s line in two projects, which no statement can tell apart (attest tick refuses it): untick it in both in a new commit, then tick it in each project in a commit of its own and attest those two",
	HintMergeRechecks:           "{commit} is a merge that checks {task} again after one of its parents took it back, and its first parent has it checked, so attest tick finds no tick of it there: untick it in {path} in one commit, tick it again in the next and attest that tick (taskproof attest tick --task {task} --verdict …), or leave it as the parent that took it back has it",
	HintUntickedInRange:         "no commit of the range ticks {task}, so none can be attested for it: untick it in {path} in one commit, tick it again in the next and attest that tick (taskproof attest tick --task {task} --verdict …), or leave it open as the base has it",
	HintTickedInAnotherUnit:     "{task} was ticked in another unit's tasks file, moved over this unit's (the base has a unit's tasks file at {path}): a tick is evidence for its own unit only; untick it in {path} in one commit, tick it again in the next and attest that tick (taskproof attest tick --task {task} --verdict …), or leave it as the base has it",
	HintTasksFileUnreadable:     "{path} at head cannot be read as a tasks file (UTF-8 Markdown within the limits, docs/format.md#tasks-files and #limits): fix or remove it on the branch that changed it; if the range leaves it as the base has it, fix it on the base branch, or ignore its path ([unit_paths] ignore = [\"…\"]) in the verifier's policy there",
	"tasks_file_moved_out":      "a commit moved a unit's tasks file to {path}, where no unit layout claims it, so the ticks of its tasks cannot be judged: move it back to a unit's tasks-file path (or make its place a layout in the verifier's policy, [[units]], where a layout can name it), or ignore its path ([unit_paths] ignore = [\"…\"]) there to leave it unjudged",
	"unrecognized_tasks_file":   "{path} is a tasks file outside the known unit layouts: add its layout to the verifier's policy ([[units]] format = … tasks = \"…/tasks.md\") or ignore its path ([unit_paths] ignore = [\"…\"]), on the base branch",
	"trailer":                   "the commit's Spec-Task/Verdict trailers disagree with its statements: re-attest with the verdict the trailer names (taskproof attest tick --commit {commit} --task {task} --verdict …), or fix the trailers (git commit --amend) and carry the statements (taskproof attest carry OLD NEW)",

	// Outcomes (objects mode, and the sub-reason of an unverifiable tick);
	// untrusted_signer and unsigned are reason codes too.
	string(Missing):         "no statement for the task on {commit}: taskproof notes fetch (attested in another clone?), else taskproof attest tick --commit {commit} --task {task} --verdict … && taskproof notes push",
	string(Malformed):       "a note line or statement cannot be read: look at it (taskproof attest show {commit}) and re-attest the tick (taskproof attest tick --commit {commit} --task {task} --verdict …)",
	string(BadSignature):    "a signature does not verify over its statement (changed after signing?): re-attest the tick with your key (taskproof attest tick --commit {commit} --task {task} --verdict … --signer ssh --key KEY)",
	string(Mismatch):        "the statement does not describe this commit: see the reasons",
	hintExtraSigner:         "a key the verifier does not trust signed the statement too, besides {signers}, and every signature must verify against the trust: re-attest the tick signed with trusted keys only (taskproof attest tick --commit {commit} --task {task} --force --verdict … --signer ssh --key KEY), or, if that key is to be trusted, add it to the trust the gate reads, on the base branch",
	string(UntrustedSigner): "no key the verifier trusts signed the statement (for namespace in-toto, now): add the signer's public key to the trust the gate reads, on the base branch (an SSH key: a line PRINCIPAL namespaces=\"in-toto\" KEY of the allowed signers file; an OpenPGP key: the --keyring file; a raw key: a PEM file given as --key; Sigstore: --certificate-identity), or re-attest with a trusted key",
	string(Unsigned):        "sign the statements: taskproof attest sign --signer ssh --key KEY {commit} && taskproof notes push (or verify with --insecure-allow-unsigned)",

	// Reason codes.
	CodeNoteMalformed:          "the note is not text, is too large or has too many lines: look at it (git notes --ref=refs/notes/speccoder show {commit}), remove what does not belong and re-attest",
	CodeLineMalformed:          "a note line is not a DSSE envelope taskproof can read: look at it (taskproof attest show {commit}), remove the line (git notes --ref=refs/notes/speccoder edit {commit}) and re-attest",
	CodePayloadType:            "a note line's payloadType is not application/vnd.in-toto+json: remove the line (git notes --ref=refs/notes/speccoder edit {commit}) and re-attest",
	CodeStatement:              "a note line's payload is not an in-toto Statement v1: remove the line (git notes --ref=refs/notes/speccoder edit {commit}) and re-attest",
	CodeSignature:              "a signature does not verify over its statement (changed after signing?): re-attest the tick with your key (taskproof attest tick --commit {commit} --task {task} --verdict … --signer ssh --key KEY)",
	CodeSubjectCount:           "the statement has more than one subject: re-attest the tick (taskproof attest tick --commit {commit} --task {task} --verdict …)",
	CodeSubjectName:            "the subject name is not <feature>/<task id> of the predicate's unit and task: re-attest the tick (taskproof attest tick --commit {commit} --task {task} --verdict …)",
	CodeSubjectCommit:          "the statements are about commit {found} (a rebase, amend or cherry-pick copied the note): if {commit} is a rewrite of it (the reason says), taskproof attest carry {found} {commit} --allowed-signers FILE; else attest {commit} (taskproof attest tick --commit {commit} --task {task} --verdict …)",
	CodePredicate:              "the predicate does not match its schema: re-attest the tick (taskproof attest tick --commit {commit} --task {task} --verdict …)",
	CodeVerdict:                "the verdict must be verified, regression_only, attested or skipped: re-attest with one of them (taskproof attest tick --verdict …, or taskproof attest decide --verdict attested|skipped …)",
	CodeDuplicate:              "the note holds statements of more than one task line for the task: re-attest the tick so that taskproof replaces them (taskproof attest tick --commit {commit} --task {task} --verdict …)",
	CodeTree:                   "the statement names another tree: re-attest the tick on this commit (taskproof attest tick --commit {commit} --task {task} --verdict …), or carry it from the commit it was made on (taskproof attest carry OLD {commit})",
	CodeTaskMissing:            "the statement names a task or unit the tasks file at {commit} does not have: attest the task the commit ticks (taskproof ticks {commit}^..{commit} lists them)",
	CodeLineHash:               "the statement binds another task line: if the line was edited after it was attested, untick and re-tick the task and attest the new tick; else re-attest (taskproof attest tick --commit {commit} --task {task} --verdict …)",
	CodeSectionHash:            "the requirement the task cites changed: check the task against it, then untick the task in one commit, tick it again in the next and attest the new tick",
	CodePolicySHA256:           "speccoder.toml at the tick's parent is not the configuration the statement records: re-attest the tick (taskproof attest tick --commit {commit} --task {task} --verdict …), or pin the recorded value in the verifier's policy",
	CodeRegressionReason:       "a regression_only statement of revision 3 needs its reason: re-attest with --regression-reason REASON (taskproof attest tick --commit {commit} --task {task} --verdict regression_only --regression-reason …)",
	CodeVSA:                    "the verification summary does not name the tick's other statements: re-attest the tick (taskproof attest tick --commit {commit} --task {task} --verdict …)",
	CodeNoEvidence:             "no statement for the task on {commit}: taskproof notes fetch (attested in another clone?), else taskproof attest tick --commit {commit} --task {task} --verdict … && taskproof notes push",
	CodeDuplicateTaskID:        "two lines of {path} read the same for task {task}: give one of them its own ID or text, then tick it again and attest the new tick",
	"policy_sha256_unverified": "another writer's policy_sha256 cannot be recomputed (a warning): pin the value in the verifier's policy, or require recomputed values there to make it fail",
}

// hintFallback is the hint of a failing code the table does not know.
const hintFallback = "see docs/gate.md \"When the gate fails\" for this status"

// shellSafe matches the values a shell reads as one word unquoted.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9._/:@%+=,-]+$`)

// shellQuote returns s as one shell word: s itself when it is safe, else
// single-quoted.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hintFor renders the hints of codes (in order; "" skipped) with fields, one
// per distinct text, joined by "; ". Each code's reason, when given, fills
// {found} and {expected}.
func hintFor(codes []string, reasons []*Reason, fields map[string]string) string {
	var out []string
	seen := map[string]bool{}
	for i, code := range codes {
		if code == "" {
			continue
		}
		tmpl, ok := fixHints[code]
		if !ok {
			continue
		}
		pairs := make([]string, 0, 16)
		for k, v := range fields {
			pairs = append(pairs, "{"+k+"}", v)
		}
		if r := reasons[i]; r != nil {
			pairs = append(pairs, "{found}", shellQuote(printable.OrNone(r.Found)), "{expected}", shellQuote(printable.OrNone(r.Expected)))
		}
		h := strings.NewReplacer(pairs...).Replace(tmpl)
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return hintFallback
	}
	return strings.Join(out, "; ")
}

// tickHint is how to fix failing tick t: the hint the judge chose (t.hintKey),
// else those of its sub-reason, of each reason code, and of its status when
// neither has one.
func tickHint(t *TickResult) string {
	old := "OLD"
	switch {
	case t.SameTreeAs != "":
		old = string(t.SameTreeAs)
	case t.Evidence != "" && t.Evidence != t.Commit:
		old = string(t.Evidence)
	}
	fields := map[string]string{"commit": shortCommit(string(t.Commit)), "task": shellQuote(t.TaskID), "path": shellQuote(t.Path), "old": shortCommit(old), "range": shellQuote(t.SquashRange), "signers": signerNames(t.Signers)}
	if t.HintKey != "" {
		return hintFor([]string{t.HintKey}, []*Reason{nil}, fields)
	}
	var codes []string
	var reasons []*Reason
	for i := range t.Reasons {
		codes, reasons = append(codes, extraSigner(t.Reasons[i].Code, t.Signers)), append(reasons, &t.Reasons[i])
	}
	reason := t.Reason
	if reason == ReasonPolicy {
		reason = policyHintKey(t.Policy)
	}
	reason = extraSigner(reason, t.Signers)
	if !generic[t.Reason] || len(codes) == 0 {
		// The sub-reason first: it says what the gate found (the reasons
		// then say why), unless it only points at the reasons.
		codes, reasons = append([]string{reason}, codes...), append([]*Reason{nil}, reasons...)
	}
	if h := hintFor(codes, reasons, fields); h != hintFallback {
		return h
	}
	return hintFor([]string{t.Status}, []*Reason{nil}, fields)
}

// hintExtraSigner keys fixHints' hint for an untrusted_signer reason of an
// envelope a trusted key signed too.
const hintExtraSigner = "extra_untrusted_signer"

// extraSigner is the hint key of code: hintExtraSigner for untrusted_signer
// when trusted keys signed too (the untrusted key is an extra, not the
// only signer), else code.
func extraSigner(code string, trusted []trust.Signer) string {
	if code == CodeUntrusted && len(trusted) > 0 {
		return hintExtraSigner
	}
	return code
}

// signerNames names trusted signers for a hint: principals, else keyids.
func signerNames(signers []trust.Signer) string {
	names := make([]string, 0, len(signers))
	for _, s := range signers {
		n := s.Principal
		if n == "" {
			n = s.KeyID
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// HintCarry keys fixHints' hint for a commit_unreachable tick whose commit is
// a rewrite of the evidence's (rewrite.Judge): attest carry would accept it.
const HintCarry = "carry"

// HintTwinProjects keys fixHints' hint for a tick of a commit that ticks the
// same task line in two projects (a hint, not a reason code).
const HintTwinProjects = "twin_projects"

// HintMergeRechecks keys fixHints' hint for a merge that checks a line again
// after a parent took it back while its first parent has it checked
// (docs/format.md#the-gates-model): attest tick, which compares a commit with
// its first parent, finds nothing to attest there.
const HintMergeRechecks = "merge_rechecks"

// HintUntickedInRange keys fixHints' hint for a task checked at head and open
// at base that no commit of the range ticks (a hint, not a reason code).
const HintUntickedInRange = "unticked_in_range"

// HintTickedInAnotherUnit keys fixHints' hint for a task checked at head at a
// path where the base has a unit's tasks file, whose tick was made in
// another tasks file and moved there (a hint, not a reason code).
const HintTickedInAnotherUnit = "ticked_in_another_unit"

// HintTasksFileUnreadable keys fixHints' hint for a tasks file at head that
// cannot be read as one (a hint, not a reason code: the tick's reason is
// malformed).
const HintTasksFileUnreadable = "tasks_file_unreadable"

// generic are the codes whose hint only points at a tick's reasons.
var generic = map[string]bool{StatusUnverifiable: true, string(Mismatch): true}

// objectHint is how to fix failing object o: the hints of its reason codes,
// else of its outcome (or of not_verified / policy when only those fail it).
func objectHint(o *ObjectResult, opts GateOptions) string {
	if o.tickedKnown {
		return untaskedHint(o)
	}
	fields := map[string]string{"commit": shortCommit(string(o.Object)), "task": shellQuote(printable.OrNone(o.TaskID)), "path": shellQuote(o.Unit.TasksPath()), "old": "OLD", "signers": signerNames(o.Signers)}
	var codes []string
	var reasons []*Reason
	for i := range o.Reasons {
		codes, reasons = append(codes, extraSigner(o.Reasons[i].Code, o.Signers)), append(reasons, &o.Reasons[i])
	}
	switch {
	case o.Outcome != OK && !(o.Outcome == Unsigned && opts.AllowUnsigned):
		if !generic[string(o.Outcome)] || len(codes) == 0 {
			codes, reasons = append(codes, extraSigner(string(o.Outcome), o.Signers)), append(reasons, nil)
		}
	case len(o.Policy) > 0:
		codes, reasons = append(codes, policyHintKey(o.Policy)), append(reasons, nil)
	default:
		codes, reasons = append(codes, ReasonNotVerified), append(reasons, nil)
	}
	if o.Outcome == OK || (o.Outcome == Unsigned && opts.AllowUnsigned) {
		codes, reasons = codes[len(codes)-1:], reasons[len(reasons)-1:]
	}
	return hintFor(codes, reasons, fields)
}

// shortCommit is a commit id as hints write it: 12 hex digits, which git
// resolves as long as they are unique.
func shortCommit(c string) string {
	if c == "" || c == "OLD" {
		return c
	}
	return shellQuote(printable.Short(c))
}

// untaskedHint is the hint of an object whose note names no task: attest
// the tasks the commit ticks, named, or, when it ticks none, that there is
// nothing to attest on it.
func untaskedHint(o *ObjectResult) string {
	commit := shortCommit(string(o.Object))
	if len(o.ticked) == 0 {
		return "the commit ticks no task: there is nothing to attest on it; verify the commits that tick tasks (taskproof verify --branch, or taskproof verify TICK-COMMIT)"
	}
	var tasks strings.Builder
	for _, id := range o.ticked {
		tasks.WriteString(" --task " + shellQuote(id))
	}
	return fmt.Sprintf("the commit ticks %s with no statement: taskproof notes fetch (attested in another clone?), else taskproof attest tick --commit %s%s --verdict … && taskproof notes push",
		strings.Join(o.ticked, ", "), commit, tasks.String())
}

// AddHints sets Hint on every failing tick and object of rep (opts decides,
// in objects mode, which objects fail).
func AddHints(rep *Report, opts GateOptions) {
	// The spooled ticks' hints read their reasons: tickReader gives them.
	for i := range rep.Ticks {
		if t := &rep.Ticks[i]; t.Failing {
			t.Hint = tickHint(t)
		}
	}
	if rep.Mode != "objects" {
		return
	}
	for i := range rep.Objects {
		if o := &rep.Objects[i]; objectFails(o, opts) {
			o.Hint = objectHint(o, opts)
		}
	}
}

// HintSquashCarry keys fixHints' hint for a commit_unreachable tick whose
// commit is the squash of a range holding its evidence (a hint, not a
// reason code).
const HintSquashCarry = "squash_carry"
