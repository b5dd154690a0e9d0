package composio_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
)

// TestExecuteActionOnce: ExecuteAction retries a 429 as the policy says; ExecuteActionOnce
// sends the request once and leaves the retrying to its caller, with the server's wait.
func TestExecuteActionOnce(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		once bool
		want int
	}{
		{"ExecuteAction retries", false, 3},
		{"ExecuteActionOnce does not", true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, c := newClient(t, nil)
			srv.HandleExecute("GMAIL_FETCH_EMAILS", func(context.Context, composiotest.ExecuteCall) (any, error) { return map[string]int{"n": 1}, nil })
			srv.FailNext(10, composiotest.RateLimited(20*time.Millisecond))
			run := c.ExecuteAction
			if tt.once {
				run = c.ExecuteActionOnce
			}
			_, err := run(ctx, "GMAIL_FETCH_EMAILS", json.RawMessage(`{}`), "u1", "", "")
			var ae *composio.APIError
			if !errors.As(err, &ae) || ae.HTTPStatus() != http.StatusTooManyRequests {
				t.Fatalf("error = %v, want a 429 *APIError", err)
			}
			if ae.RetryAfter() != 20*time.Millisecond {
				t.Errorf("RetryAfter = %v, want the server's 20ms", ae.RetryAfter())
			}
			if n := len(srv.RequestsTo("POST", "/tools/execute/GMAIL_FETCH_EMAILS")); n != tt.want {
				t.Errorf("%d requests, want %d", n, tt.want)
			}
		})
	}
}

func TestAPIErrorForCallers(t *testing.T) {
	tests := []struct {
		name      string
		err       *composio.APIError
		reconnect bool
		public    string
	}{
		{"account not found", &composio.APIError{StatusCode: 404, Message: "Connected account not found: ca_1", Method: "POST", Path: "/api/v3.1/tools/execute/X", RequestID: "req_9"},
			true, "404 Not Found: Connected account not found: ca_1"},
		{"tool not found", &composio.APIError{StatusCode: 404, Message: "tool not found: X", Method: "POST", Path: "/api/v3.1/tools/execute/X"},
			false, "404 Not Found: tool not found: X"},
		{"account in a bad state", &composio.APIError{StatusCode: 422, Message: "connected account ca_1 is EXPIRED", SuggestedFix: "re-authorise the account", RequestID: "req_1"},
			true, "422 Unprocessable Entity: connected account ca_1 is EXPIRED (suggested fix: re-authorise the account)"},
		{"rate limited", &composio.APIError{StatusCode: 429, Message: "slow down", Method: "POST", Path: "/api/v3.1/tools/execute/X"},
			false, "429 Too Many Requests: slow down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.NeedsReconnect(); got != tt.reconnect {
				t.Errorf("NeedsReconnect = %v, want %v", got, tt.reconnect)
			}
			got := tt.err.PublicMessage()
			if got != tt.public {
				t.Errorf("PublicMessage = %q, want %q", got, tt.public)
			}
			for _, leak := range []string{"POST", "/api/", "req_"} {
				if strings.Contains(got, leak) {
					t.Errorf("PublicMessage %q carries %q", got, leak)
				}
			}
		})
	}
}
