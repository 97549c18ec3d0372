package attest

import "maps"

// regressionReasonKeys are the reasons `--regression-reason REASON[:key=value]`
// takes ([ParseRegressionReason]), each with the key its value goes to ("":
// none): required for no_scenarios, author_failed and not_red, optional for
// already_passing.
var regressionReasonKeys = map[string]string{
	"no_story": "", "acceptance_off": "", "author_wrote_none": "", "tests_not_collected": "", "planning_work": "",
	"no_scenarios": "story", "author_failed": "detail", "not_red": "red_class", "already_passing": "implemented_by",
}

// RegressionReasonKeys returns the reasons `--regression-reason` takes, each
// with the key its value goes to ("": none), for completion and help texts.
// The map is a copy.
func RegressionReasonKeys() map[string]string { return maps.Clone(regressionReasonKeys) }
