package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

// testdataCatalog loads the project's small catalogue (testdata/catalog/actions.jsonl).
func testdataCatalog(tb testing.TB) *cache.Memory {
	tb.Helper()
	f, err := os.Open("../testdata/catalog/actions.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	st := cache.NewMemory()
	if _, err := cache.ImportJSONL(context.Background(), st, f); err != nil {
		tb.Fatal(err)
	}
	return st
}

// suggestRegistry holds two platform tools, so that suggestions mix both kinds of tool.
func suggestRegistry(tb testing.TB) *registry.Registry {
	tb.Helper()
	reg := registry.New()
	run := func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }
	for _, name := range []string{"web_search", "get_current_time"} {
		if err := reg.Register(registry.ToolSpec{Name: name, Description: "Test tool.", ReadOnly: true, Run: run}); err != nil {
			tb.Fatal(err)
		}
	}
	return reg
}

// TestSuggestionRanking calls names a model might hallucinate and checks the first
// suggestion, and that every suggestion is a tool the scope may call.
func TestSuggestionRanking(t *testing.T) {
	st := testdataCatalog(t)
	allowed := []string{"gmail", "slack", "github", "googlecalendar"}
	ex := mustNew(t, executor.Config{Registry: suggestRegistry(t), Catalog: st, Remote: &fakeRemote{},
		Scope: executor.Scope{Identity: hint.Identity{WorkspaceID: "ws", Apps: allowed}}})
	defer ex.Close()
	tests := []struct {
		name, call, first string
	}{
		{"typo in a word", "SLACK_SEND_MESAGE", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"},
		{"swapped letters", "SLACK_SNED_MESSAGE", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"},
		{"two typos in a long word", "GOOGLECALENDAR_LIST_CALENDRS", "GOOGLECALENDAR_LIST_CALENDARS"},
		{"verb form", "SLACK_SENDING_MESSAGES", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"},
		{"past tense", "GITHUB_CREATED_ISSUE", "GITHUB_CREATE_AN_ISSUE"},
		{"plural object", "GMAIL_LIST_LABEL", "GMAIL_LIST_LABELS"},
		{"missing word", "SLACK_LIST_CHANNELS", "SLACK_LIST_ALL_CHANNELS"},
		{"missing words", "GITHUB_STAR_REPOSITORY", "GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER"},
		{"near word", "GMAIL_SEND_MAIL", "GMAIL_SEND_EMAIL"},
		{"words reordered", "GOOGLECALENDAR_EVENT_CREATE", "GOOGLECALENDAR_CREATE_EVENT"},
		{"object before verb", "SLACK_MESSAGE_SEND", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"},
		{"verb of the same class", "SLACK_POST_MESSAGE", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"},
		{"compound word", "GITHUB_CREATE_PULLREQUEST", "GITHUB_CREATE_A_PULL_REQUEST"},
		{"words run together", "GMAIL_SENDEMAIL", "GMAIL_SEND_EMAIL"},
		{"abbreviation", "GITHUB_MERGE_PR", "GITHUB_MERGE_A_PULL_REQUEST"},
		{"app split in two", "GOOGLE_CALENDAR_CREATE_EVENT", "GOOGLECALENDAR_CREATE_EVENT"},
		{"app alias", "GCAL_DELETE_EVENT", "GOOGLECALENDAR_DELETE_EVENT"},
		{"misspelt app", "SLAK_SEND_MESSAGE", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"},
		{"app the scope lacks", "OUTLOOK_SEND_EMAIL", "GMAIL_SEND_EMAIL"},
		{"app not allowed", "JIRA_CREATE_NEW_ISSUE", "GITHUB_CREATE_AN_ISSUE"},
		{"wrong app with no such action", "GITHUB_SEND_EMAIL", "GMAIL_SEND_EMAIL"},
		{"no app prefix", "create_calendar_event", "GOOGLECALENDAR_CREATE_EVENT"},
		{"app named inside", "send_slack_message", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"},
		{"lower case", "slack_search_message", "SLACK_SEARCH_MESSAGES"},
		{"composio id", "composio-gmail-fetch-email", "GMAIL_FETCH_EMAILS"},
		{"camel case", "slackSendMessage", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"},
		{"platform tool typo", "web_serch", "web_search"},
		{"platform tool words run together", "websearch", "web_search"},
		{"platform tool verb form", "getting_current_times", "get_current_time"},
		{"accented letter", "SLACK_SÉND_MESSAGE", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"},
		{"emoji", "SLACK_SEND_MESSAGE_🚀", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"},
		{"absurdly long", strings.Repeat("SLACK_SEND_MESSAGE_", 2000), "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ex.Execute(context.Background(), executor.Call{Name: tt.call})
			if r.ErrorKind != executor.KindUnknownTool {
				t.Fatalf("kind %q (%s), want %q", r.ErrorKind, r.Error, executor.KindUnknownTool)
			}
			if len(r.Suggestions) == 0 || r.Suggestions[0] != tt.first {
				t.Errorf("suggestions %v, want %s first", r.Suggestions, tt.first)
			}
			checkAllowed(t, r.Suggestions, allowed)
		})
	}
}

// checkAllowed fails when a suggestion is neither a platform tool nor an action of an
// allowed app, or when there are more than three.
func checkAllowed(t *testing.T, sugg, allowed []string) {
	t.Helper()
	if len(sugg) > 3 {
		t.Errorf("%d suggestions, want at most 3: %v", len(sugg), sugg)
	}
	seen := map[string]bool{}
	for _, s := range sugg {
		if seen[s] {
			t.Errorf("%s suggested twice", s)
		}
		seen[s] = true
		ok := s == "web_search" || s == "get_current_time"
		for _, a := range allowed {
			ok = ok || strings.HasPrefix(s, strings.ToUpper(a)+"_")
		}
		if !ok {
			t.Errorf("suggestion %s is not a tool the scope may call", s)
		}
	}
}

// TestSuggestionNone checks names that resemble nothing: no suggestion, and no panic.
func TestSuggestionNone(t *testing.T) {
	ex := mustNew(t, executor.Config{Registry: suggestRegistry(t), Catalog: testdataCatalog(t), Remote: &fakeRemote{},
		Scope: executor.Scope{Identity: hint.Identity{Apps: []string{"gmail", "slack"}}}})
	defer ex.Close()
	for _, name := range []string{"", "_", "x", "XYZZY_FROBNICATE_QUUX", "スラック_送信", "\xff\xfe\x00", "composio-"} {
		t.Run(fmt.Sprintf("%q", name), func(t *testing.T) {
			r := ex.Execute(context.Background(), executor.Call{Name: name})
			if r.OK {
				t.Fatal("an unknown name ran")
			}
			if diff := cmp.Diff([]string(nil), r.Suggestions); diff != "" {
				t.Errorf("suggestions (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzSuggest calls arbitrary names: the result is always a clear unknown-tool (or other)
// error with at most three suggestions, never a panic.
func FuzzSuggest(f *testing.F) {
	for _, s := range []string{"SLACK_SEND_MESAGE", "composio-gmail-fetch-email", "a_b_c_d_e_f_g_h_i_j_k_l", "SLACK_SÉND", "\xc3", "GOOGLE_CALENDAR_"} {
		f.Add(s)
	}
	ex := mustNew(f, executor.Config{Registry: suggestRegistry(f), Catalog: testdataCatalog(f), Remote: &fakeRemote{}})
	defer ex.Close()
	f.Fuzz(func(t *testing.T, name string) {
		r := ex.Execute(context.Background(), executor.Call{Name: name})
		if len(r.Suggestions) > 3 {
			t.Errorf("%d suggestions: %v", len(r.Suggestions), r.Suggestions)
		}
		if !r.OK && r.Error == "" {
			t.Error("failed without a message")
		}
	})
}

// TestSuggestionScope checks that suggestions follow the scope: no action of an app the
// agent may not use, whatever the name asks for.
func TestSuggestionScope(t *testing.T) {
	st := testdataCatalog(t)
	tests := []struct {
		name string
		apps []string
		call string
		want []string
	}{
		{"only the allowed app", []string{"github"}, "SLACK_SEND_MESAGE", nil},
		{"the allowed app's close actions", []string{"jira"}, "JIRA_CREATE_ISSUES", []string{"JIRA_CREATE_ISSUE", "JIRA_CREATE_SPRINT", "JIRA_GET_ISSUE"}},
		{"every app when unscoped", nil, "SLACK_SEND_MESAGE", []string{"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "SLACK_SEARCH_MESSAGES", "SLACK_SCHEDULE_MESSAGE"}},
		{"an empty app list is no restriction", []string{}, "SLACK_SEND_MESAGE", []string{"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "SLACK_SEARCH_MESSAGES", "SLACK_SCHEDULE_MESSAGE"}},
		{"app names in any case", []string{"Slack"}, "slack_send_mesage", []string{"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "SLACK_SEARCH_MESSAGES", "SLACK_SCHEDULE_MESSAGE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := mustNew(t, executor.Config{Catalog: st, Remote: &fakeRemote{}, Scope: executor.Scope{Identity: hint.Identity{Apps: tt.apps}}})
			defer ex.Close()
			r := ex.Execute(context.Background(), executor.Call{Name: tt.call})
			if diff := cmp.Diff(tt.want, r.Suggestions); diff != "" {
				t.Errorf("suggestions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSuggestionLeavesStore checks that scoring only reads the catalogue: the store may
// hand out its own slices.
func TestSuggestionLeavesStore(t *testing.T) {
	ctx := context.Background()
	st := testdataCatalog(t)
	for _, apps := range [][]string{nil, {"gmail", "slack", "github"}} {
		t.Run(fmt.Sprint(apps), func(t *testing.T) {
			names := func() []string {
				metas, err := st.ActionMeta(ctx, apps)
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, m := range metas {
					out = append(out, m.Action+" "+strings.Join(m.SlugTerms, ","))
				}
				return out
			}
			before := names()
			ex := mustNew(t, executor.Config{Catalog: st, Remote: &fakeRemote{}, Scope: executor.Scope{Identity: hint.Identity{Apps: apps}}})
			defer ex.Close()
			for _, call := range []string{"GITHUB_SEND_EMAIL", "SLACK_SEND_MESAGE", "send_mesage", "send_slack_message", "OUTLOOK_SEND_EMAIL"} {
				ex.Execute(ctx, executor.Call{Name: call})
			}
			if diff := cmp.Diff(before, names()); diff != "" {
				t.Errorf("catalogue changed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSuggestionAccess checks that with an access checker, suggestions come from the apps
// it allows, and from none when it allows none.
func TestSuggestionAccess(t *testing.T) {
	st := testdataCatalog(t)
	tests := []struct {
		name  string
		scope executor.Scope
		want  []string
	}{
		{"allowed app", executor.Scope{Identity: hint.Identity{AgentID: 1, Apps: []string{"SLACK"}}}, []string{"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "SLACK_SEARCH_MESSAGES", "SLACK_SCHEDULE_MESSAGE"}},
		{"other app", executor.Scope{Identity: hint.Identity{AgentID: 1, Apps: []string{"github"}}}, nil},
		{"no app assigned", executor.Scope{Identity: hint.Identity{AgentID: 1}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := mustNew(t, executor.Config{Catalog: st, Remote: &fakeRemote{}, Scope: tt.scope,
				Access: registry.NewAccess(registry.AccessConfig{Store: st})})
			defer ex.Close()
			r := ex.Execute(context.Background(), executor.Call{Name: "SLACK_SEND_MESAGE"})
			if diff := cmp.Diff(tt.want, r.Suggestions); diff != "" {
				t.Errorf("suggestions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSuggestionRealCatalog checks a few hallucinations against the shared catalogue, where
// hundreds of apps have look-alike actions.
func TestSuggestionRealCatalog(t *testing.T) {
	st := realCatalog(t)
	ex := mustNew(t, executor.Config{Catalog: st, Remote: &fakeRemote{}})
	defer ex.Close()
	tests := []struct {
		name, call, first string
	}{
		{"near word", "GMAIL_SEND_MAIL", "GMAIL_SEND_EMAIL"},
		{"typo", "SLACK_SEND_MESAGE", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"},
		{"app split in two", "GOOGLE_CALENDAR_CREATE_EVENT", "GOOGLECALENDAR_CREATE_EVENT"},
		{"words reordered", "GOOGLECALENDAR_EVENT_DELETE", "GOOGLECALENDAR_DELETE_EVENT"},
		{"words run together", "GMAIL_SENDEMAIL", "GMAIL_SEND_EMAIL"},
		{"app named inside", "send_slack_message", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"},
		{"composio id", "composio-gmail-fetch-email", "GMAIL_FETCH_EMAILS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ex.Execute(context.Background(), executor.Call{Name: tt.call})
			if len(r.Suggestions) == 0 || r.Suggestions[0] != tt.first {
				t.Errorf("suggestions %v, want %s first", r.Suggestions, tt.first)
			}
		})
	}
}

// realCatalog loads the shared catalogue named by -catalog, skipping without it.
func realCatalog(tb testing.TB) *cache.Memory {
	tb.Helper()
	if *catalogPath == "" {
		tb.Skip("set -catalog or TOOLHINT_CATALOG to run against the shared catalogue")
	}
	f, err := os.Open(*catalogPath)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	st := cache.NewMemory()
	if _, err := cache.ImportJSONL(context.Background(), st, f); err != nil {
		tb.Fatal(err)
	}
	return st
}

// largeCatalog returns the shared catalogue when -catalog names it, else a catalogue of
// about the same size made of the project's test actions copied under 220 invented apps.
func largeCatalog(b *testing.B) *cache.Memory {
	b.Helper()
	if *catalogPath != "" {
		return realCatalog(b)
	}
	ctx := context.Background()
	st := testdataCatalog(b)
	acts, err := st.Actions(ctx, cache.ActionFilter{})
	if err != nil {
		b.Fatal(err)
	}
	var batch cache.Batch
	for i := range 220 {
		app := fmt.Sprintf("app%03d", i)
		batch.Apps = append(batch.Apps, cache.App{Slug: app, DisplayName: app})
		for _, a := range acts {
			a.App = app
			a.Slug = strings.ToUpper(app) + "_" + a.Slug
			batch.Actions = append(batch.Actions, a)
		}
	}
	if _, err := st.Apply(ctx, batch); err != nil {
		b.Fatal(err)
	}
	return st
}

// BenchmarkSuggest measures an unknown tool name's whole call, suggestions included, over a
// catalogue of about 16,000 actions. Target: under 1ms when the name starts with an app
// (only that app's actions are scored). A name naming no app makes an unscoped executor
// score the whole catalogue; an agent's executor scores only its apps.
func BenchmarkSuggest(b *testing.B) {
	st := largeCatalog(b)
	ctx := context.Background()
	for _, bc := range []struct {
		name, call string
		apps       []string
	}{
		{"app prefix", "SLACK_SEND_MESAGE", nil},
		{"unknown app", "OUTLOOK_SEND_MESAGE", nil},
		{"no prefix", "send_mesage", nil},
		{"no prefix, 8 apps", "send_mesage", []string{"gmail", "slack", "github", "googlecalendar", "notion", "jira", "linear", "hackernews"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ex := mustNew(b, executor.Config{Catalog: st, Remote: &fakeRemote{}, Scope: executor.Scope{Identity: hint.Identity{Apps: bc.apps}}})
			defer ex.Close()
			call := executor.Call{Name: bc.call}
			if r := ex.Execute(ctx, call); r.ErrorKind != executor.KindUnknownTool || len(r.Suggestions) == 0 {
				b.Fatalf("kind %q, suggestions %v", r.ErrorKind, r.Suggestions)
			}
			b.ReportAllocs()
			for b.Loop() {
				ex.Execute(ctx, call)
			}
		})
	}
}
