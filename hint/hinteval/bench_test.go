package hinteval

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

var benchStore = sync.OnceValues(func() (*cache.Memory, error) {
	return importFile(context.Background(), os.Getenv("TOOLHINT_CATALOG"))
})

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

var benchApps = []string{"gmail", "slack", "github", "jira", "notion", "googlecalendar", "googledrive", "hubspot"}

func loadBench(b *testing.B) *cache.Memory {
	b.Helper()
	if os.Getenv("TOOLHINT_CATALOG") == "" {
		b.Skip("set TOOLHINT_CATALOG to the shared catalogue to run this benchmark")
	}
	st, err := benchStore()
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// BenchmarkSideBySide runs hint.Build and the BM25 baseline over the same prompts and the
// same eight apps in one run, so that their ratio says how Build's cost compares whatever
// the machine is doing.
func BenchmarkSideBySide(b *testing.B) {
	st := loadBench(b)
	ctx := context.Background()
	bm, err := newBM25(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	builder := hint.New(hint.Config{})
	run := func(b *testing.B, f func(i int)) {
		durs := make([]time.Duration, 0, b.N)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			f(i)
			durs = append(durs, time.Since(start))
		}
		b.StopTimer()
		slices.Sort(durs)
		b.ReportMetric(float64(durs[(len(durs)-1)/2].Nanoseconds()), "p50-ns")
	}
	b.Run("hint", func(b *testing.B) {
		run(b, func(i int) {
			if _, err := builder.Build(ctx, st, hint.Request{AgentID: 1, Apps: benchApps, Prompt: benchPrompts[i%len(benchPrompts)]}); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("bm25", func(b *testing.B) {
		run(b, func(i int) { bm.rank(benchPrompts[i%len(benchPrompts)], benchApps, 15) })
	})
}
