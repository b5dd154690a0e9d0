package adaptertest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

// HintHelper is an adapter's hint helper, returning the SDK's tool values of type T.
type HintHelper[T any] func(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result) ([]T, registry.Resolution, error)

// CheckHintHelper checks that helper offers the actions of a hint the subject may call,
// under their function names (name reads a tool's) and in the hint's order, says why it
// left the others out, offers nothing to an agent without apps, and refuses a nil resolver
// with an error wrapping errConfig (the adapter's ErrConfig).
func CheckHintHelper[T any](t *testing.T, fn HintHelper[T], name func(T) string, errConfig error) {
	t.Helper()
	helper := func(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result) ([]string, registry.Resolution, error) {
		tools, res, err := fn(ctx, r, sub, h)
		var names []string
		for _, t := range tools {
			names = append(names, name(t))
		}
		return names, res, err
	}
	ctx := context.Background()
	st, ex := Catalogue()
	defer ex.Close()
	r, err := registry.NewResolver(registry.ResolverConfig{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	h := hint.Result{MatchedActions: []string{"GITHUB_LIST_ISSUES", "SLACK_SEND_MESSAGE", "GITHUB_CREATE_AN_ISSUE"}}
	names, res, err := helper(ctx, r, registry.Subject{AgentID: 7}, h)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"GITHUB_LIST_ISSUES", "GITHUB_CREATE_AN_ISSUE"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if res.Skipped["SLACK_SEND_MESSAGE"] == "" || res.Tier != registry.TierGiven {
		t.Errorf("resolution %+v: want SLACK_SEND_MESSAGE skipped, tier given", res)
	}
	names, _, err = helper(ctx, r, registry.Subject{AgentID: 9}, h)
	if err != nil || len(names) != 0 {
		t.Errorf("agent without apps: %v, %v; want no tools", names, err)
	}
	if _, _, err := helper(ctx, nil, registry.Subject{AgentID: 7}, h); !errors.Is(err, errConfig) {
		t.Errorf("nil resolver: %v, want an error wrapping %v", err, errConfig)
	}
}
