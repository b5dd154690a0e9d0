package hint_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

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
	metas, err := st.ActionMeta(ctx, agent8Apps)
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
	st := connectedStore{loadFull(b), agent8Apps}
	benchBuildWith(b, hint.New(hint.Config{}), st, hint.Request{WorkspaceID: "ws"})
}

// BenchmarkBuildWorkspace8AppsUsage is the same with usage priors learnt from 2,000 calls
// of 60 actions.
// Target: p50 within 10% of BenchmarkBuildWorkspace8Apps.
func BenchmarkBuildWorkspace8AppsUsage(b *testing.B) {
	full := loadFull(b)
	rec := benchUsage(b, full, 2000)
	st := connectedStore{full, agent8Apps}
	benchBuildWith(b, hint.New(hint.Config{Usage: &hint.UsageConfig{Reader: rec}}), st, hint.Request{WorkspaceID: "ws"})
}

// BenchmarkBuildWorkspace8AppsUsagePaired builds each request without and with usage
// priors (2,000 calls of 60 actions), one after the other and reports the p50 of each and their ratio
// (p50-ratio): the two are timed side by side, so that a shared machine's load weighs on
// both alike. Target: p50-ratio at most 1.10.
func BenchmarkBuildWorkspace8AppsUsagePaired(b *testing.B) {
	full := loadFull(b)
	rec := benchUsage(b, full, 2000)
	st := connectedStore{full, agent8Apps}
	ctx := context.Background()
	plain, usage := hint.New(hint.Config{}), hint.New(hint.Config{Usage: &hint.UsageConfig{Reader: rec}})
	req := hint.Request{WorkspaceID: "ws"}
	var durs [2][]time.Duration
	build := func(k int, bl *hint.Builder) {
		start := time.Now()
		_, err := bl.Build(ctx, st, req)
		durs[k] = append(durs[k], time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req.Prompt = benchPrompts[i%len(benchPrompts)]
		if i%2 == 0 { // each goes first half the time: the second finds the caches warm
			build(0, plain)
			build(1, usage)
		} else {
			build(1, usage)
			build(0, plain)
		}
	}
	b.StopTimer()
	var p50 [2]float64
	for k := range durs {
		slices.Sort(durs[k])
		p50[k] = float64(durs[k][(len(durs[k])-1)/2].Nanoseconds())
	}
	b.ReportMetric(p50[0], "p50-plain-ns")
	b.ReportMetric(p50[1], "p50-usage-ns")
	b.ReportMetric(p50[1]/p50[0], "p50-ratio")
}
