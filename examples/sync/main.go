// Command sync copies Composio's catalogue into a toolhint store with cache.Sync, reading
// it through composiosource.New(client) and drawing a progress bar, then prints what the
// store holds.
//
// From Composio (the API key comes from COMPOSIO_API_KEY, an optional base URL from
// COMPOSIO_BASE_URL), into memory:
//
//	go run ./examples/sync
//
// From the composiotest fake serving a JSONL catalogue, into PostgreSQL:
//
//	go run ./examples/sync -fake ../shared/catalog/composio-actions.jsonl \
//	    -apps ../shared/catalog/composio-apps.jsonl \
//	    -dsn 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
//
// Flags choose the mode (-mode full|incremental|backfill), lift the deletion limit
// (-force), cap the parameter backfill (-backfill), wait for a sync another process is
// running (-wait), and refresh pending workspace connections afterwards (-refresh).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/composiosource"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "sync:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	fake, apps, dsn string
	mode            string
	force, wait     bool
	backfill        int
	refresh         bool
	bar             bool
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("sync", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.fake, "fake", "", "serve this JSONL catalogue (one action per line) from the composiotest fake instead of calling Composio")
	fs.StringVar(&o.apps, "apps", "", "with -fake: a JSONL apps file giving the fake's toolkits their names, categories and versions")
	fs.StringVar(&o.dsn, "dsn", "", "PostgreSQL DSN of the store; empty keeps the catalogue in memory")
	fs.StringVar(&o.mode, "mode", "full", "full, incremental or backfill")
	fs.BoolVar(&o.force, "force", false, "allow deleting more than 20% of the catalogue")
	fs.BoolVar(&o.wait, "wait", false, "wait for a sync another process is running instead of failing")
	fs.IntVar(&o.backfill, "backfill", 30, "at most this many apps get their missing parameters fetched one by one (negative: none)")
	fs.BoolVar(&o.refresh, "refresh", false, "then refresh pending workspace connections from the connected accounts")
	fs.BoolVar(&o.bar, "bar", isTerminal(stderr), "draw a progress bar (default: when stderr is a terminal)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.backfill == 0 {
		o.backfill = -1 // the flag's 0 means none; SyncOptions' 0 means the default
	}
	return o, nil
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	client, stopFake, err := newClient(o, getenv)
	if err != nil {
		return err
	}
	defer stopFake()

	st, closeStore, err := openStore(ctx, o.dsn)
	if err != nil {
		return err
	}
	defer closeStore()

	bar := &progressBar{w: stderr, draw: o.bar}
	src := composiosource.New(client)
	rep, err := cache.Sync(ctx, st, src, cache.SyncOptions{
		Mode:         cache.SyncMode(o.mode),
		Force:        o.force,
		Wait:         o.wait,
		BackfillApps: o.backfill,
		Progress:     bar.update,
	})
	bar.finish()
	if err != nil {
		if errors.Is(err, cache.ErrTooManyDeletions) {
			return fmt.Errorf("%w\nnothing was written; run with -force if the catalogue really shrank", err)
		}
		return err
	}
	printReport(stdout, rep)
	if o.refresh {
		rr, err := cache.RefreshConnections(ctx, st, src, cache.RefreshOptions{})
		fmt.Fprintf(stdout, "connections: %d pending checked, %d now active, %d failed, %d still pending\n",
			rr.Checked, rr.Activated, rr.Failed, rr.Pending)
		if err != nil {
			return err
		}
	}
	return printStore(ctx, stdout, st)
}

// newClient returns a client of Composio, or of a composiotest fake serving o.fake (and a
// function stopping it).
func newClient(o options, getenv func(string) string) (*composio.Client, func(), error) {
	if o.fake == "" {
		key := getenv("COMPOSIO_API_KEY")
		if key == "" {
			return nil, nil, errors.New("set COMPOSIO_API_KEY, or serve a JSONL catalogue from the fake with -fake path.jsonl")
		}
		c, err := composio.New(composio.Config{APIKey: key, BaseURL: getenv("COMPOSIO_BASE_URL")})
		return c, func() {}, err
	}
	cat, err := composiotest.LoadCatalog(o.fake)
	if err != nil {
		return nil, nil, err
	}
	opts := []composiotest.Option{composiotest.WithCatalog(cat)}
	if o.apps != "" {
		f, err := os.Open(o.apps)
		if err != nil {
			return nil, nil, err
		}
		tks, err := composiotest.ReadToolkits(f)
		f.Close()
		if err != nil {
			return nil, nil, err
		}
		// Keep each toolkit's tool count from the catalogue: the apps file does not have it.
		counts := map[string]int{}
		for _, tk := range cat.Toolkits {
			counts[tk.Slug] = tk.Meta.ToolsCount
		}
		for i := range tks {
			tks[i].Meta.ToolsCount = counts[tks[i].Slug]
		}
		opts = append(opts, composiotest.WithToolkits(tks...))
	}
	srv := composiotest.New(opts...)
	return srv.Client(), srv.Close, nil
}

// openStore opens PostgreSQL when dsn is set, else a memory store.
func openStore(ctx context.Context, dsn string) (cache.Store, func(), error) {
	if dsn == "" {
		return cache.NewMemory(), func() {}, nil
	}
	pg, err := cache.OpenPostgres(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	return pg, func() { pg.Close() }, nil
}

func printReport(w io.Writer, rep cache.SyncReport) {
	a := rep.Applied
	fmt.Fprintf(w, "sync %s (job %d, %s) in %s: %d pages\n", rep.Mode, rep.Job.ID, rep.Job.Status, rep.Duration.Round(time.Millisecond), rep.Pages)
	if rep.Fallback != "" {
		fmt.Fprintf(w, "  ran as a full sync: %s\n", rep.Fallback)
	}
	fmt.Fprintf(w, "  apps:    %d listed, %d written, %d unchanged, %d deleted\n", rep.AppsListed, a.AppsWritten, a.AppsUnchanged, a.AppsDeleted)
	fmt.Fprintf(w, "  actions: %d listed, %d written, %d unchanged, %d deleted\n", rep.ActionsListed, a.ActionsWritten, a.ActionsUnchanged, a.ActionsDeleted)
	if rep.Duplicates > 0 || rep.Skipped > 0 {
		fmt.Fprintf(w, "  %d duplicate rows, %d rows skipped as invalid\n", rep.Duplicates, rep.Skipped)
	}
	if rep.BackfillApps > 0 || rep.MissingParameters > 0 {
		fmt.Fprintf(w, "  parameters: %d backfilled from %d apps, %d actions still without\n", rep.Backfilled, rep.BackfillApps, rep.MissingParameters)
	}
}

// printStore prints the store's stats and its largest categories.
func printStore(ctx context.Context, w io.Writer, st cache.Store) error {
	stats, err := st.Stats(ctx)
	if err != nil {
		return err
	}
	num := func(k string) string {
		if v, ok := stats[k]; ok {
			return string(v)
		}
		return "?"
	}
	fmt.Fprintf(w, "catalogue: %s apps (%s with actions), %s actions\n",
		num(cache.StatTotalApps), num(cache.StatAppsWithActions), num(cache.StatTotalActions))
	var cats map[string]int
	if raw, ok := stats[cache.StatCategories]; ok && json.Unmarshal(raw, &cats) == nil && len(cats) > 0 {
		names := make([]string, 0, len(cats))
		for c := range cats {
			names = append(names, c)
		}
		sort.Slice(names, func(i, j int) bool {
			if cats[names[i]] != cats[names[j]] {
				return cats[names[i]] > cats[names[j]]
			}
			return names[i] < names[j]
		})
		var top []string
		for _, c := range names[:min(8, len(names))] {
			top = append(top, fmt.Sprintf("%s %d", c, cats[c]))
		}
		fmt.Fprintf(w, "top categories: %s\n", strings.Join(top, ", "))
	}
	jobs, err := st.SyncJobs(ctx, 3)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		line := fmt.Sprintf("job %d: %s %s, %d apps and %d actions written, %d actions deleted",
			j.ID, j.Type, j.Status, j.AppsSynced, j.ActionsSynced, j.ActionsDeleted)
		if j.Error != "" {
			line += ": " + j.Error
		}
		fmt.Fprintln(w, line)
	}
	return nil
}
