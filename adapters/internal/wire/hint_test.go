package wire_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/adapters/anthropicadapter"
	"github.com/toolhint/toolhint/adapters/genaiadapter"
	"github.com/toolhint/toolhint/adapters/internal/adaptertest"
	"github.com/toolhint/toolhint/adapters/openaiadapter"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

// TestHintHelpers: every adapter's hint helper offers the hint's actions the subject may
// call, under their function names, refuses a nil resolver and says what it left out.
func TestHintHelpers(t *testing.T) {
	ctx := context.Background()
	st, ex := adaptertest.Catalogue()
	defer ex.Close()
	r, err := registry.NewResolver(registry.ResolverConfig{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	type helper func(context.Context, *registry.Resolver, registry.Subject, hint.Result) ([]string, registry.Resolution, error)
	helpers := map[string]struct {
		h         helper
		errConfig error
	}{
		"openai chat": {func(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result) ([]string, registry.Resolution, error) {
			tools, res, err := openaiadapter.HintChatTools(ctx, r, sub, h, true)
			var names []string
			for _, t := range tools {
				names = append(names, t.OfFunction.Function.Name)
			}
			return names, res, err
		}, openaiadapter.ErrConfig},
		"openai responses": {func(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result) ([]string, registry.Resolution, error) {
			tools, res, err := openaiadapter.HintResponseTools(ctx, r, sub, h, false)
			var names []string
			for _, t := range tools {
				names = append(names, t.OfFunction.Name)
			}
			return names, res, err
		}, openaiadapter.ErrConfig},
		"anthropic": {func(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result) ([]string, registry.Resolution, error) {
			tools, res, err := anthropicadapter.HintTools(ctx, r, sub, h, true)
			var names []string
			for _, t := range tools {
				names = append(names, t.OfTool.Name)
			}
			return names, res, err
		}, anthropicadapter.ErrConfig},
		"genai": {func(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result) ([]string, registry.Resolution, error) {
			tool, res, err := genaiadapter.HintTool(ctx, r, sub, h)
			var names []string
			if tool != nil {
				for _, d := range tool.FunctionDeclarations {
					names = append(names, d.Name)
				}
			}
			return names, res, err
		}, genaiadapter.ErrConfig},
	}
	h := hint.Result{MatchedActions: []string{"GITHUB_LIST_ISSUES", "SLACK_SEND_MESSAGE", "GITHUB_CREATE_AN_ISSUE"}}
	for name, tt := range helpers {
		t.Run(name, func(t *testing.T) {
			names, res, err := tt.h(ctx, r, registry.Subject{AgentID: 7}, h)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"GITHUB_LIST_ISSUES", "GITHUB_CREATE_AN_ISSUE"}, names); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if res.Skipped["SLACK_SEND_MESSAGE"] == "" || res.Tier != registry.TierGiven {
				t.Errorf("resolution %+v: want SLACK_SEND_MESSAGE skipped, tier given", res)
			}
			names, _, err = tt.h(ctx, r, registry.Subject{AgentID: 9}, h)
			if err != nil || len(names) != 0 {
				t.Errorf("agent without apps: %v, %v; want no tools", names, err)
			}
			if _, _, err := tt.h(ctx, nil, registry.Subject{AgentID: 7}, h); !errors.Is(err, tt.errConfig) {
				t.Errorf("nil resolver: %v, want ErrConfig", err)
			}
		})
	}
}
