package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
	"github.com/toolhint/toolhint/cache/composiosource"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
)

var (
	catalogPath = flag.String("catalog", os.Getenv("TOOLHINT_CATALOG"), "JSONL action catalogue for the end-to-end test and benchmarks (default $TOOLHINT_CATALOG)")
	appsPath    = flag.String("apps", os.Getenv("TOOLHINT_APPS"), "JSONL apps file for the end-to-end test and benchmarks (default $TOOLHINT_APPS)")
)

// smallCatalogue is a few realistic rows in the JSONL catalogue format, written for these
// tests.
const smallCatalogue = `{"app":"GMAIL","action":"GMAIL_SEND_EMAIL","display_name":"Send email","description":"Sends an email to one or more recipients.","parameters":{"type":"object","properties":{"recipient_email":{"type":"string","description":"Who gets the email."},"subject":{"type":"string"},"body":{"type":"string"}},"required":["recipient_email","body"]},"tags":["openWorldHint"]}
{"app":"GMAIL","action":"GMAIL_FETCH_EMAILS","display_name":"Fetch emails","description":"Lists the newest emails in the mailbox.","parameters":{"type":"object","properties":{"max_results":{"type":"integer","default":10}}},"tags":["readOnlyHint"]}
{"app":"GMAIL","action":"GMAIL_DELETE_MESSAGE","display_name":"Delete message","description":"Permanently deletes one message.","parameters":{"type":"object","properties":{"message_id":{"type":"string"}},"required":["message_id"]},"tags":["destructiveHint"]}
{"app":"SLACK","action":"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL","display_name":"Send message","description":"Posts a message to a channel.","parameters":{"type":"object","properties":{"channel":{"type":"string"},"text":{"type":"string"}},"required":["channel","text"]}}
{"app":"SLACK","action":"SLACK_LIST_ALL_CHANNELS","display_name":"List channels","description":"Lists the workspace's channels.","parameters":{"type":"object","properties":{"limit":{"type":"integer","default":100}}}}
{"app":"GITHUB","action":"GITHUB_CREATE_AN_ISSUE","display_name":"Create an issue","description":"Opens an issue in a repository.","parameters":{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"title":{"type":"string"},"body":{"type":"string","default":""}},"required":["owner","repo","title"]}}
`

func writeSmallCatalogue(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "catalogue.jsonl")
	if err := os.WriteFile(path, []byte(smallCatalogue), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunAgainstTheFake(t *testing.T) {
	path := writeSmallCatalogue(t)
	var out, errOut bytes.Buffer
	noEnv := func(string) string { return "" }
	if err := run(context.Background(), []string{"-fake", path, "-bar=false"}, noEnv, &out, &errOut); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, errOut.String())
	}
	for _, want := range []string{
		"sync full (job 1, succeeded)",
		"apps:    3 listed, 3 written, 0 unchanged, 0 deleted",
		"actions: 6 listed, 6 written, 0 unchanged, 0 deleted",
		"catalogue: 3 apps (3 with actions), 6 actions",
		"job 1: full succeeded, 3 apps and 6 actions written, 0 actions deleted",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	for _, want := range []string{"apps: 3/3 apps, 1 pages", "actions: 6/6 actions, 2 pages", "write: done"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, errOut.String())
		}
	}

	// The bar redraws in place on a terminal.
	errOut.Reset()
	if err := run(context.Background(), []string{"-fake", path, "-bar"}, noEnv, &out, &errOut); err != nil {
		t.Fatalf("run -bar: %v", err)
	}
	if !strings.Contains(errOut.String(), "\ractions  [##############################] 100%  6/6 actions, 2 pages") {
		t.Errorf("bar output:\n%q", errOut.String())
	}
}

func TestRunNeedsAKeyOrTheFake(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no key", nil, "COMPOSIO_API_KEY"},
		{"bad flag", []string{"-nope"}, "flag provided but not defined"},
		{"stray argument", []string{"extra"}, "unexpected arguments"},
		{"missing catalogue", []string{"-fake", filepath.Join(t.TempDir(), "none.jsonl")}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, func(string) string { return "" }, &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run error = %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// fakeServer serves the shared catalogue (and its toolkits when -apps is given), or skips.
func fakeServer(tb testing.TB) (*composiotest.Server, composiotest.Catalog) {
	tb.Helper()
	if *catalogPath == "" {
		tb.Skip("set -catalog or TOOLHINT_CATALOG to the shared catalogue to run this")
	}
	cat, err := composiotest.LoadCatalog(*catalogPath)
	if err != nil {
		tb.Fatal(err)
	}
	opts := []composiotest.Option{composiotest.WithCatalog(cat), composiotest.WithDefaultPageSize(1000)}
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

// e2eStores are the stores of the end-to-end test: PostgreSQL, in a schema of its own,
// when TOOLHINT_TEST_POSTGRES_DSN is set; memory otherwise. (The sync tests of package
// cache run every case on both stores; this test is about the whole chain.)
func e2eStores(t *testing.T) map[string]func(t *testing.T) cache.Store {
	if os.Getenv(cachetest.PostgresDSNEnv) != "" {
		return map[string]func(*testing.T) cache.Store{"postgres": func(t *testing.T) cache.Store { return cachetest.OpenPostgres(t) }}
	}
	return map[string]func(*testing.T) cache.Store{"memory": func(*testing.T) cache.Store { return cache.NewMemory() }}
}

// TestEndToEnd syncs the shared catalogue from composiotest through the composio client
// into PostgreSQL (memory without a DSN): full sync, unchanged re-sync, incremental, a page
// failing over HTTP, and a cancellation mid-listing.
func TestEndToEnd(t *testing.T) {
	srv, cat := fakeServer(t)
	wantParams := make(map[string]string, len(cat.Tools))
	for _, tl := range cat.Tools {
		wantParams[tl.Slug] = string(tl.InputParameters)
	}
	for name, newStore := range e2eStores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := newStore(t)
			src := composiosource.New(srv.Client())
			opts := cache.SyncOptions{RetryDelay: time.Millisecond}

			rep, err := cache.Sync(ctx, st, src, opts)
			if err != nil {
				t.Fatalf("full sync: %v", err)
			}
			if rep.Applied.ActionsWritten != len(cat.Tools) || rep.ActionsListed != len(cat.Tools) || rep.Pages < 17 {
				t.Errorf("full sync: %d pages, applied %+v; want all %d actions written", rep.Pages, rep.Applied, len(cat.Tools))
			}
			stored, err := st.Actions(ctx, cache.ActionFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(stored) != len(cat.Tools) {
				t.Errorf("store holds %d actions, want %d", len(stored), len(cat.Tools))
			}
			updated := map[string]time.Time{}
			bad := 0
			for _, a := range stored {
				updated[a.Slug] = a.UpdatedAt
				// The fake re-encodes schemas (compacted, HTML-escaped), so compare values.
				if want, ok := wantParams[a.Slug]; !ok || !sameJSON(want, a.Parameters) {
					if bad++; bad <= 3 {
						t.Errorf("%s: parameters differ from the catalogue's:\nwant %s\ngot  %s", a.Slug, want, a.Parameters)
					}
				}
			}

			// Unchanged: nothing written, nothing touched.
			rep, err = cache.Sync(ctx, st, src, opts)
			if err != nil {
				t.Fatalf("re-sync: %v", err)
			}
			if a := rep.Applied; a.ActionsWritten+a.AppsWritten+a.ActionsDeleted+a.AppsDeleted != 0 || a.ActionsUnchanged != len(cat.Tools) || rep.StatsWritten {
				t.Errorf("re-sync applied %+v, stats written %v; want nothing written", a, rep.StatsWritten)
			}
			incr, err := cache.Sync(ctx, st, src, cache.SyncOptions{Mode: cache.SyncIncremental, RetryDelay: time.Millisecond})
			if err != nil {
				t.Fatalf("incremental: %v", err)
			}
			if a := incr.Applied; a.ActionsWritten+a.AppsWritten+a.ActionsDeleted+a.AppsDeleted != 0 {
				t.Errorf("incremental applied %+v; want nothing written", a)
			}

			// Page 7 of 17 keeps failing: the sync fails, the catalogue stays.
			srv.FailPage("/tools", 7, 0, composiotest.ServerError(500))
			_, err = cache.Sync(ctx, st, src, opts)
			srv.ClearFaults()
			if !errors.Is(err, composio.ErrServer) || !strings.Contains(err.Error(), "page 7") {
				t.Errorf("sync with page 7 failing: %v", err)
			}
			if j, _ := st.SyncJobs(ctx, 1); len(j) != 1 || j[0].Status != cache.JobFailed {
				t.Errorf("job after the failure = %+v", j)
			}

			// Cancelled half-way through the listing.
			cctx, cancel := context.WithCancel(ctx)
			_, err = cache.Sync(cctx, st, src, cache.SyncOptions{Progress: func(p cache.SyncProgress) {
				if p.Actions >= 8000 {
					cancel()
				}
			}})
			cancel()
			if !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled sync: %v", err)
			}
			if j, _ := st.SyncJobs(ctx, 1); len(j) != 1 || j[0].Status != cache.JobCancelled {
				t.Errorf("job after the cancellation = %+v", j)
			}

			after, err := st.Actions(ctx, cache.ActionFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(after) != len(stored) {
				t.Errorf("store holds %d actions after the failures, want %d", len(after), len(stored))
			}
			for _, a := range after {
				if !a.UpdatedAt.Equal(updated[a.Slug]) {
					t.Errorf("%s: UpdatedAt moved from %v to %v", a.Slug, updated[a.Slug], a.UpdatedAt)
					break
				}
			}
		})
	}
}

func sameJSON(want string, got []byte) bool {
	var w, g any
	if json.Unmarshal([]byte(want), &w) != nil || json.Unmarshal(got, &g) != nil {
		return false
	}
	return cmp.Equal(w, g)
}

// BenchmarkSync syncs the shared catalogue from composiotest through the composio client:
// full into an empty store, and again with nothing changed (which must write no row).
func BenchmarkSync(b *testing.B) {
	srv, cat := fakeServer(b)
	stores := map[string]func(b *testing.B) cache.Store{"memory": func(*testing.B) cache.Store { return cache.NewMemory() }}
	if os.Getenv(cachetest.PostgresDSNEnv) != "" {
		stores["postgres"] = func(b *testing.B) cache.Store { return cachetest.OpenPostgres(b) }
	}
	ctx := context.Background()
	for _, name := range []string{"memory", "postgres"} {
		newStore, ok := stores[name]
		if !ok {
			continue
		}
		b.Run("full/"+name, func(b *testing.B) {
			src := composiosource.New(srv.Client())
			for b.Loop() {
				b.StopTimer()
				st := newStore(b)
				b.StartTimer()
				rep, err := cache.Sync(ctx, st, src, cache.SyncOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if rep.Applied.ActionsWritten != len(cat.Tools) {
					b.Fatalf("wrote %d actions, want %d", rep.Applied.ActionsWritten, len(cat.Tools))
				}
			}
		})
		b.Run("unchanged/"+name, func(b *testing.B) {
			src := composiosource.New(srv.Client())
			st := newStore(b)
			if _, err := cache.Sync(ctx, st, src, cache.SyncOptions{}); err != nil {
				b.Fatal(err)
			}
			written := 0
			for b.Loop() {
				rep, err := cache.Sync(ctx, st, src, cache.SyncOptions{})
				if err != nil {
					b.Fatal(err)
				}
				a := rep.Applied
				written += a.AppsWritten + a.ActionsWritten + a.AppsDeleted + a.ActionsDeleted
			}
			b.ReportMetric(float64(written), "rows-written")
			if written != 0 {
				b.Fatalf("an unchanged re-sync wrote %d rows", written)
			}
		})
	}
}
