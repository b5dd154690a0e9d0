package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/executor/executortest"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

// connectFixture is a router over a fake Composio API: agent 1 may use gmail, slack and
// hackernews (no auth); workspace ws1 has gmail connected (an active account on the fake)
// and nothing else. github is in the catalogue but not assigned.
type connectFixture struct {
	api          *composiotest.Server
	st           *cache.Memory
	router       *executor.Router
	outer        *executor.Executor
	gmailAccount string

	mu       sync.Mutex
	executed []composiotest.ExecuteCall
}

func newConnectFixture(t testing.TB, scope executor.Scope, withConnector bool) *connectFixture {
	t.Helper()
	ctx := context.Background()
	oauth := []string{"OAUTH2"}
	api := composiotest.NewServer(t, composiotest.WithCatalog(composiotest.Catalog{
		Toolkits: []composio.Toolkit{
			{Slug: "gmail", Name: "Gmail", AuthSchemes: oauth, ComposioManagedAuthSchemes: oauth},
			{Slug: "slack", Name: "Slack", AuthSchemes: oauth, ComposioManagedAuthSchemes: oauth},
			{Slug: "github", Name: "GitHub", AuthSchemes: oauth, ComposioManagedAuthSchemes: oauth},
			{Slug: "hackernews", Name: "Hacker News", NoAuth: true},
		},
		Tools: []composio.Tool{
			{Slug: "GMAIL_FETCH_EMAILS", Toolkit: composio.ToolkitRef{Slug: "gmail"}},
			{Slug: "GMAIL_SEND_EMAIL", Toolkit: composio.ToolkitRef{Slug: "gmail"}},
			{Slug: "SLACK_SEND_MESSAGE", Toolkit: composio.ToolkitRef{Slug: "slack"}},
			{Slug: "HACKERNEWS_GET_TOP_STORIES", Toolkit: composio.ToolkitRef{Slug: "hackernews"}, NoAuth: true},
		},
	}))
	fx := &connectFixture{api: api, st: cache.NewMemory()}
	api.HandleAllExecute(func(ctx context.Context, c composiotest.ExecuteCall) (any, error) {
		fx.mu.Lock()
		fx.executed = append(fx.executed, c)
		fx.mu.Unlock()
		if c.Action == "GMAIL_FETCH_EMAILS" {
			return map[string]any{"messages": []map[string]string{{"subject": "Q3 numbers", "from": "cfo@acme.test"}}}, nil
		}
		return map[string]any{"ok": true}, nil
	})
	ac := api.AddAuthConfig(composio.AuthConfig{Toolkit: composio.ToolkitRef{Slug: "gmail"}, AuthScheme: "OAUTH2", IsComposioManaged: true})
	fx.gmailAccount = api.AddAccount(composio.ConnectedAccount{UserID: "ws1", Toolkit: composio.ToolkitRef{Slug: "gmail"},
		AuthConfig: composio.AccountConfig{ID: ac.ID}}).ID

	obj := func(props string, req ...string) json.RawMessage {
		r, _ := json.Marshal(append([]string{}, req...))
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(r) + `}`)
	}
	if _, err := fx.st.Apply(ctx, cache.Batch{
		Apps: []cache.App{
			{Slug: "gmail", DisplayName: "Gmail"}, {Slug: "slack", DisplayName: "Slack"},
			{Slug: "github", DisplayName: "GitHub"}, {Slug: "hackernews", DisplayName: "Hacker News", NoAuth: true},
		},
		Actions: []cache.Action{
			{App: "gmail", Slug: "GMAIL_FETCH_EMAILS", DisplayName: "Fetch emails", Description: "Fetch the latest emails from the inbox.",
				Parameters: obj(`"max_results":{"type":"integer"}`)},
			{App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email", Description: "Send an email to a recipient.",
				Parameters: obj(`"recipient_email":{"type":"string"},"body":{"type":"string"}`, "recipient_email", "body")},
			{App: "slack", Slug: "SLACK_SEND_MESSAGE", DisplayName: "Send message", Description: "Post a message to a Slack channel.",
				Parameters: obj(`"channel":{"type":"string"},"text":{"type":"string"}`, "channel", "text")},
			{App: "github", Slug: "GITHUB_CREATE_AN_ISSUE", DisplayName: "Create an issue", Description: "Create an issue in a repository.",
				Parameters: obj(`"title":{"type":"string"}`, "title")},
			{App: "hackernews", Slug: "HACKERNEWS_GET_TOP_STORIES", DisplayName: "Get top stories", Description: "Get the top stories on Hacker News.",
				Parameters: obj(`"limit":{"type":"integer"}`), NoAuth: true},
		},
	}); err != nil {
		t.Fatal(err)
	}
	for _, app := range []string{"gmail", "slack", "hackernews"} {
		if err := fx.st.AssignApp(ctx, cache.Assignment{AgentID: 1, App: app, Active: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := fx.st.AddConnection(ctx, "ws1", "gmail"); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.st.SetConnectionStatus(ctx, "ws1", "gmail", cache.StatusActive, fx.gmailAccount); err != nil {
		t.Fatal(err)
	}

	client := api.Client()
	inner := mustNew(t, executor.Config{Catalog: fx.st, Remote: client, Scope: scope,
		Access: registry.NewAccess(registry.AccessConfig{Store: fx.st}), RetryBackoff: time.Millisecond})
	t.Cleanup(func() { inner.Close() })
	cfg := executor.RouterConfig{Hints: fx.st}
	if withConnector {
		cfg.Connect = executor.ConnectConfig{Connector: client, Store: fx.st, WaitPoll: 2 * time.Millisecond, MaxWait: 5 * time.Second}
	}
	r, err := executor.NewRouter(inner, cfg)
	if err != nil {
		t.Fatal(err)
	}
	fx.router = r
	reg := registry.New()
	for _, spec := range r.Tools() {
		if err := reg.Register(spec); err != nil {
			t.Fatalf("register %s: %v", spec.Name, err)
		}
	}
	fx.outer = mustNew(t, executor.Config{Registry: reg})
	t.Cleanup(func() { fx.outer.Close() })
	return fx
}

// flipWhenPolled sets the status of the app's pending account on the fake once the router
// has polled it at least once, as a user finishing (or abandoning) the authorisation would.
func (fx *connectFixture) flipWhenPolled(t *testing.T, app, status string) <-chan string {
	t.Helper()
	done := make(chan string, 1)
	go func() {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			c, err := fx.st.Connection(context.Background(), "ws1", app)
			if err == nil && c.Status == cache.StatusPending && c.ConnectedAccountID != "" &&
				len(fx.api.RequestsTo("GET", "/connected_accounts/"+c.ConnectedAccountID)) > 0 {
				fx.api.SetAccountStatus(c.ConnectedAccountID, status)
				done <- c.ConnectedAccountID
				return
			}
			time.Sleep(time.Millisecond)
		}
		done <- ""
	}()
	return done
}

func (fx *connectFixture) call(t *testing.T, name, args string) executor.Result {
	t.Helper()
	return fx.outer.Execute(context.Background(), executor.Call{Name: name, Arguments: json.RawMessage(args)})
}

func decode[T any](t *testing.T, r executor.Result) T {
	t.Helper()
	var v T
	if !r.OK {
		t.Fatalf("%s failed: %s", r.Tool, r.ForModel())
	}
	if err := json.Unmarshal(r.Data, &v); err != nil {
		t.Fatalf("decoding %s: %v", r.Data, err)
	}
	return v
}

type connResult struct {
	App         string `json:"app"`
	Status      string `json:"status"`
	RedirectURL string `json:"redirect_url"`
	Reason      string `json:"reason"`
	TimedOut    bool   `json:"timed_out"`
	Note        string `json:"note"`
}

// TestRouterConnectPlanRun is one router run against the fake Composio API: the model
// searches, connects slack (the user authorises it while wait_for_connection polls), plans
// a two-app prompt, and runs the plan's steps in order with batch_execute_tools.
func TestRouterConnectPlanRun(t *testing.T) {
	fx := newConnectFixture(t, executor.Scope{Identity: hint.Identity{AgentID: 1, WorkspaceID: "ws1"}}, true)
	ctx := context.Background()
	const prompt = "Fetch my latest emails from gmail, then post a summary of them to #general on slack"

	// Before the connection, slack's actions are refused.
	if r := fx.call(t, executor.ToolExecute, `{"tool_slug":"SLACK_SEND_MESSAGE","arguments":{"channel":"#general","text":"x"}}`); r.OK ||
		!strings.Contains(r.ForModel(), "no connection to slack") {
		t.Fatalf("slack before connecting: %s", r.ForModel())
	}

	argsFor := map[string]json.RawMessage{
		"GMAIL_FETCH_EMAILS": json.RawMessage(`{"max_results":5}`),
		"SLACK_SEND_MESSAGE": json.RawMessage(`{"channel":"#general","text":"Inbox: Q3 numbers from the CFO"}`),
	}
	var planned executor.Plan
	runPlan := func(req executor.LLMRequest) (executor.Message, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Name != executor.ToolCreatePlan {
			t.Errorf("last message is from %q, want the plan", last.Name)
		}
		if err := json.Unmarshal([]byte(last.Content), &planned); err != nil {
			return executor.Message{}, err
		}
		type item struct {
			Slug      string          `json:"tool_slug"`
			Arguments json.RawMessage `json:"arguments"`
			Step      int             `json:"step"`
		}
		// The model lists the steps last first: the step numbers keep the order.
		var items []item
		for i := len(planned.Steps) - 1; i >= 0; i-- {
			s := planned.Steps[i]
			if len(s.Candidates) == 0 {
				t.Fatalf("plan step %d has no candidate: %s", s.Index, last.Content)
			}
			items = append(items, item{s.Candidates[0].Slug, argsFor[s.Candidates[0].Slug], s.Step})
		}
		b, _ := json.Marshal(map[string]any{"tools": items, "stop_on_failure": true})
		return executortest.CallTools(executortest.Call("c5", executor.ToolBatchExecute, string(b)))(req)
	}
	llm := executortest.NewScriptedLLM(
		executortest.CallTools(executortest.Call("c1", executor.ToolSearch, `{"use_case":"fetch my latest emails"}`)),
		executortest.CallTools(executortest.Call("c2", executor.ToolManageConnections, `{"app":"slack"}`)),
		executortest.CallTools(executortest.Call("c3", executor.ToolWaitForConnection, `{"app":"slack","timeout_seconds":5}`)),
		executortest.CallTools(executortest.Call("c4", executor.ToolCreatePlan, `{"prompt":"`+prompt+`"}`)),
		runPlan,
		executortest.Say("Posted the summary to #general."),
	)
	flipped := fx.flipWhenPolled(t, "slack", composio.StatusActive)
	res, err := fx.outer.RunStep(ctx, llm, executor.Step{Prompt: prompt, Platform: []registry.Category{registry.CategoryRouter}})
	if err != nil {
		t.Fatalf("RunStep: %v", err)
	}
	slackAccount := <-flipped
	if slackAccount == "" {
		t.Fatal("the fake never saw wait_for_connection poll the slack account")
	}
	var tools []string
	for _, r := range res.Results {
		tools = append(tools, r.Tool)
		if !r.OK {
			t.Errorf("%s failed: %s", r.Tool, r.ForModel())
		}
	}
	if diff := cmp.Diff([]string{executor.ToolSearch, executor.ToolManageConnections, executor.ToolWaitForConnection,
		executor.ToolCreatePlan, executor.ToolBatchExecute}, tools); diff != "" {
		t.Fatalf("tools run (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.Results[0].ForModel(), `"slug":"GMAIL_FETCH_EMAILS"`) {
		t.Errorf("search: %s", res.Results[0].ForModel())
	}
	manage := decode[connResult](t, res.Results[1])
	if diff := cmp.Diff(connResult{App: "slack", Status: "pending", RedirectURL: fx.api.URL + "/connect/" + slackAccount,
		Note: "give the user this link to authorise slack, then call wait_for_connection"}, manage); diff != "" {
		t.Errorf("manage_connections (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(connResult{App: "slack", Status: "active"}, decode[connResult](t, res.Results[2])); diff != "" {
		t.Errorf("wait_for_connection (-want +got):\n%s", diff)
	}
	conn, err := fx.st.Connection(ctx, "ws1", "slack")
	if err != nil || conn.Status != cache.StatusActive || conn.ConnectedAccountID != slackAccount {
		t.Errorf("stored slack connection: %+v, %v; want active with %s", conn, err, slackAccount)
	}

	type stepView struct {
		Index, Step, WaitsFor int
		App                   string
		Connected, Needs      bool
		Best                  string
	}
	var steps []stepView
	for _, s := range planned.Steps {
		v := stepView{Index: s.Index, Step: s.Step, WaitsFor: s.WaitsFor, App: s.App, Connected: s.Connected, Needs: s.NeedsResult}
		if len(s.Candidates) > 0 {
			v.Best = s.Candidates[0].Slug
		}
		steps = append(steps, v)
	}
	if diff := cmp.Diff([]stepView{
		{Index: 1, Step: 1, App: "gmail", Connected: true, Best: "GMAIL_FETCH_EMAILS"},
		{Index: 2, Step: 2, WaitsFor: 1, App: "slack", Connected: true, Needs: true, Best: "SLACK_SEND_MESSAGE"},
	}, steps); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if len(planned.ConnectFirst) != 0 {
		t.Errorf("ConnectFirst = %v after connecting", planned.ConnectFirst)
	}

	// The batch ran in plan order, each action through its own connected account.
	type ran struct{ Slug, Account string }
	var got []ran
	fx.mu.Lock()
	for _, c := range fx.executed {
		got = append(got, ran{c.Action, c.ConnectedAccountID})
	}
	fx.mu.Unlock()
	if diff := cmp.Diff([]ran{{"GMAIL_FETCH_EMAILS", fx.gmailAccount}, {"SLACK_SEND_MESSAGE", slackAccount}}, got); diff != "" {
		t.Errorf("actions run on the fake (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.Results[4].ForModel(), `"tool":"SLACK_SEND_MESSAGE","call_id":"batch_0","ok":true`) {
		t.Errorf("batch: %s", res.Results[4].ForModel())
	}
	if res.Final != "Posted the summary to #general." {
		t.Errorf("final = %q", res.Final)
	}
}

func TestRouterConnectionEnds(t *testing.T) {
	tests := []struct {
		name    string
		flip    string // the status the user's action leaves the account in ("" leaves it)
		timeout string
		want    connResult
		stored  cache.ConnectionStatus
	}{
		{"authorised", composio.StatusActive, "5", connResult{App: "slack", Status: "active"}, cache.StatusActive},
		{"huge timeout clamped, not overflowed", composio.StatusActive, "1e300", connResult{App: "slack", Status: "active"}, cache.StatusActive},
		{"expired", composio.StatusExpired, "5", connResult{App: "slack", Status: "failed", Reason: "expired",
			Note: "the connection to slack was not authorised (expired); call manage_connections to start again"}, cache.StatusFailed},
		{"failed", composio.StatusFailed, "5", connResult{App: "slack", Status: "failed", Reason: "failed",
			Note: "the connection to slack was not authorised (failed); call manage_connections to start again"}, cache.StatusFailed},
		{"revoked", composio.StatusRevoked, "5", connResult{App: "slack", Status: "failed", Reason: "revoked",
			Note: "the connection to slack was not authorised (revoked); call manage_connections to start again"}, cache.StatusFailed},
		{"timed out", "", "0.05", connResult{App: "slack", Status: "pending", TimedOut: true,
			Note: "the user has not finished authorising slack; ask them to, then wait again"}, cache.StatusPending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newConnectFixture(t, executor.Scope{Identity: hint.Identity{AgentID: 1, WorkspaceID: "ws1"}}, true)
			first := decode[connResult](t, fx.call(t, executor.ToolManageConnections, `{"app":"slack"}`))
			if first.Status != "pending" || first.RedirectURL == "" {
				t.Fatalf("manage_connections: %+v", first)
			}
			var flipped <-chan string
			if tt.flip != "" {
				flipped = fx.flipWhenPolled(t, "slack", tt.flip)
			}
			got := decode[connResult](t, fx.call(t, executor.ToolWaitForConnection, `{"app":"slack","timeout_seconds":`+tt.timeout+`}`))
			if flipped != nil && <-flipped == "" {
				t.Fatal("the account was never polled")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("wait_for_connection (-want +got):\n%s", diff)
			}
			conn, err := fx.st.Connection(context.Background(), "ws1", "slack")
			if err != nil || conn.Status != tt.stored {
				t.Errorf("stored: %+v, %v; want %s", conn, err, tt.stored)
			}
			// Waiting again reports the stored outcome without asking Composio.
			if tt.stored != cache.StatusPending {
				fx.api.ResetRequests()
				again := decode[connResult](t, fx.call(t, executor.ToolWaitForConnection, `{"app":"slack"}`))
				if again.Status != string(tt.stored) || len(fx.api.Requests()) != 0 {
					t.Errorf("waiting again: %+v after %d requests", again, len(fx.api.Requests()))
				}
			}
			if tt.stored != cache.StatusFailed {
				return
			}
			// A failed connection starts again with a new link.
			second := decode[connResult](t, fx.call(t, executor.ToolManageConnections, `{"app":"slack"}`))
			if second.Status != "pending" || second.RedirectURL == first.RedirectURL {
				t.Errorf("restart after %s: %+v (first link %s)", tt.name, second, first.RedirectURL)
			}
			if conn, _ := fx.st.Connection(context.Background(), "ws1", "slack"); conn.Status != cache.StatusPending {
				t.Errorf("stored after the restart: %s, want pending", conn.Status)
			}
		})
	}
}

func TestRouterManageConnections(t *testing.T) {
	fx := newConnectFixture(t, executor.Scope{Identity: hint.Identity{AgentID: 1, WorkspaceID: "ws1"}}, true)
	tests := []struct {
		name     string
		tool     string
		args     string
		want     connResult
		contains string // for failures
	}{
		{"already connected", executor.ToolManageConnections, `{"app":"GMAIL"}`, connResult{App: "gmail", Status: "active", Note: "gmail is connected already"}, ""},
		{"no auth needed", executor.ToolManageConnections, `{"app":"hackernews"}`, connResult{App: "hackernews", Status: "not_needed", Note: "hackernews needs no authorisation; its actions can run now"}, ""},
		{"waiting for a no-auth app", executor.ToolWaitForConnection, `{"app":"hackernews"}`, connResult{App: "hackernews", Status: "not_needed"}, ""},
		{"unknown app", executor.ToolManageConnections, `{"app":"nosuchapp"}`, connResult{}, "not among the apps this agent may use"},
		{"app not assigned", executor.ToolManageConnections, `{"app":"github"}`, connResult{}, "github is not among the apps this agent may use"},
		{"waiting before starting", executor.ToolWaitForConnection, `{"app":"slack"}`, connResult{}, "call manage_connections first"},
		{"starts", executor.ToolManageConnections, `{"app":"slack"}`, connResult{App: "slack", Status: "pending", Note: "give the user this link to authorise slack, then call wait_for_connection"}, ""},
		{"a second call does not start another", executor.ToolManageConnections, `{"app":"slack"}`, connResult{App: "slack", Status: "pending",
			Note: "a connection to slack is waiting for the user to authorise it; call wait_for_connection, or manage_connections with restart=true for a new link"}, ""},
		{"restart", executor.ToolManageConnections, `{"app":"slack","restart":true}`, connResult{App: "slack", Status: "pending", Note: "give the user this link to authorise slack, then call wait_for_connection"}, ""},
		{"not batchable", executor.ToolBatchExecute, `{"tools":[{"tool_slug":"manage_connections","arguments":{"app":"slack"}}]}`, connResult{}, ""},
	}
	var links []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fx.call(t, tt.tool, tt.args)
			if tt.tool == executor.ToolBatchExecute {
				if !strings.Contains(r.ForModel(), "cannot be batched") {
					t.Errorf("batch: %s", r.ForModel())
				}
				return
			}
			if tt.contains != "" {
				if r.OK || !strings.Contains(r.ForModel(), tt.contains) {
					t.Errorf("got %s, want a failure containing %q", r.ForModel(), tt.contains)
				}
				return
			}
			got := decode[connResult](t, r)
			if got.RedirectURL != "" {
				links = append(links, got.RedirectURL)
				got.RedirectURL = ""
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if len(links) != 2 || links[0] == links[1] {
		t.Errorf("links given: %v, want two different ones", links)
	}
	conn, _ := fx.st.Connection(context.Background(), "ws1", "slack")
	if conn.Status != cache.StatusPending || !strings.HasSuffix(links[len(links)-1], "/"+conn.ConnectedAccountID) {
		t.Errorf("stored after the restart: %+v, want pending on the second link %s", conn, links[len(links)-1])
	}
	// The restart re-checked the pending account before abandoning it.
	if n := len(fx.api.RequestsTo("POST", "/connected_accounts/link")); n != 2 {
		t.Errorf("links created on the fake: %d, want 2", n)
	}
}

func TestRouterConnectScope(t *testing.T) {
	noWorkspace := newConnectFixture(t, executor.Scope{Identity: hint.Identity{AgentID: 1}}, true)
	if r := noWorkspace.call(t, executor.ToolManageConnections, `{"app":"slack"}`); r.OK || !strings.Contains(r.ForModel(), "without one") {
		t.Errorf("without a workspace: %s", r.ForModel())
	}
	without := newConnectFixture(t, executor.Scope{Identity: hint.Identity{AgentID: 1, WorkspaceID: "ws1"}}, false)
	var names []string
	for _, s := range without.router.Tools() {
		names = append(names, s.Name)
	}
	if diff := cmp.Diff([]string{executor.ToolSearch, executor.ToolGetSchemas, executor.ToolExecute, executor.ToolBatchExecute, executor.ToolCreatePlan}, names); diff != "" {
		t.Errorf("tools without a connector (-want +got):\n%s", diff)
	}
	st := cache.NewMemory()
	inner := mustNew(t, executor.Config{Catalog: st})
	defer inner.Close()
	_, err := executor.NewRouter(inner, executor.RouterConfig{Hints: st, Connect: executor.ConnectConfig{Connector: composiotest.NewServer(t).Client()}})
	if !errors.Is(err, executor.ErrInvalidConfig) {
		t.Errorf("a connector without a store: %v, want ErrInvalidConfig", err)
	}
}

func TestRouterPlan(t *testing.T) {
	fx := newConnectFixture(t, executor.Scope{Identity: hint.Identity{AgentID: 1, WorkspaceID: "ws1"}}, true)
	type stepView struct {
		Step, WaitsFor int
		Needs          bool
		Best           string
		Connection     string
	}
	tests := []struct {
		name         string
		prompt       string
		want         []stepView
		connectFirst []string
	}{
		{"dependent, the second app not connected", "Fetch my latest emails from gmail, then post a summary of them to #general on slack",
			[]stepView{{1, 0, false, "GMAIL_FETCH_EMAILS", "active"}, {2, 1, true, "SLACK_SEND_MESSAGE", "none"}}, []string{"slack"}},
		{"independent steps run together", "Post a message to #general on slack and get the top hacker news stories",
			[]stepView{{1, 0, false, "SLACK_SEND_MESSAGE", "none"}, {1, 0, false, "HACKERNEWS_GET_TOP_STORIES", "not_needed"}}, []string{"slack"}},
		{"then orders without data", "Get the top hacker news stories, then send an email to jay@example.com",
			[]stepView{{1, 0, false, "HACKERNEWS_GET_TOP_STORIES", "not_needed"}, {2, 1, false, "GMAIL_SEND_EMAIL", "active"}}, nil},
		{"one step", "send an email to jay@example.com", []stepView{{1, 0, false, "GMAIL_SEND_EMAIL", "active"}}, nil},
		{"nothing asked", "", []stepView{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := fx.router.Plan(context.Background(), tt.prompt)
			if err != nil {
				t.Fatal(err)
			}
			got := []stepView{}
			for _, s := range p.Steps {
				v := stepView{Step: s.Step, WaitsFor: s.WaitsFor, Needs: s.NeedsResult, Connection: s.Connection}
				if len(s.Candidates) > 0 {
					v.Best = s.Candidates[0].Slug
				}
				got = append(got, v)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.connectFirst, p.ConnectFirst); diff != "" {
				t.Errorf("ConnectFirst (-want +got):\n%s", diff)
			}
			if len(tt.connectFirst) > 0 && !strings.Contains(p.Note, "Connect "+strings.Join(tt.connectFirst, ", ")+" first with manage_connections.") {
				t.Errorf("note: %s", p.Note)
			}
		})
	}
	// Planning reads the local store only.
	fx.api.ResetRequests()
	if _, err := fx.router.Plan(context.Background(), "fetch my emails and post them to slack"); err != nil {
		t.Fatal(err)
	}
	if n := len(fx.api.Requests()); n != 0 {
		t.Errorf("Plan made %d requests to Composio", n)
	}
}

func BenchmarkRouterPlan(b *testing.B) {
	fx := newConnectFixture(b, executor.Scope{Identity: hint.Identity{AgentID: 1, WorkspaceID: "ws1"}}, true)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fx.router.Plan(ctx, "Fetch my latest emails from gmail, then post a summary of them to #general on slack"); err != nil {
			b.Fatal(err)
		}
	}
}

// stalledConnector never answers: each call waits until its context is done, and counts
// the calls that returned.
type stalledConnector struct{ returned atomic.Int32 }

func (c *stalledConnector) StartConnection(ctx context.Context, _, _, _ string) (string, string, string, error) {
	<-ctx.Done()
	c.returned.Add(1)
	return "", "", "", ctx.Err()
}

func (c *stalledConnector) AccountStatus(ctx context.Context, _ string) (string, error) {
	<-ctx.Done()
	c.returned.Add(1)
	return "", ctx.Err()
}

// TestManageConnectionsDeadline: a stalled Connector holds manage_connections only until
// ConnectConfig.StartTimeout, even when the executor would wait an hour; the model is told
// it timed out and to try again, and the next call starts afresh.
func TestManageConnectionsDeadline(t *testing.T) {
	ctx := context.Background()
	st := cache.NewMemory()
	if _, err := st.Apply(ctx, cache.Batch{Apps: []cache.App{{Slug: "slack", DisplayName: "Slack"}}}); err != nil {
		t.Fatal(err)
	}
	inner := mustNew(t, executor.Config{Catalog: st, Scope: executor.Scope{Identity: hint.Identity{WorkspaceID: "ws1"}}})
	defer inner.Close()
	conn := &stalledConnector{}
	r, err := executor.NewRouter(inner, executor.RouterConfig{Hints: st,
		Connect: executor.ConnectConfig{Connector: conn, Store: st, StartTimeout: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	for _, spec := range r.Tools() {
		reg.MustRegister(spec)
	}
	outer := mustNew(t, executor.Config{Registry: reg, Timeout: time.Hour})
	defer outer.Close()
	for i := range 2 {
		res := outer.Execute(ctx, executor.Call{Name: executor.ToolManageConnections, Arguments: json.RawMessage(`{"app":"slack"}`)})
		if res.OK || res.ErrorKind != executor.KindTimeout || !errors.Is(res.Err, context.DeadlineExceeded) ||
			!strings.Contains(res.Error, "gave no answer within 20ms") || !strings.Contains(res.Error, "try again later") {
			t.Errorf("call %d: %s (%v)", i, res.ForModel(), res.Err)
		}
		if n := conn.returned.Load(); n != int32(i+1) {
			t.Errorf("call %d: the connector returned %d times, want %d", i, n, i+1)
		}
	}
	if c, err := st.Connection(ctx, "ws1", "slack"); err != nil || c.Status != cache.StatusAdded {
		t.Errorf("stored: %+v, %v; want added, so the next call starts again", c, err)
	}
}
