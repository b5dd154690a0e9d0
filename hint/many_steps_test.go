package hint_test

import (
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// A request of many steps, some of which only describe the one before, still lists its
// last step: the ninth sentence is read.
func TestManyStepsLastListed(t *testing.T) {
	mk := func(app, slug, name, desc string) cache.Action {
		return cache.Action{App: app, Slug: slug, DisplayName: name, Description: desc}
	}
	acts := []cache.Action{
		mk("pr_metrics", "PR_METRICS_GET_DIGITAL_PR_METRICS", "Get digital PR metrics", "Retrieve the metrics of a digital PR campaign"),
		mk("campaigns", "CAMPAIGNS_SCHEDULE_CAMPAIGN", "Schedule campaign", "Schedule a marketing campaign"),
		mk("greenhouse", "GREENHOUSE_WATER_PLANTS", "Water plants", "Water the plants of a greenhouse"),
		mk("needs", "NEEDS_REPORT_NEEDS_ASSESSMENT", "Report needs assessment", "Report a needs assessment for humanitarian assistance"),
		mk("ledger", "LEDGER_EXPORT_LEDGER", "Export ledger", "Export the ledger of an account as CSV"),
	}
	apps := []string{"pr_metrics", "campaigns", "greenhouse", "needs", "ledger"}
	st := &fakeStore{metas: classifyAll(acts)}
	res := build(t, st, hint.Request{AgentID: 1, Apps: apps, Prompt: "We are planning a PR campaign. " +
		"Please retrieve the digital PR metrics for this campaign. After analyzing the metrics, we will schedule a " +
		"marketing campaign. The campaign will start in June. It will end in July. Its budget is small. " +
		"Its audience is parents. The team is ready. Finally, please report the needs assessment findings for the flooded area."})
	if r := rank(res, "NEEDS_REPORT_NEEDS_ASSESSMENT"); r == 0 || r > 5 {
		t.Errorf("the last step's action ranked %d, want 1..5: %v", r, res.MatchedActions)
	}
}
