package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/registry"
)

// fill writes the permission fixture into st: agent 1 has gmail, github, hackernews; agent
// 2 has none (inherits). Workspace ws1: gmail active, github pending, slack active;
// hackernews needs no auth. ws1 enables only GMAIL_SEND_EMAIL and GMAIL_FETCH_EMAILS of gmail.
func fill(t *testing.T, st cache.Store) {
	t.Helper()
	ctx := context.Background()
	p := func(props string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{` + props + `}}`)
	}
	_, err := st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "gmail", DisplayName: "Gmail"}, {Slug: "github", DisplayName: "GitHub"}, {Slug: "slack", DisplayName: "Slack"},
			{Slug: "hackernews", DisplayName: "Hacker News", NoAuth: true}},
		Actions: []cache.Action{
			{App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email", Description: "Send an email message to a recipient.", Parameters: p(`"recipient_email":{"type":"string"},"body":{"type":"string"}`)},
			{App: "gmail", Slug: "GMAIL_FETCH_EMAILS", DisplayName: "Fetch emails", Description: "Fetch emails from the inbox.", Parameters: p(`"query":{"type":"string"}`)},
			{App: "gmail", Slug: "GMAIL_CREATE_LABEL", DisplayName: "Create label", Description: "Create a label.", Parameters: p(`"name":{"type":"string"}`)},
			{App: "github", Slug: "GITHUB_CREATE_AN_ISSUE", DisplayName: "Create an issue", Description: "Create a GitHub issue.", Parameters: p(`"title":{"type":"string"}`)},
			{App: "slack", Slug: "SLACK_SEND_MESSAGE", DisplayName: "Send message", Description: "Send a Slack message to a channel.", Parameters: p(`"text":{"type":"string"}`)},
			{App: "hackernews", Slug: "HACKERNEWS_GET_TOP_STORIES", DisplayName: "Top stories", Description: "Get the top Hacker News stories.", Parameters: p(``)},
			{App: "gmail", Slug: "GMAIL_OLD_SEND", DisplayName: "Old send", Description: "Deprecated.", Deprecated: true, Parameters: p(``)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, app := range []string{"gmail", "github", "hackernews"} {
		must(st.AssignApp(ctx, cache.Assignment{AgentID: 1, App: app, Active: true}))
	}
	for _, app := range []string{"gmail", "github", "slack"} {
		_, err := st.AddConnection(ctx, "ws1", app)
		must(err)
		_, err = st.SetConnectionStatus(ctx, "ws1", app, cache.StatusPending, "")
		must(err)
	}
	for _, app := range []string{"gmail", "slack"} {
		_, err := st.SetConnectionStatus(ctx, "ws1", app, cache.StatusActive, "ca_"+app)
		must(err)
	}
	must(st.SaveEnabledActions(ctx, "ws1", "gmail", []string{"GMAIL_SEND_EMAIL", "GMAIL_FETCH_EMAILS"}))
}

type denyPlatform map[string]bool

func (d denyPlatform) PlatformToolAllowed(_ context.Context, _ int64, tool string) (bool, error) {
	if tool == "broken" {
		return false, errors.New("permission table unreachable")
	}
	return !d[tool], nil
}

func TestAccessCheck(t *testing.T) {
	onFilledStores(t, testAccessCheck)
}

func testAccessCheck(t *testing.T, st cache.Store) {
	reg := registry.New()
	for _, n := range []string{"read_file", "execute_command", "broken"} {
		reg.MustRegister(registry.ToolSpec{Name: n, Run: nop})
	}
	reg.MustRegister(registry.ToolSpec{Name: "off", Run: nop, Inactive: true})
	a := registry.NewAccess(registry.AccessConfig{Store: st, Registry: reg, Platform: denyPlatform{"execute_command": true}})
	ws := registry.Subject{AgentID: 1, WorkspaceID: "ws1"}
	tests := []struct {
		name    string
		sub     registry.Subject
		tool    string
		allowed bool
		reason  string
		conn    string // the Decision's ConnectedAccountID
		wantErr bool
	}{
		{name: "platform allowed", sub: ws, tool: "read_file", allowed: true},
		{name: "platform denied", sub: ws, tool: "execute_command", reason: "agent 1 has no permission for platform tool execute_command"},
		{name: "platform inactive", sub: ws, tool: "off", reason: "inactive"},
		{name: "platform permission store fails", sub: ws, tool: "broken", wantErr: true},
		{name: "action allowed", sub: ws, tool: "GMAIL_SEND_EMAIL", allowed: true, conn: "ca_gmail"},
		{name: "action not enabled in workspace", sub: ws, tool: "GMAIL_CREATE_LABEL", reason: "has not enabled action GMAIL_CREATE_LABEL"},
		{name: "connection pending", sub: ws, tool: "GITHUB_CREATE_AN_ISSUE", reason: "connection to github is pending, not active"},
		{name: "app not assigned", sub: ws, tool: "SLACK_SEND_MESSAGE", reason: "agent 1 is not assigned app slack"},
		{name: "no-auth app needs no connection", sub: ws, tool: "HACKERNEWS_GET_TOP_STORIES", allowed: true},
		{name: "deprecated", sub: ws, tool: "GMAIL_OLD_SEND", reason: "deprecated"},
		{name: "unknown", sub: ws, tool: "GMAIL_TELEPORT", reason: "not a known tool"},
		{name: "no workspace: assignments only", sub: registry.Subject{AgentID: 1}, tool: "GITHUB_CREATE_AN_ISSUE", allowed: true},
		{name: "agent without assignments inherits workspace apps", sub: registry.Subject{AgentID: 2, WorkspaceID: "ws1"}, tool: "SLACK_SEND_MESSAGE", allowed: true, conn: "ca_slack"},
		{name: "inherited apps exclude pending connections", sub: registry.Subject{AgentID: 2, WorkspaceID: "ws1"}, tool: "GITHUB_CREATE_AN_ISSUE", reason: "not assigned app github"},
		{name: "step apps override", sub: registry.Subject{AgentID: 1, WorkspaceID: "ws1", Apps: []string{"Slack"}}, tool: "GMAIL_SEND_EMAIL", reason: "not among the apps allowed for this step"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := a.Check(context.Background(), tt.sub, tt.tool)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if d.Allowed != tt.allowed || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("Check = %+v, want allowed %v with reason containing %q", d, tt.allowed, tt.reason)
			}
			if d.Allowed && d.Reason != "" {
				t.Errorf("allowed with a reason %q", d.Reason)
			}
			if d.ConnectedAccountID != tt.conn {
				t.Errorf("ConnectedAccountID = %q, want %q", d.ConnectedAccountID, tt.conn)
			}
		})
	}
	apps, err := a.AllowedApps(context.Background(), registry.Subject{AgentID: 2, WorkspaceID: "ws1"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"gmail", "slack"}, apps); diff != "" {
		t.Errorf("inherited apps (-want +got):\n%s", diff)
	}
}
