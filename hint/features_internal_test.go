package hint

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/internal/text"
)

// TestCandidateLists: each clause keeps its candidates; a prompt none of whose clauses
// keeps one is relaxed (its lists are guesses), except in recipe mode.
func TestCandidateLists(t *testing.T) {
	b := New(Config{})
	metas := signalFixture()
	for _, tc := range []struct {
		name        string
		prompt      string
		recipe      bool
		want        []string // each clause's candidates, by slug
		wantRelaxed bool
	}{
		{"a clear request", "send an email", false, []string{"GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL"}, false},
		{"a vague request", "information please", false, nil, true},
		{"a vague recipe", "information please", true, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := b.rankPrepare(Request{AgentID: 1, RecipeMode: tc.recipe}, newAnalysis(tc.prompt, []string{"gmail", "todoist"}), metas, &scratch{}, nil, nil)
			if r == nil {
				t.Fatal("no ranking")
			}
			var got []string
			for _, l := range r.lists {
				for _, c := range l {
					got = append(got, metas[c.i].Action)
				}
			}
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
			if r.relaxed != tc.wantRelaxed {
				t.Errorf("relaxed = %v, want %v", r.relaxed, tc.wantRelaxed)
			}
		})
	}
}

// TestVerbFeature: an action's verb against a clause's gives one verb feature: the same
// verb, or the clause's own verb word in the slug, agrees; the same family, add for create
// and related families agree less; another family conflicts; a clause without a verb has
// no verb feature.
func TestVerbFeature(t *testing.T) {
	for _, tc := range []struct {
		name           string
		verb, family   string // the clause's verb and its family
		aVerb, aFamily string // the action's main verb and its family
		word, anyVerb  bool   // the slug holds the clause's own verb word, any of its verb words
		want           int
	}{
		{"no verb", "", "", text.VerbGet, text.FamilyRead, false, false, -1},
		{"the same verb", text.VerbList, text.FamilyRead, text.VerbList, text.FamilyRead, false, false, featVerbSame},
		{"the verb word in the slug", text.VerbDelete, text.FamilyDelete, text.VerbUpdate, text.FamilyUpdate, true, true, featVerbSame},
		{"a verb of no class", text.VerbOther, "", text.VerbGet, text.FamilyRead, false, false, featVerbNone},
		{"a verb word of the same family in the slug", text.VerbList, text.FamilyRead, text.VerbGet, text.FamilyRead, false, true, featVerbSame},
		{"a verb word of another family in the slug", text.VerbList, text.FamilyRead, text.VerbDelete, text.FamilyDelete, false, true, featVerbFamily},
		{"an action without a verb", text.VerbSend, text.FamilySend, "", "", false, false, featVerbNone},
		{"add for create", text.VerbCreate, text.FamilyCreate, text.VerbAdd, text.FamilyUpdate, false, false, featVerbAddCreate},
		{"the same family", text.VerbList, text.FamilyRead, text.VerbGet, text.FamilyRead, false, false, featVerbFamily},
		{"related families", text.VerbCreate, text.FamilyCreate, text.VerbUpdate, text.FamilyUpdate, false, false, featVerbRelated},
		{"another family", text.VerbList, text.FamilyRead, text.VerbDelete, text.FamilyDelete, false, false, featVerbConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := &clauseInfo{c: text.Clause{Verb: tc.verb}, family: tc.family}
			if got := info.verbFeature(tc.aVerb, tc.aFamily, tc.word, tc.anyVerb); got != tc.want {
				t.Errorf("verbFeature = %s, want %s", verbFeatureName(got), verbFeatureName(tc.want))
			}
		})
	}
}

func verbFeatureName(k int) string {
	if k < 0 {
		return "none"
	}
	return weightNames[k]
}

// TestItemIDExplainsSlugID: an ID the clause gives an item explains a slug's "id": the
// action that gets the item by its ID has no word the request leaves unexplained, and
// without the ID it has one.
func TestItemIDExplainsSlugID(t *testing.T) {
	b := New(Config{})
	metas := metasOf([]cache.Action{
		{App: "zendesk", Slug: "ZENDESK_GET_TICKET_BY_ID", DisplayName: "Get ticket by ID", Description: "Gets a ticket by its ID."},
		{App: "zendesk", Slug: "ZENDESK_LIST_TICKETS", DisplayName: "List tickets", Description: "Lists tickets."},
	})
	unexplained := func(prompt string) float32 {
		got, ok := unexplainedOf(t, b, metas, prompt, "zendesk")["ZENDESK_GET_TICKET_BY_ID"]
		if !ok {
			t.Fatalf("%q: ZENDESK_GET_TICKET_BY_ID is no candidate", prompt)
		}
		return got
	}
	if got := unexplained("get zendesk ticket 50112"); got != 0 {
		t.Errorf("with an item's ID: %v slug words unexplained, want 0", got)
	}
	if got := unexplained("get the newest zendesk ticket"); got != 1 {
		t.Errorf("without an ID: %v slug words unexplained, want 1", got)
	}
}

// TestSlugVerbExplainedOnce: a slug's verb that a word of the clause matches ("how many"
// and COUNT) is not also taken as explained by the verb features: the action's other slug
// words still count ("how many products": COUNT_PRODUCT_IMAGES leaves "images").
func TestSlugVerbExplainedOnce(t *testing.T) {
	b := New(Config{})
	metas := metasOf([]cache.Action{
		{App: "shopify", Slug: "SHOPIFY_COUNT_PRODUCT_IMAGES", DisplayName: "Count product images", Description: "Counts the images of a product."},
		{App: "shopify", Slug: "SHOPIFY_GET_PRODUCTS_COUNT", DisplayName: "Get products count", Description: "Counts the products of a shop."},
	})
	got := unexplainedOf(t, b, metas, "how many products are in our shopify store?", "shopify")
	if got["SHOPIFY_COUNT_PRODUCT_IMAGES"] != 1 || got["SHOPIFY_GET_PRODUCTS_COUNT"] != 0 {
		t.Errorf("slug words unexplained: %v; want 1 for COUNT_PRODUCT_IMAGES, 0 for GET_PRODUCTS_COUNT", got)
	}
}

// TestSlugNumbersExplainNothing: a number or a version in a slug ("V2", "3") is the path an
// action came from, not a word the request leaves out; a word with a digit in it ("MP3")
// still is one.
func TestSlugNumbersExplainNothing(t *testing.T) {
	b := New(Config{})
	metas := metasOf([]cache.Action{
		{App: "weather", Slug: "WEATHER_V2_FORECAST_GET", DisplayName: "v2 forecast get", Description: "Gets the forecast for a city."},
		{App: "weather", Slug: "WEATHER_FORECAST_3_GET", DisplayName: "forecast 3 get", Description: "Gets the forecast for a city."},
		{App: "weather", Slug: "WEATHER_FORECAST_MP3_GET", DisplayName: "forecast mp3 get", Description: "Gets the forecast for a city, read aloud."},
	})
	got := unexplainedOf(t, b, metas, "get the weather forecast for Paris", "weather")
	want := map[string]float32{"WEATHER_V2_FORECAST_GET": 0, "WEATHER_FORECAST_3_GET": 0, "WEATHER_FORECAST_MP3_GET": 1}
	if !maps.Equal(got, want) {
		t.Errorf("slug words unexplained: %v, want %v", got, want)
	}
	for term, want := range map[string]bool{"v2": true, "3": true, "2024": true, "v": false, "mp3": false, "s3": false, "version": false, "": false} {
		if got := numberOrVersion(term); got != want {
			t.Errorf("numberOrVersion(%q) = %v, want %v", term, got, want)
		}
	}
}

// unexplainedOf returns the slug words prompt leaves unexplained for each action of metas
// that a clause of it considers, the request's apps being apps.
func unexplainedOf(t *testing.T, b *Builder, metas []cache.ActionMeta, prompt string, apps ...string) map[string]float32 {
	t.Helper()
	r := b.rankPrepare(Request{AgentID: 1}, newAnalysis(prompt, apps), metas, &scratch{}, nil, nil)
	if r == nil {
		t.Fatalf("%q: no ranking", prompt)
	}
	got := map[string]float32{}
	for _, l := range r.lists {
		for _, c := range l {
			got[metas[c.i].Action] = c.f[featUnexplained]
		}
	}
	return got
}

// TestAppWordsFeature: a clause's own word that only its candidate's app name holds counts
// (app_words): "love quotes" and an app named for them ("Melon love quotes"), whose actions' slugs leave the
// name's words out. A word the action holds itself is the field features' to count, and a
// clause that names the app by its name already counts it as the app named.
func TestAppWordsFeature(t *testing.T) {
	metas := metasOf([]cache.Action{
		{App: "melon_love_quotes", Slug: "MELON_LOVE_QUOTES_GET_LOVE_QUOTES", DisplayName: "Get love quotes", Description: "Get"},
		{App: "movie_lines", Slug: "MOVIE_LINES_GET_A_RANDOM_QUOTE", DisplayName: "Get a random quote", Description: "Gets a random quote from a movie."},
	})
	apps := []string{"melon_love_quotes", "movie_lines"}
	feature := func(prompt, action string) (float32, bool) {
		t.Helper()
		b := New(Config{})
		r := b.rankPrepare(Request{AgentID: 1}, newAnalysis(prompt, apps), metas, &scratch{}, nil, nil)
		if r == nil {
			t.Fatalf("%q: no ranking", prompt)
		}
		for _, l := range r.lists {
			for _, c := range l {
				if metas[c.i].Action == action {
					return c.f[featAppWords], true
				}
			}
		}
		return 0, false
	}
	if f, ok := feature("fetch me a variety of love quotes", "MELON_LOVE_QUOTES_GET_LOVE_QUOTES"); !ok || f <= 0 {
		t.Errorf("love quotes: app_words %v (candidate %t); want above zero", f, ok)
	}
	if f, ok := feature("fetch me a variety of love quotes", "MOVIE_LINES_GET_A_RANDOM_QUOTE"); !ok || f != 0 {
		t.Errorf("another app's quote: app_words %v (candidate %t); want zero", f, ok)
	}
	if f, ok := feature("fetch quotes from melon love quotes", "MELON_LOVE_QUOTES_GET_LOVE_QUOTES"); !ok || f != 0 {
		t.Errorf("the app named: app_words %v (candidate %t); want zero", f, ok)
	}
}
