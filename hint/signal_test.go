package hint

import (
	"slices"
	"testing"

	"github.com/toolhint/toolhint/cache"
)

func signalFixture() []cache.ActionMeta {
	return metasOf([]cache.Action{
		{App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email", Description: "Sends an email."},
		{App: "gmail", Slug: "GMAIL_FETCH_EMAILS", DisplayName: "Fetch emails", Description: "Lists emails in the mailbox."},
		{App: "todoist", Slug: "TODOIST_CREATE_TASK", DisplayName: "Create task", Description: "Creates a task."},
		{App: "todoist", Slug: "TODOIST_CLOSE_TASK", DisplayName: "Close task", Description: "Completes a task."},
	})
}

func rankWith(t *testing.T, prompt string, src signalSource) []string {
	t.Helper()
	return resultWith(t, prompt, src, nil).MatchedActions
}

func resultWith(t *testing.T, prompt string, src signalSource, priors map[string]float32) Result {
	t.Helper()
	b := New(Config{})
	metas := signalFixture()
	r := b.rankPrepare(Request{AgentID: 1}, newAnalysis(prompt, []string{"gmail", "todoist"}), metas, &scratch{}, src, &usageModel{priors: newPriorTable(priors)})
	var res Result
	if r != nil {
		b.fill(r, &b.weights, &res)
	}
	return res
}

func scoreOf(res Result, action string) float64 {
	for _, m := range res.Matches {
		if m.Action == action {
			return m.Score
		}
	}
	return -1e9
}

// TestSignals: with no source the ranking is the lexical one; a source can lift an action
// that shares no word with the prompt into the list, and raise or lower one it does share.
func TestSignals(t *testing.T) {
	prompt := "nudge me about the dentist tomorrow"
	if got := rankWith(t, prompt, nil); slices.Contains(got, "TODOIST_CREATE_TASK") {
		t.Fatalf("lexical ranking lists TODOIST_CREATE_TASK for %q: the test needs a prompt it misses (%v)", prompt, got)
	}
	var seen [][]string
	lift := func(words string, terms []string) map[string]signal {
		seen = append(seen, terms)
		return map[string]signal{"TODOIST_CREATE_TASK": {Learnt: 1, Lift: true}}
	}
	got := rankWith(t, prompt, lift)
	if len(got) == 0 || got[0] != "TODOIST_CREATE_TASK" {
		t.Errorf("lifted action not first: %v", got)
	}
	if len(seen) != 1 || !slices.Contains(seen[0], "dentist") {
		t.Errorf("source saw terms %v, want the clause's own words", seen)
	}

	prompt = "send an email to dana"
	base := resultWith(t, prompt, nil, nil)
	if len(base.MatchedActions) == 0 || base.MatchedActions[0] != "GMAIL_SEND_EMAIL" {
		t.Fatalf("lexical ranking: %v", base.MatchedActions)
	}
	down := resultWith(t, prompt, nil, map[string]float32{"GMAIL_SEND_EMAIL": -1})
	up := resultWith(t, prompt, func(string, []string) map[string]signal {
		return map[string]signal{"GMAIL_SEND_EMAIL": {Semantic: 1}}
	}, map[string]float32{"GMAIL_SEND_EMAIL": 1})
	b0, d, u := scoreOf(base, "GMAIL_SEND_EMAIL"), scoreOf(down, "GMAIL_SEND_EMAIL"), scoreOf(up, "GMAIL_SEND_EMAIL")
	if !(d < b0 && b0 < u) {
		t.Errorf("GMAIL_SEND_EMAIL scores %.3f with a failing record, %.3f with none, %.3f with a good one: want increasing", d, b0, u)
	}
}
