package cache

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Errors of the sync.
var (
	// ErrTooManyDeletions reports a sync that would delete more of the catalogue than
	// SyncOptions.MaxDeleteShare allows. Nothing was written.
	ErrTooManyDeletions = errors.New("cache: sync would delete too much of the catalogue")
	// ErrTransient marks a source error worth retrying (rate limited, briefly unavailable).
	// A Source wraps it with %w, or returns an error with a Temporary() bool method that
	// reports true; the sync then retries the request (see SyncOptions.Retries).
	ErrTransient = errors.New("cache: transient source error")
)

// Source is the remote catalogue a sync reads: Composio's API, as *composio.Client through
// composiosource.New, or a fake in tests. Implementations must be safe for concurrent use;
// the sync fetches backfill pages from several goroutines.
//
// Rows come back in cache's own types. App slugs may be in any case (they are lower-cased),
// action slugs likewise (upper-cased). UpdatedAt fields are ignored.
type Source interface {
	// AppsPage returns one page of apps. An empty cursor asks for the first page; the page's
	// Next is the cursor of the following page, empty after the last one.
	AppsPage(ctx context.Context, cursor string) (SourceAppPage, error)
	// ActionsPage returns one page of actions across apps, restricted to q.Apps when that
	// is not empty. An empty q.Cursor asks for the first page. Actions may come without
	// Parameters; the sync backfills them with AppActions.
	ActionsPage(ctx context.Context, q SourceActionQuery) (SourceActionPage, error)
	// AppActions returns every action of one app with its parameter schema.
	AppActions(ctx context.Context, app string) ([]Action, error)
}

// SourceAppPage is one page of a Source's apps.
type SourceAppPage struct {
	Apps []App
	// Next is the cursor of the next page; empty when this page is the last.
	Next string
	// Total is the number of apps across all pages when the source knows it, else 0.
	Total int
}

// SourceActionQuery selects a page of a Source's actions.
type SourceActionQuery struct {
	Cursor string   // empty for the first page
	Apps   []string // optional: only these apps' actions (lower_snake slugs)
}

// SourceActionPage is one page of a Source's actions.
type SourceActionPage struct {
	Actions []Action
	// Next is the cursor of the next page; empty when this page is the last.
	Next string
	// Total is the number of actions across all pages when the source knows it, else 0.
	Total int
}

// SyncLocker is implemented by stores that can hold the sync lock: one sync at a time
// across every process sharing the store. *Postgres holds a PostgreSQL advisory lock on a
// dedicated connection. Implementations are safe for concurrent use.
type SyncLocker interface {
	// LockSync takes the sync lock. When another holder has it, LockSync returns an error
	// wrapping ErrSyncRunning at once if wait is false, and otherwise waits until the lock is
	// free or ctx is done. The caller must call unlock exactly once.
	LockSync(ctx context.Context, wait bool) (unlock func(), err error)
}

// SyncMode selects what a sync does.
type SyncMode string

// Sync modes.
const (
	// SyncFull lists every app and every action and makes the store match.
	SyncFull SyncMode = "full"
	// SyncIncremental lists every app, then fetches the actions only of apps whose version
	// changed (or whose version the source does not give) since the last successful sync.
	// It runs as a full sync when no sync has succeeded yet or when most apps changed.
	SyncIncremental SyncMode = "incremental"
	// SyncBackfill only fills in the parameters of stored actions that have none, one
	// per-app request at a time, up to SyncOptions.BackfillApps apps.
	SyncBackfill SyncMode = "backfill"
)

// SyncPhase names a step of a sync, for progress reports.
type SyncPhase string

// Sync phases, in order.
const (
	PhaseLock     SyncPhase = "lock"     // waiting for the sync lock
	PhaseApps     SyncPhase = "apps"     // listing apps
	PhaseActions  SyncPhase = "actions"  // listing actions
	PhaseBackfill SyncPhase = "backfill" // fetching missing parameter schemas per app
	PhaseWrite    SyncPhase = "write"    // applying the batch to the store
	PhaseStats    SyncPhase = "stats"    // recomputing stats
	PhaseDone     SyncPhase = "done"     // finished, successfully or not
)

// SyncProgress is a snapshot of a running sync, passed by value. Totals are 0 while
// unknown.
type SyncProgress struct {
	Phase         SyncPhase
	Pages         int // pages fetched so far, apps and actions together
	Apps          int // apps listed so far
	AppsTotal     int
	Actions       int // actions listed so far
	ActionsTotal  int
	Backfill      int // apps fetched for backfill so far
	BackfillTotal int
}

// SyncOptions configure Sync. The zero value is a full sync with the defaults below. Sync
// only reads its options, so one value may serve several calls.
type SyncOptions struct {
	// Mode is what to do. Optional. Defaults to SyncFull.
	Mode SyncMode
	// MaxDeleteShare is the largest share of the stored actions, and of the stored apps,
	// that a sync may delete as orphans. A sync that would delete more fails with
	// ErrTooManyDeletions and writes nothing, unless Force is set. Optional. Defaults to
	// 0.2; a negative value allows no deletion at all without Force.
	MaxDeleteShare float64
	// Force lifts the MaxDeleteShare limit, for a catalogue that really shrank.
	Force bool
	// BackfillApps caps how many apps the parameter backfill fetches one by one.
	// Optional. Defaults to 30; a negative value turns the backfill off.
	BackfillApps int
	// Wait makes a sync wait for the sync lock instead of failing with ErrSyncRunning.
	Wait bool
	// Retries is how many times a failed request is retried when the error is transient
	// (see ErrTransient). Optional. Defaults to 2; a negative value means no retry.
	Retries int
	// RetryDelay is the wait before the first retry; it doubles on each retry. Optional.
	// Defaults to 1s.
	RetryDelay time.Duration
	// Concurrency bounds the per-app requests of the backfill. Optional. Defaults to 4.
	Concurrency int
	// Progress, when not nil, is called from the syncing goroutine after every page and at
	// each phase change. It must return quickly.
	Progress func(SyncProgress)
	// Logger receives structured logs. Optional. Nil means silent.
	Logger *slog.Logger
}

func (o SyncOptions) withDefaults() SyncOptions {
	if o.Mode == "" {
		o.Mode = SyncFull
	}
	if o.MaxDeleteShare == 0 {
		o.MaxDeleteShare = 0.2
	}
	if o.MaxDeleteShare < 0 {
		o.MaxDeleteShare = 0
	}
	if o.BackfillApps == 0 {
		o.BackfillApps = 30
	}
	if o.Retries == 0 {
		o.Retries = 2
	}
	if o.Retries < 0 {
		o.Retries = 0
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = time.Second
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// SyncReport says what a sync did. It is a plain value owned by the caller.
type SyncReport struct {
	// Job is the sync-job record as it was finished (zero when the sync never started,
	// for example when the lock was held).
	Job SyncJob
	// Mode is what ran: an incremental sync may run as a full one (see Fallback).
	Mode SyncMode
	// Fallback says why an incremental sync ran as a full one; empty otherwise.
	Fallback string
	// Pages is how many listing pages were fetched, apps and actions together.
	Pages int
	// AppsListed and ActionsListed count the distinct rows the source listed.
	AppsListed, ActionsListed int
	// Duplicates counts rows listed more than once (the last copy wins).
	Duplicates int
	// Skipped counts listed rows the store would refuse (empty slug, oversize field,
	// schema that is not a JSON object, text with a NUL or bytes that are not UTF-8).
	// They are neither written nor deleted: a stored copy is kept as it is.
	Skipped int
	// SkippedRows says which rows were skipped and why, one line each ("action
	// GMAIL_X: ..."), the first maxSkippedRows of them.
	SkippedRows []string
	// AppsChanged counts the apps whose actions an incremental sync fetched.
	AppsChanged int
	// Backfilled counts actions whose parameters came from a per-app request, over
	// BackfillApps requests; MissingParameters counts actions still without parameters.
	Backfilled, BackfillApps, MissingParameters int
	// Applied is what the store's Apply reported: rows written, unchanged and deleted.
	Applied ApplyResult
	// StatsWritten reports whether the stats changed and were written.
	StatsWritten bool
	// Duration is how long the sync took, lock wait included.
	Duration time.Duration
}

// SyncStore is what Sync reads and writes: the stored catalogue, the all-or-nothing
// write, the stats and the sync jobs. *Memory, *Postgres and every Store satisfy it; a
// store that also implements SyncLocker is synced under its lock.
type SyncStore interface {
	AppLister
	ActionLister
	Applier
	Stats(ctx context.Context) (map[string]json.RawMessage, error)
	PutStats(ctx context.Context, stats map[string]json.RawMessage) error
	StartSyncJob(ctx context.Context, jobType string) (SyncJob, error)
	FinishSyncJob(ctx context.Context, job SyncJob) error
	SyncJobs(ctx context.Context, limit int) ([]SyncJob, error)
}

// Sync brings st in step with src, and records the run as a sync job.
//
// Everything is fetched first and written with one Store.Apply, so readers see the old
// catalogue or the new one, never a mix, and a failed or cancelled sync leaves the store as
// it was (its job marked failed or cancelled, with the reason). Orphans (stored apps and
// actions the source no longer lists) are deleted only after a complete listing, and only
// up to opts.MaxDeleteShare of the catalogue unless opts.Force is set. Rows that did not
// change are not rewritten (Apply counts them as unchanged), so re-syncing an unchanged
// catalogue writes no catalogue row. Stats are recomputed and written when they changed.
//
// When st implements SyncLocker, Sync holds its sync lock throughout: a concurrent Sync
// fails with an error wrapping ErrSyncRunning, or waits when opts.Wait is set. Holding the
// lock, Sync also marks failed any job still recorded as running, which a process that
// died mid-sync left behind. A store without SyncLocker is synced without a lock.
//
// Sync is safe to call from several goroutines; the lock decides who syncs.
//
// Sync returns the report together with any error; the report's Job says how the
// recorded job ended.
func Sync(ctx context.Context, st SyncStore, src Source, opts SyncOptions) (SyncReport, error) {
	start := time.Now()
	opts = opts.withDefaults()
	if st == nil || src == nil {
		return SyncReport{}, fmt.Errorf("%w: sync needs a store and a source", ErrInvalid)
	}
	switch opts.Mode {
	case SyncFull, SyncIncremental, SyncBackfill:
	default:
		return SyncReport{}, fmt.Errorf("%w: unknown sync mode %q", ErrInvalid, opts.Mode)
	}
	s := &syncRun{st: st, src: src, opts: opts, log: opts.Logger, skippedApps: map[string]bool{}}
	s.rep.Mode = opts.Mode

	if l, ok := st.(SyncLocker); ok {
		s.progress(PhaseLock)
		unlock, err := l.LockSync(ctx, opts.Wait)
		if err != nil {
			s.rep.Duration = time.Since(start)
			if errors.Is(err, ErrSyncRunning) {
				return s.rep, err
			}
			return s.rep, fmt.Errorf("cache: sync: take the sync lock: %w", err)
		}
		defer unlock()
	}

	s.closeAbandonedJobs(ctx)
	if opts.Mode == SyncIncremental {
		ok, err := s.hasSucceeded(ctx)
		if err != nil {
			return s.rep, fmt.Errorf("cache: sync: read job history: %w", err)
		}
		if !ok {
			s.rep.Mode = SyncFull
			s.rep.Fallback = "no sync has succeeded yet"
		}
	}
	job, err := st.StartSyncJob(ctx, string(s.rep.Mode))
	if err != nil {
		return s.rep, fmt.Errorf("cache: sync: start job: %w", err)
	}
	s.log.Info("cache: sync started", "job_id", job.ID, "mode", s.rep.Mode, "fallback", s.rep.Fallback)

	runErr := s.run(ctx)

	// The job is finished even when ctx is cancelled: it must not stay "running" (if even
	// that fails, the next sync marks it abandoned).
	fctx, cancel := bookkeepingContext(ctx)
	defer cancel()
	job.AppsSynced = s.rep.Applied.AppsWritten
	job.ActionsSynced = s.rep.Applied.ActionsWritten
	job.ActionsDeleted = s.rep.Applied.ActionsDeleted
	job.FinishedAt = time.Now().UTC()
	switch {
	case runErr == nil:
		job.Status = JobSucceeded
	case ctx.Err() != nil && (errors.Is(runErr, context.Canceled) || errors.Is(runErr, context.DeadlineExceeded)):
		job.Status = JobCancelled
		job.Error = jobError(runErr)
	default:
		job.Status = JobFailed
		job.Error = jobError(runErr)
	}
	if err := st.FinishSyncJob(fctx, job); err != nil {
		runErr = errors.Join(runErr, fmt.Errorf("cache: sync: finish job %d: %w", job.ID, err))
	}
	s.rep.Job = job
	s.rep.Duration = time.Since(start)
	s.progress(PhaseDone)
	if runErr != nil {
		s.log.Warn("cache: sync ended", "job_id", job.ID, "status", job.Status, "err", runErr)
		return s.rep, runErr
	}
	s.log.Info("cache: sync succeeded", "job_id", job.ID, "mode", s.rep.Mode,
		"apps_written", s.rep.Applied.AppsWritten, "actions_written", s.rep.Applied.ActionsWritten,
		"actions_unchanged", s.rep.Applied.ActionsUnchanged, "actions_deleted", s.rep.Applied.ActionsDeleted,
		"duration", s.rep.Duration)
	return s.rep, nil
}

// Bounds of the bookkeeping a sync does past its caller's context (see bookkeepingContext).
const (
	bookkeepingTimeout = 30 * time.Second
	bookkeepingGrace   = 100 * time.Millisecond
)

// bookkeepingContext returns the context of writes a sync makes even when ctx has ended
// (the job record, the stats of a committed catalogue): it outlives ctx, but by no more
// than bookkeepingGrace, so that a store that stopped answering cannot hold Sync much past
// its caller's deadline. While ctx lives the writes get bookkeepingTimeout.
func bookkeepingContext(ctx context.Context) (context.Context, context.CancelFunc) {
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bookkeepingTimeout)
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(bookkeepingGrace, cancel) })
	return bctx, func() {
		stop()
		cancel()
	}
}

// jobError is err's text for a job record, cut to a sane length on a rune boundary.
func jobError(err error) string {
	const max = 4 << 10
	msg := strings.ToValidUTF8(err.Error(), "?")
	if len(msg) <= max {
		return msg
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "…"
}

// syncRun is the state of one Sync call. It is used by one goroutine.
type syncRun struct {
	st   SyncStore
	src  Source
	opts SyncOptions
	log  *slog.Logger
	rep  SyncReport
	prog SyncProgress
	// skippedApps holds the slugs of listed apps the store would refuse: their stored
	// copies are kept, not taken for orphans.
	skippedApps map[string]bool
}

// maxSkippedRows bounds SyncReport.SkippedRows.
const maxSkippedRows = 100

// skip records a listed row the store would refuse: counted, reported and logged.
func (s *syncRun) skip(kind, slug string, err error) {
	s.rep.Skipped++
	if len(s.rep.SkippedRows) < maxSkippedRows {
		s.rep.SkippedRows = append(s.rep.SkippedRows, fmt.Sprintf("%s %.80q: %s", kind, slug, strings.TrimPrefix(err.Error(), "cache: ")))
	}
	s.log.Warn("cache: sync: "+kind+" skipped", "slug", slug, "err", err)
}

func (s *syncRun) progress(p SyncPhase) {
	s.prog.Phase = p
	if s.opts.Progress != nil {
		s.opts.Progress(s.prog)
	}
}

// closeAbandonedJobs marks jobs still "running" as failed: the caller holds the sync lock,
// so whoever started them is gone (a process killed mid-sync). Best effort.
func (s *syncRun) closeAbandonedJobs(ctx context.Context) {
	if _, ok := s.st.(SyncLocker); !ok {
		return // without a lock a running job may be live
	}
	jobs, err := s.st.SyncJobs(ctx, 20)
	if err != nil {
		return
	}
	for _, j := range jobs {
		if j.Status != JobRunning {
			continue
		}
		j.Status = JobFailed
		j.Error = "abandoned: the process running it stopped before it finished"
		j.FinishedAt = time.Now().UTC()
		if err := s.st.FinishSyncJob(ctx, j); err != nil {
			s.log.Warn("cache: sync: close abandoned job", "job_id", j.ID, "err", err)
		}
	}
}

func (s *syncRun) hasSucceeded(ctx context.Context) (bool, error) {
	jobs, err := s.st.SyncJobs(ctx, 100)
	if err != nil {
		return false, err
	}
	for _, j := range jobs {
		if j.Status == JobSucceeded && (j.Type == string(SyncFull) || j.Type == string(SyncIncremental)) {
			return true, nil
		}
	}
	return false, nil
}

func (s *syncRun) run(ctx context.Context) error {
	if s.rep.Mode == SyncBackfill {
		return s.runBackfill(ctx)
	}
	apps, err := s.listApps(ctx)
	if err != nil {
		return err
	}
	stored, err := s.readStored(ctx)
	if err != nil {
		return err
	}
	var changed []string // nil: every app
	if s.rep.Mode == SyncIncremental {
		changed = s.changedApps(apps, stored)
		// Fetching changed apps through a filtered listing pays off only while they are a
		// minority; otherwise the bulk listing is as cheap and catches everything.
		if len(apps) > 0 && len(changed)*4 > len(apps) {
			s.rep.Fallback = fmt.Sprintf("%d of %d apps changed or have no version", len(changed), len(apps))
			s.rep.Mode = SyncFull
			changed = nil
		} else {
			s.rep.AppsChanged = len(changed)
		}
	}
	var listed listing
	if s.rep.Mode == SyncFull {
		listed, err = s.listActions(ctx, nil)
	} else if len(changed) > 0 {
		listed, err = s.listActions(ctx, changed)
	}
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cache: sync: %w", err)
	}
	b, err := s.plan(ctx, apps, listed, stored, changed)
	if err != nil {
		return err
	}
	return s.write(ctx, b)
}

// maxPages bounds one listing, against a source that pages forever: Composio's whole
// catalogue is a few dozen pages of 1,000.
const maxPages = 10000

// listApps fetches every page of apps, de-duplicated by slug, in listing order.
func (s *syncRun) listApps(ctx context.Context) ([]App, error) {
	s.progress(PhaseApps)
	var (
		out    []App
		index  = map[string]int{}
		cursor string
		seen   = map[string]bool{}
	)
	for page := 1; ; page++ {
		var p SourceAppPage
		err := s.retry(ctx, func() error {
			var err error
			p, err = s.src.AppsPage(ctx, cursor)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("cache: sync: list apps, page %d: %w", page, err)
		}
		s.prog.Pages++
		s.rep.Pages++
		if p.Total > 0 {
			s.prog.AppsTotal = p.Total
		}
		for _, a := range p.Apps {
			// Checked as the store checks it: a row it would refuse must not sink the batch.
			n, err := normApp(a)
			if err != nil {
				s.skip("app", a.Slug, err)
				if slug, err := normAppSlug(a.Slug); err == nil {
					s.skippedApps[slug] = true
				}
				continue
			}
			a := n
			if i, ok := index[a.Slug]; ok {
				s.rep.Duplicates++
				out[i] = a
				continue
			}
			index[a.Slug] = len(out)
			out = append(out, a)
		}
		s.prog.Apps = len(out)
		s.progress(PhaseApps)
		if p.Next == "" {
			break
		}
		if seen[p.Next] {
			return nil, fmt.Errorf("cache: sync: list apps, page %d: the source repeated cursor %q", page, p.Next)
		}
		if page >= maxPages {
			return nil, fmt.Errorf("cache: sync: list apps: the source is still paging after %d pages", page)
		}
		seen[p.Next] = true
		cursor = p.Next
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("cache: sync: list apps: %w", err)
		}
	}
	s.rep.AppsListed = len(out)
	return out, nil
}

// listing is what an action listing returned.
type listing struct {
	actions []Action // de-duplicated, in listing order
	// skipped holds the slugs listed with content the store would refuse. They are left
	// out of the batch, and their stored copies are kept rather than taken for orphans.
	skipped map[string]bool
}

// listActions fetches every page of actions (of the given apps, or all when nil),
// de-duplicated by slug with the last copy winning.
func (s *syncRun) listActions(ctx context.Context, apps []string) (listing, error) {
	s.progress(PhaseActions)
	var (
		out   []Action
		index = map[string]int{} // slug -> position in out, -1 when skipped
	)
	// A filtered listing goes in chunks so that the request stays a sane size.
	const chunk = 50
	groups := [][]string{nil}
	if apps != nil {
		groups = nil
		for i := 0; i < len(apps); i += chunk {
			groups = append(groups, apps[i:min(i+chunk, len(apps))])
		}
	}
	for _, g := range groups {
		cursor := ""
		seen := map[string]bool{}
		for page := 1; ; page++ {
			var p SourceActionPage
			q := SourceActionQuery{Cursor: cursor, Apps: g}
			err := s.retry(ctx, func() error {
				var err error
				p, err = s.src.ActionsPage(ctx, q)
				return err
			})
			if err != nil {
				return listing{}, fmt.Errorf("cache: sync: list actions, page %d: %w", page, err)
			}
			s.prog.Pages++
			s.rep.Pages++
			if p.Total > 0 && apps == nil {
				s.prog.ActionsTotal = p.Total
			}
			for _, a := range p.Actions {
				noParams := isJSONNull(a.Parameters)
				n, err := normAction(a)
				if err != nil {
					// Kept out of the batch and out of orphan deletion: a stored copy stays.
					s.skip("action", a.Slug, err)
					if slug, err := normActionSlug(a.Slug); err == nil {
						index[slug] = -1
					}
					continue
				}
				a = n
				if noParams {
					a.Parameters = nil // to be carried over or backfilled
				}
				if i, ok := index[a.Slug]; ok {
					s.rep.Duplicates++
					if i >= 0 {
						out[i] = a
					}
					continue
				}
				index[a.Slug] = len(out)
				out = append(out, a)
			}
			s.prog.Actions = len(out)
			s.progress(PhaseActions)
			if p.Next == "" {
				break
			}
			if seen[p.Next] {
				return listing{}, fmt.Errorf("cache: sync: list actions, page %d: the source repeated cursor %q", page, p.Next)
			}
			if page >= maxPages {
				return listing{}, fmt.Errorf("cache: sync: list actions: the source is still paging after %d pages", page)
			}
			seen[p.Next] = true
			cursor = p.Next
			if err := ctx.Err(); err != nil {
				return listing{}, fmt.Errorf("cache: sync: list actions: %w", err)
			}
		}
	}
	l := listing{actions: out, skipped: map[string]bool{}}
	for slug, i := range index {
		if i < 0 {
			l.skipped[slug] = true
		}
	}
	s.rep.ActionsListed = len(out)
	return l, nil
}

// storedCatalogue is what the store held when the sync started.
type storedCatalogue struct {
	apps    map[string]App
	actions map[string]Action
	byApp   map[string][]string // app -> action slugs
}

func (s *syncRun) readStored(ctx context.Context) (storedCatalogue, error) {
	sc := storedCatalogue{apps: map[string]App{}, actions: map[string]Action{}, byApp: map[string][]string{}}
	if err := eachApp(ctx, s.st, func(a App) error { sc.apps[a.Slug] = a; return nil }); err != nil {
		return sc, fmt.Errorf("cache: sync: read stored apps: %w", err)
	}
	acts, err := s.st.Actions(ctx, ActionFilter{})
	if err != nil {
		return sc, fmt.Errorf("cache: sync: read stored actions: %w", err)
	}
	for _, a := range acts {
		sc.actions[a.Slug] = a
		sc.byApp[a.App] = append(sc.byApp[a.App], a.Slug)
	}
	return sc, nil
}

// changedApps lists, sorted, the listed apps whose actions an incremental sync must fetch:
// new apps, apps whose version changed, and apps whose version the source does not give.
func (s *syncRun) changedApps(apps []App, sc storedCatalogue) []string {
	var out []string
	for _, a := range apps {
		old, ok := sc.apps[a.Slug]
		if !ok || a.LatestVersion == "" || a.LatestVersion != old.LatestVersion {
			out = append(out, a.Slug)
		}
	}
	sort.Strings(out)
	if out == nil {
		out = []string{}
	}
	return out
}

// plan builds the batch: listed apps and actions, parameters carried over or backfilled,
// orphans to delete. changed is nil for a full sync, else the apps whose actions were
// listed.
func (s *syncRun) plan(ctx context.Context, apps []App, listed listing, sc storedCatalogue, changed []string) (Batch, error) {
	full := changed == nil
	inScope := func(app string) bool { return full }
	if !full {
		set := make(map[string]bool, len(changed))
		for _, a := range changed {
			set[a] = true
		}
		inScope = func(app string) bool { return set[app] }
	}

	listedApps := make(map[string]bool, len(apps))
	for _, a := range apps {
		listedApps[a.Slug] = true
	}
	listedSlugs := make(map[string]bool, len(listed.actions)+len(listed.skipped))
	for slug := range listed.skipped {
		listedSlugs[slug] = true
	}
	actions := listed.actions
	for _, a := range actions {
		listedSlugs[a.Slug] = true
	}

	// Parameters: a listing without them keeps the stored schema; what is still missing
	// is fetched per app, up to the cap.
	var missing []int
	for i := range actions {
		if len(actions[i].Parameters) > 0 {
			continue
		}
		if old, ok := sc.actions[actions[i].Slug]; ok && hasParameters(old.Parameters) {
			actions[i].Parameters = old.Parameters
			continue
		}
		missing = append(missing, i)
	}
	if err := s.backfill(ctx, actions, missing); err != nil {
		return Batch{}, err
	}

	// Apps: every listed app, plus apps that only actions name (kept from the store when
	// known, else made from the slug) so that no action is refused for an unknown app.
	counts := map[string]int{}
	for _, a := range actions {
		counts[a.App]++
	}
	for slug := range listed.skipped {
		if old, ok := sc.actions[slug]; ok {
			counts[old.App]++ // kept as stored
		}
	}
	var b Batch
	appIndex := map[string]int{}
	for _, a := range apps {
		appIndex[a.Slug] = len(b.Apps)
		b.Apps = append(b.Apps, a)
	}
	for _, a := range actions {
		if _, ok := appIndex[a.App]; ok {
			continue
		}
		app, ok := sc.apps[a.App]
		if !ok {
			app = App{Slug: a.App, DisplayName: appNameFromSlug(a.App)}
			s.log.Warn("cache: sync: action names an unlisted app; app made from its slug", "app", a.App, "action", a.Slug)
		}
		app.UpdatedAt = time.Time{}
		appIndex[a.App] = len(b.Apps)
		b.Apps = append(b.Apps, app)
	}
	for i := range b.Apps {
		a := &b.Apps[i]
		if inScope(a.Slug) {
			a.ActionCount = counts[a.Slug]
		} else if old, ok := sc.apps[a.Slug]; ok {
			a.ActionCount = old.ActionCount
		} else {
			a.ActionCount = len(sc.byApp[a.Slug])
		}
	}
	b.Actions = actions

	// Orphans, in sorted order for stable batches.
	var deletedApps []string
	deletedVia := 0
	for slug := range sc.apps {
		if !listedApps[slug] && !s.skippedApps[slug] {
			if _, keep := appIndex[slug]; keep {
				continue
			}
			deletedApps = append(deletedApps, slug)
			deletedVia += len(sc.byApp[slug])
		}
	}
	sort.Strings(deletedApps)
	gone := make(map[string]bool, len(deletedApps))
	for _, a := range deletedApps {
		gone[a] = true
	}
	var deletedActions []string
	for slug, a := range sc.actions {
		if gone[a.App] || listedSlugs[slug] || !inScope(a.App) {
			continue
		}
		deletedActions = append(deletedActions, slug)
	}
	sort.Strings(deletedActions)
	b.DeleteApps = deletedApps
	b.DeleteActions = deletedActions

	if err := s.checkShare(len(deletedApps), len(sc.apps), len(deletedActions)+deletedVia, len(sc.actions)); err != nil {
		return Batch{}, err
	}
	return b, nil
}

// checkShare refuses a deletion larger than MaxDeleteShare of what is stored.
func (s *syncRun) checkShare(apps, storedApps, actions, storedActions int) error {
	if s.opts.Force || (apps == 0 && actions == 0) {
		return nil
	}
	over := func(n, of int) bool { return of > 0 && float64(n) > s.opts.MaxDeleteShare*float64(of) }
	if over(actions, storedActions) || over(apps, storedApps) {
		return fmt.Errorf("%w: it would delete %d of %d actions and %d of %d apps, over the limit of %.0f%% (set Force if the catalogue really shrank)",
			ErrTooManyDeletions, actions, storedActions, apps, storedApps, s.opts.MaxDeleteShare*100)
	}
	return nil
}

// backfill fetches, per app, the parameters of actions[i] for i in missing, up to the cap,
// with bounded concurrency. A failed app is logged and left without parameters; only a
// cancelled ctx stops it.
func (s *syncRun) backfill(ctx context.Context, actions []Action, missing []int) error {
	if len(missing) == 0 {
		return nil
	}
	byApp := map[string][]int{}
	for _, i := range missing {
		byApp[actions[i].App] = append(byApp[actions[i].App], i)
	}
	apps := make([]string, 0, len(byApp))
	for a := range byApp {
		apps = append(apps, a)
	}
	// Apps with the most actions missing go first: the cap buys the most schemas.
	sort.Slice(apps, func(i, j int) bool {
		if len(byApp[apps[i]]) != len(byApp[apps[j]]) {
			return len(byApp[apps[i]]) > len(byApp[apps[j]])
		}
		return apps[i] < apps[j]
	})
	limit := s.opts.BackfillApps
	if limit < 0 {
		limit = 0
	}
	if len(apps) > limit {
		apps = apps[:limit]
	}
	if len(apps) == 0 {
		return nil
	}
	s.prog.BackfillTotal = len(apps)
	s.progress(PhaseBackfill)

	type result struct {
		app     string
		actions []Action
		err     error
	}
	work := make(chan string)
	results := make(chan result, len(apps)) // workers never block on it
	var wg sync.WaitGroup
	for range min(s.opts.Concurrency, len(apps)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for app := range work {
				var got []Action
				err := s.retry(ctx, func() error {
					var err error
					got, err = s.src.AppActions(ctx, app)
					return err
				})
				results <- result{app, got, err}
			}
		}()
	}
	// Hand out apps and collect answers until every app handed out is answered; once ctx
	// is done no more apps are handed out. No worker outlives this function.
	sent, received := 0, 0
	for {
		var (
			sendTo chan string
			next   string
			done   <-chan struct{}
		)
		if sent < len(apps) && ctx.Err() == nil {
			sendTo, next, done = work, apps[sent], ctx.Done()
		} else if received == sent {
			break
		}
		var r result
		select {
		case sendTo <- next:
			sent++
			continue
		case <-done:
			continue
		case r = <-results:
		}
		received++
		s.prog.Backfill = received
		s.progress(PhaseBackfill)
		if r.err != nil {
			s.log.Warn("cache: sync: backfill failed for app", "app", r.app, "err", r.err)
			continue
		}
		s.rep.BackfillApps++
		params := make(map[string]json.RawMessage, len(r.actions))
		for _, a := range r.actions {
			if isJSONNull(a.Parameters) {
				continue
			}
			if n, err := normAction(Action{App: r.app, Slug: a.Slug, Parameters: a.Parameters}); err == nil {
				params[n.Slug] = n.Parameters
			}
		}
		for _, i := range byApp[r.app] {
			if p, ok := params[actions[i].Slug]; ok {
				actions[i].Parameters = p
				s.rep.Backfilled++
			}
		}
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cache: sync: backfill: %w", err)
	}
	return nil
}

// write applies the batch and recomputes stats.
func (s *syncRun) write(ctx context.Context, b Batch) error {
	s.progress(PhaseWrite)
	for _, a := range b.Actions {
		if len(a.Parameters) == 0 {
			s.rep.MissingParameters++
		}
	}
	res, err := s.st.Apply(ctx, b)
	if err != nil {
		return fmt.Errorf("cache: sync: write: %w", err)
	}
	s.rep.Applied = res
	// The catalogue is committed: finish the bookkeeping even if ctx ends now.
	fctx, cancel := bookkeepingContext(ctx)
	defer cancel()
	s.progress(PhaseStats)
	return s.writeStats(fctx, b.Apps)
}

func (s *syncRun) runBackfill(ctx context.Context) error {
	stored, err := s.readStored(ctx)
	if err != nil {
		return err
	}
	var actions []Action
	var missing []int
	for _, slug := range slices.Sorted(maps.Keys(stored.actions)) {
		a := stored.actions[slug]
		if !hasParameters(a.Parameters) {
			missing = append(missing, len(actions))
			a.UpdatedAt = time.Time{}
			actions = append(actions, a)
		}
	}
	if err := s.backfill(ctx, actions, missing); err != nil {
		return err
	}
	var b Batch
	for _, a := range actions {
		if hasParameters(a.Parameters) {
			b.Actions = append(b.Actions, a)
		} else {
			s.rep.MissingParameters++
		}
	}
	if len(b.Actions) == 0 {
		return nil
	}
	s.progress(PhaseWrite)
	res, err := s.st.Apply(ctx, b)
	if err != nil {
		return fmt.Errorf("cache: sync: write: %w", err)
	}
	s.rep.Applied = res
	return nil
}

// Stat keys written by Sync; each value is JSON.
const (
	StatTotalApps    = "total_apps"    // number of apps
	StatTotalActions = "total_actions" // number of actions
	// StatAppsWithActions is the number of apps that have at least one action.
	StatAppsWithActions = "apps_with_actions"
	// StatCategories maps each category (lower-cased) to its number of apps.
	StatCategories = "categories"
	// StatActionsWithoutParameters is the number of actions the sync could not get a
	// parameter schema for (see SyncOptions.BackfillApps).
	StatActionsWithoutParameters = "actions_without_parameters"
	// StatCatalogueUpdated is when a sync last changed the catalogue (RFC 3339, UTC).
	StatCatalogueUpdated = "catalogue_updated_at"
)

// writeStats recomputes the catalogue stats from the synced apps and writes them when they
// differ from the stored ones.
func (s *syncRun) writeStats(ctx context.Context, apps []App) error {
	total, withActions := 0, 0
	cats := map[string]int{}
	for _, a := range apps {
		total += a.ActionCount
		if a.ActionCount > 0 {
			withActions++
		}
		for _, c := range a.Categories {
			cats[strings.ToLower(c)]++
		}
	}
	want := map[string]any{
		StatTotalApps:                len(apps),
		StatTotalActions:             total,
		StatAppsWithActions:          withActions,
		StatCategories:               cats,
		StatActionsWithoutParameters: s.rep.MissingParameters,
	}
	stats := make(map[string]json.RawMessage, len(want)+1)
	for k, v := range want {
		raw, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("cache: sync: stats: %w", err)
		}
		stats[k] = raw
	}
	old, err := s.st.Stats(ctx)
	if err != nil {
		return fmt.Errorf("cache: sync: read stats: %w", err)
	}
	same := true
	for k, v := range stats {
		if !jsonEqual(old[k], v) {
			same = false
			break
		}
	}
	if same && s.rep.Applied.ActionsWritten == 0 && s.rep.Applied.AppsWritten == 0 &&
		s.rep.Applied.ActionsDeleted == 0 && s.rep.Applied.AppsDeleted == 0 {
		return nil
	}
	stamp, _ := json.Marshal(time.Now().UTC())
	stats[StatCatalogueUpdated] = stamp
	if err := s.st.PutStats(ctx, stats); err != nil {
		return fmt.Errorf("cache: sync: write stats: %w", err)
	}
	s.rep.StatsWritten = true
	return nil
}

// retry runs fn, retrying transient errors with a doubling delay, honouring ctx.
func (s *syncRun) retry(ctx context.Context, fn func() error) error {
	delay := s.opts.RetryDelay
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil || attempt >= s.opts.Retries || !isTransient(err) || ctx.Err() != nil {
			return err
		}
		s.log.Debug("cache: sync: retrying", "attempt", attempt+1, "delay", delay, "err", err)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
		delay *= 2
	}
}

func isTransient(err error) bool {
	if errors.Is(err, ErrTransient) {
		return true
	}
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

func isJSONNull(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	return t == "" || t == "null"
}

// hasParameters reports whether raw is a parameter schema other than the empty one a store
// keeps for an action that came without parameters.
func hasParameters(raw json.RawMessage) bool {
	if isJSONNull(raw) {
		return false
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return true
	}
	return buf.String() != emptyParameters
}

func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
