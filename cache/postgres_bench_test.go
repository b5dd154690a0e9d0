package cache_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
)

// pgBenchApps are eight everyday apps of the shared catalogue: the size of request
// hint.Build makes when an agent has a handful of apps (426 actions in the snapshot).
var pgBenchApps = []string{"gmail", "slack", "notion", "googlecalendar", "googledrive", "jira", "linear", "outlook"}

// pgLoadCatalogue returns a PostgreSQL store holding the shared catalogue.
func pgLoadCatalogue(b *testing.B) *cache.Postgres {
	b.Helper()
	pgTestDSN(b) // skip or fail before reading the catalogue
	data, err := os.ReadFile(catalogPath(b))
	if err != nil {
		b.Fatal(err)
	}
	st := cachetest.OpenPostgres(b)
	if _, err := cache.ImportJSONL(context.Background(), st, bytes.NewReader(data)); err != nil {
		b.Fatal(err)
	}
	return st
}

// BenchmarkPostgresImportJSONL imports the shared catalogue into an empty PostgreSQL store
// (target: under 8 s).
func BenchmarkPostgresImportJSONL(b *testing.B) {
	pgTestDSN(b) // skip or fail before reading the catalogue
	data, err := os.ReadFile(catalogPath(b))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for range b.N {
		b.StopTimer()
		st := cachetest.OpenPostgres(b)
		b.StartTimer()
		n, err := cache.ImportJSONL(ctx, st, bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(n), "actions")
	}
}

// BenchmarkPostgresReimportJSONL imports the shared catalogue into a store that already
// holds it: every row is unchanged and skipped by its content hash.
func BenchmarkPostgresReimportJSONL(b *testing.B) {
	st := pgLoadCatalogue(b)
	data, err := os.ReadFile(catalogPath(b))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := cache.ImportJSONL(ctx, st, bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPostgresAppActions reads one app's actions with their enabled state in a
// workspace that has saved a selection (target: under 5 ms).
func BenchmarkPostgresAppActions(b *testing.B) {
	st := pgLoadCatalogue(b)
	ctx := context.Background()
	for _, bc := range []struct {
		name  string
		app   string
		limit int
	}{
		{"gmail", "gmail", 0},          // 23 actions, the default page
		{"github-page", "github", 0},   // the first 50 of 936
		{"github-all", "github", 1000}, // all 936
		{"slack-search", "slack", 0},   // a text search over 186 actions
	} {
		page, err := st.AppActions(ctx, cache.AppActionsQuery{App: bc.app, Limit: 2})
		if err != nil {
			b.Fatal(err)
		}
		enabled := []string{page.Actions[0].Action.Slug, page.Actions[1].Action.Slug}
		if err := st.SaveEnabledActions(ctx, "ws-bench", bc.app, enabled); err != nil {
			b.Fatal(err)
		}
		q := cache.AppActionsQuery{App: bc.app, WorkspaceID: "ws-bench", Limit: bc.limit}
		if bc.name == "slack-search" {
			q.Search = "message"
		}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				page, err := st.AppActions(ctx, q)
				if err != nil || len(page.Actions) == 0 {
					b.Fatalf("AppActions = %d actions, %v", len(page.Actions), err)
				}
			}
		})
	}
}

// BenchmarkPostgresActionMeta reads the metadata of eight apps' actions, as hint.Build does
// every model turn (target: under 5 ms).
func BenchmarkPostgresActionMeta(b *testing.B) {
	st := pgLoadCatalogue(b)
	ctx := context.Background()
	for b.Loop() {
		ms, err := st.ActionMeta(ctx, pgBenchApps)
		if err != nil || len(ms) == 0 {
			b.Fatalf("ActionMeta = %d rows, %v", len(ms), err)
		}
	}
}

// BenchmarkPostgresActionMetaAfterWrite is BenchmarkPostgresActionMeta when every call
// follows a catalogue write (one action's description changes, outside the timer), so the
// store's metadata cache is stale and the eight apps are read and decoded again.
func BenchmarkPostgresActionMetaAfterWrite(b *testing.B) {
	st := pgLoadCatalogue(b)
	ctx := context.Background()
	ms, err := st.ActionMeta(ctx, pgBenchApps[:1])
	if err != nil || len(ms) == 0 {
		b.Fatalf("ActionMeta = %d rows, %v", len(ms), err)
	}
	a, err := st.Action(ctx, ms[0].Action)
	if err != nil {
		b.Fatal(err)
	}
	desc := a.Description
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		a.Description = fmt.Sprintf("%s (revision %d)", desc, i)
		if _, err := st.Apply(ctx, cache.Batch{Actions: []cache.Action{a}}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		ms, err := st.ActionMeta(ctx, pgBenchApps)
		if err != nil || len(ms) == 0 {
			b.Fatalf("ActionMeta = %d rows, %v", len(ms), err)
		}
	}
}
