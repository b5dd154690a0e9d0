package cache_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolhint/toolhint/cache"
)

// pgActionsBatch is a small two-app catalogue for the AppActions cache tests, with
// parameter schemas whose exact bytes (spacing, key order, escapes) must survive, flags,
// tags, and texts holding LIKE's pattern characters.
func pgActionsBatch() cache.Batch {
	b := pgMetaBatch()
	yes, no := true, false
	b.Actions = append(b.Actions,
		cache.Action{
			App: "gmail", Slug: "GMAIL_QUOTA", DisplayName: "Quota at 100%",
			Description: "Reports usage_percent of the mailbox",
			Parameters:  json.RawMessage(`{ "type" : "object",  "properties":{"z":{},"a":{"description":"caf\u00e9 \"q\""}}}`),
			Response:    json.RawMessage(`{"type":"object"}`),
			Tags:        []string{"read", "quota"},
			Destructive: &no, ReadOnly: &yes,
		},
		cache.Action{
			App: "gmail", Slug: "GMAIL_PURGE", DisplayName: "Purge trash",
			Description: `Deletes C:\trash items for good`,
			Tags:        []string{"delete"},
			Destructive: &yes,
		},
	)
	return b
}

// pgActionsQueries are the AppActions requests the cache tests compare with the memory
// store: paging, searches (case, LIKE pattern characters taken literally), unknown apps.
func pgActionsQueries() []cache.AppActionsQuery {
	var qs []cache.AppActionsQuery
	for _, ws := range []string{"", "ws-1", "ws-2"} {
		for _, q := range []cache.AppActionsQuery{
			{App: "gmail"},
			{App: " GMAIL ", Limit: 2},
			{App: "gmail", Limit: 2, Offset: 2},
			{App: "gmail", Offset: 50},
			{App: "gmail", Search: "ACTION"},
			{App: "gmail", Search: "%"},
			{App: "gmail", Search: "_"},
			{App: "gmail", Search: "0%"},
			{App: "gmail", Search: "E_P"},
			{App: "gmail", Search: `c:\t`},
			{App: "gmail", Search: "nothing like it"},
			{App: "gmail", Search: "number", Limit: 1, Offset: 1},
			{App: "slack"},
			{App: "slack", Search: "message 2"},
			{App: "nosuch"},
		} {
			q.WorkspaceID = ws
			qs = append(qs, q)
		}
	}
	return qs
}

// pgIgnoreUpdatedAt leaves out the write times, which differ between stores.
var pgIgnoreUpdatedAt = cmpopts.IgnoreFields(cache.Action{}, "UpdatedAt")

// pgActionsResult is an AppActions outcome in a comparable form.
type pgActionsResult struct {
	Page     cache.ActionPage
	NotFound bool
}

func pgReadActions(t *testing.T, st cache.Store, q cache.AppActionsQuery) pgActionsResult {
	t.Helper()
	page, err := st.AppActions(context.Background(), q)
	if errors.Is(err, cache.ErrNotFound) {
		return pgActionsResult{NotFound: true}
	}
	if err != nil {
		t.Fatalf("AppActions(%+v): %v", q, err)
	}
	return pgActionsResult{Page: page}
}

// TestPostgresAppActionsSeesOtherStoresWrites warms store A's action cache, writes
// through store B (another process on the same schema), catalogue and tool configs, and
// checks that A's next AppActions returns what a memory store given the same writes
// returns, byte-exact schemas included.
func TestPostgresAppActionsSeesOtherStoresWrites(t *testing.T) {
	ctx := context.Background()
	a, b := pgOpenPair(t)

	changed := pgActionsBatch()
	changed.Apps, changed.Actions = nil, changed.Actions[:1]
	changed.Actions[0].Description = "Archives every unread message in the inbox"
	changed.Actions[0].Parameters = json.RawMessage(`{"type":"object","required":["id"]}`)
	steps := []pgSharedStep{
		{"initial import", func(st cache.Store) error { _, err := st.Apply(ctx, pgActionsBatch()); return err }},
		{"unchanged re-import", func(st cache.Store) error { _, err := st.Apply(ctx, pgActionsBatch()); return err }},
		{"save enabled actions", func(st cache.Store) error {
			return st.SaveEnabledActions(ctx, "ws-1", "gmail", []string{"GMAIL_QUOTA", "GMAIL_ACTION_001"})
		}},
		{"save enabled actions, other app", func(st cache.Store) error {
			return st.SaveEnabledActions(ctx, "ws-2", "slack", []string{})
		}},
		{"disable the app", func(st cache.Store) error { return st.SetAppEnabled(ctx, "ws-1", "gmail", false) }},
		{"change an action", func(st cache.Store) error { _, err := st.Apply(ctx, changed); return err }},
		{"add an action", func(st cache.Store) error {
			_, err := st.Apply(ctx, cache.Batch{Actions: []cache.Action{{App: "slack", Slug: "SLACK_CREATE_CHANNEL", DisplayName: "Create channel", Description: "Creates a channel"}}})
			return err
		}},
		{"enable all again", func(st cache.Store) error { return st.SaveEnabledActions(ctx, "ws-1", "gmail", nil) }},
		{"delete an action", func(st cache.Store) error {
			_, err := st.Apply(ctx, cache.Batch{DeleteActions: []string{"GMAIL_ACTION_002"}})
			return err
		}},
		{"delete an app", func(st cache.Store) error {
			_, err := st.Apply(ctx, cache.Batch{DeleteApps: []string{"slack"}})
			return err
		}},
		{"import again", func(st cache.Store) error { _, err := st.Apply(ctx, pgActionsBatch()); return err }},
	}
	for _, q := range pgActionsQueries() { // warm A's cache on the empty catalogue
		if got := pgReadActions(t, a, q); !got.NotFound {
			t.Fatalf("empty store: AppActions(%+v) = %+v, want ErrNotFound", q, got)
		}
	}
	pgCheckSharedWrites(t, a, b, steps, pgActionsQueries(), pgReadActions,
		func(q cache.AppActionsQuery) string { return fmt.Sprintf("AppActions(%+v)", q) }, pgIgnoreUpdatedAt)
}

// TestPostgresAppActionsCopies checks that a caller changing what AppActions returned
// (schema bytes, tags, flags, appending) does not change what the next call returns.
func TestPostgresAppActionsCopies(t *testing.T) {
	ctx := context.Background()
	a, _ := pgOpenPair(t)
	if _, err := a.Apply(ctx, pgActionsBatch()); err != nil {
		t.Fatal(err)
	}
	mirror := cache.NewMemory()
	if _, err := mirror.Apply(ctx, pgActionsBatch()); err != nil {
		t.Fatal(err)
	}
	q := cache.AppActionsQuery{App: "gmail", WorkspaceID: "ws-1"}
	// The expected page comes from another store: a page from a would share whatever it
	// wrongly shares with the cache.
	want := pgReadActions(t, mirror, q)
	if len(want.Page.Actions) == 0 {
		t.Fatal("no actions")
	}
	got := pgReadActions(t, a, q) // fills the cache
	if diff := cmp.Diff(want, got, pgIgnoreUpdatedAt); diff != "" {
		t.Fatalf("AppActions mismatch (-want +got):\n%s", diff)
	}
	got = pgReadActions(t, a, q) // served from the cache
	for i := range got.Page.Actions {
		x := &got.Page.Actions[i].Action
		for j := range x.Parameters {
			x.Parameters[j] = 'X'
		}
		for j := range x.Response {
			x.Response[j] = 'X'
		}
		for j := range x.Tags {
			x.Tags[j] = "changed"
		}
		x.Tags = append(x.Tags, "appended")
		x.Parameters = append(x.Parameters, '!')
		if x.Destructive != nil {
			*x.Destructive = !*x.Destructive
		}
		if x.ReadOnly != nil {
			*x.ReadOnly = !*x.ReadOnly
		}
		x.Description = "changed"
	}
	if diff := cmp.Diff(want, pgReadActions(t, a, q), pgIgnoreUpdatedAt); diff != "" {
		t.Errorf("after the caller changed a result, AppActions mismatch (-want +got):\n%s", diff)
	}
}

// TestPostgresAppActionsErrors checks that bad arguments and a cancelled context fail as
// they did before the cache, whether or not the cache is warm.
func TestPostgresAppActionsErrors(t *testing.T) {
	ctx := context.Background()
	a, _ := pgOpenPair(t)
	if _, err := a.Apply(ctx, pgActionsBatch()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AppActions(ctx, cache.AppActionsQuery{App: "gmail"}); err != nil { // warm
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		q    cache.AppActionsQuery
		want error
	}{
		{"invalid slug", ctx, cache.AppActionsQuery{App: "bad slug!"}, cache.ErrInvalid},
		{"negative offset", ctx, cache.AppActionsQuery{App: "gmail", Offset: -1}, cache.ErrInvalid},
		{"unknown app", ctx, cache.AppActionsQuery{App: "nosuch"}, cache.ErrNotFound},
		{"cancelled, cached app", cancelled, cache.AppActionsQuery{App: "gmail"}, context.Canceled},
		{"cancelled, uncached app", cancelled, cache.AppActionsQuery{App: "slack"}, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := a.AppActions(tc.ctx, tc.q)
			if !errors.Is(err, tc.want) {
				t.Errorf("AppActions(%+v) = %d actions, %v; want %v", tc.q, len(page.Actions), err, tc.want)
			}
		})
	}
}

// TestPostgresAppActionsConcurrent reads through one store from several goroutines while
// another store rewrites the catalogue and a tool config, then checks the reader ends on
// the final state.
func TestPostgresAppActionsConcurrent(t *testing.T) {
	ctx := context.Background()
	a, b := pgOpenPair(t)
	if _, err := b.Apply(ctx, pgActionsBatch()); err != nil {
		t.Fatal(err)
	}
	queries := pgActionsQueries()
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := r; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				q := queries[i%len(queries)]
				page, err := a.AppActions(ctx, q)
				switch {
				case q.App == "nosuch" && errors.Is(err, cache.ErrNotFound):
					err = nil
				case err == nil && q.App == "slack" && q.Search == "" && page.Total != 3:
					err = fmt.Errorf("AppActions(%+v) total = %d, want 3", q, page.Total)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var last cache.Batch
	for i := range 8 {
		last = pgActionsBatch()
		for j := range last.Actions {
			last.Actions[j].Description = fmt.Sprintf("Revision %d of %s", i, last.Actions[j].Slug)
		}
		if _, err := b.Apply(ctx, last); err != nil {
			t.Fatal(err)
		}
		if err := b.SaveEnabledActions(ctx, "ws-1", "gmail", []string{fmt.Sprintf("GMAIL_ACTION_%03d", i%5)}); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	mirror := cache.NewMemory()
	if _, err := mirror.Apply(ctx, last); err != nil {
		t.Fatal(err)
	}
	if err := mirror.SaveEnabledActions(ctx, "ws-1", "gmail", []string{"GMAIL_ACTION_002"}); err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		if diff := cmp.Diff(pgReadActions(t, mirror, q), pgReadActions(t, a, q), pgIgnoreUpdatedAt); diff != "" {
			t.Errorf("after the writes, AppActions(%+v) mismatch (-want +got):\n%s", q, diff)
		}
	}
}

// BenchmarkPostgresAppActionsAfterWrite lists all of the biggest shared app's actions when
// every call follows a catalogue write (one of its actions' description changes, outside
// the timer), so the store's action cache is stale and the app is read and decoded again:
// the cost AppActions paid on every call before it cached.
func BenchmarkPostgresAppActionsAfterWrite(b *testing.B) {
	st := pgLoadCatalogue(b)
	ctx := context.Background()
	q := cache.AppActionsQuery{App: "github", WorkspaceID: "ws-bench", Limit: 1000}
	page, err := st.AppActions(ctx, q)
	if err != nil || len(page.Actions) == 0 {
		b.Fatalf("AppActions = %d actions, %v", len(page.Actions), err)
	}
	a := page.Actions[0].Action
	desc := a.Description
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		a.Description = fmt.Sprintf("%s (revision %d)", desc, i)
		if _, err := st.Apply(ctx, cache.Batch{Actions: []cache.Action{a}}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		page, err := st.AppActions(ctx, q)
		if err != nil || len(page.Actions) != page.Total {
			b.Fatalf("AppActions = %d actions of %d, %v", len(page.Actions), page.Total, err)
		}
	}
}
