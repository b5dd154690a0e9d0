package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

func TestExecuteComposioActions(t *testing.T) {
	st := catalogStore(t)
	f := newFixture(t)
	remote := &fakeRemote{fn: func(req executor.RemoteRequest) (json.RawMessage, error) {
		if req.Action == "GMAIL_FETCH_EMAILS" {
			return nil, fmt.Errorf("rate limited: %w", executor.ErrTransient)
		}
		return json.RawMessage(`{"id":"msg_1"}`), nil
	}}
	access := registry.NewAccess(registry.AccessConfig{Store: st, Registry: f.reg})
	ex := newExec(f, func(c *executor.Config) {
		c.Catalog = st
		c.Remote = remote
		c.Access = access
		c.Scope = executor.Scope{Identity: hint.Identity{AgentID: 1, WorkspaceID: "ws1"}}
	})
	defer ex.Close()
	tests := []struct {
		name         string
		call         executor.Call
		wantOK       bool
		wantKind     executor.ErrorKind
		contains     string
		wantAttempts int
	}{
		{name: "allowed action runs", call: executor.Call{Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":"jay@example.com","body":"hi"}`)}, wantOK: true, wantAttempts: 1},
		{name: "legacy tool id", call: executor.Call{Name: "composio-gmail_send_email", Arguments: json.RawMessage(`{"recipient_email":"jay@example.com","body":"hi"}`)}, wantOK: true, wantAttempts: 1},
		{name: "missing required argument", call: executor.Call{Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"subject":"hi"}`)}, wantKind: executor.KindInvalidArguments, contains: "recipient_email (required)"},
		{name: "app not assigned", call: executor.Call{Name: "SLACK_SEND_MESSAGE", Arguments: json.RawMessage(`{"channel":"c","text":"t"}`)}, wantKind: executor.KindForbidden, contains: "not assigned app slack"},
		{name: "connection not active", call: executor.Call{Name: "GITHUB_CREATE_AN_ISSUE", Arguments: json.RawMessage(`{"owner":"o","repo":"r","title":"t"}`)}, wantKind: executor.KindForbidden, contains: "is pending, not active"},
		{name: "destructive action refused", call: executor.Call{Name: "GMAIL_DELETE_MESSAGE", Arguments: json.RawMessage(`{"message_id":"m"}`)}, wantKind: executor.KindNeedsConfirmation},
		{name: "read-only action retried", call: executor.Call{Name: "GMAIL_FETCH_EMAILS", Arguments: json.RawMessage(`{"max_results":"5"}`)}, wantKind: executor.KindTransient, wantAttempts: 3},
		{name: "hallucinated action names real ones", call: executor.Call{Name: "GMAIL_SEND_MAIL"}, wantKind: executor.KindUnknownTool, contains: "GMAIL_SEND_EMAIL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ex.Execute(context.Background(), tt.call)
			if got.OK != tt.wantOK || got.ErrorKind != tt.wantKind {
				t.Fatalf("OK, kind = %v, %q; want %v, %q (%s)", got.OK, got.ErrorKind, tt.wantOK, tt.wantKind, got.Error)
			}
			if !strings.Contains(got.Error, tt.contains) {
				t.Errorf("error %q does not contain %q", got.Error, tt.contains)
			}
			if got.Attempts != tt.wantAttempts {
				t.Errorf("attempts = %d, want %d", got.Attempts, tt.wantAttempts)
			}
		})
	}
	reqs := remote.requests()
	if len(reqs) == 0 {
		t.Fatal("remote never called")
	}
	want := executor.RemoteRequest{Action: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":"jay@example.com","body":"hi"}`), UserID: "ws1", ConnectedAccountID: "ca_gmail_1"}
	if diff := cmp.Diff(want, reqs[0]); diff != "" {
		t.Errorf("remote request (-want +got):\n%s", diff)
	}
	// The fetch was coerced ("5" -> 5) before it reached the remote.
	for _, r := range reqs {
		if r.Action == "GMAIL_FETCH_EMAILS" && string(r.Arguments) != `{"max_results":5}` {
			t.Errorf("fetch arguments %s, want coerced integer", r.Arguments)
		}
	}
}

func TestExecuteCapabilityCheck(t *testing.T) {
	st := catalogStore(t)
	f := newFixture(t)
	metas, err := st.ActionMeta(context.Background(), []string{"gmail"})
	if err != nil {
		t.Fatal(err)
	}
	var caps []string
	for _, m := range metas {
		if m.Action == "GMAIL_SEND_EMAIL" {
			caps = m.Capabilities
		}
	}
	if len(caps) == 0 {
		t.Fatal("GMAIL_SEND_EMAIL has no capabilities in the catalogue; the check below needs some")
	}
	ex := newExec(f, func(c *executor.Config) {
		c.Catalog = st
		c.Remote = &fakeRemote{}
		c.Scope = executor.Scope{Capabilities: []string{"capability.that.does.not.exist"}}
	})
	defer ex.Close()
	got := ex.Execute(context.Background(), executor.Call{Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":"a@b.c","body":"x"}`)})
	if got.ErrorKind != executor.KindForbidden || !strings.Contains(got.Error, "does not fit") {
		t.Errorf("got %q %q, want a capability refusal", got.ErrorKind, got.Error)
	}
}

func TestExecuteLongSlugByFunctionName(t *testing.T) {
	st := catalogStore(t)
	long := "GMAIL_" + strings.Repeat("EXTREMELY_LONG_", 6) + "ACTION"
	if _, err := st.Apply(context.Background(), cache.Batch{Actions: []cache.Action{{App: "gmail", Slug: long, DisplayName: "Long",
		Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}}); err != nil {
		t.Fatal(err)
	}
	remote := &fakeRemote{}
	ex := mustNew(t, executor.Config{Catalog: st, Remote: remote, Scope: executor.Scope{Identity: hint.Identity{Apps: []string{"gmail"}}}})
	defer ex.Close()
	got := ex.Execute(context.Background(), executor.Call{Name: schema.FunctionName(long)})
	if !got.OK || got.Tool != long {
		t.Fatalf("got %+v, want the long slug run", got)
	}
}

func TestExecuteScopeAppsWithoutAccess(t *testing.T) {
	st := catalogStore(t)
	ex := mustNew(t, executor.Config{Catalog: st, Remote: &fakeRemote{}, Scope: executor.Scope{Identity: hint.Identity{Apps: []string{"GitHub"}}}})
	defer ex.Close()
	tests := []struct {
		name string
		call executor.Call
		want executor.ErrorKind
	}{
		{"app in scope", executor.Call{Name: "GITHUB_CREATE_AN_ISSUE", Arguments: json.RawMessage(`{"owner":"o","repo":"r","title":"t"}`)}, ""},
		{"app out of scope", executor.Call{Name: "SLACK_SEND_MESSAGE", Arguments: json.RawMessage(`{"channel":"c","text":"t"}`)}, executor.KindForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ex.Execute(context.Background(), tt.call); got.ErrorKind != tt.want {
				t.Errorf("kind %q (%s), want %q", got.ErrorKind, got.Error, tt.want)
			}
		})
	}
}

func TestSuggestions(t *testing.T) {
	st := cache.NewMemory()
	obj := json.RawMessage(`{"type":"object","properties":{}}`)
	var acts []cache.Action
	for _, s := range []string{"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "SLACK_SEARCH_MESSAGES", "SLACK_SCHEDULE_MESSAGE", "SLACK_FIND_USERS", "SLACK_LIST_ALL_CHANNELS"} {
		acts = append(acts, cache.Action{App: "slack", Slug: s, DisplayName: s, Parameters: obj})
	}
	if _, err := st.Apply(context.Background(), cache.Batch{Apps: []cache.App{{Slug: "slack"}}, Actions: acts}); err != nil {
		t.Fatal(err)
	}
	ex := mustNew(t, executor.Config{Catalog: st, Remote: &fakeRemote{}})
	defer ex.Close()
	tests := []struct {
		name, call, first string
	}{
		{"typo and inflection", "SLACK_SEND_MESAGE", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"},
		{"lower case words", "slack_search_message", "SLACK_SEARCH_MESSAGES"},
		{"missing word", "SLACK_LIST_CHANNELS", "SLACK_LIST_ALL_CHANNELS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ex.Execute(context.Background(), executor.Call{Name: tt.call})
			if r.ErrorKind != executor.KindUnknownTool || len(r.Suggestions) == 0 || r.Suggestions[0] != tt.first {
				t.Errorf("suggestions %v (%s), want %s first", r.Suggestions, r.ErrorKind, tt.first)
			}
		})
	}
}
