package registry_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/registry"
)

func TestAllowAll(t *testing.T) {
	ctx := context.Background()
	a := registry.AllowAll()
	if !a.AllowsAll() || registry.NewAccess(registry.AccessConfig{}).AllowsAll() {
		t.Fatal("AllowsAll does not tell AllowAll apart")
	}
	gmail := cache.Action{App: "gmail", Slug: "GMAIL_SEND_EMAIL"}
	tests := []struct {
		name string
		sub  registry.Subject
		act  cache.Action
		want bool
	}{
		{"any app, without a store", registry.Subject{AgentID: 5}, gmail, true},
		{"an app the subject names", registry.Subject{AgentID: 5, Apps: []string{"Gmail"}}, gmail, true},
		{"an app the subject does not name", registry.Subject{AgentID: 5, Apps: []string{"slack"}}, gmail, false},
		{"a deprecated action", registry.Subject{}, cache.Action{App: "gmail", Slug: "GMAIL_OLD", Deprecated: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := a.CheckAction(ctx, tt.sub, tt.act)
			if err != nil || d.Allowed != tt.want {
				t.Errorf("CheckAction = %+v, %v; want allowed %v", d, err, tt.want)
			}
		})
	}
	noop := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	if d, _ := a.CheckPlatform(ctx, registry.Subject{AgentID: 5}, registry.ToolSpec{Name: "x", Run: noop}); !d.Allowed {
		t.Errorf("active platform tool refused: %+v", d)
	}
	if d, _ := a.CheckPlatform(ctx, registry.Subject{AgentID: 5}, registry.ToolSpec{Name: "x", Run: noop, Inactive: true}); d.Allowed {
		t.Error("inactive platform tool allowed")
	}
	apps, err := a.AllowedApps(ctx, registry.Subject{Apps: []string{"Slack", "gmail"}})
	if diff := cmp.Diff([]string{"gmail", "slack"}, apps); diff != "" || err != nil {
		t.Errorf("AllowedApps (-want +got):\n%s %v", diff, err)
	}
	if apps, _ := a.AllowedApps(ctx, registry.Subject{}); apps != nil {
		t.Errorf("AllowedApps without apps = %v, want nil (every app)", apps)
	}
}

func TestHostFilledParams(t *testing.T) {
	if got := registry.HostFilledParams("COMPOSIO"); !slices.Equal(got, registry.IdentityKeys()) {
		t.Errorf("composio: %v", got)
	}
	for _, app := range []string{"gmail", "clockify", ""} {
		if got := registry.HostFilledParams(app); got != nil {
			t.Errorf("%q: %v, want none", app, got)
		}
	}
	keys := registry.IdentityKeys()
	keys[0] = "changed"
	if registry.IdentityKeys()[0] != "user_id" {
		t.Error("IdentityKeys shares its slice")
	}
}

// TestTypedChecksArguments: Typed's CheckArgs refuses values the input type cannot hold,
// naming the argument.
func TestTypedChecksArguments(t *testing.T) {
	type in struct {
		Count int8             `json:"count"`
		Inner struct{ N uint } `json:"inner"`
	}
	spec, err := registry.Typed(registry.ToolSpec{Name: "t", Description: "T."}, func(context.Context, in) (string, error) { return "ok", nil })
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ args, want string }{
		{`{"count":1,"inner":{"N":2}}`, ""},
		{`{"count":300}`, "/count: the number 300 does not fit a Go int8"},
		{`{"inner":{"N":-1}}`, "/inner/N: the number -1 does not fit a Go uint"},
		{`{"count":1e20}`, "/count: the number 1e20 does not fit a Go int8"},
	}
	for _, tt := range tests {
		err := spec.CheckArgs(json.RawMessage(tt.args))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckArgs(%s) = %q, want %q", tt.args, got, tt.want)
		}
	}
}
