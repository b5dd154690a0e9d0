package hint_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// agentApps is a typical agent: several apps whose actions compete (tickets, tasks, e-mail,
// contacts and notes exist in more than one of them).
var agentApps = []string{"slack", "gmail", "github", "notion", "linear", "hubspot", "googlecalendar"}

// checkNamedFirst fails unless every action of app that is listed comes before every action
// of another app, the top action belongs to app, and a confident hint names app's action.
func checkNamedFirst(t *testing.T, res hint.Result, app string) {
	t.Helper()
	if len(res.Matches) == 0 {
		t.Fatalf("nothing listed (strategy %s)", res.Strategy)
	}
	if res.Matches[0].App != app {
		t.Errorf("top action %s is not of %s (listed %v)", res.MatchedActions[0], app, res.MatchedActions)
	}
	other := false
	for _, m := range res.Matches {
		switch {
		case m.App != app:
			other = true
		case other && m.Step == res.Matches[0].Step:
			t.Errorf("%s listed after another app's action (listed %v)", m.Action, res.MatchedActions)
		}
	}
	if res.Confident && res.Matches[0].App != app {
		t.Errorf("confident about %s, an app the prompt does not name", res.MatchedActions[0])
	}
	if res.Confident && !strings.Contains(res.Text, "You MUST call "+res.MatchedActions[0]) {
		t.Errorf("confident hint without the directive:\n%s", res.Text)
	}
}

// TestNamedAppDominates runs prompts that name one app while another app of the agent has
// a similar action: the named app's actions come first, and no other app's action gets the
// strong directive.
func TestNamedAppDominates(t *testing.T) {
	st := loadFullForTest(t)
	tests := []struct {
		prompt, app string
		top         []string // when set, the top action is one of these
	}{
		{"create a Linear ticket for the onboarding bug", "linear", []string{"LINEAR_CREATE_LINEAR_ISSUE"}},
		{"file a ticket in Linear about the CSV export timing out", "linear", []string{"LINEAR_CREATE_LINEAR_ISSUE"}},
		{"add a note to the Acme deal in HubSpot", "hubspot", nil},
		{"create a GitHub issue for the flaky login test", "github", nil},
		{"search Notion for the onboarding checklist", "notion", nil},
		{"put a Google Calendar event on friday at 3 for the design review", "googlecalendar", nil},
		{"send a Slack message to #eng that the deploy finished", "slack", nil},
		{"use gmail to send jay@acme.com the offsite agenda", "gmail", nil},
		{"create a task in HubSpot to call Dana back", "hubspot", nil},
		{"list my open Linear issues", "linear", nil},
		{"make a page in Notion for the launch plan", "notion", nil},
		{"find the contact for jane@acme.com in HubSpot", "hubspot", nil},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			res, err := hint.Build(context.Background(), st, hint.Request{AgentID: 1, Prompt: tt.prompt, Apps: agentApps})
			if err != nil {
				t.Fatal(err)
			}
			checkNamedFirst(t, res, tt.app)
			if tt.top != nil && !slices.Contains(tt.top, res.MatchedActions[0]) {
				t.Errorf("top action %s, want one of %v (listed %v)", res.MatchedActions[0], tt.top, res.MatchedActions)
			}
		})
	}
}

// TestNamedAppOnFixture checks the ordering rule on the small test catalogue, without the
// full one: Jira is named, yet Gmail's action fits the words better.
func TestNamedAppOnFixture(t *testing.T) {
	res := build(t, newFake(), hint.Request{AgentID: 1, Prompt: "in jira, send the email about the outage", Apps: allApps})
	if len(res.Matches) == 0 {
		t.Fatal("nothing listed")
	}
	seenOther := false
	for _, m := range res.Matches {
		if m.App != "jira" {
			seenOther = true
		} else if seenOther && m.Step == 0 {
			t.Errorf("jira action %s after another app's (listed %v)", m.Action, res.MatchedActions)
		}
	}
	if res.Confident && res.Matches[0].App != "jira" {
		t.Errorf("confident about %s, not of the app named", res.MatchedActions[0])
	}
}

// TestUnsureHintsSaySo: a prompt nothing matches points the model at search_tools with the
// apps in scope and lists no action; a weak match is listed without the directive, and the
// hint says none is a sure match.
func TestUnsureHintsSaySo(t *testing.T) {
	res := build(t, newFake(), hint.Request{AgentID: 1, Prompt: "zxqv plorb wibble", Apps: allApps, SearchTool: hint.SearchTool})
	if res.Strategy != hint.StrategyFallback || len(res.MatchedActions) != 0 || res.Confident {
		t.Fatalf("got strategy %s, %d actions, confident %v; want fallback with none", res.Strategy, len(res.MatchedActions), res.Confident)
	}
	if !strings.Contains(res.Text, "search_tools") || !strings.Contains(res.Text, "gmail") || res.Reason == "" {
		t.Errorf("fallback text does not point at search_tools with the apps, or no reason:\n%s\nreason %q", res.Text, res.Reason)
	}
	if strings.Contains(res.Text, "MUST") {
		t.Errorf("fallback carries the directive:\n%s", res.Text)
	}

	res = build(t, newFake(), hint.Request{AgentID: 1, Prompt: "something about the channel", Apps: allApps, SearchTool: hint.SearchTool})
	if len(res.MatchedActions) == 0 {
		t.Fatal("nothing listed for a weak match")
	}
	if res.Confident || strings.Contains(res.Text, "MUST") || !strings.Contains(res.Text, "search_tools") || res.Reason == "" {
		t.Errorf("weak match: confident %v, reason %q, text:\n%s", res.Confident, res.Reason, res.Text)
	}

	// With a threshold every close match reaches, a clear request gets the directive.
	w := hint.DefaultWeights().With("confident_at", 1)
	b := hint.New(hint.Config{Weights: &w})
	res, err := b.Build(context.Background(), newFake(), hint.Request{AgentID: 1, Prompt: "send a message to #general saying the deploy is done", Apps: allApps})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Confident || !strings.Contains(res.Text, "You MUST call SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL") {
		t.Errorf("a clear request is not confident (reason %q):\n%s", res.Reason, res.Text)
	}
	// A request naming an app gets no directive for another app's action, however high it
	// scores.
	res, err = b.Build(context.Background(), newFake(), hint.Request{AgentID: 1, Prompt: "in jira, send the email about the outage", Apps: allApps})
	if err != nil {
		t.Fatal(err)
	}
	if res.Confident && res.Matches[0].App != "jira" {
		t.Errorf("directive for %s although the request names jira:\n%s", res.MatchedActions[0], res.Text)
	}
}

// TestTraceRanksAsBuild: replaying a Trace with the Builder's weights lists what Build lists.
func TestTraceRanksAsBuild(t *testing.T) {
	ctx := context.Background()
	st, err := loadTestdata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b := hint.New(hint.Config{})
	for _, p := range append(benchPrompts, "trash the email from the spammer", "zxqv plorb", "find the draft and send it to dana@example.com") {
		req := hint.Request{AgentID: 1, Prompt: p, Apps: []string{"gmail", "slack", "github", "jira", "notion", "googlecalendar"}}
		res, err := b.Build(ctx, st, req)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := b.Trace(ctx, st, req)
		if err != nil {
			t.Fatal(err)
		}
		got, conf := tr.Rank(hint.DefaultWeights())
		if !slices.Equal(got, res.MatchedActions) || conf != res.Confident {
			t.Errorf("%q: Trace.Rank = %v (confident %v), Build = %v (confident %v)", p, got, conf, res.MatchedActions, res.Confident)
		}
	}
}

func loadFullForTest(t *testing.T) *cache.Memory {
	t.Helper()
	if *catalogPath == "" {
		t.Skip("set -catalog or TOOLHINT_CATALOG to the shared catalogue to run this test")
	}
	st, err := fullCatalog()
	if err != nil {
		t.Fatalf("loading %s: %v", *catalogPath, err)
	}
	return st
}

// TestTraceConsidered: whatever the weights, a Trace lists only actions it considers; an
// action the prompt names by slug is considered though no word leads to it.
func TestTraceConsidered(t *testing.T) {
	ctx := context.Background()
	st, err := loadTestdata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b := hint.New(hint.Config{})
	weights := []hint.Weights{hint.DefaultWeights(), hint.NeutralWeights()}
	// Weights that list everything they can: no share of the best score, no least score.
	weights = append(weights, hint.DefaultWeights().With("keep_ratio", 0).With("min_score", -1e9))
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		w := hint.NeutralWeights()
		for _, n := range hint.FeatureNames() {
			w = w.With(n, rnd.NormFloat64()*3)
		}
		weights = append(weights, w)
	}
	prompts := append(benchPrompts, "trash the email from the spammer", "zxqv plorb", "run GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER now")
	for _, p := range prompts {
		req := hint.Request{AgentID: 1, Prompt: p, Apps: []string{"gmail", "slack", "github", "jira", "notion", "googlecalendar"}}
		tr, err := b.Trace(ctx, st, req)
		if err != nil {
			t.Fatal(err)
		}
		considered := tr.Considered()
		if !slices.IsSorted(considered) || len(slices.Compact(slices.Clone(considered))) != len(considered) {
			t.Errorf("%q: Considered = %v, want sorted and each once", p, considered)
		}
		for wi, w := range weights {
			listed, _ := tr.Rank(w)
			for _, a := range listed {
				if _, ok := slices.BinarySearch(considered, a); !ok {
					t.Errorf("%q, weights %d: %s listed but not considered", p, wi, a)
				}
			}
		}
	}
	// Quoted, the slug is content: no word of it leads to the action.
	tr, err := b.Trace(ctx, st, hint.Request{AgentID: 1, Prompt: "tell #general: 'GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER'", Apps: []string{"github", "slack"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := slices.BinarySearch(tr.Considered(), "GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER"); !ok {
		t.Errorf("an action named by slug is not considered: %v", tr.Considered())
	}
}
