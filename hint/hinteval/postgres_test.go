package hinteval_test

import (
	"bufio"
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
	"github.com/toolhint/toolhint/hint/hinteval"
)

// TestRunStoresAgree runs the labelled cases against the shared catalogue in a memory store
// and in a PostgreSQL store and requires the same outcome for every case (hint and BM25
// baseline alike), latencies aside.
func TestRunStoresAgree(t *testing.T) {
	pg := cachetest.OpenPostgres(t)
	catalog, eval := *catalogPath, *evalPath
	if catalog == "" || eval == "" {
		t.Skip("set -catalog/-eval or TOOLHINT_CATALOG/TOOLHINT_EVAL to compare the stores on the labelled cases")
	}
	if testing.Short() {
		t.Skip("imports the full catalogue into PostgreSQL; skipped with -short")
	}
	ctx := context.Background()
	f, err := os.Open(catalog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := cache.ImportJSONL(ctx, pg, bufio.NewReaderSize(f, 1<<20)); err != nil {
		t.Fatalf("postgres: importing %s: %v", catalog, err)
	}
	mem, err := importCatalog(ctx, catalog)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := hinteval.ReadCasesFile(eval)
	if err != nil {
		t.Fatal(err)
	}
	want, err := hinteval.Run(ctx, mem, cases, hinteval.Options{})
	if err != nil {
		t.Fatalf("memory: %v", err)
	}
	got, err := hinteval.Run(ctx, pg, cases, hinteval.Options{})
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	if len(want.Outcomes) != len(cases) || len(got.Outcomes) != len(cases) {
		t.Fatalf("outcomes: memory %d, postgres %d, want %d", len(want.Outcomes), len(got.Outcomes), len(cases))
	}
	noLatency := cmp.Options{
		cmpopts.IgnoreFields(hinteval.Outcome{}, "Latency"),
		cmpopts.IgnoreFields(hinteval.Metrics{}, "LatencyP50", "LatencyP99"),
	}
	for i := range cases {
		if diff := cmp.Diff(want.Outcomes[i], got.Outcomes[i], noLatency); diff != "" {
			t.Errorf("case %s: outcomes differ (-memory +postgres):\n%s", cases[i].ID, diff)
		}
	}
	want.Outcomes, got.Outcomes = nil, nil
	if diff := cmp.Diff(want, got, noLatency); diff != "" {
		t.Errorf("metrics differ (-memory +postgres):\n%s", diff)
	}
	t.Logf("%d cases agree; latency p50 memory %v, postgres %v", len(cases), want.Overall.LatencyP50, got.Overall.LatencyP50)
}
