package hint_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

var benchApps = []string{"gmail", "slack", "github", "jira", "notion", "googlecalendar", "googledrive", "hubspot"}

// connectedStore is a store whose every workspace has apps connected.
type connectedStore struct {
	*cache.Memory
	apps []string
}

func (s connectedStore) Connections(_ context.Context, ws string, _ ...cache.ConnectionStatus) ([]cache.Connection, error) {
	out := make([]cache.Connection, len(s.apps))
	for i, a := range s.apps {
		out[i] = cache.Connection{WorkspaceID: ws, App: a, Status: cache.StatusActive}
	}
	return out, nil
}

// benchUsage records n calls of 60 of the apps' actions, one in ten failed: half from
// requests like benchPrompts, each leading to one of two actions, half from other requests
// leading to the other actions.
func benchUsage(b *testing.B, st *cache.Memory, n int) *cache.Memory {
	ctx := context.Background()
	metas, err := st.ActionMeta(ctx, benchApps)
	if err != nil {
		b.Fatal(err)
	}
	action := func(k int) cache.ActionMeta { return metas[(k*7919)%len(metas)] }
	rec := cache.NewMemory()
	evs := make([]cache.UsageEvent, n)
	for i := range evs {
		p, m := i%len(benchPrompts), action(0)
		var prompt string
		if i%2 == 0 {
			prompt = fmt.Sprintf("%s for project %d", benchPrompts[p], i%37)
			m = action(2*p + i/2%2)
		} else {
			prompt = fmt.Sprintf("weekly chore %d for the ops team", i%44)
			m = action(16 + i%44)
		}
		evs[i] = cache.UsageEvent{WorkspaceID: "ws", AgentID: 1, App: m.App, Action: m.Action, OK: i%10 != 0, Terms: hint.PromptTerms(prompt)}
	}
	if err := rec.RecordUsage(ctx, evs, cache.UsageLimits{}); err != nil {
		b.Fatal(err)
	}
	return rec
}

// BenchmarkBuildWorkspace8Apps is BenchmarkBuildAgent8Apps for a workspace, without usage
// priors: the baseline of BenchmarkBuildWorkspace8AppsUsage.
func BenchmarkBuildWorkspace8Apps(b *testing.B) {
	st := connectedStore{loadFull(b), benchApps}
	benchBuildWith(b, hint.New(hint.Config{}), st, hint.Request{WorkspaceID: "ws"})
}

// BenchmarkBuildWorkspace8AppsUsage is the same with usage priors learnt from 2,000 calls
// of 60 actions.
// Target: p50 within 10% of BenchmarkBuildWorkspace8Apps.
func BenchmarkBuildWorkspace8AppsUsage(b *testing.B) {
	full := loadFull(b)
	rec := benchUsage(b, full, 2000)
	st := connectedStore{full, benchApps}
	benchBuildWith(b, hint.New(hint.Config{Usage: &hint.UsageConfig{Reader: rec}}), st, hint.Request{WorkspaceID: "ws"})
}
