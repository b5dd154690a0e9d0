package hint_test

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
	"github.com/toolhint/toolhint/hint"
)

// The tests of this file run hint.Build against a memory store and a PostgreSQL store holding
// the same data and require identical results: the ranking is the library's, the stores only
// supply metadata and permissions, so any difference is a store bug. They never compare with
// fixed rankings, which change as the ranking is tuned.

// pgCatalogPath returns the shared catalogue's path (-catalog, default $TOOLHINT_CATALOG).
// It skips when it is not given.
func pgCatalogPath(t testing.TB) string {
	t.Helper()
	if *catalogPath == "" {
		t.Skip("shared catalogue not given: set -catalog or TOOLHINT_CATALOG")
	}
	return *catalogPath
}

// pgImportFile imports a JSONL file into st with imp (cache.ImportJSONL or
// cache.ImportAppsJSONL).
func pgImportFile(ctx context.Context, st cache.Store, path string, imp func(context.Context, cache.ImportStore, io.Reader) (int, error)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := imp(ctx, st, bufio.NewReaderSize(f, 1<<20)); err != nil {
		return fmt.Errorf("importing %s: %w", path, err)
	}
	return nil
}

// pgConnect moves a new connection of workspace ws to app through the allowed transitions
// to status to.
func pgConnect(ctx context.Context, st cache.Store, ws, app string, to cache.ConnectionStatus) error {
	if _, err := st.AddConnection(ctx, ws, app); err != nil {
		return err
	}
	var path []cache.ConnectionStatus
	switch to {
	case cache.StatusAdded:
	case cache.StatusPending:
		path = []cache.ConnectionStatus{cache.StatusPending}
	case cache.StatusActive:
		path = []cache.ConnectionStatus{cache.StatusPending, cache.StatusActive}
	case cache.StatusFailed:
		path = []cache.ConnectionStatus{cache.StatusPending, cache.StatusFailed}
	}
	for _, s := range path {
		if _, err := st.SetConnectionStatus(ctx, ws, app, s, "ca_"+ws+"_"+app); err != nil {
			return err
		}
	}
	return nil
}

// Permission data of the testdata comparison, written identically into both stores.
const (
	pgAgentMain     = 1 // slack, jira, gmail, googlecalendar active; github inactive
	pgAgentDev      = 2 // github, linear, notion, hackernews
	pgAgentNone     = 3 // no assignments: inherits the workspace's apps
	pgAgentMixed    = 4 // assignments written in mixed case
	pgWorkspaceA    = "ws-a"
	pgWorkspaceB    = "ws-b"
	pgWorkspaceNone = "ws-empty" // no connections at all
)

// pgSlackEnabled is ws-a's enabled-action configuration for Slack: sending is not enabled.
var pgSlackEnabled = []string{"SLACK_LIST_ALL_CHANNELS", "SLACK_SEARCH_MESSAGES", "SLACK_FETCH_CONVERSATION_HISTORY"}

// pgNotionEnabled is ws-b's configuration for Notion.
var pgNotionEnabled = []string{"NOTION_SEARCH_NOTION_PAGE", "NOTION_QUERY_DATABASE", "NOTION_ARCHIVE_NOTION_PAGE"}

// pgSetupPermissions writes the assignments, connections and tool configurations of the
// testdata comparison.
func pgSetupPermissions(ctx context.Context, st cache.Store) error {
	assign := []cache.Assignment{
		{AgentID: pgAgentMain, App: "slack", Type: "composio", Active: true},
		{AgentID: pgAgentMain, App: "jira", Type: "composio", Active: true},
		{AgentID: pgAgentMain, App: "gmail", Type: "composio", Active: true},
		{AgentID: pgAgentMain, App: "googlecalendar", Type: "composio", Active: true},
		{AgentID: pgAgentMain, App: "github", Type: "composio", Active: false},
		{AgentID: pgAgentDev, App: "github", Type: "composio", Active: true},
		{AgentID: pgAgentDev, App: "linear", Type: "composio", Active: true},
		{AgentID: pgAgentDev, App: "notion", Type: "composio", Active: true},
		{AgentID: pgAgentDev, App: "hackernews", Type: "composio", Active: true},
		{AgentID: pgAgentMixed, App: "Slack", Type: "composio", Active: true},
		{AgentID: pgAgentMixed, App: "GOOGLECALENDAR", Type: "composio", Active: true},
	}
	for _, a := range assign {
		if err := st.AssignApp(ctx, a); err != nil {
			return fmt.Errorf("assign %+v: %w", a, err)
		}
	}
	conns := []struct {
		ws, app string
		status  cache.ConnectionStatus
	}{
		{pgWorkspaceA, "slack", cache.StatusActive},
		{pgWorkspaceA, "jira", cache.StatusActive},
		{pgWorkspaceA, "gmail", cache.StatusActive},
		{pgWorkspaceA, "github", cache.StatusPending}, // must not count
		{pgWorkspaceA, "notion", cache.StatusFailed},  // must not count
		{pgWorkspaceA, "googlecalendar", cache.StatusAdded},
		{pgWorkspaceB, "github", cache.StatusActive},
		{pgWorkspaceB, "linear", cache.StatusActive},
		{pgWorkspaceB, "notion", cache.StatusActive},
		{pgWorkspaceB, "hackernews", cache.StatusActive},
		{pgWorkspaceB, "slack", cache.StatusPending},
	}
	for _, c := range conns {
		if err := pgConnect(ctx, st, c.ws, c.app, c.status); err != nil {
			return fmt.Errorf("connect %s/%s: %w", c.ws, c.app, err)
		}
	}
	if err := st.SaveEnabledActions(ctx, pgWorkspaceA, "slack", pgSlackEnabled); err != nil {
		return err
	}
	if err := st.SaveEnabledActions(ctx, pgWorkspaceA, "gmail", nil); err != nil { // explicit: all enabled
		return err
	}
	if err := st.SaveEnabledActions(ctx, pgWorkspaceB, "notion", pgNotionEnabled); err != nil {
		return err
	}
	return st.SetAppEnabled(ctx, pgWorkspaceB, "linear", false)
}

// pgLoadTestdata fills st with the project's testdata catalogue and the permission data.
func pgLoadTestdata(ctx context.Context, st cache.Store) error {
	if err := pgImportFile(ctx, st, "../testdata/catalog/apps.jsonl", cache.ImportAppsJSONL); err != nil {
		return err
	}
	if err := pgImportFile(ctx, st, "../testdata/catalog/actions.jsonl", cache.ImportJSONL); err != nil {
		return err
	}
	return pgSetupPermissions(ctx, st)
}

// pgCase is one request of a comparison, with an optional invariant that must hold on every
// store.
type pgCase struct {
	name  string
	req   hint.Request
	check func(t *testing.T, res hint.Result)
	// noApps says the request leaves no usable app: both stores fail with hint.ErrNoApps.
	noApps bool
}

// pgTestdataCases are varied requests over the testdata catalogue and permission data.
func pgTestdataCases() []pgCase {
	chat := func(agent int64, ws, prompt string) hint.Request {
		return hint.Request{AgentID: agent, WorkspaceID: ws, Prompt: prompt}
	}
	recipe := func(agent int64, prompt string) hint.Request {
		return hint.Request{AgentID: agent, Prompt: prompt, RecipeMode: true}
	}
	withApps := func(r hint.Request, apps ...string) hint.Request {
		r.Apps = apps
		return r
	}
	return []pgCase{
		{name: "slack message not channel", req: chat(pgAgentMain, "", "send a message to #general saying the deploy is done"),
			check: func(t *testing.T, res hint.Result) {
				if got := slices.Index(res.MatchedActions, "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"); got != 0 {
					t.Errorf("send message at index %d, want 0 (listed %v)", got, res.MatchedActions)
				}
				if slices.Contains(res.MatchedActions, "SLACK_CREATE_CHANNEL_BASED_CONVERSATION") {
					t.Errorf("create channel listed for a message: %v", res.MatchedActions)
				}
			}},
		{name: "slack create channel", req: chat(pgAgentMain, "", "create a new slack channel called #launch")},
		{name: "named email", req: chat(pgAgentMain, "", "email dana@example.com the quarterly numbers")},
		{name: "implied email", req: chat(pgAgentMain, "", "any new emails from the bank?")},
		{name: "implied meeting", req: chat(pgAgentMain, "", "schedule a meeting with Bob tomorrow at 3pm")},
		{name: "multi-step", req: chat(pgAgentMain, "", "look up PROJ-7 and add a comment saying it is fixed")},
		{name: "three steps", req: chat(pgAgentDev, "", "find the open pull requests, merge the oldest and file a linear issue for the follow-up")},
		{name: "destructive ask", req: chat(pgAgentMain, "", "delete the jira issue PROJ-9")},
		{name: "destructive implied", req: chat(pgAgentMain, "", "cancel friday's planning meeting")},
		{name: "vague", req: chat(pgAgentMain, "", "can you help me with something?")},
		{name: "matches nothing falls back", req: chat(pgAgentMain, "", "xyzzy plugh frobnicate"),
			check: func(t *testing.T, res hint.Result) {
				if res.Strategy != hint.StrategyFallback {
					t.Errorf("Strategy = %q, want fallback (listed %v)", res.Strategy, res.MatchedActions)
				}
			}},
		{name: "empty prompt", req: chat(pgAgentMain, "", "")},
		{name: "recipe read the issue", req: recipe(pgAgentMain, "Read the issue from the trigger payload and summarise it.")},
		{name: "recipe create issue", req: recipe(pgAgentDev, "Create a Linear issue with the summary from step 1.")},
		{name: "recipe matches nothing", req: recipe(pgAgentMain, "xyzzy plugh frobnicate")},
		{name: "request apps override, any case", req: withApps(chat(pgAgentMain, "", "open a pull request from feature to main"), "GitHub", " LINEAR ", "github"),
			check: func(t *testing.T, res hint.Result) {
				if diff := cmp.Diff([]string{"github", "linear"}, res.Apps); diff != "" {
					t.Errorf("Apps (-want +got):\n%s", diff)
				}
			}},
		{name: "request apps with unknown app", req: withApps(chat(pgAgentMain, "", "add a row to the tasks database"), "nosuchapp", "Notion")},
		{name: "request apps invalid name", req: withApps(chat(pgAgentMain, "", "send a message"), "not an app!", "slack")},
		{name: "mixed-case assignments", req: chat(pgAgentMixed, "", "what's on my calendar tomorrow? then post it in #standup")},
		{name: "auto-inheritance with enabled actions", req: chat(pgAgentNone, pgWorkspaceA, "send a message to #general saying the deploy is done"),
			check: func(t *testing.T, res hint.Result) {
				if diff := cmp.Diff([]string{"gmail", "jira", "slack"}, res.Apps); diff != "" {
					t.Errorf("Apps (-want +got):\n%s", diff)
				}
				pgCheckEnabled(t, res, "slack", pgSlackEnabled)
			}},
		{name: "auto-inheritance listing channels", req: chat(pgAgentNone, pgWorkspaceA, "list the slack channels and search messages about the outage"),
			check: func(t *testing.T, res hint.Result) { pgCheckEnabled(t, res, "slack", pgSlackEnabled) }},
		{name: "workspace filters assignments", req: chat(pgAgentMain, pgWorkspaceA, "file a bug about the login page and tell #eng"),
			check: func(t *testing.T, res hint.Result) {
				if slices.Contains(res.Apps, "googlecalendar") {
					t.Errorf("app connected only as added is a candidate: %v", res.Apps)
				}
				pgCheckEnabled(t, res, "slack", pgSlackEnabled)
			}},
		{name: "workspace with disabled app", req: chat(pgAgentDev, pgWorkspaceB, "create a linear issue for the crash and archive the old notion page"),
			check: func(t *testing.T, res hint.Result) {
				if slices.Contains(res.Apps, "linear") {
					t.Errorf("disabled app is a candidate: %v", res.Apps)
				}
				pgCheckEnabled(t, res, "notion", pgNotionEnabled)
			}},
		{name: "workspace only, no agent", req: hint.Request{WorkspaceID: pgWorkspaceB, Prompt: "what are the top stories on hacker news?"},
			check: func(t *testing.T, res hint.Result) {
				if diff := cmp.Diff([]string{"github", "hackernews", "notion"}, res.Apps); diff != "" {
					t.Errorf("Apps (-want +got):\n%s", diff)
				}
			}},
		{name: "workspace fallback honours config", req: chat(pgAgentNone, pgWorkspaceA, "hmm"),
			check: func(t *testing.T, res hint.Result) { pgCheckEnabled(t, res, "slack", pgSlackEnabled) }},
		{name: "no apps: no assignments", req: chat(pgAgentNone, "", "send a message"), noApps: true},
		{name: "no apps: empty workspace", req: chat(pgAgentNone, pgWorkspaceNone, "send a message"), noApps: true},
		{name: "no apps: blank request apps", req: withApps(chat(pgAgentMain, "", "send a message"), " ", ""), noApps: true},
	}
}

// pgCheckEnabled fails when res lists an action of app outside its enabled list.
func pgCheckEnabled(t *testing.T, res hint.Result, app string, enabled []string) {
	t.Helper()
	for _, m := range res.Matches {
		if m.App == app && !slices.Contains(enabled, m.Action) {
			t.Errorf("%s listed but not enabled for %s (listed %v)", m.Action, app, res.MatchedActions)
		}
	}
}

// pgCompare builds every case on both stores (each with its own Builder) and requires the
// results to be equal, then runs the case's invariant on each.
func pgCompare(t *testing.T, mem, pg hint.Store, cases []pgCase) {
	t.Helper()
	ctx := context.Background()
	bm, bp := hint.New(hint.Config{}), hint.New(hint.Config{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, errM := bm.Build(ctx, mem, tc.req)
			got, errP := bp.Build(ctx, pg, tc.req)
			// Both stores refuse the same requests alike (no usable apps), with the same text.
			if errM != nil || errP != nil {
				if !tc.noApps || !errors.Is(errM, hint.ErrNoApps) || !errors.Is(errP, hint.ErrNoApps) || errM.Error() != errP.Error() {
					t.Fatalf("Build(%+v): memory %v, postgres %v", tc.req, errM, errP)
				}
				return
			}
			if tc.noApps {
				t.Fatalf("Build(%+v): no error on either store, want hint.ErrNoApps", tc.req)
			}
			t.Logf("apps %v: %s %v", got.Apps, got.Strategy, got.MatchedActions)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("memory and postgres results differ (-memory +postgres):\n%s", diff)
			}
			if tc.check != nil {
				t.Run("memory", func(t *testing.T) { tc.check(t, want) })
				t.Run("postgres", func(t *testing.T) { tc.check(t, got) })
			}
		})
	}
}

// TestStoresAgreeOnTestdata builds the same requests over the testdata catalogue in a memory
// store and a PostgreSQL store and requires identical results.
func TestStoresAgreeOnTestdata(t *testing.T) {
	pg := cachetest.OpenPostgres(t)
	ctx := context.Background()
	mem := cache.NewMemory()
	if err := pgLoadTestdata(ctx, mem); err != nil {
		t.Fatalf("memory: %v", err)
	}
	if err := pgLoadTestdata(ctx, pg); err != nil {
		t.Fatalf("postgres: %v", err)
	}
	// The stores' metadata must agree before the hints can: a difference here names the
	// action at fault.
	mm, err := mem.ActionMeta(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := pg.ActionMeta(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(mm) == 0 {
		t.Fatal("testdata catalogue imported no actions")
	}
	if diff := cmp.Diff(mm, pm); diff != "" {
		t.Errorf("ActionMeta differs (-memory +postgres):\n%s", diff)
	}
	pgCompare(t, mem, pg, pgTestdataCases())
}

// pgFullCatalog loads the shared catalogue into a memory store once per test binary.
var pgFullCatalog = sync.OnceValues(func() (*cache.Memory, error) {
	path := os.Getenv("TOOLHINT_CATALOG")
	if f := flag.Lookup("catalog"); f != nil && f.Value.String() != "" {
		path = f.Value.String()
	}
	st := cache.NewMemory()
	return st, pgImportFile(context.Background(), st, path, cache.ImportJSONL)
})

// pgFullPostgres returns a PostgreSQL store (in its own schema, dropped when tb ends) holding
// the shared catalogue.
func pgFullPostgres(tb testing.TB) *cache.Postgres {
	tb.Helper()
	path := pgCatalogPath(tb)
	st := cachetest.OpenPostgres(tb)
	if err := pgImportFile(context.Background(), st, path, cache.ImportJSONL); err != nil {
		tb.Fatalf("postgres: %v", err)
	}
	return st
}

// pgCommonApps are apps of the shared catalogue an everyday agent has; the random app sets
// draw from them as well as from the whole catalogue, so that the prompts find something.
var pgCommonApps = []string{"gmail", "slack", "github", "jira", "notion", "googlecalendar", "googledrive",
	"hubspot", "linear", "outlook", "googlesheets", "trello", "asana", "discord", "salesforce", "dropbox"}

// pgFullPrompts are everyday requests written for these tests.
var pgFullPrompts = []string{
	"send a message to #eng that the deploy finished",
	"find the latest email from the accountant about taxes and forward it to Sam",
	"create a ticket for the flaky login test",
	"what's on my calendar on friday?",
	"add a row to the hiring spreadsheet with today's candidates",
	"look up the open pull requests in acme/api and comment on the oldest one",
	"share the Q3 deck with the board",
	"update the deal stage for Globex to closed won",
	"delete the draft I wrote yesterday",
	"upload the report to the shared folder",
	"list my tasks due this week",
	"hmm, not sure",
	"Create a new page with the meeting notes from step 2.",
	"Search for the customer's record and attach the invoice.",
	"invite ana@example.com to the project",
}

// TestStoresAgreeOnFullCatalog compares memory and PostgreSQL results over the shared
// catalogue for requests over random (fixed-source) eight-app sets.
func TestStoresAgreeOnFullCatalog(t *testing.T) {
	cachetest.PostgresDSN(t)
	path := pgCatalogPath(t)
	if testing.Short() {
		t.Skip("imports the full catalogue into PostgreSQL; skipped with -short")
	}
	mem, err := pgFullCatalog()
	if err != nil {
		t.Fatalf("memory: loading %s: %v", path, err)
	}
	pg := pgFullPostgres(t)
	ctx := context.Background()

	metas, err := mem.ActionMeta(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, m := range metas {
		if len(all) == 0 || all[len(all)-1] != m.App {
			all = append(all, m.App)
		}
	}
	if len(all) < 16 {
		t.Fatalf("catalogue has %d apps, want at least 16", len(all))
	}

	// A workspace that enables a few actions of one app, the same in both stores.
	gm, err := mem.ActionMeta(ctx, []string{"gmail"})
	if err != nil || len(gm) < 4 {
		t.Fatalf("gmail actions: %d, %v", len(gm), err)
	}
	enabled := []string{gm[0].Action, gm[len(gm)/2].Action, gm[len(gm)-1].Action}
	for _, st := range []cache.Store{mem, pg} {
		for _, app := range pgCommonApps[:8] {
			if err := pgConnect(ctx, st, "ws-full", app, cache.StatusActive); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.SaveEnabledActions(ctx, "ws-full", "gmail", enabled); err != nil {
			t.Fatal(err)
		}
	}
	// The memory store is shared by the package's tests: leave it as it was found.
	t.Cleanup(func() {
		for _, app := range pgCommonApps[:8] {
			if err := mem.RemoveConnection(ctx, "ws-full", app); err != nil {
				t.Errorf("remove connection: %v", err)
			}
		}
		if err := mem.SaveEnabledActions(ctx, "ws-full", "gmail", nil); err != nil {
			t.Errorf("reset enabled actions: %v", err)
		}
	})

	rng := rand.New(rand.NewPCG(5, 2026))
	var cases []pgCase
	for i := range 30 {
		set := map[string]bool{}
		for len(set) < 8 {
			if rng.IntN(2) == 0 {
				set[pgCommonApps[rng.IntN(len(pgCommonApps))]] = true
			} else {
				set[all[rng.IntN(len(all))]] = true
			}
		}
		apps := make([]string, 0, len(set))
		for a := range set {
			if rng.IntN(4) == 0 {
				a = strings.ToUpper(a)
			}
			apps = append(apps, a)
		}
		slices.Sort(apps)
		req := hint.Request{AgentID: 1, Apps: apps, Prompt: pgFullPrompts[rng.IntN(len(pgFullPrompts))], RecipeMode: rng.IntN(3) == 0}
		if i%6 == 5 { // through the workspace: connected apps and gmail's enabled actions
			req.Apps, req.AgentID, req.WorkspaceID = nil, 0, "ws-full"
		}
		var check func(*testing.T, hint.Result)
		if req.WorkspaceID != "" {
			check = func(t *testing.T, res hint.Result) { pgCheckEnabled(t, res, "gmail", enabled) }
		}
		cases = append(cases, pgCase{name: fmt.Sprintf("%02d", i), req: req, check: check})
	}
	pgCompare(t, mem, pg, cases)
}

// BenchmarkBuildPostgresAgent8Apps builds hints for an agent with eight assigned apps over
// the full shared catalogue in PostgreSQL. Target: p50 under 5 ms. Sub-benchmarks: "agent"
// reads the assignments (two queries per Build), "agent+workspace" also the workspace's
// connections and configuration (four), "apps" passes Request.Apps (one).
func BenchmarkBuildPostgresAgent8Apps(b *testing.B) {
	cachetest.PostgresDSN(b)
	pgCatalogPath(b)
	st := pgFullPostgres(b)
	ctx := context.Background()
	for _, app := range agent8Apps {
		if err := st.AssignApp(ctx, cache.Assignment{AgentID: 1, App: app, Type: "composio", Active: true}); err != nil {
			b.Fatal(err)
		}
		if err := pgConnect(ctx, st, "ws-bench", app, cache.StatusActive); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct {
		name string
		req  hint.Request
	}{
		{"agent", hint.Request{AgentID: 1}},
		{"agent+workspace", hint.Request{AgentID: 1, WorkspaceID: "ws-bench"}},
		{"apps", hint.Request{AgentID: 1, Apps: agent8Apps}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			bl := hint.New(hint.Config{})
			var durs []time.Duration
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				req := bc.req
				req.Prompt = pgFullPrompts[i%len(pgFullPrompts)]
				i++
				start := time.Now()
				res, err := bl.Build(ctx, st, req)
				durs = append(durs, time.Since(start))
				if err != nil || len(res.Apps) != len(agent8Apps) {
					b.Fatalf("Build: apps %v, %v", res.Apps, err)
				}
			}
			slices.Sort(durs)
			b.ReportMetric(float64(durs[(len(durs)-1)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(durs[(len(durs)*99)/100].Nanoseconds()), "p99-ns")
		})
	}
}
