package cache_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
)

func TestMemoryConformance(t *testing.T) {
	cachetest.Run(t, func(t *testing.T) cache.Store { return cache.NewMemory() })
}

// tagClassifier is a hand-written classifier that records which one classified an action.
type tagClassifier string

func (c tagClassifier) Classify(a cache.Action) cache.ActionMeta {
	return cache.ActionMeta{Action: a.Slug, App: a.App, Capabilities: []string{string(c)}, Confidence: 1}
}

func TestMemorySetClassifier(t *testing.T) {
	ctx := context.Background()
	m := cache.NewMemory()
	m.SetClassifier(tagClassifier("first"))
	write := func(slug, desc string) {
		t.Helper()
		_, err := m.Apply(ctx, cache.Batch{
			Apps:    []cache.App{{Slug: "app", DisplayName: "App"}},
			Actions: []cache.Action{{App: "app", Slug: slug, Description: desc}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	caps := func() map[string]string {
		t.Helper()
		meta, err := m.ActionMeta(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, x := range meta {
			out[x.Action] = fmt.Sprint(x.Capabilities)
		}
		return out
	}
	write("APP_A", "")
	m.SetClassifier(tagClassifier("second"))
	write("APP_B", "")
	write("APP_A", "") // unchanged: keeps its metadata
	if diff := cmp.Diff(map[string]string{"APP_A": "[first]", "APP_B": "[second]"}, caps()); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	write("APP_A", "changed") // rewritten: classified by the current classifier
	if diff := cmp.Diff(map[string]string{"APP_A": "[second]", "APP_B": "[second]"}, caps()); diff != "" {
		t.Errorf("metadata after a rewrite (-want +got):\n%s", diff)
	}
	n, err := m.Reclassify(ctx, tagClassifier("third"))
	if err != nil || n != 2 {
		t.Fatalf("Reclassify = %d, %v; want 2", n, err)
	}
	if diff := cmp.Diff(map[string]string{"APP_A": "[third]", "APP_B": "[third]"}, caps()); diff != "" {
		t.Errorf("metadata after Reclassify (-want +got):\n%s", diff)
	}
	// Reclassify(nil) uses the store's classifier; SetClassifier(nil) restores the default.
	if _, err := m.Reclassify(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"APP_A": "[second]", "APP_B": "[second]"}, caps()); diff != "" {
		t.Errorf("metadata after Reclassify(nil) (-want +got):\n%s", diff)
	}
	m.SetClassifier(nil)
	if _, err := m.Reclassify(ctx, nil); err != nil {
		t.Fatal(err)
	}
	meta, _ := m.ActionMeta(ctx, nil)
	a, _ := m.Action(ctx, "APP_A")
	want := cache.NewClassifier(nil).Classify(a)
	want.Action, want.App = "APP_A", "app"
	if diff := cmp.Diff(want, meta[0]); diff != "" {
		t.Errorf("metadata with the default classifier (-want +got):\n%s", diff)
	}
}

// TestMemoryActionMetaAllocs checks the promise hint.Build relies on: ActionMeta for a few
// apps costs one allocation.
func TestMemoryActionMetaAllocs(t *testing.T) {
	st := loadTestdata(t)
	ctx := context.Background()
	apps := []string{"gmail", "slack", "github", "jira", "notion", "googlecalendar", "linear", "hackernews"}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := st.ActionMeta(ctx, apps); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("ActionMeta for 8 apps: %.0f allocations, want 1", allocs)
	}
}

// TestMemoryReadersDuringWrites runs readers against a store being rewritten, for the race
// detector, and checks every read sees a whole catalogue.
func TestMemoryReadersDuringWrites(t *testing.T) {
	st := loadTestdata(t)
	ctx := context.Background()
	total, err := st.ActionMeta(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 50; i++ {
			a, _ := st.Action(ctx, "GMAIL_SEND_EMAIL")
			a.Description = fmt.Sprintf("rewrite %d", i)
			if _, err := st.Apply(ctx, cache.Batch{Actions: []cache.Action{a}}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for {
		select {
		case <-done:
			return
		default:
		}
		meta, err := st.ActionMeta(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(meta) != len(total) {
			t.Fatalf("a reader saw %d actions, want %d", len(meta), len(total))
		}
		p, err := st.AppActions(ctx, cache.AppActionsQuery{App: "gmail", WorkspaceID: "ws"})
		if err != nil || p.Total != 11 {
			t.Fatalf("AppActions = %d, %v", p.Total, err)
		}
	}
}

// reportCPU reports the process CPU time per operation since start as cpu-ms/op. With
// several cores busy it can exceed wall time; on a loaded machine it is the steadier figure.
func reportCPU(b *testing.B, start time.Duration) {
	if cpu := processCPU() - start; cpu > 0 && b.N > 0 {
		b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}

// benchStore returns a memory store holding the shared catalogue when -catalog is given,
// else the project's test catalogue, and says which.
func benchStore(b *testing.B) *cache.Memory {
	b.Helper()
	if *catalogFlag == "" {
		b.Log("no -catalog: using the test catalogue (the targets are for the shared one)")
		return loadTestdata(b)
	}
	st := cache.NewMemory()
	importFiles(b, st, *appsFlag, *catalogFlag)
	return st
}

func sharedCatalog(b *testing.B) []byte {
	b.Helper()
	if *catalogFlag == "" {
		b.Skip("shared catalogue not given: set -catalog or TOOLHINT_CATALOG")
	}
	data, err := os.ReadFile(*catalogFlag)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkMemoryImportJSONL imports the shared catalogue into an empty store.
// Target: under 1.5 s.
func BenchmarkMemoryImportJSONL(b *testing.B) {
	data := sharedCatalog(b)
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	start := processCPU()
	for b.Loop() {
		if _, err := cache.ImportJSONL(ctx, cache.NewMemory(), bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkMemoryReimportJSONL imports the shared catalogue into a store that holds it
// already: every row is unchanged.
func BenchmarkMemoryReimportJSONL(b *testing.B) {
	data := sharedCatalog(b)
	ctx := context.Background()
	st := cache.NewMemory()
	if _, err := cache.ImportJSONL(ctx, st, bytes.NewReader(data)); err != nil {
		b.Fatal(err)
	}
	start := processCPU()
	for b.Loop() {
		if _, err := cache.ImportJSONL(ctx, st, bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkMemoryHeap reports the live heap of a store holding the shared catalogue, after
// a garbage collection, as heap-MB. Target: under 150 MB.
func BenchmarkMemoryHeap(b *testing.B) {
	data := sharedCatalog(b)
	ctx := context.Background()
	var heap float64
	for b.Loop() {
		b.StopTimer()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		st := cache.NewMemory()
		if _, err := cache.ImportJSONL(ctx, st, bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = float64(after.HeapAlloc-min(before.HeapAlloc, after.HeapAlloc)) / (1 << 20)
		runtime.KeepAlive(st)
		b.StartTimer()
	}
	b.ReportMetric(heap, "heap-MB")
}

// biggestApp returns the app with the most actions.
func biggestApp(b *testing.B, st cache.Store) cache.App {
	b.Helper()
	p, err := st.ListApps(context.Background(), cache.AppQuery{Limit: 1000})
	if err != nil {
		b.Fatal(err)
	}
	apps := p.Apps
	for off := len(apps); off < p.Total; off = len(apps) {
		q, err := st.ListApps(context.Background(), cache.AppQuery{Limit: 1000, Offset: off})
		if err != nil {
			b.Fatal(err)
		}
		apps = append(apps, q.Apps...)
	}
	return slices.MaxFunc(apps, func(x, y cache.App) int { return x.ActionCount - y.ActionCount })
}

// BenchmarkMemoryAppActions lists every action (up to 1000) of the biggest app with its
// enabled state in a workspace that enabled half of them. Target: under 1 ms.
func BenchmarkMemoryAppActions(b *testing.B) {
	st := benchStore(b)
	ctx := context.Background()
	app := biggestApp(b, st)
	acts, err := st.Actions(ctx, cache.ActionFilter{Apps: []string{app.Slug}})
	if err != nil {
		b.Fatal(err)
	}
	var enabled []string
	for i, a := range acts {
		if i%2 == 0 {
			enabled = append(enabled, a.Slug)
		}
	}
	if err := st.SaveEnabledActions(ctx, "ws", app.Slug, enabled); err != nil {
		b.Fatal(err)
	}
	b.Logf("app %s: %d actions", app.Slug, app.ActionCount)
	for _, bc := range []struct {
		name string
		q    cache.AppActionsQuery
	}{
		{"all", cache.AppActionsQuery{App: app.Slug, WorkspaceID: "ws", Limit: 1000}},
		{"page", cache.AppActionsQuery{App: app.Slug, WorkspaceID: "ws"}},
		{"search", cache.AppActionsQuery{App: app.Slug, WorkspaceID: "ws", Search: "list", Limit: 1000}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			start := processCPU()
			for b.Loop() {
				if _, err := st.AppActions(ctx, bc.q); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkMemoryActionMeta reads the metadata of eight everyday apps, as hint.Build does on
// every model turn. Target: a few µs and one allocation.
func BenchmarkMemoryActionMeta(b *testing.B) {
	st := benchStore(b)
	ctx := context.Background()
	apps := []string{"gmail", "slack", "github", "jira", "notion", "googlecalendar", "googledrive", "linear"}
	meta, err := st.ActionMeta(ctx, apps)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d actions in %d apps", len(meta), len(apps))
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		if _, err := st.ActionMeta(ctx, apps); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkMemoryExportJSONL exports the shared catalogue.
func BenchmarkMemoryExportJSONL(b *testing.B) {
	data := sharedCatalog(b)
	ctx := context.Background()
	st := cache.NewMemory()
	if _, err := cache.ImportJSONL(ctx, st, bytes.NewReader(data)); err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	start := processCPU()
	for b.Loop() {
		buf.Reset()
		if _, err := cache.ExportJSONL(ctx, st, &buf); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// panicClassifier panics on one action, as a faulty host classifier might.
type panicClassifier struct{ on string }

func (c panicClassifier) Classify(a cache.Action) cache.ActionMeta {
	if a.Slug == c.on {
		panic("classifier bug")
	}
	return cache.ActionMeta{Action: a.Slug, App: a.App}
}

func TestMemoryClassifierPanic(t *testing.T) {
	ctx := context.Background()
	m := loadTestdata(t)
	before, err := m.ActionMeta(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.SetClassifier(panicClassifier{on: "APP_0700"})
	var b cache.Batch
	b.Apps = []cache.App{{Slug: "app", DisplayName: "App"}}
	for i := 0; i < 1000; i++ {
		b.Actions = append(b.Actions, cache.Action{App: "app", Slug: fmt.Sprintf("APP_%04d", i)})
	}
	if _, err := m.Apply(ctx, b); err == nil || !strings.Contains(err.Error(), `"APP_0700"`) {
		t.Errorf("Apply with a panicking classifier: error %v, want one naming APP_0700", err)
	}
	if _, err := m.Reclassify(ctx, panicClassifier{on: "GMAIL_SEND_EMAIL"}); err == nil {
		t.Error("Reclassify with a panicking classifier: no error")
	}
	after, err := m.ActionMeta(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("failed writes changed the store (-before +after):\n%s", diff)
	}
	if _, err := m.App(ctx, "app"); !errors.Is(err, cache.ErrNotFound) {
		t.Errorf("App(app) after a failed Apply: %v, want ErrNotFound", err)
	}
}
