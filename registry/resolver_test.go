package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/registry"
)

// fakeSearch answers with fixed slugs, or fails.
type fakeSearch struct {
	slugs []string
	err   error
	apps  [][]string
}

func (f *fakeSearch) SearchActions(_ context.Context, query string, apps []string, limit int) ([]string, error) {
	f.apps = append(f.apps, apps)
	return f.slugs, f.err
}

func TestResolve(t *testing.T) {
	for kind, open := range storeKinds(t) {
		t.Run(kind, func(t *testing.T) {
			st := open(t)
			fill(t, st)
			testResolve(t, st)
		})
	}
}

func testResolve(t *testing.T, st cache.Store) {
	ws := registry.Subject{AgentID: 1, WorkspaceID: "ws1"}
	tests := []struct {
		name    string
		search  *fakeSearch
		sub     registry.Subject
		prompt  string
		want    []string
		tier    registry.Tier
		skipped []string
		// anySkipped leaves Skipped unchecked where it depends on hint's ranking.
		anySkipped bool
	}{
		{name: "explicit slugs kept for allowed apps", sub: ws, prompt: "Call GMAIL_SEND_EMAIL, then SLACK_SEND_MESSAGE and GMAIL_CREATE_LABEL. HTTP_OK is not a slug.",
			want: []string{"GMAIL_SEND_EMAIL"}, tier: registry.TierExplicit, skipped: []string{"GMAIL_CREATE_LABEL", "SLACK_SEND_MESSAGE"}},
		{name: "semantic search when no slug", search: &fakeSearch{slugs: []string{"GMAIL_FETCH_EMAILS", "SLACK_SEND_MESSAGE"}}, sub: ws, prompt: "what came in today",
			want: []string{"GMAIL_FETCH_EMAILS"}, tier: registry.TierSemantic, skipped: []string{"SLACK_SEND_MESSAGE"}},
		{name: "failing search falls through to ranking", search: &fakeSearch{err: errors.New("search down")}, sub: ws, prompt: "send an email to jay",
			want: []string{"GMAIL_SEND_EMAIL"}, tier: registry.TierRanked, anySkipped: true},
		{name: "ranking alone", sub: ws, prompt: "get the top hacker news stories",
			want: []string{"HACKERNEWS_GET_TOP_STORIES"}, tier: registry.TierRanked, anySkipped: true},
		{name: "no apps", sub: registry.Subject{AgentID: 9}, prompt: "send an email", tier: registry.TierNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := registry.ResolverConfig{Store: st}
			if tt.search != nil {
				cfg.Search = tt.search
			}
			r, err := registry.NewResolver(cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Resolve(context.Background(), tt.sub, tt.prompt)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Actions
			if tt.tier == registry.TierRanked && len(got) > len(tt.want) {
				got = got[:len(tt.want)] // ranking may list more; what counts is what comes first
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
			if res.Tier != tt.tier {
				t.Errorf("tier %q, want %q", res.Tier, tt.tier)
			}
			var skipped []string
			for s := range res.Skipped {
				skipped = append(skipped, s)
			}
			if diff := cmp.Diff(tt.skipped, skipped, sortStrings); diff != "" && !tt.anySkipped {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if len(res.Functions) != len(res.Actions) {
				t.Fatalf("%d functions for %d actions", len(res.Functions), len(res.Actions))
			}
			for i, f := range res.Functions {
				if f.Slug != res.Actions[i] {
					t.Errorf("function %d is %s, want %s", i, f.Slug, res.Actions[i])
				}
			}
			if tt.search != nil {
				for _, apps := range tt.search.apps {
					if diff := cmp.Diff([]string{"github", "gmail", "hackernews"}, apps); diff != "" {
						t.Errorf("search scoped to (-want +got):\n%s", diff)
					}
				}
			}
		})
	}
}

func TestResolveCapsAtLimit(t *testing.T) {
	ctx := context.Background()
	st := cache.NewMemory()
	var acts []cache.Action
	for i := range 50 {
		acts = append(acts, cache.Action{App: "notes", Slug: fmt.Sprintf("NOTES_CREATE_NOTE_%02d", i), DisplayName: "Create note",
			Description: "Create a note.", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)})
	}
	if _, err := st.Apply(ctx, cache.Batch{Apps: []cache.App{{Slug: "notes", NoAuth: true}}, Actions: acts}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		limit int
		want  int
	}{{"default 30", 0, 30}, {"configured 5", 5, 5}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := registry.NewResolver(registry.ResolverConfig{Store: st, Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Resolve(ctx, registry.Subject{Apps: []string{"notes"}}, "create a note")
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Actions) != tt.want {
				t.Errorf("%d actions, want %d", len(res.Actions), tt.want)
			}
		})
	}
	if _, err := registry.NewResolver(registry.ResolverConfig{}); !errors.Is(err, registry.ErrInvalidConfig) {
		t.Errorf("NewResolver without a store: %v, want ErrInvalidConfig", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	r, _ := registry.NewResolver(registry.ResolverConfig{Store: st})
	if _, err := r.Resolve(cctx, registry.Subject{Apps: []string{"notes"}}, "create a note"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Resolve: %v", err)
	}
}

func TestExplicitSlugs(t *testing.T) {
	got := registry.ExplicitSlugs("Use GITHUB_CREATE_ISSUE then GITHUB_CREATE_ISSUE again, not URL or A_B_c, and _21RISK_X? also SLACK_SEND_MESSAGE.")
	want := []string{"GITHUB_CREATE_ISSUE", "_21RISK_X", "SLACK_SEND_MESSAGE"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

var sortStrings = cmpopts.SortSlices(func(a, b string) bool { return a < b })
