package hint_test

import (
	"context"
	"flag"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

var catalogPath = flag.String("catalog", os.Getenv("TOOLHINT_CATALOG"), "catalogue JSONL for benchmarks (default $TOOLHINT_CATALOG)")

var fullCatalog = sync.OnceValues(func() (*cache.Memory, error) {
	st := cache.NewMemory()
	return st, pgImportFile(context.Background(), st, *catalogPath, cache.ImportJSONL)
})

func loadFull(b *testing.B) *cache.Memory {
	b.Helper()
	if *catalogPath == "" {
		b.Skip("set -catalog or TOOLHINT_CATALOG to the shared catalogue to run this benchmark")
	}
	st, err := fullCatalog()
	if err != nil {
		b.Fatalf("loading %s: %v", *catalogPath, err)
	}
	return st
}

// benchPrompts are everyday requests written for the benchmark (not from any eval set).
var benchPrompts = []string{
	"send a message to #eng that the deploy finished",
	"find the latest email from the accountant about taxes",
	"create a jira ticket for the flaky login test",
	"what's on my calendar on friday?",
	"add a row to the hiring spreadsheet with today's candidates",
	"look up the open pull requests in acme/api and comment on the oldest one",
	"share the Q3 deck in drive with the board",
	"update the deal stage for Globex to closed won",
}

func benchBuild(b *testing.B, st hint.Store, apps []string) {
	benchBuildWith(b, hint.New(hint.Config{}), st, hint.Request{AgentID: 1, Apps: apps})
}

// benchBuildWith builds req with each of benchPrompts in turn and reports the p50 and p99.
func benchBuildWith(b *testing.B, bl *hint.Builder, st hint.Store, req hint.Request) {
	benchBuildPrompts(b, bl, st, req, benchPrompts)
}

// benchBuildPrompts builds req with each of prompts in turn and reports the p50 and p99.
func benchBuildPrompts(b *testing.B, bl *hint.Builder, st hint.Store, req hint.Request, prompts []string) {
	ctx := context.Background()
	durs := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		req.Prompt = prompts[i%len(prompts)]
		_, err := bl.Build(ctx, st, req)
		durs = append(durs, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	slices.Sort(durs)
	b.ReportMetric(float64(durs[(len(durs)-1)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(durs[(len(durs)*99)/100].Nanoseconds()), "p99-ns")
}

// agent8Apps are the eight common apps of the 8-app benchmarks.
var agent8Apps = []string{"gmail", "slack", "github", "jira", "notion", "googlecalendar", "googledrive", "hubspot"}

// BenchmarkBuildAgent8Apps is an agent with eight common apps over the full catalogue in
// memory. Target: p50 under 100µs, p99 under 1ms.
func BenchmarkBuildAgent8Apps(b *testing.B) {
	st := loadFull(b)
	benchBuild(b, st, agent8Apps)
}

// BenchmarkBuildAllApps ranks over every app of the catalogue. Target: p50 under 3ms.
func BenchmarkBuildAllApps(b *testing.B) {
	st := loadFull(b)
	metas, err := st.ActionMeta(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	var apps []string
	for _, m := range metas {
		if len(apps) == 0 || apps[len(apps)-1] != m.App {
			apps = append(apps, m.App)
		}
	}
	benchBuild(b, st, apps)
}

// BenchmarkBuildTestdata runs on the project's small testdata catalogue (no flags needed).
func BenchmarkBuildTestdata(b *testing.B) {
	st, err := loadTestdata(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	benchBuild(b, st, []string{"gmail", "slack", "github", "jira", "notion", "googlecalendar"})
}
