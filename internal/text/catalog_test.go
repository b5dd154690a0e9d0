package text_test

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/internal/text"
)

// TestCatalogAliases checks how aliases are made from names: camel case, qualifiers that
// close several names, words of the language, and function words.
func TestCatalogAliases(t *testing.T) {
	apps := []text.CatalogApp{
		{App: "NORTHPOLECRM", DisplayName: "Northpolecrm", Description: "NorthPoleCRM is a CRM."},
		{App: "LANTERN_CRM", DisplayName: "Lantern crm", Description: "Lantern CRM keeps contacts."},
		{App: "QUILLCRM", DisplayName: "Quillcrm", Description: "Quill tracks deals."},
		{App: "MARBLE_CRM", DisplayName: "Marble crm", Description: "Marble CRM for teams."},
		{App: "THANKS_HQ", DisplayName: "Thanks hq", Description: "Sends cards."},
		{App: "ZORBLY_HQ", DisplayName: "Zorbly hq", Description: "Runs tasks."},
		{App: "PLIMHQ", DisplayName: "Plimhq", Description: "Plim runs things."},
		{App: "KWEHQ", DisplayName: "Kwehq", Description: "Kwe runs things."},
	}
	got := map[string]float64{}
	for _, al := range text.ComputeCatalog(nil, apps).Aliases {
		got[al.App+" "+strings.Join(al.Words, " ")] = al.Strength
	}
	for alias, want := range map[string]float64{
		"northpolecrm north pole crm": 1,   // camel case in the description
		"northpolecrm north pole":     1,   // "crm" closes two names and ends four slugs
		"northpolecrm northpole":      1,   // several words written as one
		"marble_crm marble":           0.5, // a word of the language names its app loosely
		"zorbly_hq zorbly":            1,
	} {
		if got[alias] != want {
			t.Errorf("alias %q: strength %v, want %v (all: %v)", alias, got[alias], want, got)
		}
	}
	if s, ok := got["thanks_hq thanks"]; ok {
		t.Errorf("a function word is an alias (strength %v)", s)
	}
}

// TestCatalogFirstWordAlias: the first word of a name of several names its app alone when no
// other name opens with it (camel case split), it is no English word, and no other app's
// actions use it ("Zentrix Scraper" is called "Zentrix").
func TestCatalogFirstWordAlias(t *testing.T) {
	actions := []text.CatalogAction{
		{App: "zentrix_scraper", Slug: "ZENTRIX_SCRAPER_LIST_POSTS", DisplayName: "List posts", Description: "Lists a profile's posts."},
		{App: "kobalt_mail", Slug: "KOBALT_MAIL_SEND", DisplayName: "Send", Description: "Sends a mail."},
		{App: "kobaltdocs", Slug: "KOBALTDOCS_CREATE", DisplayName: "Create", Description: "Creates a doc."},
		{App: "happy_scribe", Slug: "HAPPY_SCRIBE_TRANSCRIBE", DisplayName: "Transcribe", Description: "Transcribes audio."},
		{App: "quorvo_facts", Slug: "QUORVO_FACTS_RANDOM", DisplayName: "Random fact", Description: "Returns a fact."},
		{App: "trivia_db", Slug: "TRIVIA_DB_QUORVO_QUIZ", DisplayName: "Quorvo quiz", Description: "A quorvo quiz."},
	}
	apps := []text.CatalogApp{
		{App: "ZENTRIX_SCRAPER", DisplayName: "Zentrix scraper"},
		{App: "KOBALT_MAIL", DisplayName: "Kobalt mail"},
		{App: "KOBALTDOCS", DisplayName: "Kobaltdocs", Description: "KobaltDocs keeps documents."},
		{App: "HAPPY_SCRIBE", DisplayName: "Happy scribe"},
		{App: "QUORVO_FACTS", DisplayName: "Quorvo facts"},
		{App: "TRIVIA_DB", DisplayName: "Trivia db"},
	}
	got := map[string]float64{}
	for _, al := range text.ComputeCatalog(actions, apps).Aliases {
		got[al.App+" "+strings.Join(al.Words, " ")] = al.Strength
	}
	if got["zentrix_scraper zentrix"] != 1 {
		t.Errorf("a name's distinctive first word is no alias: %v", got)
	}
	for alias, why := range map[string]string{
		"kobalt_mail kobalt":  "another name opens with it in camel case",
		"happy_scribe happy":  "it is an English word",
		"quorvo_facts quorvo": "another app's actions use it",
	} {
		if s, ok := got[alias]; ok && s >= 1 {
			t.Errorf("alias %q has strength %v, though %s", alias, s, why)
		}
	}
}

// TestCatalogVendorsAreNoVerbs: a first word several names open with is a vendor's, and
// the rest of the name an alias of its own ("Acme Sheets" -> "sheets"), unless it is a
// verb: tools named for what they do ("Get weather", "Get stock price") are not all made
// by "get", and the rest of such a name is what the tool does, a request's own words.
func TestCatalogVendorsAreNoVerbs(t *testing.T) {
	apps := []text.CatalogApp{
		{App: "ACME_SHEETS", DisplayName: "Acme sheets"}, {App: "ACME_SLIDES", DisplayName: "Acme slides"},
		{App: "ACME_MAILBOX", DisplayName: "Acme mailbox"},
		{App: "GET_WEATHER", DisplayName: "Get weather"}, {App: "GET_STOCK_PRICE", DisplayName: "Get stock price"},
		{App: "GET_POSTMODERN_THEORY", DisplayName: "Get postmodern theory"},
	}
	got := map[string]float64{}
	for _, al := range text.ComputeCatalog(nil, apps).Aliases {
		got[al.App+" "+strings.Join(al.Words, " ")] = al.Strength
	}
	if got["acme_slides slides"] == 0 {
		t.Errorf("a vendor's product lost its short name: %v", got)
	}
	for _, alias := range []string{"get_stock_price stock price", "get_postmodern_theory postmodern theory", "get_weather weather"} {
		if s, ok := got[alias]; ok {
			t.Errorf("alias %q (strength %v): a verb is taken for a vendor", alias, s)
		}
	}
}

// smallCatalog is a catalogue of apps no compiled table knows.
func smallCatalog() ([]text.CatalogAction, []text.CatalogApp) {
	actions := []text.CatalogAction{
		{App: "qpad", Slug: "QPAD_CREATE_NOTEBOOK", DisplayName: "Create notebook", Description: "Creates a notebook in a Quillpad workspace."},
		{App: "qpad", Slug: "QPAD_LIST_NOTEBOOKS", DisplayName: "List notebooks", Description: "Lists the notebooks of a workspace."},
		{App: "qpad", Slug: "QPAD_ADD_SCRIBBLE", DisplayName: "Add scribble", Description: "Adds a scribble to a notebook."},
		{App: "zorbit_crm", Slug: "ZORBIT_CRM_CREATE_LEAD", DisplayName: "Create lead", Description: "Creates a lead with a scribble attached."},
	}
	apps := []text.CatalogApp{
		{App: "QPAD", DisplayName: "Quillpad", Description: "Quillpad keeps notebooks and scribbles for teams.", Categories: []string{"notes"}},
		{App: "ZORBIT_CRM", DisplayName: "Zorbit CRM", Description: "A sales pipeline."},
	}
	return actions, apps
}

// TestComputeCatalog checks that the knowledge of a small catalogue holds its words, its
// apps' names and self-descriptions, survives its table, and that an analyser over it
// recognises an app by a name the compiled table has never seen.
func TestComputeCatalog(t *testing.T) {
	actions, apps := smallCatalog()
	c := text.ComputeCatalog(actions, apps)
	words := map[string]int{}
	for _, w := range c.Words {
		words[w.Word] = w.DF
	}
	if words["notebook"] != 3 || words["scribble"] != 2 {
		t.Errorf("vocabulary: notebook %d, scribble %d; want 3 and 2 (%v)", words["notebook"], words["scribble"], words)
	}
	if words["quillpad"] != 1 {
		t.Errorf("vocabulary: an app's name is a word of it (quillpad: %d)", words["quillpad"])
	}
	aliases := map[string]bool{}
	for _, al := range c.Aliases {
		aliases[al.App+":"+strings.Join(al.Words, " ")] = true
	}
	for _, want := range []string{"qpad:quillpad", "zorbit_crm:zorbit crm", "zorbit_crm:zorbitcrm"} {
		if !aliases[want] {
			t.Errorf("no alias %s (%v)", want, aliases)
		}
	}

	var buf bytes.Buffer
	if err := c.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := text.ParseCatalog(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, c) {
		t.Errorf("the table does not read back as written:\n%+v\n%+v", back, c)
	}
	if again := text.ComputeCatalog(append(actions[2:], actions[:2]...), apps); !reflect.DeepEqual(again, c) {
		t.Error("the knowledge depends on the order of the actions")
	}

	an, old := text.NewWithCatalog(c), text.New()
	named := func(a *text.Analyzer, prompt string) []string {
		var out []string
		for _, cl := range a.Prompt(prompt, []string{"qpad", "zorbit_crm", "slack"}).Clauses {
			for _, m := range cl.Apps {
				out = append(out, m.App)
			}
		}
		return out
	}
	const prompt = "make a new notebook in Quillpad"
	if got := named(an, prompt); !slices.Contains(got, "qpad") {
		t.Errorf("over the catalogue's knowledge, %q names %v, want qpad", prompt, got)
	}
	if got := named(old, prompt); slices.Contains(got, "qpad") {
		t.Errorf("the compiled table already names qpad in %q: the test proves nothing", prompt)
	}
	if got := an.AppTerms("qpad"); !slices.Contains(got, an.Stem("notes")) {
		t.Errorf("AppTerms(qpad) = %v, want its category among them", got)
	}
	if df, ok := an.KnownStem(an.Stem("scribble")); !ok || df != 2 {
		t.Errorf("KnownStem(scribble) = %d, %v; want 2 from the catalogue", df, ok)
	}
	if df, _ := an.KnownStem(an.Stem("channel")); df != 0 {
		t.Errorf("KnownStem(channel) = %d over a catalogue without channels, want 0", df)
	}
	// What the catalogue does not describe, the compiled table still gives; how words fold
	// does not change.
	if got := an.AppAliases("gsheets"); !slices.Contains(got, "googlesheets") {
		t.Errorf("over the catalogue's knowledge, AppAliases(gsheets) = %v, want googlesheets from the compiled table", got)
	}
	if an.Stem("repo") != old.Stem("repo") {
		t.Error("an analyser over a catalogue folds words differently from the compiled one")
	}
}

// TestCatalogSlugWordsAreWords: a word an action's slug is made of is a word of the
// catalogue however few actions use it, so typo repair never rewrites a prompt that says it
// ("promo" is not "pomo").
func TestCatalogSlugWordsAreWords(t *testing.T) {
	actions, apps := smallCatalog()
	actions = append(actions, text.CatalogAction{App: "zorbit_crm", Slug: "ZORBIT_CRM_GET_PROMO", DisplayName: "Get offers", Description: "Returns the current offers."})
	an := text.NewWithCatalog(text.ComputeCatalog(actions, apps))
	if df, ok := an.KnownStem(an.Stem("promo")); !ok || df != 1 {
		t.Errorf("promo, a slug word of one action: known %v (df %d), want known with df 1", ok, df)
	}
	p := an.Prompt("find any available promo offers", []string{"zorbit_crm"})
	if len(p.Clauses) == 0 || !strings.Contains(p.Clauses[0].Text, "promo") {
		t.Errorf("clauses %+v: want promo kept as said", p.Clauses)
	}
	// A word of a description alone still needs two actions: descriptions hold typos.
	if df, _ := an.KnownStem(an.Stem("offers")); df != 0 {
		t.Errorf("offers, a word of one action's name and description: df %d, want 0 (not the catalogue's)", df)
	}
}

// TestCatalogLooseSlug: an app whose one-word slug is a word of the language that many
// other apps' actions use ("location") is named by it only loosely when it is said in lower
// case, as the request's own word; capitalised, or after a preposition, it names the app.
// A slug that only shares its stem with such a word ("templated" and "template") or is a verb
// stays a name.
func TestCatalogLooseSlug(t *testing.T) {
	var actions []text.CatalogAction
	var apps []text.CatalogApp
	for i := range 10 {
		app := fmt.Sprintf("geo%c", 'a'+i)
		apps = append(apps, text.CatalogApp{App: app, DisplayName: app})
		actions = append(actions, text.CatalogAction{App: app, Slug: strings.ToUpper(app) + "_NEAREST_PLACE",
			Description: "Finds the places nearest a location; a template sets the output. Share the result."})
	}
	for _, app := range []string{"location", "templated", "share"} {
		apps = append(apps, text.CatalogApp{App: app, DisplayName: app})
		actions = append(actions, text.CatalogAction{App: app, Slug: strings.ToUpper(app) + "_LOOKUP", Description: "Looks up a location."})
	}
	an := text.NewWithCatalog(text.ComputeCatalog(actions, apps))
	all := slugsOf(apps)
	strength := func(prompt, app string) float64 { return mentionStrength(an.Prompt(prompt, all), app) }
	for _, tc := range []struct {
		prompt, app string
		want        float64
	}{
		{"suggest places near my current location", "location", 0.5},
		{"look up the nearest cafe with Location", "location", 1},
		{"find the nearest cafe in location", "location", 1},
		{"make a templated card for the launch", "templated", 1},
		{"share my position with the team", "share", 0},
	} {
		if got := strength(tc.prompt, tc.app); got != tc.want {
			t.Errorf("%q: %s named with strength %v, want %v", tc.prompt, tc.app, got, tc.want)
		}
	}
}

// TestVerbNamedAppIsTheRequest: an app named after what it does ("Remove duplicates",
// "Get weather"), its name said in lower case as the request's own verb and object, is
// what the request asks for, not an app it names: the words stay the clause's terms.
// Capitalised, or after a preposition, the name names the app.
func TestVerbNamedAppIsTheRequest(t *testing.T) {
	actions := []text.CatalogAction{
		{App: "remove_duplicates", Slug: "REMOVE_DUPLICATES_REMOVE_DUPLICATES", DisplayName: "remove Duplicates", Description: "Remove duplicate rows from a dataset"},
		{App: "get_weather", Slug: "GET_WEATHER_GET_WEATHER", DisplayName: "Get weather", Description: "Current weather of a city"},
	}
	apps := []text.CatalogApp{{App: "REMOVE_DUPLICATES", DisplayName: "remove Duplicates"}, {App: "GET_WEATHER", DisplayName: "Get weather"}}
	an := text.NewWithCatalog(text.ComputeCatalog(actions, apps))
	names := slugsOf(apps)
	for _, tt := range []struct {
		prompt, app, term string
		named             bool
	}{
		{"please remove duplicates from dataset a", "remove_duplicates", "duplicat", false},
		{"get weather for paris", "get_weather", "weather", false},
		{"run Remove Duplicates on the sheet", "remove_duplicates", "", true},
		{"check the forecast with get weather", "get_weather", "", true},
	} {
		p := an.Prompt(tt.prompt, names)
		named, hasTerm := mentionStrength(p, tt.app) >= 1, false
		for _, c := range p.Clauses {
			for _, term := range c.Terms {
				hasTerm = hasTerm || term.Stem == tt.term
			}
		}
		if named != tt.named || tt.term != "" && !hasTerm {
			t.Errorf("%q: %s named %t (want %t), term %q kept %t: %+v", tt.prompt, tt.app, named, tt.named, tt.term, hasTerm, p.Clauses)
		}
	}
}

// TestRequestWordsNameNoApp: words in the request's own places name no app, however its
// slug is spelled: the verb after "can you" ("help", "help me"), a verb's -ing form
// ("investing") and a short word that is an app's slug without its final s ("new",
// "news"); a longer one still names it ("notebook", "notebooks").
func TestRequestWordsNameNoApp(t *testing.T) {
	var actions []text.CatalogAction
	var apps []text.CatalogApp
	for _, app := range []string{"help", "help_me", "news", "notebooks", "investing"} {
		apps = append(apps, text.CatalogApp{App: app, DisplayName: strings.ReplaceAll(app, "_", " ")})
		actions = append(actions, text.CatalogAction{App: app, Slug: strings.ToUpper(app) + "_RUN", Description: "Runs it."})
	}
	an := text.NewWithCatalog(text.ComputeCatalog(actions, apps))
	names := slugsOf(apps)
	for _, tt := range []struct {
		prompt, app string
		want        bool
	}{
		{"can you help me find a thai restaurant", "help", false},
		{"can you help me find a thai restaurant", "help_me", false},
		{"what is new in the repo", "news", false},
		{"open my notebook from yesterday", "notebooks", true},
		{"show the commands in help", "help", true},
		{"my friend is interested in investing in stocks", "investing", false},
		{"get the stock quotes from Investing", "investing", true},
	} {
		if named := mentionStrength(an.Prompt(tt.prompt, names), tt.app) >= 1; named != tt.want {
			t.Errorf("%q names %s: %t, want %t", tt.prompt, tt.app, named, tt.want)
		}
	}
}

// mentionStrength is the strength of a prompt's surest mention of app, 0 without one.
func mentionStrength(p text.Prompt, app string) float64 {
	s := 0.0
	for _, c := range p.Clauses {
		for _, m := range c.Apps {
			if m.App == app {
				s = max(s, m.Strength)
			}
		}
	}
	return s
}

// slugsOf returns the apps' slugs in lower case, as a request's apps.
func slugsOf(apps []text.CatalogApp) []string {
	out := make([]string, len(apps))
	for i, a := range apps {
		out[i] = strings.ToLower(a.App)
	}
	return out
}
