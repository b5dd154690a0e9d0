package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/registry"
)

// fixture holds a registry of well-behaved and badly-behaved platform tools.
type fixture struct {
	reg     *registry.Registry
	release chan struct{} // closes to let "hang" return
	flaky   atomic.Int32  // failures left for the flaky tools
	calls   sync.Map      // tool name -> *atomic.Int32
}

func (f *fixture) count(name string) int {
	v, ok := f.calls.Load(name)
	if !ok {
		return 0
	}
	return int(v.(*atomic.Int32).Load())
}

func (f *fixture) hit(name string) {
	v, _ := f.calls.LoadOrStore(name, new(atomic.Int32))
	v.(*atomic.Int32).Add(1)
}

const echoSchema = `{"type":"object","properties":{"text":{"type":"string"},"count":{"type":"integer"},"memory":{"type":"string"}},"required":["text"]}`

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{reg: registry.New(), release: make(chan struct{})}
	reg := func(s registry.ToolSpec) {
		t.Helper()
		if err := f.reg.Register(s); err != nil {
			t.Fatalf("register %s: %v", s.Name, err)
		}
	}
	echo := func(name string) registry.Func {
		return func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			f.hit(name)
			return args, nil
		}
	}
	reg(registry.ToolSpec{Name: "echo", Description: "Echo the arguments.", Parameters: json.RawMessage(echoSchema), ReadOnly: true, Run: echo("echo")})
	reg(registry.ToolSpec{Name: "noop", Description: "Do nothing.", ReadOnly: true, Run: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{}`), nil
	}})
	reg(registry.ToolSpec{Name: "sleep", Description: "Sleep for ms milliseconds.", ReadOnly: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"}},"required":["ms"]}`),
		Run: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			f.hit("sleep")
			var in struct{ MS int }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			t := time.NewTimer(time.Duration(in.MS) * time.Millisecond)
			defer t.Stop()
			select {
			case <-t.C:
				return json.RawMessage(fmt.Sprintf(`{"slept_ms":%d}`, in.MS)), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}})
	reg(registry.ToolSpec{Name: "fail", Description: "Always fails.", Run: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		f.hit("fail")
		return nil, errors.New("the service said no")
	}})
	reg(registry.ToolSpec{Name: "boom", Description: "Panics.", Run: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		f.hit("boom")
		panic("nil map write")
	}})
	reg(registry.ToolSpec{Name: "hang", Description: "Ignores its context until released.", Timeout: 50 * time.Millisecond,
		Run: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			f.hit("hang")
			<-f.release
			return json.RawMessage(`{"late":true}`), nil
		}})
	reg(registry.ToolSpec{Name: "text", Description: "Returns plain text.", Run: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage("plain <b>text</b>, not JSON"), nil
	}})
	reg(registry.ToolSpec{Name: "big", Description: "Returns a long list.", ReadOnly: true, Run: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		items := make([]map[string]any, 2000)
		for i := range items {
			items[i] = map[string]any{"id": i, "title": strings.Repeat("x", 40)}
		}
		return json.Marshal(map[string]any{"items": items, "total": len(items)})
	}})
	flaky := func(name string) registry.Func {
		return func(context.Context, json.RawMessage) (json.RawMessage, error) {
			f.hit(name)
			if f.flaky.Add(-1) >= 0 {
				return nil, fmt.Errorf("upstream 503: %w", executor.ErrTransient)
			}
			return json.RawMessage(`{"ok":true}`), nil
		}
	}
	reg(registry.ToolSpec{Name: "flaky_read", Description: "Read that fails transiently.", ReadOnly: true, Run: flaky("flaky_read")})
	reg(registry.ToolSpec{Name: "flaky_write", Description: "Write that fails transiently.", Run: flaky("flaky_write")})
	reg(registry.ToolSpec{Name: "flaky_delete", Description: "Delete that fails transiently.", Destructive: true, Idempotent: true, Run: flaky("flaky_delete")})
	reg(registry.ToolSpec{Name: "delete_everything", Description: "Deletes everything.", Destructive: true, Run: echo("delete_everything")})
	reg(registry.ToolSpec{Name: "retired", Description: "Turned off.", Inactive: true, Run: echo("retired")})
	return f
}

func newExec(f *fixture, mod func(*executor.Config)) *executor.Executor {
	cfg := executor.Config{Registry: f.reg, RetryBackoff: time.Millisecond, AbandonGrace: 20 * time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	ex, err := executor.New(cfg)
	if err != nil {
		panic(err) // the tests' own configurations are valid
	}
	return ex
}

// mustNew is executor.New for configurations a test knows to be valid.
func mustNew(t testing.TB, cfg executor.Config) *executor.Executor {
	t.Helper()
	ex, err := executor.New(cfg)
	if err != nil {
		t.Fatalf("executor.New: %v", err)
	}
	return ex
}

// checkGoroutines fails the test when the goroutine count has not returned to base.
func checkGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= base {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("goroutines: %d, want <= %d (baseline)\n%s", n, base, buf)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// catalogStore returns a memory store with a small catalogue and permissions:
// agent 1 is assigned gmail and github; workspace "ws1" has gmail active, github pending.
func catalogStore(t testing.TB) *cache.Memory {
	t.Helper()
	ctx := context.Background()
	st := cache.NewMemory()
	yes, no := true, false
	obj := func(props string, req ...string) json.RawMessage {
		r, _ := json.Marshal(req)
		if req == nil {
			r = []byte("[]")
		}
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(r) + `}`)
	}
	_, err := st.Apply(ctx, cache.Batch{
		Apps: []cache.App{
			{Slug: "gmail", DisplayName: "Gmail", Description: "Email by Google."},
			{Slug: "github", DisplayName: "GitHub", Description: "Code hosting."},
			{Slug: "slack", DisplayName: "Slack", Description: "Team chat."},
		},
		Actions: []cache.Action{
			{App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email", Description: "Send an email to a recipient.",
				Parameters: obj(`"recipient_email":{"type":"string"},"subject":{"type":"string"},"body":{"type":"string"}`, "recipient_email", "body")},
			{App: "gmail", Slug: "GMAIL_FETCH_EMAILS", DisplayName: "Fetch emails", Description: "List recent emails.", ReadOnly: &yes, Destructive: &no,
				Parameters: obj(`"max_results":{"type":"integer"},"query":{"type":"string"}`)},
			{App: "gmail", Slug: "GMAIL_DELETE_MESSAGE", DisplayName: "Delete message", Description: "Permanently delete an email.", Destructive: &yes,
				Parameters: obj(`"message_id":{"type":"string"}`, "message_id")},
			{App: "github", Slug: "GITHUB_CREATE_AN_ISSUE", DisplayName: "Create an issue", Description: "Create an issue in a repository.",
				Parameters: obj(`"owner":{"type":"string"},"repo":{"type":"string"},"title":{"type":"string"}`, "owner", "repo", "title")},
			{App: "slack", Slug: "SLACK_SEND_MESSAGE", DisplayName: "Send message", Description: "Post a message to a channel.",
				Parameters: obj(`"channel":{"type":"string"},"text":{"type":"string"}`, "channel", "text")},
		},
	})
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	for _, app := range []string{"gmail", "github"} {
		if err := st.AssignApp(ctx, cache.Assignment{AgentID: 1, App: app, Type: "composio", Active: true}); err != nil {
			t.Fatalf("assign: %v", err)
		}
	}
	for _, app := range []string{"gmail", "github"} {
		if _, err := st.AddConnection(ctx, "ws1", app); err != nil {
			t.Fatalf("add connection: %v", err)
		}
		if _, err := st.SetConnectionStatus(ctx, "ws1", app, cache.StatusPending, ""); err != nil {
			t.Fatalf("pending: %v", err)
		}
	}
	if _, err := st.SetConnectionStatus(ctx, "ws1", "gmail", cache.StatusActive, "ca_gmail_1"); err != nil {
		t.Fatalf("active: %v", err)
	}
	return st
}

// fakeRemote records the requests it gets and answers from a function.
type fakeRemote struct {
	mu   sync.Mutex
	reqs []executor.RemoteRequest
	fn   func(executor.RemoteRequest) (json.RawMessage, error)
}

func (r *fakeRemote) ExecuteAction(ctx context.Context, action string, arguments json.RawMessage, userID, connectedAccountID, version string) (json.RawMessage, error) {
	req := executor.RemoteRequest{Action: action, Arguments: arguments, UserID: userID, ConnectedAccountID: connectedAccountID, Version: version}
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	if r.fn != nil {
		return r.fn(req)
	}
	return json.RawMessage(`{"successful":true}`), nil
}

func (r *fakeRemote) requests() []executor.RemoteRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]executor.RemoteRequest(nil), r.reqs...)
}

// unreachable is the Remote of tests whose actions are never run.
var unreachable = executor.RemoteFunc(func(context.Context, executor.RemoteRequest) (json.RawMessage, error) {
	return nil, errors.New("test: no action should run")
})
