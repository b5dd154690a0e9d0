package hint_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// TestSearchToolOnlyWhenOffered: a hint that is not sure names the search meta-tool only
// when the host says the model has it (Config.SearchTool, or Request.SearchTool, which
// wins), and lists it in MetaTools exactly when the text names it.
func TestSearchToolOnlyWhenOffered(t *testing.T) {
	tests := []struct {
		name       string
		config     string
		request    string
		prompt     string
		wantSearch string
	}{
		{name: "fallback, none offered", prompt: "zxqv plorb wibble"},
		{name: "unsure, none offered", prompt: "something about the channel"},
		{name: "fallback, config", config: hint.SearchTool, prompt: "zxqv plorb wibble", wantSearch: hint.SearchTool},
		{name: "unsure, config", config: hint.SearchTool, prompt: "something about the channel", wantSearch: hint.SearchTool},
		{name: "unsure, request", request: "find_tools", prompt: "something about the channel", wantSearch: "find_tools"},
		{name: "request wins", config: hint.SearchTool, request: "find_tools", prompt: "zxqv plorb wibble", wantSearch: "find_tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := hint.New(hint.Config{SearchTool: tt.config})
			res, err := b.Build(context.Background(), newFake(), hint.Request{AgentID: 1, Prompt: tt.prompt, Apps: allApps, SearchTool: tt.request})
			if err != nil {
				t.Fatal(err)
			}
			if res.Confident {
				t.Fatalf("confident about %q: the test needs an unsure hint", tt.prompt)
			}
			var want []string
			if tt.wantSearch != "" {
				want = []string{tt.wantSearch}
			}
			if diff := cmp.Diff(want, res.MetaTools); diff != "" {
				t.Errorf("MetaTools (-want +got):\n%s", diff)
			}
			for _, name := range []string{hint.SearchTool, "find_tools"} {
				if got := strings.Contains(res.Text, name); got != (name == tt.wantSearch) {
					t.Errorf("text names %s: %v, want %v:\n%s", name, got, !got, res.Text)
				}
			}
			if !strings.Contains(res.Text, "Do not invent action names") && !strings.Contains(res.Text, "do not invent action names") {
				t.Errorf("the text lost its warning:\n%s", res.Text)
			}
		})
	}
}

// TestNoApps: a request that leaves no usable app is an error wrapping ErrNoApps that says
// why, not an empty hint.
func TestNoApps(t *testing.T) {
	assign := func(app string, active bool) cache.Assignment {
		return cache.Assignment{AgentID: 7, App: app, Active: active}
	}
	tests := []struct {
		name  string
		store *fakeStore
		req   hint.Request
		why   string
	}{
		{"agent without assignments", &fakeStore{}, hint.Request{AgentID: 7}, "agent 7 has no active app assignment"},
		{"only inactive assignments", &fakeStore{assignments: map[int64][]cache.Assignment{7: {assign("slack", false)}}},
			hint.Request{AgentID: 7}, "agent 7 has no active app assignment"},
		{"assigned apps not connected", &fakeStore{assignments: map[int64][]cache.Assignment{7: {assign("slack", true)}}},
			hint.Request{AgentID: 7, WorkspaceID: "ws"}, `leave no app actively connected and enabled in workspace "ws"`},
		{"workspace without connections", &fakeStore{}, hint.Request{WorkspaceID: "ws"}, `workspace "ws" has no active connection`},
		{"workspace disabled its only app", &fakeStore{
			connections: map[string][]cache.Connection{"ws": {{WorkspaceID: "ws", App: "slack", Status: cache.StatusActive}}},
			configs:     map[string][]cache.ToolConfig{"ws": {{WorkspaceID: "ws", App: "slack", Enabled: false}}},
		}, hint.Request{WorkspaceID: "ws"}, `workspace "ws" has no active connection to an enabled app`},
		{"request apps all invalid", &fakeStore{}, hint.Request{AgentID: 7, Apps: []string{"not an app!"}}, "is a valid app slug"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.store.metas = fixture()
			tt.req.Prompt = "send a message"
			res, err := hint.Build(context.Background(), tt.store, tt.req)
			if !errors.Is(err, hint.ErrNoApps) {
				t.Fatalf("err = %v, want ErrNoApps", err)
			}
			if !strings.Contains(err.Error(), tt.why) || res.Reason == "" {
				t.Errorf("err %q, reason %q: want the reason %q", err, res.Reason, tt.why)
			}
			if res.Text != "" || len(res.MatchedActions) != 0 || res.Strategy != hint.StrategyNone {
				t.Errorf("a hint came with the error: %+v", res)
			}
		})
	}
}
