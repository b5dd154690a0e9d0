package hint

import (
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/toolhint/toolhint/cache"
)

// BenchmarkIndexFullCatalog builds the term index of every app of the catalogue named by
// TOOLHINT_CATALOG, as Builds over all apps do the second time they see the metadata, and
// reports the heap the index holds. Targets: under 1 s and 30 MB for 16k actions.
func BenchmarkIndexFullCatalog(b *testing.B) {
	path := os.Getenv("TOOLHINT_CATALOG")
	if path == "" {
		b.Skip("set TOOLHINT_CATALOG to the shared catalogue to run this benchmark")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	st := cache.NewMemory()
	if _, err := cache.ImportJSONL(ctx, st, f); err != nil {
		b.Fatal(err)
	}
	metas, err := st.ActionMeta(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	bl := New(Config{})
	var runs [][]cache.ActionMeta
	for start := 0; start < len(metas); {
		end := start + 1
		for end < len(metas) && metas[end].App == metas[start].App {
			end++
		}
		runs = append(runs, metas[start:end])
		start = end
	}
	var heap float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		x := newTermIndex()
		b.StartTimer()
		for _, run := range runs {
			// Seen once, remembered; the second time, indexed (an app whose first or last
			// action has no slug words is never indexed, and is matched term by term).
			x.forRun(run, bl)
			x.forRun(run, bl)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = float64(after.HeapAlloc) - float64(before.HeapAlloc)
		runtime.KeepAlive(x)
		b.StartTimer()
	}
	b.ReportMetric(heap/(1<<20), "index-MB")
	b.ReportMetric(float64(len(metas)), "actions")
	x := newTermIndex()
	for _, run := range runs {
		x.forRun(run, bl)
		x.forRun(run, bl)
	}
	if len(x.apps) < len(runs)*9/10 {
		b.Errorf("only %d of %d apps indexed", len(x.apps), len(runs))
	}
	b.ReportMetric(float64(len(x.apps)), "apps-indexed")
}
