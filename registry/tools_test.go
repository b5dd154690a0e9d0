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
	"github.com/toolhint/toolhint/schema"
)

func TestFunctions(t *testing.T) {
	onFilledStores(t, testFunctions)
}

func testFunctions(t *testing.T, st cache.Store) {
	ctx := context.Background()
	ws := registry.Subject{AgentID: 1, WorkspaceID: "ws1"}
	given := []string{"GMAIL_SEND_EMAIL", "NOPE_NOT_THERE", "SLACK_SEND_MESSAGE", "GITHUB_CREATE_AN_ISSUE",
		"GMAIL_CREATE_LABEL", "GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL", "GMAIL_OLD_SEND"}
	tests := []struct {
		name    string
		sub     registry.Subject
		limit   int
		slugs   []string
		want    []string
		tier    registry.Tier
		skipped []string
	}{
		{name: "allowed kept in order, the rest skipped", sub: ws, slugs: given,
			want: []string{"GMAIL_SEND_EMAIL", "GMAIL_FETCH_EMAILS"}, tier: registry.TierGiven,
			skipped: []string{"GITHUB_CREATE_AN_ISSUE", "GMAIL_CREATE_LABEL", "GMAIL_OLD_SEND", "NOPE_NOT_THERE", "SLACK_SEND_MESSAGE"}},
		{name: "capped at the limit", sub: ws, limit: 1, slugs: given, want: []string{"GMAIL_SEND_EMAIL"}, tier: registry.TierGiven,
			skipped: []string{"GITHUB_CREATE_AN_ISSUE", "GMAIL_CREATE_LABEL", "GMAIL_FETCH_EMAILS", "GMAIL_OLD_SEND", "NOPE_NOT_THERE", "SLACK_SEND_MESSAGE"}},
		{name: "subject without apps", sub: registry.Subject{AgentID: 9}, slugs: []string{"GMAIL_SEND_EMAIL"}, tier: registry.TierNone,
			skipped: []string{"GMAIL_SEND_EMAIL"}},
		{name: "no slugs", sub: ws, tier: registry.TierNone, skipped: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := registry.NewResolver(registry.ResolverConfig{Store: st, Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Functions(ctx, tt.sub, tt.slugs)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Actions); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
			if res.Tier != tt.tier {
				t.Errorf("tier %q, want %q", res.Tier, tt.tier)
			}
			skipped := []string{}
			for s := range res.Skipped {
				skipped = append(skipped, s)
			}
			if diff := cmp.Diff(tt.skipped, skipped, sortStrings); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			for s, why := range res.Skipped {
				if why == "" {
					t.Errorf("%s skipped without a reason", s)
				}
			}
			if why := res.Skipped["NOPE_NOT_THERE"]; tt.limit == 0 && len(tt.slugs) > 1 && why != "not in the catalogue" {
				t.Errorf("unknown slug skipped for %q", why)
			}
			var slugs []string
			for _, f := range res.Functions {
				slugs = append(slugs, f.Slug)
			}
			if diff := cmp.Diff(tt.want, slugs); diff != "" {
				t.Errorf("functions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTools: the definitions come out in the dialect asked for, as the Resolution's
// functions render, with the parameters the host fills hidden.
func TestTools(t *testing.T) {
	ctx := context.Background()
	st := cache.NewMemory()
	params := json.RawMessage(`{"type":"object","properties":{"toolkit":{"type":"string"},"user_id":{"type":"string"},` +
		`"connected_account_id":{"type":"string"}},"required":["toolkit","user_id"]}`)
	if _, err := st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "composio", NoAuth: true}, {Slug: "github", NoAuth: true}},
		Actions: []cache.Action{
			{App: "composio", Slug: "COMPOSIO_CHECK_ACTIVE_CONNECTION", Description: "Check a connection.", Parameters: params},
			{App: "github", Slug: "GITHUB_GET_USER", Description: "Get a user.", Parameters: params},
		},
	}); err != nil {
		t.Fatal(err)
	}
	r, err := registry.NewResolver(registry.ResolverConfig{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	sub := registry.Subject{Apps: []string{"composio", "github"}}
	slugs := []string{"COMPOSIO_CHECK_ACTIVE_CONNECTION", "GITHUB_GET_USER"}
	for _, d := range []schema.Dialect{schema.DialectOpenAI, schema.DialectOpenAIStrict, schema.DialectOpenAIResponses,
		schema.DialectOpenAIResponsesStrict, schema.DialectAnthropic, schema.DialectGemini} {
		t.Run(string(d), func(t *testing.T) {
			tools, err := r.Tools(ctx, sub, slugs, d)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(slugs, tools.Actions); diff != "" {
				t.Fatalf("actions (-want +got):\n%s", diff)
			}
			var got []string
			for i, def := range tools.Definitions {
				want, err := tools.Functions[i].Render(d)
				if err != nil {
					t.Fatal(err)
				}
				if string(def) != string(want) {
					t.Errorf("definition %d:\n%s\nwant\n%s", i, def, want)
				}
				got = append(got, hasKeys(string(def), "toolkit", "user_id", "connected_account_id"))
			}
			// Composio's own toolkit: identity keys are the host's; GitHub's user_id is data.
			want := []string{"toolkit", "toolkit user_id connected_account_id"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("parameters offered (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := r.Tools(ctx, sub, slugs, "cohere"); !errors.Is(err, schema.ErrUnknownDialect) {
		t.Errorf("unknown dialect: %v, want ErrUnknownDialect", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.Tools(cctx, sub, slugs, schema.DialectAnthropic); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Tools: %v", err)
	}
}

// hasKeys returns the keys that occur as JSON object keys in s, in the order given.
func hasKeys(s string, keys ...string) string {
	var out []string
	for _, k := range keys {
		if strings.Contains(s, `"`+k+`":`) {
			out = append(out, k)
		}
	}
	return strings.Join(out, " ")
}

// unregisterOnCheck is a PlatformPermissions that unregisters each tool it is asked about
// before allowing it: a tool removed while a resolution is under way.
type unregisterOnCheck struct{ reg *registry.Registry }

func (u unregisterOnCheck) PlatformToolAllowed(_ context.Context, _ int64, tool string) (bool, error) {
	_ = u.reg.Unregister(tool)
	return true, nil
}

// TestFunctionsPlatformReasons: every platform tool Functions leaves out is skipped with a
// reason, and a tool is read from the registry once: one unregistered after it was read
// is still given with the definition read, never left out without a reason.
func TestFunctionsPlatformReasons(t *testing.T) {
	ctx := context.Background()
	st := cache.NewMemory()
	sub := registry.Subject{AgentID: 1, Apps: []string{"gmail"}}
	t.Run("unregistered during the check", func(t *testing.T) {
		reg := registry.New()
		reg.MustRegister(registry.ToolSpec{Name: "echo", Description: "Echo.", Run: nop})
		r, err := registry.NewResolver(registry.ResolverConfig{Store: st, Registry: reg, Platform: unregisterOnCheck{reg}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Functions(ctx, sub, []string{"echo"})
		if err != nil {
			t.Fatal(err)
		}
		if why, ok := res.Skipped["echo"]; ok {
			t.Fatalf("echo skipped (reason %q), want it given as read", why)
		}
		if len(res.Functions) != 1 || res.Functions[0].Slug != "echo" || res.Functions[0].Description != "Echo." {
			t.Errorf("functions %+v, want echo's definition", res.Functions)
		}
	})
	t.Run("denied", func(t *testing.T) {
		reg := registry.New()
		reg.MustRegister(registry.ToolSpec{Name: "echo", Run: nop})
		reg.MustRegister(registry.ToolSpec{Name: "off", Run: nop, Inactive: true})
		r, err := registry.NewResolver(registry.ResolverConfig{Store: st, Registry: reg, Platform: denyPlatform{"echo": true}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Functions(ctx, sub, []string{"echo", "off"})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"echo", "off"} {
			if why, ok := res.Skipped[name]; !ok || why == "" {
				t.Errorf("%s skipped %v with reason %q, want a reason", name, ok, why)
			}
		}
	})
}
