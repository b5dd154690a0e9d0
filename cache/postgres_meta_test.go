package cache_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
)

// pgMetaBatch is a small two-app catalogue for the ActionMeta cache tests.
func pgMetaBatch() cache.Batch {
	b := pgSmallBatch(5)
	b.Apps = append(b.Apps, cache.App{Slug: "slack", DisplayName: "Slack"})
	for i := range 3 {
		b.Actions = append(b.Actions, cache.Action{
			App:         "slack",
			Slug:        fmt.Sprintf("SLACK_SEND_%d", i),
			DisplayName: fmt.Sprintf("Send message %d", i),
			Description: "Sends a message to a channel",
		})
	}
	return b
}

// pgOpenPair opens two stores on one fresh schema, as two processes sharing a database.
func pgOpenPair(t *testing.T) (a, b *cache.Postgres) {
	t.Helper()
	dsn := newTestSchema(t, pgTestDSN(t))
	return pgOpen(t, dsn), pgOpen(t, dsn)
}

// pgOpen opens a store on dsn, closed when t ends.
func pgOpen(t *testing.T, dsn string) *cache.Postgres {
	t.Helper()
	st, err := cache.OpenPostgres(context.Background(), dsn)
	if err != nil {
		t.Fatalf("OpenPostgres: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// pgSharedStep is one write of a test that writes through one store and reads through
// another on the same schema.
type pgSharedStep struct {
	name  string
	write func(st cache.Store) error
}

// pgCheckSharedWrites runs each step's write through b and through a memory mirror, then
// checks that, for every query, a and b read what the mirror reads. call names a query in
// failure messages.
func pgCheckSharedWrites[Q, R any](t *testing.T, a, b *cache.Postgres, steps []pgSharedStep, queries []Q,
	read func(t *testing.T, st cache.Store, q Q) R, call func(q Q) string, opts ...cmp.Option) {
	t.Helper()
	mirror := cache.NewMemory()
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			if err := step.write(b); err != nil {
				t.Fatalf("write through B: %v", err)
			}
			if err := step.write(mirror); err != nil {
				t.Fatalf("write to the memory mirror: %v", err)
			}
			for _, q := range queries {
				want := read(t, mirror, q)
				// Twice: the first read may fill the cache, the second is served from it.
				for i := range 2 {
					if diff := cmp.Diff(want, read(t, a, q), opts...); diff != "" {
						t.Errorf("read %d of A, %s mismatch (-want +got):\n%s", i, call(q), diff)
					}
				}
				if diff := cmp.Diff(want, read(t, b, q), opts...); diff != "" {
					t.Errorf("B, %s mismatch (-want +got):\n%s", call(q), diff)
				}
			}
		})
	}
}

// pgMetaRequests are the app sets the cache tests read: all apps, one app, several apps,
// and sets naming unknown apps.
var pgMetaRequests = [][]string{
	nil,
	{"gmail"},
	{"slack"},
	{"gmail", "slack"},
	{"SLACK", " gmail ", "nosuch", "slack"},
	{"nosuch"},
}

// TestPostgresActionMetaSeesOtherStoresWrites warms store A's metadata cache, writes
// through store B (another process on the same schema), and checks that A's next
// ActionMeta returns what a memory store given the same writes returns.
func TestPostgresActionMetaSeesOtherStoresWrites(t *testing.T) {
	ctx := context.Background()
	a, b := pgOpenPair(t)

	changed := pgMetaBatch()
	changed.Apps, changed.Actions = nil, changed.Actions[:1]
	changed.Actions[0].Description = "Archives every unread message in the inbox"
	added := cache.Batch{Actions: []cache.Action{{App: "slack", Slug: "SLACK_CREATE_CHANNEL", DisplayName: "Create channel", Description: "Creates a channel"}}}

	steps := []pgSharedStep{
		{"initial import", func(st cache.Store) error { _, err := st.Apply(ctx, pgMetaBatch()); return err }},
		{"unchanged re-import", func(st cache.Store) error { _, err := st.Apply(ctx, pgMetaBatch()); return err }},
		{"change an action", func(st cache.Store) error { _, err := st.Apply(ctx, changed); return err }},
		{"add an action", func(st cache.Store) error { _, err := st.Apply(ctx, added); return err }},
		{"delete an action", func(st cache.Store) error {
			_, err := st.Apply(ctx, cache.Batch{DeleteActions: []string{"GMAIL_ACTION_002"}})
			return err
		}},
		{"reclassify", func(st cache.Store) error { _, err := st.Reclassify(ctx, tagClassifier("second")); return err }},
		{"delete an app", func(st cache.Store) error {
			_, err := st.Apply(ctx, cache.Batch{DeleteApps: []string{"slack"}})
			return err
		}},
		{"import again", func(st cache.Store) error { _, err := st.Apply(ctx, pgMetaBatch()); return err }},
	}
	read := func(t *testing.T, st cache.Store, apps []string) []cache.ActionMeta {
		t.Helper()
		ms, err := st.ActionMeta(ctx, apps)
		if err != nil {
			t.Fatalf("ActionMeta(%q): %v", apps, err)
		}
		return ms
	}
	for _, apps := range pgMetaRequests { // warm A's cache on the empty catalogue
		if got := read(t, a, apps); got == nil || len(got) != 0 {
			t.Fatalf("empty store: ActionMeta(%q) = %v, want an empty non-nil slice", apps, got)
		}
	}
	pgCheckSharedWrites(t, a, b, steps, pgMetaRequests, read,
		func(apps []string) string { return fmt.Sprintf("ActionMeta(%q)", apps) })
}

// TestPostgresActionMetaShared checks that repeated calls share one read-only result while
// the catalogue is unchanged (hint's term index relies on it), and that a change, by any
// store on the schema, gives fresh slices.
func TestPostgresActionMetaShared(t *testing.T) {
	ctx := context.Background()
	a, b := pgOpenPair(t)
	if _, err := a.Apply(ctx, pgMetaBatch()); err != nil {
		t.Fatal(err)
	}
	first := func(t *testing.T, apps []string) *cache.ActionMeta {
		t.Helper()
		ms, err := a.ActionMeta(ctx, apps)
		if err != nil || len(ms) == 0 {
			t.Fatalf("ActionMeta(%q) = %d entries, %v", apps, len(ms), err)
		}
		if cap(ms) != len(ms) {
			t.Errorf("ActionMeta(%q): cap %d > len %d: an append by the caller would write into the store", apps, cap(ms), len(ms))
		}
		return &ms[0]
	}
	// revise rewrites one action through st, a different description each call.
	rev := 0
	revise := func(st *cache.Postgres) error {
		rev++
		_, err := st.Apply(ctx, cache.Batch{Actions: []cache.Action{{
			App: "gmail", Slug: "GMAIL_ACTION_000", DisplayName: "Action 0", Description: fmt.Sprintf("Revision %d", rev),
		}}})
		return err
	}
	for _, tc := range []struct {
		name       string
		write      func() error
		wantShared bool
	}{
		{"no write", func() error { return nil }, true},
		{"unchanged re-import", func() error { _, err := b.Apply(ctx, pgMetaBatch()); return err }, true},
		{"write through the other store", func() error { return revise(b) }, false},
		{"write through this store", func() error { return revise(a) }, false},
		{"reclassify through the other store", func() error { _, err := b.Reclassify(ctx, nil); return err }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, apps := range [][]string{{"gmail"}, {"gmail", "slack"}, nil} {
				before := first(t, apps)
				if err := tc.write(); err != nil {
					t.Fatal(err)
				}
				if shared := first(t, apps) == before; shared != tc.wantShared {
					t.Errorf("ActionMeta(%q): result shared with the previous call = %v, want %v", apps, shared, tc.wantShared)
				}
			}
		})
	}
}

// TestPostgresActionMetaErrors checks that bad app names and a cancelled context fail as
// they did before the cache, whether or not the cache is warm.
func TestPostgresActionMetaErrors(t *testing.T) {
	ctx := context.Background()
	a, _ := pgOpenPair(t)
	if _, err := a.Apply(ctx, pgMetaBatch()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ActionMeta(ctx, []string{"gmail", "slack"}); err != nil { // warm
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		apps []string
		want error
	}{
		{"invalid slug", ctx, []string{"gmail", "bad slug!"}, cache.ErrInvalid},
		{"empty slug", ctx, []string{""}, cache.ErrInvalid},
		{"cancelled, cached apps", cancelled, []string{"gmail", "slack"}, context.Canceled},
		{"cancelled, all apps", cancelled, nil, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := a.ActionMeta(tc.ctx, tc.apps)
			if !errors.Is(err, tc.want) {
				t.Errorf("ActionMeta(%q) = %d entries, %v; want %v", tc.apps, len(ms), err, tc.want)
			}
		})
	}
}

// TestPostgresActionMetaConcurrent reads through one store from several goroutines while
// another store rewrites the catalogue, then checks the reader ends on the final state.
func TestPostgresActionMetaConcurrent(t *testing.T) {
	ctx := context.Background()
	a, b := pgOpenPair(t)
	if _, err := b.Apply(ctx, pgMetaBatch()); err != nil {
		t.Fatal(err)
	}
	const writes = 8
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			apps := pgMetaRequests[r%len(pgMetaRequests)]
			for {
				select {
				case <-done:
					return
				default:
				}
				ms, err := a.ActionMeta(ctx, apps)
				if err == nil && apps == nil && len(ms) != 8 {
					err = fmt.Errorf("ActionMeta(all) = %d entries, want 8", len(ms))
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	last := pgMetaBatch()
	for i := range writes {
		last = pgMetaBatch()
		for j := range last.Actions {
			last.Actions[j].Description = fmt.Sprintf("Revision %d of %s", i, last.Actions[j].Slug)
		}
		if _, err := b.Apply(ctx, last); err != nil {
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
	for _, apps := range pgMetaRequests {
		want, err := mirror.ActionMeta(ctx, apps)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.ActionMeta(ctx, apps)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("after the writes, ActionMeta(%q) mismatch (-want +got):\n%s", apps, diff)
		}
	}
}
