package cache_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
)

// syncStore names a way to make an empty store for the sync tests.
type syncStore struct {
	name string
	new  func(t *testing.T) cache.Store
}

// syncStores lists the stores the sync tests run on: memory always, PostgreSQL when
// TOOLHINT_TEST_POSTGRES_DSN is set.
func syncStores(t *testing.T) []syncStore {
	stores := []syncStore{{"memory", func(*testing.T) cache.Store { return cache.NewMemory() }}}
	if pg := postgresStoreMaker(t); pg != nil {
		stores = append(stores, syncStore{"postgres", pg})
	}
	return stores
}

// forEachStore runs f once per store, as a subtest.
func forEachStore(t *testing.T, f func(t *testing.T, newStore func(t *testing.T) cache.Store)) {
	t.Helper()
	for _, s := range syncStores(t) {
		t.Run(s.name, func(t *testing.T) { f(t, s.new) })
	}
}

// quick are options that do not sleep between retries.
func quick(o cache.SyncOptions) cache.SyncOptions {
	if o.RetryDelay == 0 {
		o.RetryDelay = time.Millisecond
	}
	return o
}

// newSource serves a catalogue of 17 apps of 10 actions, 10 actions a page: 17 pages.
func newSource() *fakeSource {
	apps, actions := testCatalogue(17, 10)
	return &fakeSource{apps: apps, actions: actions, pageSize: 10, appPage: 5}
}

func mustSync(t *testing.T, st cache.Store, src cache.Source, o cache.SyncOptions) cache.SyncReport {
	t.Helper()
	rep, err := cache.Sync(context.Background(), st, src, quick(o))
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return rep
}

func lastJob(t *testing.T, st cache.Store) cache.SyncJob {
	t.Helper()
	jobs, err := st.SyncJobs(context.Background(), 1)
	if err != nil || len(jobs) == 0 {
		t.Fatalf("SyncJobs: %v, %d jobs", err, len(jobs))
	}
	return jobs[0]
}

// ignoreTimes ignores UpdatedAt fields, which the store sets.
var ignoreTimes = cmp.FilterPath(func(p cmp.Path) bool {
	return p.Last().String() == ".UpdatedAt"
}, cmp.Ignore())

func TestSyncFullThenUnchanged(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(*testing.T) cache.Store) {
		st := newStore(t)
		src := newSource()

		rep := mustSync(t, st, src, cache.SyncOptions{})
		wantApplied := cache.ApplyResult{AppsWritten: 17, ActionsWritten: 170}
		if diff := cmp.Diff(wantApplied, rep.Applied); diff != "" {
			t.Errorf("first sync applied (-want +got):\n%s", diff)
		}
		if rep.Pages != 4+17 || rep.AppsListed != 17 || rep.ActionsListed != 170 || !rep.StatsWritten {
			t.Errorf("first sync report = %+v", rep)
		}
		got := cachetest.Snapshot(t, st)
		want := slices.Clone(src.actions)
		slices.SortFunc(want, func(a, b cache.Action) int { return strings.Compare(a.Slug, b.Slug) })
		if diff := cmp.Diff(want, got.Actions, ignoreTimes); diff != "" {
			t.Errorf("stored actions (-want +got):\n%s", diff)
		}
		for _, a := range got.Apps {
			if a.ActionCount != 10 {
				t.Errorf("app %s: ActionCount = %d, want 10", a.Slug, a.ActionCount)
			}
		}
		job := lastJob(t, st)
		wantJob := cache.SyncJob{ID: rep.Job.ID, Type: "full", Status: cache.JobSucceeded, AppsSynced: 17, ActionsSynced: 170}
		if diff := cmp.Diff(wantJob, job, cmpIgnoreJobTimes); diff != "" {
			t.Errorf("job (-want +got):\n%s", diff)
		}
		if job.StartedAt.IsZero() || job.FinishedAt.Before(job.StartedAt) {
			t.Errorf("job times: started %v, finished %v", job.StartedAt, job.FinishedAt)
		}
		stats, err := st.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for k, want := range map[string]string{
			cache.StatTotalApps:       "17",
			cache.StatTotalActions:    "170",
			cache.StatAppsWithActions: "17",
			cache.StatCategories:      `{"communication":5,"crm":4,"developer tools":4,"productivity":4}`,
		} {
			if !jsonSame(t, want, stats[k]) {
				t.Errorf("stats[%q] = %s, want %s", k, stats[k], want)
			}
		}

		// Re-sync with nothing changed: every row unchanged, times kept, nothing written.
		before := cachetest.Snapshot(t, st)
		rep = mustSync(t, st, src, cache.SyncOptions{})
		wantApplied = cache.ApplyResult{AppsUnchanged: 17, ActionsUnchanged: 170}
		if diff := cmp.Diff(wantApplied, rep.Applied); diff != "" {
			t.Errorf("re-sync applied (-want +got):\n%s", diff)
		}
		if rep.StatsWritten {
			t.Error("re-sync wrote stats though nothing changed")
		}
		if diff := cmp.Diff(before, cachetest.Snapshot(t, st)); diff != "" {
			t.Errorf("re-sync changed the store (-before +after):\n%s", diff)
		}
		if j := lastJob(t, st); j.Status != cache.JobSucceeded || j.ActionsSynced != 0 || j.AppsSynced != 0 {
			t.Errorf("re-sync job = %+v", j)
		}
	})
}

var cmpIgnoreJobTimes = cmp.FilterPath(func(p cmp.Path) bool {
	s := p.Last().String()
	return s == ".StartedAt" || s == ".FinishedAt"
}, cmp.Ignore())

func jsonSame(t *testing.T, want string, got json.RawMessage) bool {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if json.Unmarshal(got, &g) != nil {
		return false
	}
	return cmp.Equal(w, g)
}

// TestSyncFailureLeavesCatalogue injects faults into a sync over a synced store: each must
// fail, leave the catalogue exactly as it was, and mark the job failed with the reason.
func TestSyncFailureLeavesCatalogue(t *testing.T) {
	tests := []struct {
		name    string
		inject  func(src *fakeSource)
		opts    cache.SyncOptions
		wantIs  error  // optional
		wantMsg string // in the error and the job's error
	}{
		{
			name: "page 7 of 17 fails",
			inject: func(src *fakeSource) {
				src.actionFaults = map[int]*fault{7: {err: errors.New("fake: 500 internal error")}}
			},
			wantMsg: "list actions, page 7: fake: 500 internal error",
		},
		{
			name: "429 on page 7 outlasts the retries",
			inject: func(src *fakeSource) {
				src.actionFaults = map[int]*fault{7: {err: transientErr("page 7"), times: 3}}
			},
			wantIs:  cache.ErrTransient,
			wantMsg: "page 7",
		},
		{
			name:    "app listing fails",
			inject:  func(src *fakeSource) { src.appFaults = map[int]*fault{2: {err: errors.New("fake: bad gateway")}} },
			wantMsg: "list apps, page 2",
		},
		{
			name:    "empty listing",
			inject:  func(src *fakeSource) { src.set(nil, nil) },
			wantIs:  cache.ErrTooManyDeletions,
			wantMsg: "170 of 170 actions",
		},
		{
			name: "empty action listing",
			inject: func(src *fakeSource) {
				src.set(src.apps, nil)
			},
			wantIs:  cache.ErrTooManyDeletions,
			wantMsg: "170 of 170 actions",
		},
		{
			name: "a quarter of the catalogue gone",
			inject: func(src *fakeSource) {
				src.set(src.apps[:13], src.actions[:130])
			},
			wantIs:  cache.ErrTooManyDeletions,
			wantMsg: "40 of 170 actions and 4 of 17 apps",
		},
		{
			name: "more than a tighter limit",
			inject: func(src *fakeSource) {
				src.set(src.apps[:16], src.actions[:160])
			},
			opts:    cache.SyncOptions{MaxDeleteShare: 0.05},
			wantIs:  cache.ErrTooManyDeletions,
			wantMsg: "limit of 5%",
		},
		{
			name: "an error too long for the job record",
			inject: func(src *fakeSource) {
				src.actionFaults = map[int]*fault{3: {err: errors.New("fake: " + strings.Repeat("é", 50000))}}
			},
			wantMsg: "list actions, page 3: fake: éé",
		},
		{
			name: "a cursor that loops",
			inject: func(src *fakeSource) {
				src.beforeActionPage = nil
				src.pageSize = 10
				src.actionFaults = nil
				src.loopCursor = true
			},
			wantMsg: "repeated cursor",
		},
	}
	forEachStore(t, func(t *testing.T, newStore func(*testing.T) cache.Store) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				st := newStore(t)
				src := newSource()
				mustSync(t, st, src, cache.SyncOptions{})
				before := cachetest.Snapshot(t, st)
				statsBefore, _ := st.Stats(context.Background())

				tt.inject(src)
				rep, err := cache.Sync(context.Background(), st, src, quick(tt.opts))
				if err == nil {
					t.Fatalf("Sync succeeded; report %+v", rep)
				}
				if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
					t.Errorf("error %v does not wrap %v", err, tt.wantIs)
				}
				if !strings.Contains(err.Error(), tt.wantMsg) {
					t.Errorf("error %q does not say %q", err, tt.wantMsg)
				}
				if diff := cmp.Diff(before, cachetest.Snapshot(t, st)); diff != "" {
					t.Errorf("failed sync changed the catalogue (-before +after):\n%s", diff)
				}
				statsAfter, _ := st.Stats(context.Background())
				if diff := cmp.Diff(statsBefore, statsAfter); diff != "" {
					t.Errorf("failed sync changed stats (-before +after):\n%s", diff)
				}
				job := lastJob(t, st)
				if len(job.Error) > 4<<10+len("…") {
					t.Errorf("job error is %d bytes long", len(job.Error))
				}
				if job.Status != cache.JobFailed || !strings.Contains(job.Error, tt.wantMsg) || job.FinishedAt.IsZero() {
					t.Errorf("job = %+v, want failed with %q", job, tt.wantMsg)
				}
				if diff := cmp.Diff(job, rep.Job, cmpIgnoreJobTimes); diff != "" {
					t.Errorf("report's job differs from the stored one (-stored +report):\n%s", diff)
				}
			})
		}
	})
}

func TestSyncTransientErrorsRetried(t *testing.T) {
	tests := []struct {
		name      string
		inject    func(src *fakeSource)
		wantPages int // action pages requested
	}{
		{"429 twice on page 7", func(src *fakeSource) {
			src.actionFaults = map[int]*fault{7: {err: transientErr("page 7"), times: 2}}
		}, 19},
		{"temporary error once on page 17", func(src *fakeSource) {
			src.actionFaults = map[int]*fault{17: {err: temporaryErr{}, times: 1}}
		}, 18},
		{"429 on the first app page", func(src *fakeSource) {
			src.appFaults = map[int]*fault{1: {err: transientErr("apps"), times: 1}}
		}, 17},
	}
	forEachStore(t, func(t *testing.T, newStore func(*testing.T) cache.Store) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				st := newStore(t)
				src := newSource()
				tt.inject(src)
				rep := mustSync(t, st, src, cache.SyncOptions{})
				if rep.Applied.ActionsWritten != 170 {
					t.Errorf("ActionsWritten = %d, want 170", rep.Applied.ActionsWritten)
				}
				if _, pages, _ := src.calls(); pages != tt.wantPages {
					t.Errorf("action pages requested = %d, want %d", pages, tt.wantPages)
				}
			})
		}
	})
}

func TestSyncNoRetryWhenOff(t *testing.T) {
	st := cache.NewMemory()
	src := newSource()
	src.actionFaults = map[int]*fault{3: {err: transientErr("page 3"), times: 1}}
	_, err := cache.Sync(context.Background(), st, src, quick(cache.SyncOptions{Retries: -1}))
	if !errors.Is(err, cache.ErrTransient) {
		t.Fatalf("Sync error = %v, want ErrTransient", err)
	}
	if _, pages, _ := src.calls(); pages != 3 {
		t.Errorf("action pages requested = %d, want 3", pages)
	}
}

func TestSyncChanges(t *testing.T) {
	tests := []struct {
		name        string
		change      func(src *fakeSource)
		opts        cache.SyncOptions
		wantApplied cache.ApplyResult
		gone        []string // action slugs that must be gone
		present     []string // action slugs that must be stored
		check       func(t *testing.T, st cache.Store, rep cache.SyncReport)
	}{
		{
			name: "action renamed",
			change: func(src *fakeSource) {
				src.actions[33].Slug = "APP03_SEND_A_MESSAGE"
			},
			wantApplied: cache.ApplyResult{AppsUnchanged: 17, ActionsWritten: 1, ActionsUnchanged: 169, ActionsDeleted: 1},
			gone:        []string{"APP03_CREATE_ITEM"},
			present:     []string{"APP03_SEND_A_MESSAGE"},
		},
		{
			name: "description changed",
			change: func(src *fakeSource) {
				src.actions[5].Description = "Deletes one item for good."
			},
			wantApplied: cache.ApplyResult{AppsUnchanged: 17, ActionsWritten: 1, ActionsUnchanged: 169},
			check: func(t *testing.T, st cache.Store, _ cache.SyncReport) {
				a, err := st.Action(context.Background(), "APP00_DELETE_ITEM")
				if err != nil || a.Description != "Deletes one item for good." {
					t.Errorf("Action = %+v, %v", a, err)
				}
			},
		},
		{
			name: "two apps removed, within the share",
			change: func(src *fakeSource) {
				src.set(src.apps[:15], src.actions[:150])
			},
			wantApplied: cache.ApplyResult{AppsUnchanged: 15, AppsDeleted: 2, ActionsUnchanged: 150, ActionsDeleted: 20},
			gone:        []string{"APP15_SEND_MESSAGE", "APP16_UPLOAD_FILE"},
			check: func(t *testing.T, st cache.Store, _ cache.SyncReport) {
				if _, err := st.App(context.Background(), "app16"); !errors.Is(err, cache.ErrNotFound) {
					t.Errorf("App(app16) error = %v, want ErrNotFound", err)
				}
			},
		},
		{
			name:        "empty listing, forced",
			change:      func(src *fakeSource) { src.set(nil, nil) },
			opts:        cache.SyncOptions{Force: true},
			wantApplied: cache.ApplyResult{AppsDeleted: 17, ActionsDeleted: 170},
			gone:        []string{"APP00_SEND_MESSAGE"},
		},
		{
			name: "duplicate slugs across pages",
			change: func(src *fakeSource) {
				src.overlap = 3
			},
			wantApplied: cache.ApplyResult{AppsUnchanged: 17, ActionsUnchanged: 170},
			check: func(t *testing.T, st cache.Store, rep cache.SyncReport) {
				if rep.Duplicates != 16*3 || rep.ActionsListed != 170 {
					t.Errorf("Duplicates = %d, ActionsListed = %d; want 48, 170", rep.Duplicates, rep.ActionsListed)
				}
			},
		},
		{
			name: "a duplicate with newer content later in the listing wins",
			change: func(src *fakeSource) {
				dup := src.actions[0]
				dup.Description = "Newer copy."
				src.actions = append(src.actions, dup)
			},
			wantApplied: cache.ApplyResult{AppsUnchanged: 17, ActionsWritten: 1, ActionsUnchanged: 169},
			check: func(t *testing.T, st cache.Store, rep cache.SyncReport) {
				a, _ := st.Action(context.Background(), "APP00_SEND_MESSAGE")
				if a.Description != "Newer copy." || rep.Duplicates != 1 {
					t.Errorf("description %q, duplicates %d", a.Description, rep.Duplicates)
				}
			},
		},
		{
			name: "a row the store would refuse is skipped and its stored copy kept",
			change: func(src *fakeSource) {
				src.actions[1].Parameters = json.RawMessage(`[1,2]`)
				src.actions[2].Description = "Changed."
			},
			wantApplied: cache.ApplyResult{AppsUnchanged: 17, ActionsWritten: 1, ActionsUnchanged: 168},
			present:     []string{"APP00_LIST_ITEMS"},
			check: func(t *testing.T, st cache.Store, rep cache.SyncReport) {
				if rep.Skipped != 1 {
					t.Errorf("Skipped = %d, want 1", rep.Skipped)
				}
			},
		},
		{
			name: "rows with a NUL or bytes that are not UTF-8 are skipped and reported; their stored copies kept",
			change: func(src *fakeSource) {
				src.actions[1].Parameters = json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"a\u0000b"}}}`)
				src.actions[3].Parameters = json.RawMessage("{\"type\":\"object\",\"description\":\"caf\xe9\"}")
				src.actions[4].Description = "Updates\x00 an item."
				src.actions[6].Tags = []string{"tag\xff"}
				src.apps[2].DisplayName = "App\x00 02"
			},
			wantApplied: cache.ApplyResult{AppsUnchanged: 17, ActionsUnchanged: 166},
			check: func(t *testing.T, st cache.Store, rep cache.SyncReport) {
				orig := newSource()
				for _, i := range []int{1, 3, 4, 6} {
					want := orig.actions[i]
					a, err := st.Action(context.Background(), want.Slug)
					if err != nil || string(a.Parameters) != string(want.Parameters) || a.Description != want.Description || a.Tags != nil {
						t.Errorf("stored copy of %s = %+v, %v; want it unchanged", want.Slug, a, err)
					}
				}
				if a, err := st.App(context.Background(), "app02"); err != nil || a.DisplayName != "App 02" {
					t.Errorf("stored copy of app02 = %+v, %v; want it unchanged", a, err)
				}
				want := []string{
					`app "app02": invalid input: app "app02": display name contains a NUL byte`,
					`action "APP00_LIST_ITEMS": invalid input: action "APP00_LIST_ITEMS": parameters contains a NUL character (\u0000)`,
					`action "APP00_CREATE_ITEM": invalid input: action "APP00_CREATE_ITEM": parameters is not valid UTF-8`,
					`action "APP00_UPDATE_ITEM": invalid input: action "APP00_UPDATE_ITEM": description contains a NUL byte`,
					`action "APP00_SEARCH": invalid input: action "APP00_SEARCH": tags[0] is not valid UTF-8`,
				}
				if rep.Skipped != len(want) {
					t.Errorf("Skipped = %d, want %d", rep.Skipped, len(want))
				}
				if diff := cmp.Diff(want, rep.SkippedRows); diff != "" {
					t.Errorf("SkippedRows (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "an action of an app the app listing leaves out",
			change: func(src *fakeSource) {
				src.actions = append(src.actions, cache.Action{App: "new_tool", Slug: "NEW_TOOL_PING", DisplayName: "Ping",
					Description: "Pings.", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)})
			},
			wantApplied: cache.ApplyResult{AppsWritten: 1, AppsUnchanged: 17, ActionsWritten: 1, ActionsUnchanged: 170},
			present:     []string{"NEW_TOOL_PING"},
			check: func(t *testing.T, st cache.Store, _ cache.SyncReport) {
				a, err := st.App(context.Background(), "new_tool")
				if err != nil || a.DisplayName != "New Tool" || a.ActionCount != 1 {
					t.Errorf("App(new_tool) = %+v, %v", a, err)
				}
			},
		},
	}
	forEachStore(t, func(t *testing.T, newStore func(*testing.T) cache.Store) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				st := newStore(t)
				src := newSource()
				mustSync(t, st, src, cache.SyncOptions{})
				tt.change(src)
				rep := mustSync(t, st, src, tt.opts)
				if diff := cmp.Diff(tt.wantApplied, rep.Applied); diff != "" {
					t.Errorf("applied (-want +got):\n%s", diff)
				}
				for _, s := range tt.gone {
					if _, err := st.Action(context.Background(), s); !errors.Is(err, cache.ErrNotFound) {
						t.Errorf("Action(%s) error = %v, want ErrNotFound", s, err)
					}
				}
				for _, s := range tt.present {
					if _, err := st.Action(context.Background(), s); err != nil {
						t.Errorf("Action(%s): %v", s, err)
					}
				}
				if tt.check != nil {
					tt.check(t, st, rep)
				}
				if j := lastJob(t, st); j.ActionsDeleted != tt.wantApplied.ActionsDeleted || j.Status != cache.JobSucceeded {
					t.Errorf("job = %+v", j)
				}
			})
		}
	})
}

func TestSyncBackfill(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(*testing.T) cache.Store) {
		st := newStore(t)
		src := newSource()
		src.bulkWithoutParams = true
		src.appActionFaults = map[string]*fault{"app01": {err: errors.New("fake: 404")}}

		// 17 apps miss parameters; the cap lets 5 through, one of which fails.
		rep := mustSync(t, st, src, cache.SyncOptions{BackfillApps: 5})
		if rep.BackfillApps != 4 || rep.Backfilled != 40 || rep.MissingParameters != 130 {
			t.Errorf("first sync: backfill apps %d, backfilled %d, missing %d; want 4, 40, 130",
				rep.BackfillApps, rep.Backfilled, rep.MissingParameters)
		}
		if _, _, calls := src.calls(); len(calls) != 5 {
			t.Errorf("AppActions calls = %v, want 5", calls)
		}
		a, err := st.Action(context.Background(), "APP00_SEND_MESSAGE")
		if err != nil || string(a.Parameters) != string(src.actions[0].Parameters) {
			t.Errorf("backfilled parameters = %s, %v; want %s", a.Parameters, err, src.actions[0].Parameters)
		}

		// The next sync keeps what was backfilled and fetches 5 more apps.
		rep = mustSync(t, st, src, cache.SyncOptions{BackfillApps: 5})
		if rep.BackfillApps != 4 || rep.Backfilled != 40 || rep.MissingParameters != 90 {
			t.Errorf("second sync: backfill apps %d, backfilled %d, missing %d; want 4, 40, 90",
				rep.BackfillApps, rep.Backfilled, rep.MissingParameters)
		}
		if rep.Applied.ActionsWritten != 40 || rep.Applied.ActionsUnchanged != 130 {
			t.Errorf("second sync applied %+v; want 40 written, 130 unchanged", rep.Applied)
		}

		// Backfill-only mode fills the rest but app01, which still fails.
		rep = mustSync(t, st, src, cache.SyncOptions{Mode: cache.SyncBackfill})
		if rep.Backfilled != 80 || rep.MissingParameters != 10 || rep.Applied.ActionsWritten != 80 {
			t.Errorf("backfill: backfilled %d, missing %d, applied %+v", rep.Backfilled, rep.MissingParameters, rep.Applied)
		}
		if j := lastJob(t, st); j.Type != "backfill" || j.Status != cache.JobSucceeded {
			t.Errorf("backfill job = %+v", j)
		}
		acts, _ := st.Actions(context.Background(), cache.ActionFilter{Apps: []string{"app05"}})
		wantParams := map[string]string{}
		for _, a := range src.actions {
			wantParams[a.Slug] = string(a.Parameters)
		}
		if len(acts) != 10 {
			t.Errorf("app05 has %d actions, want 10", len(acts))
		}
		for _, a := range acts {
			if want := wantParams[a.Slug]; string(a.Parameters) != want {
				t.Errorf("%s parameters = %s, want %s", a.Slug, a.Parameters, want)
			}
		}

		// Backfill off: nothing fetched.
		before := len(src.appActionsCalls)
		rep = mustSync(t, st, src, cache.SyncOptions{BackfillApps: -1})
		if _, _, calls := src.calls(); len(calls) != before || rep.MissingParameters != 10 {
			t.Errorf("backfill off: %d calls made, missing %d", len(calls)-before, rep.MissingParameters)
		}
	})
}

func TestSyncIncremental(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(*testing.T) cache.Store) {
		st := newStore(t)
		src := newSource()

		// No sync succeeded yet: a full sync runs.
		rep := mustSync(t, st, src, cache.SyncOptions{Mode: cache.SyncIncremental})
		if rep.Mode != cache.SyncFull || rep.Fallback == "" || rep.Applied.ActionsWritten != 170 {
			t.Errorf("first incremental: mode %q, fallback %q, applied %+v", rep.Mode, rep.Fallback, rep.Applied)
		}
		if j := lastJob(t, st); j.Type != "full" {
			t.Errorf("first incremental recorded as %q, want full", j.Type)
		}

		// One app moves to a new version with a changed and a new action; another app's
		// action changes without a version bump, which incremental cannot see.
		src.apps[5].LatestVersion = "20260201_00"
		src.actions[52].Description = "Changed in the new version."
		src.actions = append(src.actions, cache.Action{App: "app05", Slug: "APP05_EXPORT", DisplayName: "Export",
			Description: "Exports items.", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)})
		src.actions[80].Description = "Changed without a version bump."
		src.actionQueries = nil

		rep = mustSync(t, st, src, cache.SyncOptions{Mode: cache.SyncIncremental})
		if rep.Mode != cache.SyncIncremental || rep.AppsChanged != 1 {
			t.Errorf("incremental: mode %q (fallback %q), %d apps changed", rep.Mode, rep.Fallback, rep.AppsChanged)
		}
		want := cache.ApplyResult{AppsWritten: 1, AppsUnchanged: 16, ActionsWritten: 2, ActionsUnchanged: 9}
		if diff := cmp.Diff(want, rep.Applied); diff != "" {
			t.Errorf("incremental applied (-want +got):\n%s", diff)
		}
		for _, q := range src.actionQueries {
			if diff := cmp.Diff([]string{"app05"}, q.Apps); diff != "" {
				t.Errorf("incremental listed actions of (-want +got):\n%s", diff)
			}
		}
		if a, _ := st.App(context.Background(), "app05"); a.ActionCount != 11 || a.LatestVersion != "20260201_00" {
			t.Errorf("app05 = %+v", a)
		}
		if a, _ := st.Action(context.Background(), src.actions[80].Slug); a.Description == "Changed without a version bump." {
			t.Error("incremental rewrote an app whose version did not change")
		}
		if j := lastJob(t, st); j.Type != "incremental" || j.Status != cache.JobSucceeded {
			t.Errorf("job = %+v", j)
		}

		// An app removed at the source, within the share, is deleted by incremental too.
		src.set(src.apps[:16], src.actions[:160])
		rep = mustSync(t, st, src, cache.SyncOptions{Mode: cache.SyncIncremental})
		if rep.Applied.AppsDeleted != 1 {
			t.Errorf("removed app: applied %+v", rep.Applied)
		}
		if _, err := st.Action(context.Background(), "APP16_SEND_MESSAGE"); !errors.Is(err, cache.ErrNotFound) {
			t.Errorf("action of the removed app: %v", err)
		}

		// Most apps without a version: the source cannot tell, so a full sync runs.
		for i := range src.apps {
			src.apps[i].LatestVersion = ""
		}
		rep = mustSync(t, st, src, cache.SyncOptions{Mode: cache.SyncIncremental})
		if rep.Mode != cache.SyncFull || !strings.Contains(rep.Fallback, "16 of 16 apps") {
			t.Errorf("unversioned: mode %q, fallback %q", rep.Mode, rep.Fallback)
		}
		if a, _ := st.Action(context.Background(), src.actions[80].Slug); a.Description != "Changed without a version bump." {
			t.Error("the full fallback missed a change")
		}
	})
}

func TestSyncCancelled(t *testing.T) {
	tests := []struct {
		name   string
		inject func(src *fakeSource, cancel context.CancelFunc)
	}{
		{"mid listing, at page 9", func(src *fakeSource, cancel context.CancelFunc) {
			src.beforeActionPage = func(_ context.Context, page int) {
				if page == 9 {
					cancel()
				}
			}
		}},
		{"during the backfill", func(src *fakeSource, cancel context.CancelFunc) {
			src.bulkWithoutParams = true
			src.beforeAppActions = func(_ context.Context, app string) {
				if app == "app02" {
					cancel()
				}
			}
		}},
	}
	forEachStore(t, func(t *testing.T, newStore func(*testing.T) cache.Store) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				st := newStore(t)
				src := newSource()
				// The baseline has no parameters, so the second sync backfills.
				src.bulkWithoutParams = true
				mustSync(t, st, src, cache.SyncOptions{BackfillApps: -1})
				src.bulkWithoutParams = false
				before := cachetest.Snapshot(t, st)
				src.actions[0].Description = "Changed; must not be written."

				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				tt.inject(src, cancel)
				_, err := cache.Sync(ctx, st, src, quick(cache.SyncOptions{}))
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("Sync error = %v, want context.Canceled", err)
				}
				if diff := cmp.Diff(before, cachetest.Snapshot(t, st)); diff != "" {
					t.Errorf("cancelled sync changed the catalogue (-before +after):\n%s", diff)
				}
				if j := lastJob(t, st); j.Status != cache.JobCancelled || !strings.Contains(j.Error, "context canceled") {
					t.Errorf("job = %+v, want cancelled", j)
				}
			})
		}
	})
}

func TestSyncProgress(t *testing.T) {
	st := cache.NewMemory()
	src := newSource()
	src.bulkWithoutParams = true
	var got []cache.SyncProgress
	mustSync(t, st, src, cache.SyncOptions{BackfillApps: 3, Progress: func(p cache.SyncProgress) { got = append(got, p) }})

	var phases []cache.SyncPhase
	for i, p := range got {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
		if i > 0 && (p.Pages < got[i-1].Pages || p.Actions < got[i-1].Actions || p.Apps < got[i-1].Apps) {
			t.Errorf("progress went back: %+v after %+v", p, got[i-1])
		}
	}
	wantPhases := []cache.SyncPhase{cache.PhaseApps, cache.PhaseActions, cache.PhaseBackfill, cache.PhaseWrite, cache.PhaseStats, cache.PhaseDone}
	if _, ok := cache.Store(st).(cache.SyncLocker); ok {
		wantPhases = append([]cache.SyncPhase{cache.PhaseLock}, wantPhases...)
	}
	if diff := cmp.Diff(wantPhases, phases); diff != "" {
		t.Errorf("phases (-want +got):\n%s", diff)
	}
	last := got[len(got)-1]
	want := cache.SyncProgress{Phase: cache.PhaseDone, Pages: 21, Apps: 17, AppsTotal: 17, Actions: 170, ActionsTotal: 170, Backfill: 3, BackfillTotal: 3}
	if diff := cmp.Diff(want, last); diff != "" {
		t.Errorf("last progress (-want +got):\n%s", diff)
	}
}

func TestSyncBadArguments(t *testing.T) {
	tests := []struct {
		name string
		st   cache.Store
		src  cache.Source
		opts cache.SyncOptions
	}{
		{"nil store", nil, newSource(), cache.SyncOptions{}},
		{"nil source", cache.NewMemory(), nil, cache.SyncOptions{}},
		{"unknown mode", cache.NewMemory(), newSource(), cache.SyncOptions{Mode: "sometimes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := cache.Sync(context.Background(), tt.st, tt.src, tt.opts); !errors.Is(err, cache.ErrInvalid) {
				t.Errorf("Sync error = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestSyncBackfillDefaultCap(t *testing.T) {
	apps, actions := testCatalogue(35, 2)
	src := &fakeSource{apps: apps, actions: actions, pageSize: 50, bulkWithoutParams: true}
	rep := mustSync(t, cache.NewMemory(), src, cache.SyncOptions{})
	if rep.BackfillApps != 30 || rep.Backfilled != 60 || rep.MissingParameters != 10 {
		t.Errorf("default backfill: %d apps, %d actions filled, %d missing; want 30, 60, 10",
			rep.BackfillApps, rep.Backfilled, rep.MissingParameters)
	}
}
