package hint_test

import (
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// TestSceneSentenceDoesNotLead: a request that opens with a sentence setting the scene
// ("I'm starting a new ritual") and then asks for something lists what it asks for first;
// the opening sentence's own best match still follows it. With lead_ratio at zero the
// clauses take their turns in the prompt's order and the scene's match leads.
func TestSceneSentenceDoesNotLead(t *testing.T) {
	st := &fakeStore{metas: classifyAll([]cache.Action{
		{App: "roles", Slug: "ROLES_CREATE_ROLE", DisplayName: "Create role", Description: "Creates a new role for the users of a tenant."},
		{App: "roles", Slug: "ROLES_LIST_ROLES", DisplayName: "List roles", Description: "Lists the roles of a tenant."},
		{App: "useless_facts", Slug: "USELESS_FACTS_TODAY_GET", DisplayName: "Today's fact", Description: "Gets today's useless fact."},
		{App: "useless_facts", Slug: "USELESS_FACTS_RANDOM_GET", DisplayName: "Random fact", Description: "Gets a random useless fact."},
	})}
	req := hint.Request{
		Prompt: "I'm starting a new daily ritual of learning something new every day. Can you tell me today's useless fact?",
		Apps:   []string{"roles", "useless_facts"},
	}
	w := hint.DefaultWeights()
	got := buildWith(t, hint.New(hint.Config{Weights: &w}), st, req)
	if len(got.MatchedActions) < 2 || got.MatchedActions[0] != "USELESS_FACTS_TODAY_GET" {
		t.Fatalf("listed %v; want USELESS_FACTS_TODAY_GET first", got.MatchedActions)
	}
	prompt := w.With("lead_ratio", 0)
	if got := buildWith(t, hint.New(hint.Config{Weights: &prompt}), st, req); len(got.MatchedActions) == 0 || got.MatchedActions[0] != "ROLES_CREATE_ROLE" {
		t.Errorf("lead_ratio 0: listed %v; want the opening sentence's ROLES_CREATE_ROLE first (the prompt's order)", got.MatchedActions)
	}
}
