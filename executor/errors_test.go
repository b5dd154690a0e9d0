package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

// composioExecutor runs the catalogStore actions through a real *composio.Client (with its
// default retry policy) against the fake API.
func composioExecutor(t *testing.T, mod func(*executor.Config)) (*executor.Executor, *composiotest.Server) {
	t.Helper()
	tool := func(slug string) composio.Tool {
		return composio.Tool{Slug: slug, Toolkit: composio.ToolkitRef{Slug: "gmail"}, InputParameters: json.RawMessage(`{"type":"object","properties":{}}`)}
	}
	srv := composiotest.NewServer(t, composiotest.WithCatalog(composiotest.Catalog{
		Toolkits: []composio.Toolkit{{Slug: "gmail", Name: "Gmail"}},
		Tools:    []composio.Tool{tool("GMAIL_FETCH_EMAILS"), tool("GMAIL_SEND_EMAIL")},
	}))
	srv.AddAccount(composio.ConnectedAccount{ID: "ca_gmail_1", UserID: "ws1", Status: composio.StatusActive, Toolkit: composio.ToolkitRef{Slug: "gmail"}})
	srv.HandleAllExecute(func(context.Context, composiotest.ExecuteCall) (any, error) { return map[string]int{"n": 1}, nil })
	cfg := srv.Config()
	cfg.Retry = &composio.RetryPolicy{MaxRetries: 2, InitialDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}
	client, err := composio.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := executor.Config{Catalog: catalogStore(t), Remote: client, RetryBackoff: time.Millisecond,
		Scope: executor.Scope{Identity: hint.Identity{WorkspaceID: "ws1", Apps: []string{"gmail"}}}}
	if mod != nil {
		mod(&c)
	}
	ex := mustNew(t, c)
	t.Cleanup(func() { ex.Close() })
	return ex, srv
}

var (
	fetchCall = executor.Call{Name: "GMAIL_FETCH_EMAILS", Arguments: json.RawMessage(`{}`)}
	sendCall  = executor.Call{Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":"a@b.c","body":"hi"}`)}
)

// TestPersistent429OneBudget: a persistent 429 costs at most three HTTP requests per call,
// whether the executor retries (a read) or the client does (a write), and the executor
// waits as long as the service asks.
func TestPersistent429OneBudget(t *testing.T) {
	for _, call := range []executor.Call{fetchCall, sendCall} {
		t.Run(call.Name, func(t *testing.T) {
			ex, srv := composioExecutor(t, nil)
			srv.FailNext(100, composiotest.RateLimited(40*time.Millisecond))
			start := time.Now()
			r := ex.Execute(context.Background(), call)
			took := time.Since(start)
			n := len(srv.RequestsTo("POST", "/tools/execute/"+call.Name))
			if n > 3 || n < 2 {
				t.Errorf("%d HTTP requests, want at most 3 (and a retry)", n)
			}
			if r.ErrorKind != executor.KindRateLimited {
				t.Errorf("kind %q: %s", r.ErrorKind, r.Error)
			}
			if took < time.Duration(n-1)*40*time.Millisecond {
				t.Errorf("%d requests in %v: the 40ms retry-after was not honoured", n, took)
			}
		})
	}
}

// TestRemoteErrorKinds: a platform failure gets a kind a host can branch on, Err unwraps to
// the *composio.APIError, and the model's text carries no request line or request id while
// ForUI's Detail keeps them.
func TestRemoteErrorKinds(t *testing.T) {
	ex, srv := composioExecutor(t, func(c *executor.Config) { c.MaxAttempts = 1 })
	tests := []struct {
		name   string
		fault  composiotest.Fault
		status int
		kind   executor.ErrorKind
	}{
		{"rate limited", composiotest.Fault{Status: 429}, 429, executor.KindRateLimited},
		{"server down", composiotest.ServerError(503), 503, executor.KindTransient},
		{"account gone", composiotest.Fault{Status: 404, Body: `{"error":{"message":"Connected account not found","code":1801,"status":404,"request_id":"req_abc"}}`}, 404, executor.KindAuthRequired},
		{"account expired", composiotest.Fault{Status: 422, Body: `{"error":{"message":"connected account is EXPIRED","code":1802,"status":422,"request_id":"req_abc"}}`}, 422, executor.KindAuthRequired},
		{"tool gone", composiotest.Fault{Status: 410, Body: `{"error":{"message":"tool is deprecated","code":1,"status":410,"request_id":"req_abc"}}`}, 410, executor.KindNotFound},
		{"bad arguments", composiotest.Fault{Status: 400, Body: `{"error":{"message":"missing field to","code":1,"status":400,"request_id":"req_abc"}}`}, 400, executor.KindInvalidArguments},
		{"forbidden", composiotest.Fault{Status: 403, Body: `{"error":{"message":"not allowed","code":1,"status":403,"request_id":"req_abc"}}`}, 403, executor.KindForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.ClearFaults()
			srv.FailNext(5, tt.fault) // more than the client's retries
			r := ex.Execute(context.Background(), sendCall)
			if r.ErrorKind != tt.kind {
				t.Errorf("kind %q, want %q: %s", r.ErrorKind, tt.kind, r.Error)
			}
			var ae *composio.APIError
			if !errors.As(r.Err, &ae) || ae.StatusCode != tt.status {
				t.Fatalf("Err = %v, want a %d *composio.APIError", r.Err, tt.status)
			}
			for _, leak := range []string{"POST", "/api/", "/tools/execute", "req_", "request_id"} {
				if strings.Contains(r.ForModel(), leak) {
					t.Errorf("model text carries %q: %s", leak, r.ForModel())
				}
			}
			ui := r.ForUI()
			if !strings.Contains(ui.Detail, "POST /api/") || !strings.Contains(ui.Summary, r.Error) || strings.Contains(ui.Summary, "failed: GMAIL_SEND_EMAIL failed") {
				t.Errorf("ForUI summary %q, detail %q", ui.Summary, ui.Detail)
			}
		})
	}
	// A tool that ran and failed.
	srv.ClearFaults()
	srv.HandleExecute("GMAIL_SEND_EMAIL", func(context.Context, composiotest.ExecuteCall) (any, error) { return nil, errors.New("mailbox full") })
	r := ex.Execute(context.Background(), sendCall)
	var te *composio.ToolError
	if r.ErrorKind != executor.KindToolError || !errors.As(r.Err, &te) || r.Error != "GMAIL_SEND_EMAIL failed: mailbox full" {
		t.Errorf("tool failure: %q %q %v", r.ErrorKind, r.Error, r.Err)
	}
}

// TestPublicTextOfOtherRemotes: errors of a Remote other than the composio client lose
// their request lines, URLs and request ids too.
func TestPublicTextOfOtherRemotes(t *testing.T) {
	remote := executor.RemoteFunc(func(context.Context, executor.RemoteRequest) (json.RawMessage, error) {
		return nil, errors.New(`gateway: POST /v1/run/GMAIL_SEND_EMAIL: Post "https://gw.example.com/v1/run": upstream refused [request_id r-123]`)
	})
	ex := mustNew(t, executor.Config{Catalog: catalogStore(t), Remote: remote, Scope: executor.Scope{Identity: hint.Identity{Apps: []string{"gmail"}}}})
	defer ex.Close()
	r := ex.Execute(context.Background(), sendCall)
	if r.Error != "GMAIL_SEND_EMAIL failed: gateway: upstream refused" {
		t.Errorf("error %q", r.Error)
	}
}

// TestTimeouts: an attempt that times out is not retried unless the tool opts in; the
// call's deadline bounds every attempt and the waits between them.
func TestTimeouts(t *testing.T) {
	var runs atomic.Int32
	slow := func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		runs.Add(1)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	failing := func(context.Context, json.RawMessage) (json.RawMessage, error) {
		runs.Add(1)
		return nil, executor.ErrTransient
	}
	reg := registry.New()
	reg.MustRegister(registry.ToolSpec{Name: "slow_read", Description: "Slow.", ReadOnly: true, Timeout: 20 * time.Millisecond, Run: slow})
	reg.MustRegister(registry.ToolSpec{Name: "slow_read_retry", Description: "Slow, retried.", ReadOnly: true, Timeout: 20 * time.Millisecond, RetryTimeout: true, Run: slow})
	reg.MustRegister(registry.ToolSpec{Name: "slow_long", Description: "Slow, long timeout.", ReadOnly: true, Timeout: time.Hour, Run: slow})
	reg.MustRegister(registry.ToolSpec{Name: "failing_read", Description: "Always transient.", ReadOnly: true, Run: failing})
	tests := []struct {
		name         string
		tool         string
		cfg          executor.Config
		wantKind     executor.ErrorKind
		wantAttempts int // exact, or the most when atMost
		atMost       bool
	}{
		{name: "timeout not retried", tool: "slow_read", wantKind: executor.KindTimeout, wantAttempts: 1},
		// The default call budget is the attempts' own time and the waits, with no room for a
		// loaded machine's scheduling delays: these cases, about retrying, get a call budget
		// of their own.
		{name: "tool opts in", tool: "slow_read_retry", cfg: executor.Config{CallTimeout: 10 * time.Second}, wantKind: executor.KindTimeout, wantAttempts: 3},
		{name: "host opts the tool in", tool: "slow_read", cfg: executor.Config{RetryTimeouts: []string{"slow_read"}, CallTimeout: 10 * time.Second}, wantKind: executor.KindTimeout, wantAttempts: 3},
		{name: "call deadline cuts an attempt", tool: "slow_long", cfg: executor.Config{CallTimeout: 30 * time.Millisecond}, wantKind: executor.KindTimeout, wantAttempts: 1},
		{name: "call deadline stops retries", tool: "failing_read", cfg: executor.Config{CallTimeout: 100 * time.Millisecond, MaxAttempts: 50, RetryBackoff: 20 * time.Millisecond},
			wantKind: executor.KindTransient, wantAttempts: 4, atMost: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs.Store(0)
			cfg := tt.cfg
			cfg.Registry = reg
			// The tools return as soon as their context ends; a long grace keeps a loaded
			// machine's scheduling delay from turning an attempt into an abandoned one.
			cfg.AbandonGrace = time.Second
			if cfg.RetryBackoff == 0 {
				cfg.RetryBackoff = time.Millisecond
			}
			ex := mustNew(t, cfg)
			defer ex.Close()
			r := ex.Execute(context.Background(), executor.Call{Name: tt.tool})
			if r.ErrorKind != tt.wantKind {
				t.Errorf("kind %q, want %q: %s", r.ErrorKind, tt.wantKind, r.Error)
			}
			if tt.atMost && (r.Attempts > tt.wantAttempts || r.Attempts < 1) || !tt.atMost && r.Attempts != tt.wantAttempts {
				t.Errorf("%d attempts, want %d (at most: %v)", r.Attempts, tt.wantAttempts, tt.atMost)
			}
			if int(runs.Load()) != r.Attempts {
				t.Errorf("tool ran %d times for %d attempts", runs.Load(), r.Attempts)
			}
			if tt.wantKind == executor.KindTimeout && !errors.Is(r.Err, context.DeadlineExceeded) {
				t.Errorf("Err = %v, want context.DeadlineExceeded", r.Err)
			}
		})
	}
}

// TestRouterKeepsTheInnerError: execute_tool reports the inner call's kind and text once,
// not wrapped in its own.
func TestRouterKeepsTheInnerError(t *testing.T) {
	outer, _ := routerExecutor(t, nil)
	r := outer.Execute(context.Background(), executor.Call{Name: executor.ToolExecute, Arguments: json.RawMessage(`{"tool_slug":"GMAIL_DELETE_MESSAGE","arguments":{"message_id":"m"}}`)})
	if r.ErrorKind != executor.KindNeedsConfirmation || strings.Count(r.ForUI().Summary, "failed") > 1 || strings.Contains(r.Error, "execute_tool failed") {
		t.Errorf("kind %q, error %q, summary %q", r.ErrorKind, r.Error, r.ForUI().Summary)
	}
}
