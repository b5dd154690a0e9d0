package mcpadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhint/toolhint/adapters/mcpadapter"
	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// catalogue loads the project's test catalogue; agent 7 may use GitHub and Slack, which
// workspace acme has connected; agent 8 may use nothing.
func catalogue(t testing.TB) *cache.Memory {
	t.Helper()
	ctx := context.Background()
	st := cache.NewMemory()
	for _, f := range []struct {
		path string
		imp  func(context.Context, cache.Store, *os.File) (int, error)
	}{
		{"../../testdata/catalog/apps.jsonl", func(ctx context.Context, st cache.Store, f *os.File) (int, error) {
			return cache.ImportAppsJSONL(ctx, st, f)
		}},
		{"../../testdata/catalog/actions.jsonl", func(ctx context.Context, st cache.Store, f *os.File) (int, error) {
			return cache.ImportJSONL(ctx, st, f)
		}},
	} {
		file, err := os.Open(f.path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.imp(ctx, st, file)
		file.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, app := range []string{"github", "slack"} {
		if err := st.AssignApp(ctx, cache.Assignment{AgentID: 7, App: app, Active: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := cache.EnsureConnection(ctx, st, "acme", app, cache.StatusActive, "ca_"+app); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// bridge is a host's MCP server with our tools on it, and the scope of each session.
type bridge struct {
	server *mcp.Server
	mu     sync.Mutex
	scopes map[*mcp.ServerSession]executor.Scope
}

func (b *bridge) scope(_ context.Context, req *mcp.CallToolRequest) (executor.Scope, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.scopes[req.Session]
	if !ok {
		return executor.Scope{}, fmt.Errorf("session %s is not signed in", req.Session.ID())
	}
	return s, nil
}

// connect opens a client session over an in-memory transport, for scope.
func (b *bridge) connect(t *testing.T, s *executor.Scope) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := b.server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s != nil {
		b.mu.Lock()
		b.scopes[ss] = *s
		b.mu.Unlock()
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func newBridge(t *testing.T) (*bridge, *executor.Executor) {
	t.Helper()
	st := catalogue(t)
	remote := executor.RemoteFunc(func(_ context.Context, req executor.RemoteRequest) (json.RawMessage, error) {
		return json.Marshal(map[string]any{"ran": req.Action, "account": req.ConnectedAccountID, "args": req.Arguments})
	})
	ex, err := executor.New(executor.Config{
		Catalog: st, Remote: remote,
		Access: registry.NewAccess(registry.AccessConfig{Store: st}),
		Scope:  executor.Scope{Identity: hint.Identity{AgentID: 8, WorkspaceID: "beta"}}, // the default: may use nothing
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	b := &bridge{server: mcp.NewServer(&mcp.Implementation{Name: "host", Version: "1"}, nil), scopes: map[*mcp.ServerSession]executor.Scope{}}
	ctx := context.Background()
	var fns []schema.Function
	for _, slug := range []string{"GITHUB_CREATE_AN_ISSUE", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"} {
		act, err := st.Action(ctx, slug)
		if err != nil {
			t.Fatal(err)
		}
		fn, err := schema.Convert(act.Slug, act.Description, act.Parameters)
		if err != nil {
			t.Fatal(err)
		}
		fns = append(fns, fn)
	}
	cfg := mcpadapter.Config{Scope: b.scope}
	if err := mcpadapter.AddTools(b.server, ex, fns, cfg); err != nil {
		t.Fatal(err)
	}
	if err := mcpadapter.AddRouter(b.server, ex, executor.RouterConfig{Hints: st}, cfg); err != nil {
		t.Fatal(err)
	}
	return b, ex
}

func text(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestBridge lists and calls our tools from the official SDK's client, over an in-memory
// transport, with each session's own agent.
func TestBridge(t *testing.T) {
	ctx := context.Background()
	b, _ := newBridge(t)
	agent7 := b.connect(t, &executor.Scope{Identity: hint.Identity{AgentID: 7, WorkspaceID: "acme"}})

	list, err := agent7.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	want := []string{"GITHUB_CREATE_AN_ISSUE", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "batch_execute_tools", "create_plan", "execute_tool", "get_tool_schemas", "search_tools"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	for _, tl := range list.Tools {
		if tl.Name == "search_tools" && (tl.Annotations == nil || !tl.Annotations.ReadOnlyHint) {
			t.Errorf("search_tools annotations = %+v, want read-only", tl.Annotations)
		}
	}

	tests := []struct {
		name    string
		session *mcp.ClientSession
		tool    string
		args    any
		isError bool
		want    []string // substrings of the text result
	}{
		{"action", agent7, "GITHUB_CREATE_AN_ISSUE", map[string]any{"owner": "acme", "repo": "web", "title": "Login broken"},
			false, []string{`"ran":"GITHUB_CREATE_AN_ISSUE"`, `"account":"ca_github"`}},
		{"invalid arguments", agent7, "GITHUB_CREATE_AN_ISSUE", map[string]any{"owner": "acme"},
			true, []string{"error (invalid_arguments)"}},
		{"search", agent7, "search_tools", map[string]any{"use_case": "post a message to a slack channel"},
			false, []string{"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"}},
		{"get schemas", agent7, "get_tool_schemas", map[string]any{"slugs": []string{"GITHUB_CREATE_AN_ISSUE"}},
			false, []string{`"slug":"GITHUB_CREATE_AN_ISSUE"`, `"title"`}},
		{"execute", agent7, "execute_tool", map[string]any{"tool_slug": "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "arguments": map[string]any{"channel": "#eng", "text": "hi"}},
			false, []string{`"ran":"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"`}},
		{"batch", agent7, "batch_execute_tools", map[string]any{"tools": []any{
			map[string]any{"tool_slug": "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "arguments": map[string]any{"channel": "#eng", "text": "hi"}},
			map[string]any{"tool_slug": "GITHUB_CREATE_AN_ISSUE", "arguments": map[string]any{"owner": "acme", "repo": "web", "title": "t"}, "step": 1}}},
			false, []string{`"results"`, `"ran":"GITHUB_CREATE_AN_ISSUE"`}},
		{"meta-tool arguments validated", agent7, "search_tools", map[string]any{"limit": 3},
			true, []string{"error (invalid_arguments)", "use_case"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.session.CallTool(ctx, &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			got := text(res)
			if res.IsError != tt.isError {
				t.Errorf("IsError = %v, want %v: %s", res.IsError, tt.isError, got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("result lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestBridgeScopes runs each session's calls for its own agent: the session of agent 8 (workspace beta) may
// use neither GitHub nor Slack, and one without a scope is refused.
func TestBridgeScopes(t *testing.T) {
	ctx := context.Background()
	b, _ := newBridge(t)
	agent7 := b.connect(t, &executor.Scope{Identity: hint.Identity{AgentID: 7, WorkspaceID: "acme"}})
	agent8 := b.connect(t, &executor.Scope{Identity: hint.Identity{AgentID: 8, WorkspaceID: "beta"}})
	anonymous := b.connect(t, nil)

	call := map[string]any{"owner": "acme", "repo": "web", "title": "t"}
	tests := []struct {
		name    string
		session *mcp.ClientSession
		tool    string
		args    any
		isError bool
		want    string
	}{
		{"agent 7 runs the action", agent7, "GITHUB_CREATE_AN_ISSUE", call, false, `"ran":"GITHUB_CREATE_AN_ISSUE"`},
		{"agent 8 is refused", agent8, "GITHUB_CREATE_AN_ISSUE", call, true, "error (forbidden)"},
		{"agent 8 through the router is refused", agent8, "execute_tool", map[string]any{"tool_slug": "GITHUB_CREATE_AN_ISSUE", "arguments": call}, true, "forbidden"},
		{"agent 8 is told it has no apps", agent8, "search_tools", map[string]any{"use_case": "create a github issue"}, true, "no usable apps"},
		{"agent 7 finds it", agent7, "search_tools", map[string]any{"use_case": "create a github issue"}, false, "GITHUB_CREATE_AN_ISSUE"},
		{"no scope", anonymous, "GITHUB_CREATE_AN_ISSUE", call, true, "is not signed in"},
		{"no scope through the router", anonymous, "search_tools", map[string]any{"use_case": "x"}, true, "is not signed in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.session.CallTool(ctx, &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			got := text(res)
			if res.IsError != tt.isError || !strings.Contains(got, tt.want) {
				t.Errorf("IsError = %v, result %s; want IsError %v and %q", res.IsError, got, tt.isError, tt.want)
			}
		})
	}
}

func TestAddToolsErrors(t *testing.T) {
	ex := adaptertest.Executor()
	defer ex.Close()
	server := mcp.NewServer(&mcp.Implementation{Name: "host", Version: "1"}, nil)
	notObject := schema.Function{Name: "f", Slug: "f", Parameters: json.RawMessage(`{"type":"string"}`)}
	tests := []struct {
		name string
		err  error
	}{
		{"nil server", mcpadapter.AddTools(nil, ex, nil, mcpadapter.Config{})},
		{"nil executor", mcpadapter.AddTools(server, nil, nil, mcpadapter.Config{})},
		{"not an object schema", mcpadapter.AddTools(server, ex, []schema.Function{notObject}, mcpadapter.Config{})},
		{"router without a hint store", mcpadapter.AddRouter(server, ex, executor.RouterConfig{}, mcpadapter.Config{})},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, mcpadapter.ErrConfig) {
			t.Errorf("%s: error = %v, want ErrConfig", tt.name, tt.err)
		}
	}
}
