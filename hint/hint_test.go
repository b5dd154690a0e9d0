package hint_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

var allApps = []string{"slack", "jira", "gmail", "googlecalendar"}

func newFake() *fakeStore {
	return &fakeStore{metas: fixture()}
}

func build(t *testing.T, st hint.Store, req hint.Request) hint.Result {
	t.Helper()
	res, err := hint.Build(context.Background(), st, req)
	if err != nil {
		t.Fatalf("Build(%+v): %v", req, err)
	}
	if len(res.Matches) != len(res.MatchedActions) {
		t.Fatalf("Matches and MatchedActions differ in length: %d, %d", len(res.Matches), len(res.MatchedActions))
	}
	return res
}

func rank(res hint.Result, slug string) int {
	return slices.Index(res.MatchedActions, slug) + 1
}

func TestSlackMessageNotChannel(t *testing.T) {
	for _, prompt := range []string{
		"send a message to #general saying the deploy is done",
		"post in the #launch channel that we go live at noon",
		"ping the team on slack that lunch is here",
		"tell #support the outage is over",
	} {
		t.Run(prompt, func(t *testing.T) {
			res := build(t, newFake(), hint.Request{AgentID: 1, Prompt: prompt, Apps: allApps})
			if got := rank(res, "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"); got != 1 {
				t.Errorf("send message ranked %d, want 1 (listed %v)", got, res.MatchedActions)
			}
			// Creating a channel is not how a message is posted: it may be listed as an
			// option further down, never first.
			if r := rank(res, "SLACK_CREATE_CHANNEL_BASED_CONVERSATION"); r == 1 {
				t.Errorf("create channel first for a message: %v", res.MatchedActions)
			}
			if res.Strategy != hint.StrategyCapability && res.Strategy != hint.StrategyTokenFiltered {
				t.Errorf("Strategy = %q", res.Strategy)
			}
		})
	}
	res := build(t, newFake(), hint.Request{AgentID: 1, Prompt: "create a new slack channel called #launch", Apps: allApps})
	if got := rank(res, "SLACK_CREATE_CHANNEL_BASED_CONVERSATION"); got != 1 {
		t.Errorf("create channel ranked %d, want 1 (listed %v)", got, res.MatchedActions)
	}
}

func TestRecipeReadTheIssue(t *testing.T) {
	res := build(t, newFake(), hint.Request{AgentID: 1, Prompt: "Read the issue from the trigger payload and summarise it.", Apps: allApps, RecipeMode: true})
	if got := rank(res, "JIRA_GET_ISSUE"); got < 1 || got > 2 {
		t.Errorf("JIRA_GET_ISSUE ranked %d, want 1 or 2 (listed %v)", got, res.MatchedActions)
	}
	if res.Strategy != hint.StrategyRecipeToken {
		t.Errorf("Strategy = %q, want recipe_token", res.Strategy)
	}
	for _, m := range res.Matches {
		if m.Tier != hint.StrategyRecipeToken {
			t.Errorf("%s tier %q, want recipe_token", m.Action, m.Tier)
		}
	}
}

func TestRanking(t *testing.T) {
	tests := []struct {
		prompt string
		recipe bool
		want   []string // each must be in the top len(want)+1
	}{
		{"email dana@example.com the quarterly numbers", false, []string{"GMAIL_SEND_EMAIL"}},
		{"any new emails from the bank?", false, []string{"GMAIL_FETCH_EMAILS"}},
		{"file a bug about the broken login page", false, []string{"JIRA_CREATE_ISSUE"}},
		{"look up PROJ-123", false, []string{"JIRA_GET_ISSUE"}},
		{"schedule a meeting with Bob tomorrow at 3pm", false, []string{"GOOGLECALENDAR_CREATE_EVENT"}},
		{"what's on my calendar tomorrow?", false, []string{"GOOGLECALENDAR_EVENTS_LIST"}},
		{"look up PROJ-7 and add a comment saying it is fixed", false, []string{"JIRA_GET_ISSUE", "JIRA_ADD_COMMENT"}},
		{"Create a Jira issue with the summary from step 1.", true, []string{"JIRA_CREATE_ISSUE"}},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			res := build(t, newFake(), hint.Request{AgentID: 1, Prompt: tt.prompt, Apps: allApps, RecipeMode: tt.recipe})
			for _, w := range tt.want {
				if r := rank(res, w); r == 0 || r > len(tt.want)+1 {
					t.Errorf("%s ranked %d, want within %d (listed %v)", w, r, len(tt.want)+1, res.MatchedActions)
				}
			}
		})
	}
}

func TestDestructiveSafety(t *testing.T) {
	destructive := map[string]bool{}
	for _, m := range fixture() {
		if m.Destructive {
			destructive[m.Action] = true
		}
	}
	tests := []struct {
		prompt string
		allow  []string // destructive actions that may (and must) be listed
	}{
		{"show me my latest emails", nil},
		{"clean out the slack channel messages", nil}, // "clean out" is not a destructive ask
		{"update the jira issue PROJ-1 with the new estimate", nil},
		{"what's on my calendar?", nil},
		{"message the team", nil},
		{"delete the jira issue PROJ-9", []string{"JIRA_DELETE_ISSUE"}},
		{"cancel friday's planning meeting", []string{"GOOGLECALENDAR_DELETE_EVENT"}},
		{"archive the #old-launch channel", []string{"SLACK_ARCHIVE_A_SLACK_CONVERSATION"}},
		{"trash the email from the spammer", []string{"GMAIL_MOVE_TO_TRASH"}},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			res := build(t, newFake(), hint.Request{AgentID: 1, Prompt: tt.prompt, Apps: allApps})
			for _, a := range res.MatchedActions {
				if destructive[a] && !slices.Contains(tt.allow, a) {
					t.Errorf("destructive %s listed (listed %v)", a, res.MatchedActions)
				}
			}
			for _, a := range tt.allow {
				if !slices.Contains(res.MatchedActions, a) {
					t.Errorf("%s not listed for a destructive ask (listed %v)", a, res.MatchedActions)
				}
			}
		})
	}
	// The fallback tier never lists destructive actions either.
	res := build(t, newFake(), hint.Request{AgentID: 1, Prompt: "hmm", Apps: allApps})
	if res.Strategy != hint.StrategyFallback {
		t.Fatalf("Strategy = %q, want fallback", res.Strategy)
	}
	for _, a := range res.MatchedActions {
		if destructive[a] {
			t.Errorf("fallback lists destructive %s", a)
		}
	}
}

func TestAppResolution(t *testing.T) {
	assign := func(app string, active bool) cache.Assignment {
		return cache.Assignment{AgentID: 7, App: app, Type: "composio", Active: active}
	}
	conn := func(app string, s cache.ConnectionStatus) cache.Connection {
		return cache.Connection{WorkspaceID: "ws", App: app, Status: s}
	}
	tests := []struct {
		name  string
		store *fakeStore
		req   hint.Request
		want  []string
	}{
		{"active assignments only",
			&fakeStore{assignments: map[int64][]cache.Assignment{7: {assign("slack", true), assign("jira", false)}}},
			hint.Request{AgentID: 7}, []string{"slack"}},
		{"auto-inheritance from workspace connections",
			&fakeStore{connections: map[string][]cache.Connection{"ws": {conn("gmail", cache.StatusActive), conn("jira", cache.StatusPending)}}},
			hint.Request{AgentID: 7, WorkspaceID: "ws"}, []string{"gmail"}},
		{"workspace filter on assignments",
			&fakeStore{
				assignments: map[int64][]cache.Assignment{7: {assign("slack", true), assign("jira", true)}},
				connections: map[string][]cache.Connection{"ws": {conn("slack", cache.StatusActive)}},
			},
			hint.Request{AgentID: 7, WorkspaceID: "ws"}, []string{"slack"}},
		{"request apps override assignments, any case",
			&fakeStore{assignments: map[int64][]cache.Assignment{7: {assign("slack", true)}}},
			hint.Request{AgentID: 7, Apps: []string{"GMAIL", " Jira ", "gmail"}}, []string{"gmail", "jira"}},
		{"disabled app in workspace config",
			&fakeStore{
				connections: map[string][]cache.Connection{"ws": {conn("slack", cache.StatusActive), conn("jira", cache.StatusActive)}},
				configs:     map[string][]cache.ToolConfig{"ws": {{WorkspaceID: "ws", App: "jira", Enabled: false}}},
			},
			hint.Request{AgentID: 7, WorkspaceID: "ws"}, []string{"slack"}},
		{"request apps with a name that cannot be an app",
			&fakeStore{},
			hint.Request{AgentID: 7, Apps: []string{"slack", "not an app!", strings.Repeat("x", cache.MaxSlugLen+1)}}, []string{"slack"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.store.metas = fixture()
			tt.req.Prompt = "send a message"
			res := build(t, tt.store, tt.req)
			if diff := cmp.Diff(tt.want, res.Apps); diff != "" {
				t.Errorf("Apps (-want +got):\n%s", diff)
			}
			for _, m := range res.Matches {
				if !slices.Contains(tt.want, m.App) {
					t.Errorf("%s listed from app %s outside %v", m.Action, m.App, tt.want)
				}
			}
		})
	}
}

func TestEnabledActions(t *testing.T) {
	st := &fakeStore{
		metas:       fixture(),
		connections: map[string][]cache.Connection{"ws": {{WorkspaceID: "ws", App: "slack", Status: cache.StatusActive}}},
		configs: map[string][]cache.ToolConfig{"ws": {{WorkspaceID: "ws", App: "slack", Enabled: true,
			EnabledActions: []string{"SLACK_LIST_ALL_CHANNELS", "slack_search_messages"}}}},
	}
	res := build(t, st, hint.Request{AgentID: 1, WorkspaceID: "ws", Prompt: "send a message to #general"})
	if slices.Contains(res.MatchedActions, "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL") {
		t.Errorf("disabled action listed: %v", res.MatchedActions)
	}
	for _, a := range res.MatchedActions {
		if a != "SLACK_LIST_ALL_CHANNELS" && a != "SLACK_SEARCH_MESSAGES" {
			t.Errorf("action %s is not enabled", a)
		}
	}
}

// failStore is a workspace with Slack and Jira connected and assigned to agent 1, where
// the tool configs disable Jira and limit Slack to listing channels: a hint that ignored
// any permission read would list Jira's issue actions for "create a jira issue".
func failStore() *fakeStore {
	return &fakeStore{
		metas: fixture(),
		assignments: map[int64][]cache.Assignment{1: {
			{AgentID: 1, App: "slack", Active: true}, {AgentID: 1, App: "jira", Active: true}}},
		connections: map[string][]cache.Connection{"ws": {
			{WorkspaceID: "ws", App: "slack", Status: cache.StatusActive},
			{WorkspaceID: "ws", App: "jira", Status: cache.StatusActive}}},
		configs: map[string][]cache.ToolConfig{"ws": {
			{WorkspaceID: "ws", App: "jira", Enabled: false},
			{WorkspaceID: "ws", App: "slack", Enabled: true, EnabledActions: []string{"SLACK_LIST_ALL_CHANNELS"}}}},
		failing:   map[string]bool{},
		panicking: map[string]bool{},
	}
}

// TestFailClosed fails each store read in turn, by an error and by a panic: Build must
// return ErrStoreUnavailable wrapping the cause and no hint; a host that opted in gets a
// hint limited to what is certainly allowed, with Degraded saying why.
func TestFailClosed(t *testing.T) {
	ctx := context.Background()
	req := hint.Request{AgentID: 1, WorkspaceID: "ws", Prompt: "create a jira issue and list the slack channels"}
	healthy, err := hint.New(hint.Config{}).Build(ctx, failStore(), req)
	if err != nil || !slices.Equal(healthy.MatchedActions, []string{"SLACK_LIST_ALL_CHANNELS"}) {
		t.Fatalf("healthy store: %v, %v; want SLACK_LIST_ALL_CHANNELS alone", healthy.MatchedActions, err)
	}
	for _, method := range []string{"AgentApps", "Connections", "ToolConfigs", "ActionMeta"} {
		for _, mode := range []string{"error", "panic"} {
			t.Run(method+"/"+mode, func(t *testing.T) {
				st := failStore()
				if mode == "error" {
					st.failing[method] = true
				} else {
					st.panicking[method] = true
				}
				var logs bytes.Buffer
				b := hint.New(hint.Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
				res, err := b.Build(ctx, st, req)
				if !errors.Is(err, hint.ErrStoreUnavailable) {
					t.Fatalf("Build: %v, want an error wrapping ErrStoreUnavailable", err)
				}
				if mode == "error" && !errors.Is(err, errFake) {
					t.Errorf("error %v does not wrap the store's error", err)
				}
				if res.Text != "" || len(res.MatchedActions) > 0 || len(res.Apps) > 0 {
					t.Errorf("failed read gave a hint: apps %v, actions %v, text %q", res.Apps, res.MatchedActions, res.Text)
				}
				if !strings.Contains(logs.String(), "store read failed") {
					t.Errorf("failure not logged; logs:\n%s", logs.String())
				}

				// Opted in, per request or per builder.
				wantApps := []string(nil)
				if method == "ActionMeta" {
					wantApps = []string{"slack"} // the permission reads succeeded
				}
				for _, b := range []struct {
					name string
					b    *hint.Builder
					req  hint.Request
				}{
					{"Request.Degrade", hint.New(hint.Config{}), func() hint.Request { r := req; r.Degrade = true; return r }()},
					{"Config.Degrade", hint.New(hint.Config{Degrade: true}), req},
				} {
					res, err := b.b.Build(ctx, st, b.req)
					if err != nil {
						t.Fatalf("%s: Build: %v, want a degraded hint", b.name, err)
					}
					if res.Degraded == "" || (mode == "error" && !strings.Contains(res.Degraded, errFake.Error())) {
						t.Errorf("%s: Degraded = %q, want the failure", b.name, res.Degraded)
					}
					if res.Text != "" || len(res.MatchedActions) > 0 || !slices.Equal(res.Apps, wantApps) {
						t.Errorf("%s: degraded hint lists apps %v, actions %v, text %q; want apps %v alone", b.name, res.Apps, res.MatchedActions, res.Text, wantApps)
					}
				}
			})
		}
	}
}

func TestBuildContextEnds(t *testing.T) {
	// A store whose reads block until their context ends: Build returns ctx's error, not
	// ErrStoreUnavailable, even with Degrade.
	for _, degrade := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		_, err := hint.Build(ctx, blockingStore{}, hint.Request{AgentID: 1, WorkspaceID: "ws", Prompt: "x", Degrade: degrade})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, hint.ErrStoreUnavailable) {
			t.Errorf("Degrade %v: err = %v, want context.DeadlineExceeded alone", degrade, err)
		}
	}
}

// blockingStore's reads wait for their context to end.
type blockingStore struct{ hint.Store }

func (blockingStore) AgentApps(ctx context.Context, _ int64) ([]cache.Assignment, error) {
	<-ctx.Done()
	return nil, fmt.Errorf("store: %w", ctx.Err())
}

// TestOddWorkspaceIDs sends workspace IDs no store can hold: the request is invalid, on
// every store (the PostgreSQL test repeats it there).
func TestOddWorkspaceIDs(t *testing.T) {
	st := cache.NewMemory()
	for _, ws := range []string{"ws\x00", "\xff", "   "} {
		_, err := hint.Build(context.Background(), st, hint.Request{AgentID: 1, WorkspaceID: ws, Prompt: "send an email", Degrade: true})
		if !errors.Is(err, hint.ErrInvalidRequest) || !errors.Is(err, cache.ErrInvalid) {
			t.Errorf("workspace %q: err = %v, want ErrInvalidRequest wrapping cache.ErrInvalid", ws, err)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := hint.Build(ctx, newFake(), hint.Request{AgentID: 1, Prompt: "x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
	for name, req := range map[string]hint.Request{
		"nothing to resolve": {Prompt: "send a message"},
		"negative agent":     {AgentID: -1, Apps: []string{"slack"}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := hint.Build(context.Background(), newFake(), req); !errors.Is(err, hint.ErrInvalidRequest) {
				t.Errorf("err = %v, want ErrInvalidRequest", err)
			}
		})
	}
	if _, err := hint.Build(context.Background(), nil, hint.Request{AgentID: 1}); !errors.Is(err, hint.ErrInvalidRequest) {
		t.Errorf("nil store: err = %v", err)
	}
}

func TestOutput(t *testing.T) {
	res := build(t, newFake(), hint.Request{AgentID: 1, Prompt: "email dana@example.com the quarterly numbers", Apps: allApps})
	if res.Text == "" || strings.Join(res.Lines, "\n") != res.Text {
		t.Fatalf("Text and Lines disagree: %q vs %q", res.Text, res.Lines)
	}
	if !strings.Contains(res.Text, "- GMAIL: GMAIL_SEND_EMAIL") {
		t.Errorf("exact slug not grouped under its app:\n%s", res.Text)
	}
	if !strings.Contains(res.Text, "recipient_email*: string (Address of the recipient.)") {
		t.Errorf("parameter hint missing:\n%s", res.Text)
	}
	if res.Confident != strings.Contains(res.Text, "You MUST call") {
		t.Errorf("Confident %v but text:\n%s", res.Confident, res.Text)
	}
	m := res.Matches[0]
	if m.Score <= 0 || len(m.Terms) == 0 || m.Tier == "" {
		t.Errorf("first match lacks an explanation: %+v", m)
	}
	// Limits are honoured.
	b := hint.New(hint.Config{Limits: hint.Limits{MaxActions: 2, MaxParamHintActions: 1, MaxParamsPerAction: 1}})
	res, err := b.Build(context.Background(), newFake(), hint.Request{AgentID: 1, Prompt: "email the team the numbers and create an event", Apps: allApps})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.MatchedActions) > 2 {
		t.Errorf("MaxActions 2: listed %v", res.MatchedActions)
	}
	for i, m := range res.Matches {
		if i >= 1 && len(m.Params) > 0 || len(m.Params) > 1 {
			t.Errorf("param limits not honoured: %+v", res.Matches)
		}
	}
}

func TestNothingToSay(t *testing.T) {
	res := build(t, newFake(), hint.Request{AgentID: 1, Prompt: "", Apps: allApps, RecipeMode: true})
	if res.Strategy != hint.StrategyNone || res.Text != "" || len(res.MatchedActions) != 0 {
		t.Errorf("empty recipe prompt: %+v", res)
	}
	res = build(t, newFake(), hint.Request{AgentID: 1, Prompt: strings.Repeat("send ", 100000), Apps: allApps})
	if len(res.MatchedActions) == 0 {
		t.Error("long prompt: nothing listed")
	}
}

// freshStore hands out deep copies of its metadata on every call, as a database-backed store
// does; hint.Build must give it the same results as a store that shares its slices.
type freshStore struct{ hint.Store }

func (f freshStore) ActionMeta(ctx context.Context, apps []string) ([]cache.ActionMeta, error) {
	ms, err := f.Store.ActionMeta(ctx, apps)
	out := make([]cache.ActionMeta, len(ms))
	for i, m := range ms {
		m.SlugTerms = slices.Clone(m.SlugTerms)
		m.NameTerms = slices.Clone(m.NameTerms)
		m.DescTerms = slices.Clone(m.DescTerms)
		out[i] = m
	}
	return out, err
}

// CatalogKnowledge passes the store's knowledge on: the two stores differ only in how they
// hand out metadata.
func (f freshStore) CatalogKnowledge(ctx context.Context) (cache.CatalogKnowledge, error) {
	return f.Store.(cache.KnowledgeStore).CatalogKnowledge(ctx)
}

func TestSharedAndFreshMetadataAgree(t *testing.T) {
	ctx := context.Background()
	st, err := loadTestdata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	apps := []string{"gmail", "slack", "github", "jira", "notion", "googlecalendar", "linear"}
	shared, fresh := hint.New(hint.Config{}), hint.New(hint.Config{})
	for _, prompt := range []string{
		"send a message to #eng that the deploy finished",
		"find the open pull requests and merge the oldest",
		"what's on my calendar tomorrow?",
		"file a linear issue for the crash and tell #mobile",
		"Read the issue and add a comment with the summary.",
	} {
		for round := 0; round < 3; round++ { // the shared store's index is built on round 2
			req := hint.Request{AgentID: 1, Apps: apps, Prompt: prompt}
			a, err1 := shared.Build(ctx, st, req)
			b, err2 := fresh.Build(ctx, freshStore{st}, req)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if diff := cmp.Diff(a, b); diff != "" {
				t.Errorf("%q round %d: shared and fresh metadata differ (-shared +fresh):\n%s", prompt, round, diff)
			}
		}
	}
}

func TestConcurrentBuilds(t *testing.T) {
	ctx := context.Background()
	st, err := loadTestdata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b := hint.New(hint.Config{})
	want, err := b.Build(ctx, freshStore{st}, hint.Request{AgentID: 1, Apps: []string{"slack", "jira", "github"}, Prompt: "create a jira issue and tell #eng"})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 20; i++ {
				got, err := b.Build(ctx, st, hint.Request{AgentID: 1, Apps: []string{"slack", "jira", "github"}, Prompt: "create a jira issue and tell #eng"})
				if err != nil {
					errs <- err
					return
				}
				if !slices.Equal(got.MatchedActions, want.MatchedActions) {
					errs <- errors.New("concurrent build differs: " + strings.Join(got.MatchedActions, ","))
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
