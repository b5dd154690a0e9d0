package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
)

// *composio.Client runs Composio actions for the executor as it is, with no adapter.
var _ executor.Remote = (*composio.Client)(nil)

// temporaryError is a failure that says whether trying again may help, the way
// *composio.APIError does, without wrapping executor.ErrTransient.
type temporaryError struct{ temporary bool }

func (e temporaryError) Error() string   { return "upstream said no" }
func (e temporaryError) Temporary() bool { return e.temporary }

// scriptedRemote implements executor.Remote directly: it fails the first failures calls
// with err, then answers {"ok":true}.
type scriptedRemote struct {
	err      error
	failures int

	mu    sync.Mutex
	calls int
}

func (r *scriptedRemote) ExecuteAction(ctx context.Context, action string, arguments json.RawMessage, userID, connectedAccountID, version string) (json.RawMessage, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls <= r.failures {
		return nil, r.err
	}
	return json.RawMessage(`{"ok":true}`), nil
}

func TestRemoteErrorsAndRetries(t *testing.T) {
	st := catalogStore(t)
	fetch := executor.Call{Name: "GMAIL_FETCH_EMAILS", Arguments: json.RawMessage(`{"max_results":5}`)}
	send := executor.Call{Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":"jay@example.com","body":"hi"}`)}
	tests := []struct {
		name         string
		call         executor.Call
		err          error
		failures     int
		wantOK       bool
		wantAttempts int
	}{
		{"temporary error on a read is retried", fetch, temporaryError{true}, 1, true, 2},
		{"wrapped temporary error on a read is retried", fetch, errors.Join(errors.New("context"), temporaryError{true}), 2, true, 3},
		{"temporary errors on a read until attempts run out", fetch, temporaryError{true}, 5, false, 3},
		{"error that is not temporary is not retried", fetch, temporaryError{false}, 1, false, 1},
		{"plain error is not retried", fetch, errors.New("tool failed"), 1, false, 1},
		{"temporary error on a write is not retried", send, temporaryError{true}, 1, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			remote := &scriptedRemote{err: tt.err, failures: tt.failures}
			ex := mustNew(t, executor.Config{Catalog: st, Remote: remote, RetryBackoff: time.Millisecond,
				Scope: executor.Scope{Identity: hint.Identity{WorkspaceID: "ws1", Apps: []string{"gmail"}}}})
			defer ex.Close()
			got := ex.Execute(context.Background(), tt.call)
			if got.OK != tt.wantOK || got.Attempts != tt.wantAttempts {
				t.Errorf("OK, attempts = %v, %d; want %v, %d (%s)", got.OK, got.Attempts, tt.wantOK, tt.wantAttempts, got.Error)
			}
			wantKind := executor.KindToolError
			var tmp temporaryError
			if errors.As(tt.err, &tmp) && tmp.temporary {
				wantKind = executor.KindTransient
			}
			if !tt.wantOK && (got.ErrorKind != wantKind || !strings.Contains(got.Error, "upstream said no") && !strings.Contains(got.Error, tt.err.Error())) {
				t.Errorf("kind, error = %q, %q; want %q naming %q", got.ErrorKind, got.Error, wantKind, tt.err)
			}
			if !tt.wantOK && !errors.Is(got.Err, tt.err) {
				t.Errorf("Err = %v, want the remote's error %v", got.Err, tt.err)
			}
			if remote.calls != tt.wantAttempts {
				t.Errorf("remote called %d times, want %d", remote.calls, tt.wantAttempts)
			}
		})
	}
}

func TestRemoteFunc(t *testing.T) {
	var got executor.RemoteRequest
	var r executor.Remote = executor.RemoteFunc(func(ctx context.Context, req executor.RemoteRequest) (json.RawMessage, error) {
		got = req
		return json.RawMessage(`{"ok":true}`), nil
	})
	out, err := r.ExecuteAction(context.Background(), "GMAIL_SEND_EMAIL", json.RawMessage(`{"to":"a"}`), "u1", "ca_1", "20250905_00")
	if err != nil || string(out) != `{"ok":true}` {
		t.Fatalf("ExecuteAction = %s, %v", out, err)
	}
	want := executor.RemoteRequest{Action: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"to":"a"}`), UserID: "u1", ConnectedAccountID: "ca_1", Version: "20250905_00"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

// TestComposioClientAsRemote runs actions through a real *composio.Client against the fake
// API: the client's own retries are off, so every retry seen here is the executor's,
// driven by the client's *composio.APIError reporting itself temporary.
func TestComposioClientAsRemote(t *testing.T) {
	st := catalogStore(t)
	tool := func(slug string) composio.Tool {
		return composio.Tool{Slug: slug, Toolkit: composio.ToolkitRef{Slug: "gmail"}, InputParameters: json.RawMessage(`{"type":"object","properties":{}}`)}
	}
	srv := composiotest.NewServer(t, composiotest.WithCatalog(composiotest.Catalog{
		Toolkits: []composio.Toolkit{{Slug: "gmail", Name: "Gmail"}},
		Tools:    []composio.Tool{tool("GMAIL_FETCH_EMAILS"), tool("GMAIL_SEND_EMAIL")},
	}))
	srv.AddAccount(composio.ConnectedAccount{ID: "ca_gmail_1", UserID: "ws1", Toolkit: composio.ToolkitRef{Slug: "gmail"}})
	srv.HandleExecute("GMAIL_FETCH_EMAILS", func(_ context.Context, c composiotest.ExecuteCall) (any, error) {
		return map[string]any{"messages": []string{"m1"}}, nil
	})
	srv.HandleExecute("GMAIL_SEND_EMAIL", func(_ context.Context, c composiotest.ExecuteCall) (any, error) {
		return nil, errors.New("recipient address rejected")
	})
	cfg := srv.Config()
	cfg.Retry = &composio.RetryPolicy{} // no client retries
	client, err := composio.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ex := mustNew(t, executor.Config{Catalog: st, Remote: client, RetryBackoff: time.Millisecond,
		Scope: executor.Scope{Identity: hint.Identity{WorkspaceID: "ws1", Apps: []string{"gmail"}}}})
	defer ex.Close()

	tests := []struct {
		name         string
		call         executor.Call
		fault        *composiotest.Fault
		wantOK       bool
		wantAttempts int
		wantData     string // when OK
		wantKind     executor.ErrorKind
		wantError    string // when not OK: a part of Result.Error
	}{
		{name: "429 on a read is retried", call: executor.Call{Name: "GMAIL_FETCH_EMAILS", Arguments: json.RawMessage(`{"max_results":5}`)},
			fault: &composiotest.Fault{Status: http.StatusTooManyRequests}, wantOK: true, wantAttempts: 2, wantData: `{"messages":["m1"]}`},
		{name: "503 on a read is retried", call: executor.Call{Name: "GMAIL_FETCH_EMAILS", Arguments: json.RawMessage(`{}`)},
			fault: &composiotest.Fault{Status: http.StatusServiceUnavailable}, wantOK: true, wantAttempts: 2, wantData: `{"messages":["m1"]}`},
		{name: "429 on a write is not retried", call: executor.Call{Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":"a@b.c","body":"hi"}`)},
			fault: &composiotest.Fault{Status: http.StatusTooManyRequests}, wantAttempts: 1, wantKind: executor.KindRateLimited, wantError: "429"},
		{name: "tool failure is an error result", call: executor.Call{Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":"a@b.c","body":"hi"}`)},
			wantAttempts: 1, wantKind: executor.KindToolError, wantError: "recipient address rejected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.ResetRequests()
			if tt.fault != nil {
				srv.FailNext(1, *tt.fault)
			}
			got := ex.Execute(context.Background(), tt.call)
			if got.OK != tt.wantOK || got.Attempts != tt.wantAttempts {
				t.Fatalf("OK, attempts = %v, %d; want %v, %d (%s)", got.OK, got.Attempts, tt.wantOK, tt.wantAttempts, got.Error)
			}
			reqs := srv.RequestsTo("POST", "/tools/execute/"+tt.call.Name)
			if len(reqs) != tt.wantAttempts {
				t.Fatalf("%d execute requests, want %d", len(reqs), tt.wantAttempts)
			}
			var body struct {
				UserID             string `json:"user_id"`
				ConnectedAccountID string `json:"connected_account_id"`
			}
			if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil || body.UserID != "ws1" || body.ConnectedAccountID != "ca_gmail_1" {
				t.Errorf("execute body %s (%v): want user ws1 through account ca_gmail_1", reqs[len(reqs)-1].Body, err)
			}
			if tt.wantOK {
				if diff := cmp.Diff(tt.wantData, string(got.Data)); diff != "" {
					t.Errorf("data (-want +got):\n%s", diff)
				}
				return
			}
			if got.ErrorKind != tt.wantKind || !strings.Contains(got.Error, tt.wantError) {
				t.Errorf("kind, error = %q, %q; want %q containing %q", got.ErrorKind, got.Error, tt.wantKind, tt.wantError)
			}
		})
	}
}
