package composio_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"runtime"
	"testing"

	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
)

var (
	catalogPath = flag.String("catalog", os.Getenv("TOOLHINT_CATALOG"), "path of the shared JSONL action catalogue (default $TOOLHINT_CATALOG)")
	appsPath    = flag.String("apps", os.Getenv("TOOLHINT_APPS"), "path of the shared JSONL apps file (default $TOOLHINT_APPS)")
)

// sharedServer serves the shared catalogue, skipping when no path is given.
func sharedServer(tb testing.TB) (*composiotest.Server, composiotest.Catalog) {
	tb.Helper()
	if *catalogPath == "" {
		tb.Skip("shared catalogue not given: set -catalog or TOOLHINT_CATALOG")
	}
	cat, err := composiotest.LoadCatalog(*catalogPath)
	if err != nil {
		tb.Fatal(err)
	}
	opts := []composiotest.Option{composiotest.WithCatalog(cat)}
	if *appsPath != "" {
		f, err := os.Open(*appsPath)
		if err != nil {
			tb.Fatal(err)
		}
		tks, err := composiotest.ReadToolkits(f)
		f.Close()
		if err != nil {
			tb.Fatal(err)
		}
		opts = append(opts, composiotest.WithToolkits(tks...))
	}
	return composiotest.NewServer(tb, opts...), cat
}

// TestSharedCatalogEndToEnd runs every endpoint family against the fake serving the
// full shared catalogue.
func TestSharedCatalogEndToEnd(t *testing.T) {
	srv, cat := sharedServer(t)
	ctx := context.Background()
	wantPages := (len(cat.Tools) + composio.DefaultPageSize - 1) / composio.DefaultPageSize

	for _, prefix := range []string{composio.PrefixV3, composio.PrefixV31} {
		t.Run("list every tool "+prefix, func(t *testing.T) {
			cfg := srv.Config()
			cfg.PathPrefix = prefix
			c, err := composio.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			srv.ResetRequests()
			tools, err := c.ListTools(ctx, composio.ToolFilter{IncludeDeprecated: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(tools) != len(cat.Tools) {
				t.Errorf("listed %d tools, catalogue has %d", len(tools), len(cat.Tools))
			}
			seen := map[string]bool{}
			for _, tool := range tools {
				if seen[tool.Slug] {
					t.Fatalf("tool %s listed twice", tool.Slug)
				}
				seen[tool.Slug] = true
				if len(tool.InputParameters) == 0 {
					t.Fatalf("tool %s has no input parameters", tool.Slug)
				}
			}
			if got := len(srv.RequestsTo("GET", "/tools")); got != wantPages {
				t.Errorf("%d requests, want one per page (%d)", got, wantPages)
			}
		})
	}

	c := srv.Client()
	t.Run("fail page 7 once", func(t *testing.T) {
		srv.ResetRequests()
		srv.FailPage("/tools", 7, 1, composiotest.ServerError(503))
		defer srv.ClearFaults()
		n := 0
		for _, err := range c.Tools(ctx, composio.ToolFilter{IncludeDeprecated: true}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != len(cat.Tools) {
			t.Errorf("listed %d tools, want %d", n, len(cat.Tools))
		}
		if got := len(srv.RequestsTo("GET", "/tools")); got != wantPages+1 {
			t.Errorf("%d requests, want %d (one retry)", got, wantPages+1)
		}
	})

	t.Run("toolkits and the toolkit of every slug", func(t *testing.T) {
		toolkits, err := c.ListToolkits(ctx, composio.ToolkitFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(toolkits) < len(cat.Toolkits) {
			t.Errorf("listed %d toolkits, catalogue has %d", len(toolkits), len(cat.Toolkits))
		}
		var withTools []string
		for _, tk := range cat.Toolkits {
			withTools = append(withTools, tk.Slug)
		}
		ix := composio.NewToolkitIndex(withTools)
		wrong := 0
		for _, tool := range cat.Tools {
			if tk, ok := ix.Toolkit(tool.Slug); !ok || tk != tool.Toolkit.Slug {
				if wrong < 5 {
					t.Errorf("toolkit of %s = %q, catalogue says %q", tool.Slug, tk, tool.Toolkit.Slug)
				}
				wrong++
			}
		}
		if wrong > 0 {
			t.Errorf("%d of %d slugs resolved to the wrong toolkit", wrong, len(cat.Tools))
		}
	})

	t.Run("get, execute, search, auth", func(t *testing.T) {
		first := cat.Tools[0]
		got, err := c.Tool(ctx, first.Slug, "")
		if err != nil || got.Slug != first.Slug {
			t.Fatalf("Tool(%s) = %s, %v", first.Slug, got.Slug, err)
		}
		var noAuth composio.Tool
		for _, tool := range cat.Tools {
			if tool.NoAuth {
				noAuth = tool
				break
			}
		}
		if noAuth.Slug == "" {
			t.Skip("catalogue has no NO_AUTH tool")
		}
		srv.HandleExecute(noAuth.Slug, func(context.Context, composiotest.ExecuteCall) (any, error) { return map[string]int{"ok": 1}, nil })
		res, err := c.Execute(ctx, noAuth.Slug, composio.ExecuteRequest{UserID: "default"})
		if err != nil || !res.Successful {
			t.Errorf("Execute(%s) = %+v, %v", noAuth.Slug, res, err)
		}
		if _, err := c.FindOrCreateAuthConfig(ctx, noAuth.Toolkit.Slug); !errors.Is(err, composio.ErrNoAuthRequired) {
			t.Errorf("FindOrCreateAuthConfig(%s) error = %v, want ErrNoAuthRequired", noAuth.Toolkit.Slug, err)
		}
		slugs, err := c.SearchActions(ctx, first.Name, []string{first.Toolkit.Slug}, 5)
		if err != nil || len(slugs) == 0 {
			t.Errorf("SearchActions(%q) = %v, %v", first.Name, slugs, err)
		}
		enum, err := c.ToolSlugs(ctx)
		if err != nil || len(enum) == 0 {
			t.Errorf("ToolSlugs = %d, %v", len(enum), err)
		}
	})
}

// TestSharedCatalogMemoryBounded checks that iterating over the full catalogue holds one
// page at a time: the live heap measured mid-page stays far below the catalogue's size.
func TestSharedCatalogMemoryBounded(t *testing.T) {
	srv, cat := sharedServer(t)
	st, err := os.Stat(*catalogPath)
	if err != nil {
		t.Fatal(err)
	}
	c := srv.Client()
	var base runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&base)
	var peak uint64
	n := 0
	for _, err := range c.Tools(context.Background(), composio.ToolFilter{IncludeDeprecated: true}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n%composio.DefaultPageSize == composio.DefaultPageSize/2 { // mid-page: one page decoded and held
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base.HeapAlloc && ms.HeapAlloc-base.HeapAlloc > peak {
				peak = ms.HeapAlloc - base.HeapAlloc
			}
		}
	}
	if n != len(cat.Tools) {
		t.Fatalf("listed %d tools, want %d", n, len(cat.Tools))
	}
	t.Logf("live heap mid-page: %.2f MiB (catalogue file %.2f MiB, %d pages)", float64(peak)/(1<<20), float64(st.Size())/(1<<20), (n+999)/1000)
	if limit := uint64(st.Size()) / 4; peak > limit {
		t.Errorf("live heap while iterating = %d bytes, want < %d (a quarter of the catalogue): pages are being retained", peak, limit)
	}
}

// BenchmarkListSharedCatalog lists the full shared catalogue from composiotest, page by
// page (pages of 1,000). Target: < 2 s per listing and one request per page;
// TestSharedCatalogMemoryBounded checks that memory is bounded by a page.
func BenchmarkListSharedCatalog(b *testing.B) {
	srv, cat := sharedServer(b)
	c := srv.Client()
	ctx := context.Background()
	srv.ResetRequests()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, err := range c.Tools(ctx, composio.ToolFilter{IncludeDeprecated: true}) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != len(cat.Tools) {
			b.Fatalf("listed %d tools, want %d", n, len(cat.Tools))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(srv.RequestsTo("GET", "/tools")))/float64(b.N), "requests/op")
}
