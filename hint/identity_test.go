package hint_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

func TestIdentity(t *testing.T) {
	tests := []struct {
		name     string
		id       hint.Identity
		wantUser string
	}{
		{"agent only", hint.Identity{AgentID: 7}, ""},
		{"workspace is the user", hint.Identity{AgentID: 7, WorkspaceID: "acme", Apps: []string{"slack"}}, "acme"},
		{"user given", hint.Identity{WorkspaceID: "acme", UserID: "u-1"}, "u-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.id.ComposioUserID(); got != tt.wantUser {
				t.Errorf("ComposioUserID() = %q, want %q", got, tt.wantUser)
			}
			req := tt.id.Request("post the notes")
			want := hint.Request{AgentID: tt.id.AgentID, WorkspaceID: tt.id.WorkspaceID, Prompt: "post the notes", Apps: tt.id.Apps}
			if diff := cmp.Diff(want, req); diff != "" {
				t.Errorf("Request (-want +got):\n%s", diff)
			}
			back := tt.id
			back.UserID = "" // a request does not carry the Composio user
			if diff := cmp.Diff(back, req.Identity()); diff != "" {
				t.Errorf("Request.Identity (-want +got):\n%s", diff)
			}
		})
	}
}

// One identity for a turn: the hint request comes from it, and the same value is the
// registry's Subject and the executor's Scope.Identity.
func ExampleIdentity() {
	ctx := context.Background()
	st, err := loadTestdata(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := st.AssignApp(ctx, cache.Assignment{AgentID: 7, App: "slack", Active: true}); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := cache.EnsureConnection(ctx, st, "acme", "slack", cache.StatusActive, "ca_1"); err != nil {
		fmt.Println(err)
		return
	}
	who := hint.Identity{AgentID: 7, WorkspaceID: "acme"}
	res, err := hint.Build(ctx, st, who.Request("send a message to #eng that the deploy is done"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.MatchedActions[0])
	fmt.Println("composio user:", who.ComposioUserID())
	// Output:
	// SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL
	// composio user: acme
}
