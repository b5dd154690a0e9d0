package registry_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
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

// TestResolveRendersAsTheExecutorValidates: the resolver renders a definition in the
// executor's mode, with the host's override, and without the identity parameters of
// Composio's own toolkit.
func TestResolveRendersAsTheExecutorValidates(t *testing.T) {
	ctx := context.Background()
	st := cache.NewMemory()
	_, err := st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "gmail"}, {Slug: registry.ComposioApp}},
		Actions: []cache.Action{
			{App: "gmail", Slug: "GMAIL_SEND_EMAIL", Description: "Send an email.", Parameters: json.RawMessage(`{"type":"object","properties":{
				"recipient_email":{"type":"string"},"body":{"type":"string"},"user_id":{"type":"string","description":"Mailbox; 'me' is the user."},
				"attachment":{"type":"object","description":"File to attach. Omit or set to null for no attachment.","properties":{"name":{"type":"string"}}}},
				"required":["recipient_email","body","attachment"]}`)},
			{App: registry.ComposioApp, Slug: "COMPOSIO_CHECK_ACTIVE_CONNECTION", Description: "Check a connection.", Parameters: json.RawMessage(`{"type":"object","properties":{
				"toolkit":{"type":"string"},"user_id":{"type":"string"},"entity_id":{"type":"string"}},"required":["toolkit","user_id"]}`)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	type shape struct {
		Properties []string
		Required   []string
	}
	tests := []struct {
		name string
		cfg  registry.ResolverConfig
		want map[string]shape
	}{
		{"lenient", registry.ResolverConfig{}, map[string]shape{
			"GMAIL_SEND_EMAIL":                 {[]string{"attachment", "body", "recipient_email", "user_id"}, []string{"body", "recipient_email"}},
			"COMPOSIO_CHECK_ACTIVE_CONNECTION": {[]string{"toolkit"}, []string{"toolkit"}},
		}},
		{"strict", registry.ResolverConfig{Validation: schema.Strict}, map[string]shape{
			"GMAIL_SEND_EMAIL":                 {[]string{"attachment", "body", "recipient_email", "user_id"}, []string{"attachment", "body", "recipient_email"}},
			"COMPOSIO_CHECK_ACTIVE_CONNECTION": {[]string{"toolkit"}, []string{"toolkit"}},
		}},
		{"override", registry.ResolverConfig{Overrides: schema.Overrides{"GMAIL_SEND_EMAIL": {Patch: json.RawMessage(`{"properties":{"attachment":{"description":"Required. The file to attach."}}}`)}}}, map[string]shape{
			"GMAIL_SEND_EMAIL":                 {[]string{"attachment", "body", "recipient_email", "user_id"}, []string{"attachment", "body", "recipient_email"}},
			"COMPOSIO_CHECK_ACTIVE_CONNECTION": {[]string{"toolkit"}, []string{"toolkit"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Store = st
			r, err := registry.NewResolver(cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Resolve(ctx, registry.Subject{Apps: []string{"gmail", registry.ComposioApp}}, "Use GMAIL_SEND_EMAIL and COMPOSIO_CHECK_ACTIVE_CONNECTION.")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]shape{}
			for _, fn := range res.Functions {
				var p struct {
					Properties map[string]json.RawMessage
					Required   []string
				}
				if err := json.Unmarshal(fn.Parameters, &p); err != nil {
					t.Fatal(err)
				}
				s := shape{Required: p.Required}
				for k := range p.Properties {
					s.Properties = append(s.Properties, k)
				}
				slices.Sort(s.Properties)
				got[fn.Slug] = s
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("definitions (-want +got):\n%s\nskipped: %v", diff, res.Skipped)
			}
		})
	}
}
