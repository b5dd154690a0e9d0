package composio_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
)

func TestExecute(t *testing.T) {
	ctx := context.Background()
	srv, c := newClient(t, nil)
	var got composiotest.ExecuteCall
	srv.HandleExecute("GMAIL_SEND_EMAIL", func(_ context.Context, call composiotest.ExecuteCall) (any, error) {
		got = call
		var args struct{ To string }
		if err := json.Unmarshal(call.Arguments, &args); err != nil || args.To == "" {
			return nil, errors.New("missing recipient")
		}
		if args.To == "boom@example.com" {
			return nil, &composio.APIError{StatusCode: 500, Message: "upstream exploded"}
		}
		return map[string]string{"id": "msg_1", "to": args.To}, nil
	})
	inactive := srv.AddAccount(composio.ConnectedAccount{UserID: "u1", Status: composio.StatusInitiated, Toolkit: composio.ToolkitRef{Slug: "gmail"}})
	active := srv.AddAccount(composio.ConnectedAccount{UserID: "u1", Status: composio.StatusActive, Toolkit: composio.ToolkitRef{Slug: "gmail"}})

	t.Run("success", func(t *testing.T) {
		res, err := c.Execute(ctx, "composio-gmail_send_email", composio.ExecuteRequest{
			Arguments: json.RawMessage(`{"to":"a@example.com"}`), UserID: "u1", ConnectedAccountID: active.ID, Version: "20250905_00"})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Successful || res.Error != "" || res.LogID == "" {
			t.Errorf("result = %+v, want success with a log id", res)
		}
		if diff := cmp.Diff(`{"id":"msg_1","to":"a@example.com"}`, string(res.Data)); diff != "" {
			t.Errorf("data (-want +got):\n%s", diff)
		}
		want := composiotest.ExecuteCall{Action: "GMAIL_SEND_EMAIL", Slug: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"to":"a@example.com"}`), UserID: "u1", ConnectedAccountID: active.ID, Version: "20250905_00"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("call seen by the server (-want +got):\n%s", diff)
		}
	})
	t.Run("tool failure is a result", func(t *testing.T) {
		res, err := c.Execute(ctx, "GMAIL_SEND_EMAIL", composio.ExecuteRequest{UserID: "u1"})
		if err != nil {
			t.Fatalf("error = %v, want nil for a tool-level failure", err)
		}
		if res.Successful || res.Error != "missing recipient" {
			t.Errorf("result = %+v, want Successful false and the tool's error", res)
		}
		if diff := cmp.Diff(json.RawMessage(`{}`), got.Arguments); diff != "" {
			t.Errorf("nil arguments should be sent as {} (-want +got):\n%s", diff)
		}
	})
	platform := []struct {
		name string
		slug string
		req  composio.ExecuteRequest
		is   error
	}{
		{"unknown tool", "GMAIL_NOPE", composio.ExecuteRequest{UserID: "u1"}, composio.ErrNotFound},
		{"deprecated tool", "GMAIL_OLD_SEND", composio.ExecuteRequest{UserID: "u1"}, composio.ErrDeprecatedTool},
		{"unknown account", "GMAIL_SEND_EMAIL", composio.ExecuteRequest{ConnectedAccountID: "ca_missing"}, composio.ErrNotFound},
		{"account not active", "GMAIL_SEND_EMAIL", composio.ExecuteRequest{ConnectedAccountID: inactive.ID}, composio.ErrInvalidState},
		{"server error from handler", "GMAIL_SEND_EMAIL", composio.ExecuteRequest{Arguments: json.RawMessage(`{"to":"boom@example.com"}`)}, composio.ErrServer},
		{"no handler", "ABLY_PUBLISH", composio.ExecuteRequest{}, composio.ErrServer},
		{"arguments not an object", "GMAIL_SEND_EMAIL", composio.ExecuteRequest{Arguments: json.RawMessage(`[1]`)}, composio.ErrInvalidArgument},
		{"arguments not JSON", "GMAIL_SEND_EMAIL", composio.ExecuteRequest{Arguments: json.RawMessage(`{"to":`)}, composio.ErrInvalidArgument},
		{"arguments and text", "GMAIL_SEND_EMAIL", composio.ExecuteRequest{Arguments: json.RawMessage(`{"to":"x"}`), Text: "send it"}, composio.ErrInvalidArgument},
		{"empty slug", "", composio.ExecuteRequest{}, composio.ErrInvalidArgument},
		{"slug with a slash", "GMAIL/../X", composio.ExecuteRequest{}, composio.ErrInvalidArgument},
	}
	for _, tt := range platform {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Execute(ctx, tt.slug, tt.req)
			if !errors.Is(err, tt.is) {
				t.Fatalf("error = %v, want %v", err, tt.is)
			}
			if res.Successful || res.Data != nil {
				t.Errorf("result = %+v, want zero on a platform failure", res)
			}
		})
	}
	t.Run("text", func(t *testing.T) {
		srv.HandleExecute("HACKERNEWS_GET_USER", func(_ context.Context, call composiotest.ExecuteCall) (any, error) {
			return map[string]string{"text": call.Text}, nil
		})
		res, err := c.Execute(ctx, "HACKERNEWS_GET_USER", composio.ExecuteRequest{Text: "get user pg", UserID: "default"})
		if err != nil || !res.Successful || string(res.Data) != `{"text":"get user pg"}` {
			t.Errorf("Execute(text) = %+v, %v", res, err)
		}
	})
}

func TestArgumentsFromText(t *testing.T) {
	srv, c := newClient(t, nil)
	srv.HandleArguments(func(slug, text string) (json.RawMessage, error) {
		if text == "fail" {
			return nil, errors.New("could not infer arguments")
		}
		return json.RawMessage(fmt.Sprintf(`{"slug":%q,"text":%q}`, slug, text)), nil
	})
	res, err := c.ArgumentsFromText(context.Background(), "gmail_send_email", composio.ArgumentsRequest{Text: "mail bob"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"slug":"GMAIL_SEND_EMAIL","text":"mail bob"}`, string(res.Arguments)); diff != "" || res.Error != "" {
		t.Errorf("arguments (-want +got):\n%s (error %q)", diff, res.Error)
	}
	res, err = c.ArgumentsFromText(context.Background(), "GMAIL_SEND_EMAIL", composio.ArgumentsRequest{Text: "fail"})
	if err != nil || res.Error != "could not infer arguments" {
		t.Errorf("failure = %+v, %v", res, err)
	}
	if _, err := c.ArgumentsFromText(context.Background(), "GMAIL_SEND_EMAIL", composio.ArgumentsRequest{}); !errors.Is(err, composio.ErrInvalidArgument) {
		t.Errorf("empty text: error = %v", err)
	}
}

func TestExecuteRetries(t *testing.T) {
	retryAfter503 := composiotest.ServerError(503)
	retryAfter503.Header = http.Header{"Retry-After-Ms": {"1"}}
	tests := []struct {
		name     string
		optIn    bool
		fault    composiotest.Fault
		requests int
	}{
		{"500 not retried", false, composiotest.ServerError(500), 1},
		{"502 not retried", false, composiotest.ServerError(502), 1},
		{"503 without retry-after not retried", false, composiotest.ServerError(503), 1},
		{"dropped connection not retried", false, composiotest.Disconnect(), 1},
		{"429 retried", false, composiotest.RateLimited(0), 2},
		{"503 with retry-after retried", false, retryAfter503, 2},
		{"opt-in: 500 retried", true, composiotest.ServerError(500), 2},
		{"opt-in: dropped connection retried", true, composiotest.Disconnect(), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := &retryCounter{}
			srv, c := newClient(t, func(cfg *composio.Config) {
				p := fastRetry(rc)
				p.RetryExecute = tt.optIn
				cfg.Retry = p
			})
			srv.HandleAllExecute(func(context.Context, composiotest.ExecuteCall) (any, error) { return "ok", nil })
			srv.FailNext(1, tt.fault)
			res, err := c.Execute(context.Background(), "HACKERNEWS_GET_USER", composio.ExecuteRequest{UserID: "u"})
			if got := len(srv.RequestsTo("POST", "/tools/execute/HACKERNEWS_GET_USER")); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
			if tt.requests == 2 && (err != nil || !res.Successful) {
				t.Errorf("after the retry: %+v, %v", res, err)
			}
			if tt.requests == 1 && err == nil {
				t.Error("no error although the execution was not retried")
			}
		})
	}
	t.Run("connection refused retried", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		rc := &retryCounter{}
		c, err := composio.New(composio.Config{APIKey: "k", BaseURL: "http://" + addr, Retry: fastRetry(rc)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Execute(context.Background(), "HACKERNEWS_GET_USER", composio.ExecuteRequest{UserID: "u"})
		if err == nil {
			t.Fatal("no error from a closed port")
		}
		if got := len(rc.waits()); got != 2 {
			t.Errorf("%d retries of a refused connection, want 2", got)
		}
	})
}

func TestExecuteAction(t *testing.T) {
	ctx := context.Background()
	srv, c := newClient(t, func(cfg *composio.Config) { cfg.Retry = &composio.RetryPolicy{} })
	var got composiotest.ExecuteCall
	srv.HandleAllExecute(func(_ context.Context, call composiotest.ExecuteCall) (any, error) {
		got = call
		var args struct{ To string }
		_ = json.Unmarshal(call.Arguments, &args)
		if args.To == "" {
			return nil, errors.New("missing recipient")
		}
		return map[string]string{"to": args.To}, nil
	})
	active := srv.AddAccount(composio.ConnectedAccount{UserID: "u1", Status: composio.StatusActive, Toolkit: composio.ToolkitRef{Slug: "gmail"}})

	t.Run("success", func(t *testing.T) {
		data, err := c.ExecuteAction(ctx, "GMAIL_SEND_EMAIL", json.RawMessage(`{"to":"a@example.com"}`), "u1", active.ID, "20250905_00")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(`{"to":"a@example.com"}`, string(data)); diff != "" {
			t.Errorf("data (-want +got):\n%s", diff)
		}
		want := composiotest.ExecuteCall{Action: "GMAIL_SEND_EMAIL", Slug: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"to":"a@example.com"}`), UserID: "u1", ConnectedAccountID: active.ID, Version: "20250905_00"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("call seen by the server (-want +got):\n%s", diff)
		}
	})
	tests := []struct {
		name      string
		slug      string
		fault     *composiotest.Fault
		is        error // nil: a *composio.ToolError
		temporary bool
	}{
		{"tool failure", "gmail_send_email", nil, nil, false},
		{"unknown tool", "GMAIL_NOPE", nil, composio.ErrNotFound, false},
		{"rate limited", "GMAIL_SEND_EMAIL", &composiotest.Fault{Status: http.StatusTooManyRequests}, composio.ErrRateLimited, true},
		{"server error", "GMAIL_SEND_EMAIL", &composiotest.Fault{Status: http.StatusBadGateway}, composio.ErrServer, true},
		{"dropped connection", "GMAIL_SEND_EMAIL", &composiotest.Fault{Disconnect: true}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.fault != nil {
				srv.FailNext(1, *tt.fault)
			}
			data, err := c.ExecuteAction(ctx, tt.slug, nil, "u1", "", "")
			if err == nil || data != nil {
				t.Fatalf("ExecuteAction = %s, %v; want no data and an error", data, err)
			}
			var te *composio.ToolError
			switch {
			case tt.is != nil:
				if !errors.Is(err, tt.is) {
					t.Errorf("error = %v, want %v", err, tt.is)
				}
			case tt.fault == nil:
				if !errors.As(err, &te) {
					t.Fatalf("error = %T %v, want a *composio.ToolError", err, err)
				}
				if diff := cmp.Diff(composio.ToolError{Tool: "GMAIL_SEND_EMAIL", Message: "missing recipient", LogID: te.LogID}, *te); diff != "" || te.LogID == "" {
					t.Errorf("tool error (-want +got):\n%s (log id %q)", diff, te.LogID)
				}
			}
			var tmp interface{ Temporary() bool }
			if temporary := errors.As(err, &tmp) && tmp.Temporary(); temporary != tt.temporary {
				t.Errorf("error %v: temporary = %v, want %v", err, temporary, tt.temporary)
			}
		})
	}
}
