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

// An app whose slug is a verb or a closed-class word ("search", "now") is not named by
// that word said in lower case: the request's own words decide.
func TestCommonWordSlugNamesLoosely(t *testing.T) {
	acts := []cache.Action{
		{App: "search", Slug: "SEARCH_SEARCH", DisplayName: "search", Description: "Level up your design skills with courses and workshops."},
		{App: "now", Slug: "NOW_NOW", DisplayName: "now", Description: "Shows the trending topics of the day."},
		{App: "art_collection", Slug: "ART_COLLECTION_ART_COLLECTION", DisplayName: "art collection", Description: "Find a piece of art in the collection of the Metropolitan Museum of Art: paintings, sculptures and artifacts."},
		{App: "apex_map", Slug: "APEX_MAP_APEX_MAP", DisplayName: "apex map", Description: "The map currently played in APEX Legends ranked games."},
	}
	apps := []string{"search", "now", "art_collection", "apex_map"}
	st := &fakeStore{metas: classifyAll(acts)}
	for prompt, want := range map[string]string{
		"Can you help me search for a piece of art in the Metropolitan Museum of Art?": "ART_COLLECTION_ART_COLLECTION",
		"Which map is being played in APEX Legends ranked right now?":                  "APEX_MAP_APEX_MAP",
	} {
		res := build(t, st, hint.Request{AgentID: 1, Apps: apps, Prompt: prompt})
		if r := rank(res, want); r != 1 {
			t.Errorf("%q: %s ranked %d, want 1: %v", prompt, want, r, res.MatchedActions)
		}
	}
	// Said as a name, or after a preposition, it still names the app.
	for _, prompt := range []string{"Open my workshops in Search", "open my workshops in search"} {
		res := build(t, st, hint.Request{AgentID: 1, Apps: apps, Prompt: prompt})
		if r := rank(res, "SEARCH_SEARCH"); r != 1 {
			t.Errorf("%q: the app named search ranked %d, want 1: %v", prompt, r, res.MatchedActions)
		}
	}
}
