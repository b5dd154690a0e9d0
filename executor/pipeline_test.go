package executor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/executor/executortest"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// denyPlatform refuses the platform tools it names.
type denyPlatform map[string]bool

func (d denyPlatform) PlatformToolAllowed(_ context.Context, _ int64, tool string) (bool, error) {
	return !d[tool], nil
}

func TestNewRequiresAccessForAgent(t *testing.T) {
	f := newFixture(t)
	_, err := executor.New(executor.Config{Registry: f.reg, Scope: executor.Scope{Identity: hint.Identity{AgentID: 3}}})
	if !errors.Is(err, executor.ErrInvalidConfig) {
		t.Fatalf("New with an agent and no Access: %v, want ErrInvalidConfig", err)
	}
	ex, err := executor.New(executor.Config{Registry: f.reg, Scope: executor.Scope{Identity: hint.Identity{AgentID: 3}}, Access: registry.AllowAll()})
	if err != nil {
		t.Fatalf("New with AllowAll: %v", err)
	}
	defer ex.Close()
	if r := ex.Execute(context.Background(), executor.Call{Name: "echo", Arguments: json.RawMessage(`{"text":"a"}`)}); !r.OK {
		t.Errorf("AllowAll refused echo: %s", r.Error)
	}
	// A child for an agent, of an executor without an Access, refuses every call.
	anon := mustNew(t, executor.Config{Registry: f.reg})
	defer anon.Close()
	child := anon.WithScope(executor.Scope{Identity: hint.Identity{AgentID: 3}})
	r := child.Execute(context.Background(), executor.Call{Name: "echo", Arguments: json.RawMessage(`{"text":"a"}`)})
	if r.ErrorKind != executor.KindForbidden || !strings.Contains(r.Error, "no access checker") {
		t.Errorf("child for an agent without Access: %q %q, want forbidden", r.ErrorKind, r.Error)
	}
	if f.count("echo") != 1 {
		t.Errorf("echo ran %d times, want 1", f.count("echo"))
	}
}

// TestNewRequiresRemoteForActions: a catalogue holding Composio actions needs a Remote; an
// empty one, or none, does not.
func TestNewRequiresRemoteForActions(t *testing.T) {
	full := catalogStore(t)
	tests := []struct {
		name    string
		cfg     executor.Config
		refused bool
	}{
		{"actions without a remote", executor.Config{Catalog: full}, true},
		{"actions with a remote", executor.Config{Catalog: full, Remote: unreachable}, false},
		{"empty catalogue", executor.Config{Catalog: cache.NewMemory()}, false},
		{"no catalogue", executor.Config{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, err := executor.New(tt.cfg)
			if tt.refused {
				if !errors.Is(err, executor.ErrInvalidConfig) || !strings.Contains(err.Error(), "Remote") {
					t.Errorf("err = %v, want ErrInvalidConfig naming Remote", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ex.Close()
		})
	}
}

// TestPipelineOrder: access comes first (a refused call shows no schema and reaches no
// hook), then validation, then confirmation, then the before-hooks.
func TestPipelineOrder(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	var seen []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, s)
	}
	access := registry.NewAccess(registry.AccessConfig{Registry: f.reg, Platform: denyPlatform{"echo": true}})
	ex := newExec(f, func(c *executor.Config) {
		c.Access = access
		c.Scope = executor.Scope{Identity: hint.Identity{AgentID: 9}}
		c.Confirm = func(_ context.Context, tool executor.Tool, args json.RawMessage) (bool, error) {
			note("confirm " + tool.Name + " " + string(args))
			return !bytes.Contains(args, []byte(`"no"`)), nil
		}
		c.Before = []executor.BeforeHook{func(_ context.Context, tool executor.Tool, args json.RawMessage) (json.RawMessage, error) {
			note("before " + tool.Name)
			return nil, nil
		}}
	})
	defer ex.Close()
	tests := []struct {
		name     string
		call     executor.Call
		wantKind executor.ErrorKind
		wantSeen []string
		absent   string // must not appear in the error
	}{
		{name: "refused with bad arguments: forbidden, no schema", call: executor.Call{Name: "echo", Arguments: json.RawMessage(`{"text":5,"nope":true`)},
			wantKind: executor.KindForbidden, absent: "takes:"},
		{name: "destructive with bad arguments: not confirmed", call: executor.Call{Name: "delete_everything", Arguments: json.RawMessage(`[1]`)},
			wantKind: executor.KindInvalidArguments},
		{name: "confirmation sees repaired arguments, before the hooks", call: executor.Call{Name: "delete_everything", Arguments: json.RawMessage(`{"really":"yes","threadId":"t"}`)},
			wantSeen: []string{`confirm delete_everything {"really":"yes"}`, "before delete_everything"}},
		{name: "refused confirmation stops before the hooks", call: executor.Call{Name: "delete_everything", Arguments: json.RawMessage(`{"really":"no"}`)},
			wantKind: executor.KindNeedsConfirmation, wantSeen: []string{`confirm delete_everything {"really":"no"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen = nil
			got := ex.Execute(context.Background(), tt.call)
			if got.ErrorKind != tt.wantKind {
				t.Fatalf("kind %q, want %q: %s", got.ErrorKind, tt.wantKind, got.Error)
			}
			if tt.absent != "" && strings.Contains(got.ForModel(), tt.absent) {
				t.Errorf("refusal shows %q: %s", tt.absent, got.ForModel())
			}
			if diff := cmp.Diff(tt.wantSeen, seen); diff != "" {
				t.Errorf("callbacks (-want +got):\n%s", diff)
			}
		})
	}
}

// identityStore holds an action that declares no identity key, one that declares
// workspace_id as its own data, and one of Composio's own toolkit.
func identityStore(t testing.TB) *cache.Memory {
	t.Helper()
	st := cache.NewMemory()
	_, err := st.Apply(context.Background(), cache.Batch{
		Apps: []cache.App{{Slug: "gmail"}, {Slug: "clockify"}, {Slug: "composio", NoAuth: true}},
		Actions: []cache.Action{
			{App: "gmail", Slug: "GMAIL_SEND_EMAIL", Description: "Send an email.", Parameters: json.RawMessage(`{"type":"object","properties":{
				"recipient_email":{"type":"string"},"body":{"type":"string"}},"required":["recipient_email"]}`)},
			{App: "clockify", Slug: "CLOCKIFY_GET_WORKSPACE", Description: "Get a workspace.", Parameters: json.RawMessage(`{"type":"object","properties":{
				"workspace_id":{"type":"string","description":"The Clockify workspace."}},"required":["workspace_id"]}`)},
			{App: "composio", Slug: "COMPOSIO_EXECUTE_AGENT", Description: "Run an agent.", Parameters: json.RawMessage(`{"type":"object","properties":{
				"prompt":{"type":"string"},"entity_id":{"type":"string","default":"default","description":"Entity ID for Composio authentication context."}},
				"required":["prompt"]}`)},
			{App: "composio", Slug: "COMPOSIO_CHECK_ACTIVE_CONNECTION", Description: "Check a toolkit's connection.", Parameters: json.RawMessage(`{"type":"object","properties":{
				"connected_account_id":{"type":"string","description":"Specific connected account ID to check status for"},
				"toolkit":{"type":"string","description":"Name of the toolkit to check"}},"required":["connected_account_id","toolkit"]}`)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cache.EnsureConnection(context.Background(), st, "ws1", "gmail", cache.StatusActive, "ca_gmail_ws1"); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestIdentityIsTheHosts: identity keys the model writes never reach the remote, unless the
// action declares the key as its own data; Composio's own actions get the scope's identity.
func TestIdentityIsTheHosts(t *testing.T) {
	st := identityStore(t)
	remote := &fakeRemote{}
	ex := mustNew(t, executor.Config{Catalog: st, Remote: remote, Scope: executor.Scope{Identity: hint.Identity{WorkspaceID: "ws1", UserID: "user-7"}}})
	defer ex.Close()
	identity := `"user_id":"victim","entity_id":"victim","connected_account_id":"ca_victim","workspace_id":"ws_victim","agent_id":99`
	tests := []struct {
		name      string
		call      executor.Call
		wantArgs  string
		wantStrip []string
	}{
		{name: "undeclared identity and framework keys stripped",
			call:      executor.Call{Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":"a@b.c",` + identity + `,"run_manager":{},"toolCallId":"x"}`)},
			wantArgs:  `{"recipient_email":"a@b.c"}`,
			wantStrip: []string{"user_id", "entity_id", "connected_account_id", "workspace_id", "agent_id", "run_manager", "toolCallId"}},
		{name: "identity key declared as business data kept",
			call:     executor.Call{Name: "CLOCKIFY_GET_WORKSPACE", Arguments: json.RawMessage(`{"workspace_id":"cw_1","user_id":"victim"}`)},
			wantArgs: `{"workspace_id":"cw_1"}`, wantStrip: []string{"user_id"}},
		{name: "composio's own action: model's entity replaced by the scope's",
			call:     executor.Call{Name: "COMPOSIO_EXECUTE_AGENT", Arguments: json.RawMessage(`{"prompt":"p","entity_id":"victim"}`)},
			wantArgs: `{"entity_id":"user-7","prompt":"p"}`, wantStrip: []string{"entity_id"}},
		{name: "composio's own action: scope's entity filled in",
			call:     executor.Call{Name: "COMPOSIO_EXECUTE_AGENT", Arguments: json.RawMessage(`{"prompt":"p"}`)},
			wantArgs: `{"entity_id":"user-7","prompt":"p"}`},
		{name: "composio's own action: the connected account of the toolkit it names, from the workspace",
			call:      executor.Call{Name: "COMPOSIO_CHECK_ACTIVE_CONNECTION", Arguments: json.RawMessage(`{"toolkit":"GMAIL","connected_account_id":"ca_victim"}`)},
			wantArgs:  `{"connected_account_id":"ca_gmail_ws1","toolkit":"GMAIL"}`,
			wantStrip: []string{"connected_account_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(remote.requests())
			got := ex.Execute(context.Background(), tt.call)
			if !got.OK {
				t.Fatalf("not OK: %s", got.Error)
			}
			reqs := remote.requests()[before:]
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			if diff := cmp.Diff(tt.wantArgs, string(reqs[0].Arguments)); diff != "" {
				t.Errorf("arguments sent (-want +got):\n%s", diff)
			}
			if reqs[0].UserID != "user-7" {
				t.Errorf("user id sent %q, want the scope's", reqs[0].UserID)
			}
			if diff := cmp.Diff(tt.wantStrip, got.Stripped); diff != "" {
				t.Errorf("stripped (-want +got):\n%s", diff)
			}
			if strings.Contains(string(reqs[0].Arguments), "victim") {
				t.Errorf("identity written by the model reached the remote: %s", reqs[0].Arguments)
			}
		})
	}

	// A required host-filled parameter the host has no value for is refused before the
	// remote, saying why in words the model can act on, and not asking for the hidden key.
	for _, args := range []string{`{"toolkit":"slack"}`, `{"toolkit":"slack","connected_account_id":"ca_victim"}`} {
		before := len(remote.requests())
		got := ex.Execute(context.Background(), executor.Call{Name: "COMPOSIO_CHECK_ACTIVE_CONNECTION", Arguments: json.RawMessage(args)})
		if got.OK || got.ErrorKind != executor.KindInvalidArguments || len(remote.requests()) != before {
			t.Fatalf("no connection to slack: ok %v kind %q, %d requests", got.OK, got.ErrorKind, len(remote.requests())-before)
		}
		if msg := got.ForModel(); !strings.Contains(msg, "no connection to slack") || strings.Contains(msg, "connected_account_id") {
			t.Errorf("refusal: %s", msg)
		}
	}

	// The definitions rendered for the model do not offer the host-filled parameters.
	res, err := registry.NewResolver(registry.ResolverConfig{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	r, err := res.Resolve(context.Background(), registry.Subject{Apps: []string{"composio", "clockify"}}, "run COMPOSIO_EXECUTE_AGENT and CLOCKIFY_GET_WORKSPACE")
	if err != nil || len(r.Functions) != 2 {
		t.Fatalf("resolve: %v, %d functions", err, len(r.Functions))
	}
	for _, fn := range r.Functions {
		switch fn.Slug {
		case "COMPOSIO_EXECUTE_AGENT":
			if strings.Contains(string(fn.Parameters), "entity_id") || !slices.Equal(fn.Hidden, []string{"entity_id"}) {
				t.Errorf("%s offers entity_id: %s (hidden %v)", fn.Slug, fn.Parameters, fn.Hidden)
			}
		case "CLOCKIFY_GET_WORKSPACE":
			if !strings.Contains(string(fn.Parameters), "workspace_id") {
				t.Errorf("%s lost its own workspace_id: %s", fn.Slug, fn.Parameters)
			}
		}
	}
}

// panicObserver panics in the callbacks it is told to.
type panicObserver struct{ start, end bool }

func (o panicObserver) CallStart(ctx context.Context, _ executor.Call) context.Context {
	if o.start {
		panic("observer start")
	}
	return ctx
}

func (o panicObserver) CallEnd(context.Context, executor.Call, executor.Result) {
	if o.end {
		panic("observer end")
	}
}

// TestHostCallbacksRecovered: a panic in any host callback is logged and never ends the
// process; the call's result says what happened.
func TestHostCallbacksRecovered(t *testing.T) {
	f := newFixture(t)
	boom := func() { panic("host bug") }
	tests := []struct {
		name     string
		cfg      func(*executor.Config)
		call     executor.Call
		batch    func(executor.Result) // OnResult
		wantOK   bool
		wantKind executor.ErrorKind
		wantRuns int // runs of the echo tool
	}{
		{name: "observer start", cfg: func(c *executor.Config) { c.Observer = panicObserver{start: true} }, wantOK: true, wantRuns: 1},
		{name: "observer end", cfg: func(c *executor.Config) { c.Observer = panicObserver{end: true} }, wantOK: true, wantRuns: 1},
		{name: "batch OnResult", batch: func(executor.Result) { boom() }, wantOK: true, wantRuns: 1},
		{name: "before-hook", cfg: func(c *executor.Config) {
			c.Before = []executor.BeforeHook{func(context.Context, executor.Tool, json.RawMessage) (json.RawMessage, error) {
				boom()
				return nil, nil
			}}
		}, wantKind: executor.KindInternal},
		{name: "after-hook keeps the result", cfg: func(c *executor.Config) {
			c.After = []executor.AfterHook{func(context.Context, executor.Tool, *executor.Result) { boom() }}
		}, wantOK: true, wantRuns: 1},
		{name: "confirm", cfg: func(c *executor.Config) {
			c.Confirm = func(context.Context, executor.Tool, json.RawMessage) (bool, error) { boom(); return true, nil }
		}, call: executor.Call{Name: "delete_everything"}, wantKind: executor.KindNeedsConfirmation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			before := f.count("echo")
			ex := newExec(f, func(c *executor.Config) {
				c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
				if tt.cfg != nil {
					tt.cfg(c)
				}
			})
			defer ex.Close()
			call := tt.call
			if call.Name == "" {
				call = executor.Call{Name: "echo", Arguments: json.RawMessage(`{"text":"a"}`)}
			}
			var got executor.Result
			if tt.batch != nil {
				got = ex.ExecuteBatch(context.Background(), []executor.Call{call}, executor.BatchOptions{OnResult: tt.batch})[0]
				run, err := ex.Background(context.Background(), []executor.Call{call}, executor.BatchOptions{OnResult: tt.batch})
				if err != nil {
					t.Fatal(err)
				}
				if rs, err := run.Wait(context.Background()); err != nil || !rs[0].OK {
					t.Errorf("background run: %v %+v", err, rs)
				}
				tt.wantRuns++
			} else {
				got = ex.Execute(context.Background(), call)
			}
			if got.OK != tt.wantOK || got.ErrorKind != tt.wantKind {
				t.Errorf("OK, kind = %v, %q; want %v, %q (%s)", got.OK, got.ErrorKind, tt.wantOK, tt.wantKind, got.Error)
			}
			if n := f.count("echo") - before; n != tt.wantRuns {
				t.Errorf("echo ran %d times, want %d", n, tt.wantRuns)
			}
			if !strings.Contains(logs.String(), "host callback panicked") {
				t.Errorf("panic not logged:\n%s", logs.String())
			}
		})
	}
}

// TestCallbacksSeeTheCall: hooks and the confirmation function get the call id, and tools
// and hooks find the scope in their context.
func TestCallbacksSeeTheCall(t *testing.T) {
	reg := registry.New()
	var mu sync.Mutex
	var seen []string
	note := func(ctx context.Context, who, callID string) {
		s, ok := executor.ScopeFrom(ctx)
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, who+" "+callID+" "+s.WorkspaceID+" "+strings.Repeat("!", btoi(!ok)))
	}
	reg.MustRegister(registry.ToolSpec{Name: "wipe", Description: "Wipe.", Destructive: true,
		Run: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			note(ctx, "run", "")
			return json.RawMessage(`{}`), nil
		}})
	ex := mustNew(t, executor.Config{Registry: reg, Scope: executor.Scope{Identity: hint.Identity{AgentID: 4, WorkspaceID: "ws9"}}, Access: registry.AllowAll(),
		Confirm: func(ctx context.Context, tool executor.Tool, _ json.RawMessage) (bool, error) {
			note(ctx, "confirm", tool.CallID)
			return true, nil
		},
		Before: []executor.BeforeHook{func(ctx context.Context, tool executor.Tool, _ json.RawMessage) (json.RawMessage, error) {
			note(ctx, "before", tool.CallID)
			return nil, nil
		}},
		After: []executor.AfterHook{func(ctx context.Context, tool executor.Tool, res *executor.Result) {
			note(ctx, "after", tool.CallID+"/"+res.CallID)
		}},
	})
	defer ex.Close()
	if r := ex.Execute(context.Background(), executor.Call{ID: "c42", Name: "wipe"}); !r.OK {
		t.Fatal(r.Error)
	}
	want := []string{"confirm c42 ws9 ", "before c42 ws9 ", "run  ws9 ", "after c42/c42 ws9 "}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("callbacks (-want +got):\n%s", diff)
	}
	if _, ok := executor.ScopeFrom(context.Background()); ok {
		t.Error("ScopeFrom found a scope in a plain context")
	}
	child := ex.WithScope(executor.Scope{Identity: hint.Identity{AgentID: 5, WorkspaceID: "ws10"}})
	defer child.Close()
	seen = nil
	child.Execute(context.Background(), executor.Call{ID: "c1", Name: "wipe"})
	if len(seen) < 3 || seen[2] != "run  ws10 " {
		t.Errorf("child's tool saw %v, want its own scope", seen)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestWithScopeLifecycle: a child shares its parent's resources but closing either closes
// only itself.
func TestWithScopeLifecycle(t *testing.T) {
	f := newFixture(t)
	parent := newExec(f, nil)
	defer parent.Close()
	child := parent.WithScope(executor.Scope{Identity: hint.Identity{WorkspaceID: "other"}})
	ctx := context.Background()
	echo := executor.Call{Name: "echo", Arguments: json.RawMessage(`{"text":"a"}`)}

	// A child's background run is the child's: closing the child cancels it.
	run, err := child.Background(ctx, []executor.Call{{Name: "sleep", Arguments: json.RawMessage(`{"ms":5000}`)}}, executor.BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for f.count("sleep") == 0 {
		runtime.Gosched()
	}
	child.Close()
	rs, err := run.Wait(ctx)
	if err != nil || rs[0].ErrorKind != executor.KindCancelled {
		t.Errorf("child's run after child.Close: %v %+v, want cancelled", err, rs)
	}
	if r := child.Execute(ctx, echo); r.ErrorKind != executor.KindClosed {
		t.Errorf("closed child ran a call: %+v", r)
	}
	if r := parent.Execute(ctx, echo); !r.OK {
		t.Errorf("parent after child.Close: %s", r.Error)
	}
	if _, err := parent.Background(ctx, []executor.Call{echo}, executor.BatchOptions{}); err != nil {
		t.Errorf("parent Background after child.Close: %v", err)
	}

	// Closing the parent leaves a child made before it working.
	second := parent.WithScope(executor.Scope{Identity: hint.Identity{WorkspaceID: "third"}})
	defer second.Close()
	parent.Close()
	if r := second.Execute(ctx, echo); !r.OK {
		t.Errorf("child after parent.Close: %+v", r)
	}
}

// TestSuggestionsOnlyNameAllowedTools: an unknown name is never answered with a tool the
// agent would be refused.
func TestSuggestionsOnlyNameAllowedTools(t *testing.T) {
	reg := registry.New()
	for _, n := range []string{"export_report", "export_reports_admin"} {
		reg.MustRegister(registry.ToolSpec{Name: n, Description: "Export.", Run: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }})
	}
	access := registry.NewAccess(registry.AccessConfig{Registry: reg, Platform: denyPlatform{"export_reports_admin": true}})
	ex := mustNew(t, executor.Config{Registry: reg, Access: access, Scope: executor.Scope{Identity: hint.Identity{AgentID: 2}}})
	defer ex.Close()
	r := ex.Execute(context.Background(), executor.Call{Name: "export_reports_admn"})
	if r.ErrorKind != executor.KindUnknownTool {
		t.Fatalf("kind %q", r.ErrorKind)
	}
	if diff := cmp.Diff([]string{"export_report"}, r.Suggestions); diff != "" {
		t.Errorf("suggestions (-want +got):\n%s", diff)
	}
	if strings.Contains(r.ForModel(), "admin") {
		t.Errorf("model text names a refused tool: %s", r.ForModel())
	}
}

// TestRunStepLastTurnNotRun: the tool calls of the last allowed turn are not run, since no
// model turn would read their results.
func TestRunStepLastTurnNotRun(t *testing.T) {
	f := newFixture(t)
	ex := newExec(f, nil)
	defer ex.Close()
	echo := executortest.Call("c", "echo", `{"text":"again"}`)
	llm := executortest.NewScriptedLLM(executortest.CallTools(echo), executortest.CallTools(echo), executortest.CallTools(echo))
	res, err := ex.RunStep(context.Background(), llm, executor.Step{Prompt: "loop", MaxTurns: 2, Platform: []registry.Category{}})
	if !errors.Is(err, executor.ErrMaxTurns) {
		t.Fatalf("err = %v, want ErrMaxTurns", err)
	}
	if f.count("echo") != 1 || res.Turns != 2 {
		t.Errorf("echo ran %d times over %d turns, want once (the last turn's call is not run)", f.count("echo"), res.Turns)
	}
	last := res.Results[len(res.Results)-1]
	if last.ErrorKind != executor.KindSkipped {
		t.Errorf("last result %+v, want skipped", last)
	}
	if m := res.Messages[len(res.Messages)-1]; m.Role != executor.RoleTool || m.ToolCallID != "c" {
		t.Errorf("last message %+v, want the skipped call's tool message", m)
	}
}

// TestTypedIntegerRange: a Typed tool's int field given a number it cannot hold fails
// validation; the tool does not run.
func TestTypedIntegerRange(t *testing.T) {
	type in struct {
		Count int `json:"count"`
	}
	runs := 0
	spec, err := registry.Typed(registry.ToolSpec{Name: "count", Description: "Count."}, func(_ context.Context, x in) (int, error) {
		runs++
		return x.Count, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	reg.MustRegister(spec)
	ex := mustNew(t, executor.Config{Registry: reg})
	defer ex.Close()
	for _, args := range []string{`{"count":1e20}`, `{"count":1e400}`} {
		r := ex.Execute(context.Background(), executor.Call{Name: "count", Arguments: json.RawMessage(args)})
		if r.ErrorKind != executor.KindInvalidArguments || !strings.Contains(r.Error, "/count") || r.Attempts != 0 {
			t.Errorf("%s: %q %q attempts %d, want invalid_arguments naming /count", args, r.ErrorKind, r.Error, r.Attempts)
		}
		var ve *schema.ValidationError
		if args == `{"count":1e400}` && !errors.As(r.Err, &ve) {
			t.Errorf("%s: Err = %v, want a *schema.ValidationError", args, r.Err)
		}
	}
	if r := ex.Execute(context.Background(), executor.Call{Name: "count", Arguments: json.RawMessage(`{"count":7}`)}); !r.OK || string(r.Data) != "7" {
		t.Errorf("count 7: %+v", r)
	}
	if runs != 1 {
		t.Errorf("tool ran %d times, want 1", runs)
	}
}

// TestArgumentsTooDeep: arguments nested beyond what encoding/json reads are called too
// deep, not invalid JSON.
func TestArgumentsTooDeep(t *testing.T) {
	f := newFixture(t)
	ex := newExec(f, func(c *executor.Config) { c.MaxArgBytes = 1 << 20 })
	defer ex.Close()
	deep := `{"text":` + strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001) + `}`
	r := ex.Execute(context.Background(), executor.Call{Name: "echo", Arguments: json.RawMessage(deep)})
	if r.ErrorKind != executor.KindInvalidArguments || !strings.Contains(r.Error, "too deep") || strings.Contains(r.Error, "not valid JSON") {
		t.Errorf("%q %q", r.ErrorKind, r.Error)
	}
	r = ex.Execute(context.Background(), executor.Call{Name: "echo", Arguments: json.RawMessage(`{"text":"a",}`)})
	if !strings.Contains(r.Error, "not valid JSON") {
		t.Errorf("broken JSON: %q", r.Error)
	}
}

// TestForUIKeepsTheWholeReason: the summary of a failure is its whole reason on one line,
// named once; Detail and the log keep the underlying error.
func TestForUIKeepsTheWholeReason(t *testing.T) {
	f := newFixture(t)
	var logs bytes.Buffer
	ex := newExec(f, func(c *executor.Config) { c.Logger = slog.New(slog.NewJSONHandler(&logs, nil)) })
	defer ex.Close()
	ctx := context.Background()
	bad := ex.Execute(ctx, executor.Call{Name: "echo", Arguments: json.RawMessage(`{"count":"x"}`)}).ForUI()
	for _, want := range []string{"do not match its schema:", "/count: wrong type", "missing required properties: 'text'", "echo takes:"} {
		if !strings.Contains(bad.Summary, want) {
			t.Errorf("summary %q lacks %q", bad.Summary, want)
		}
	}
	if strings.Contains(bad.Summary, "\n") {
		t.Errorf("summary spans lines: %q", bad.Summary)
	}
	failed := ex.Execute(ctx, executor.Call{Name: "fail"}).ForUI()
	if failed.Summary != "fail failed: the service said no" || failed.Detail != "the service said no" {
		t.Errorf("summary %q, detail %q", failed.Summary, failed.Detail)
	}
	if !strings.Contains(logs.String(), `/count: wrong type`) {
		t.Errorf("log lacks the whole reason:\n%s", logs.String())
	}
}
