package hint_test

import (
	"slices"
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

// TestSureHintListsPrerequisite: a confident hint for one step stays short but lists up to
// three actions: the one it is sure of, then what the request may need before it (the
// available cars before reserving one), from the app the request is about.
func TestSureHintListsPrerequisite(t *testing.T) {
	st := &fakeStore{metas: classifyAll([]cache.Action{
		{App: "rental_cars", Slug: "RENTAL_CARS_RESERVE_CAR", DisplayName: "Reserve car", Description: "Reserves a rental car for the given dates and city."},
		{App: "rental_cars", Slug: "RENTAL_CARS_GET_CARS_AVAILABLE", DisplayName: "Get cars available", Description: "Lists the rental cars available in a city for the given dates."},
		{App: "rental_cars", Slug: "RENTAL_CARS_CANCEL_RESERVATION", DisplayName: "Cancel reservation", Description: "Cancels a rental car reservation."},
		{App: "rental_cars", Slug: "RENTAL_CARS_GET_RESERVATION", DisplayName: "Get reservation", Description: "Gets a reservation by its ID."},
		{App: "rental_cars", Slug: "RENTAL_CARS_LIST_LOCATIONS", DisplayName: "List locations", Description: "Lists the pick-up locations."},
	})}
	w := hint.DefaultWeights().With("confident_p", 0.01) // sure of any lead
	req := hint.Request{Prompt: "Reserve a rental car for a compact car in Los Angeles from 03/01/2023 to 03/05/2023.", Apps: []string{"rental_cars"}}
	got := buildWith(t, hint.New(hint.Config{Weights: &w}), st, req)
	if !got.Confident || len(got.MatchedActions) == 0 || got.MatchedActions[0] != "RENTAL_CARS_RESERVE_CAR" {
		t.Fatalf("listed %v, confident %t; want RENTAL_CARS_RESERVE_CAR first, confident", got.MatchedActions, got.Confident)
	}
	if len(got.MatchedActions) > 3 || !slices.Contains(got.MatchedActions, "RENTAL_CARS_GET_CARS_AVAILABLE") {
		t.Errorf("listed %v; want at most three actions, RENTAL_CARS_GET_CARS_AVAILABLE among them", got.MatchedActions)
	}
}
