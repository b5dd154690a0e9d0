package cache_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "github.com/lib/pq"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
)

// pgEnv names the environment variable holding the DSN of the PostgreSQL tests.
const pgEnv = cachetest.PostgresDSNEnv

// pgTestDSN returns the DSN of the PostgreSQL tests, skipping the test when it is unset and
// failing it when the database cannot be reached.
func pgTestDSN(t testing.TB) string {
	t.Helper()
	return cachetest.PostgresDSN(t)
}

// postgresStoreMaker returns a constructor of fresh PostgreSQL stores, each in its own
// schema, or nil when TOOLHINT_TEST_POSTGRES_DSN is unset. It fails t when the database
// cannot be reached. Other tests of the package (the sync tests) use it.
func postgresStoreMaker(t *testing.T) func(*testing.T) cache.Store {
	t.Helper()
	if os.Getenv(pgEnv) == "" {
		return nil
	}
	cachetest.PostgresDSN(t)
	return func(t *testing.T) cache.Store { return cachetest.OpenPostgres(t) }
}

// newTestSchema creates an empty schema, drops it when the test ends, and returns dsn with
// the schema as its search_path.
func newTestSchema(t testing.TB, dsn string) string {
	t.Helper()
	return cachetest.PostgresSchema(t, dsn)
}

// sharedPath returns the path the test flag named flagName holds when a test file of the
// package defines that flag and it is set, else the environment variable env.
func sharedPath(flagName, env string) string {
	if f := flag.Lookup(flagName); f != nil && f.Value.String() != "" {
		return f.Value.String()
	}
	return os.Getenv(env)
}

// catalogPath returns the shared catalogue's path (-catalog or TOOLHINT_CATALOG), skipping
// the test when it is not given.
func catalogPath(t testing.TB) string {
	t.Helper()
	path := sharedPath("catalog", "TOOLHINT_CATALOG")
	if path == "" {
		t.Skip("shared catalogue not given: set -catalog or TOOLHINT_CATALOG")
	}
	return path
}

// hookClassifier runs hook once, when it classifies its first action, then classifies with
// base. It lets a test act in the middle of a write.
type hookClassifier struct {
	once sync.Once
	hook func()
	base cache.Classifier
}

func (c *hookClassifier) Classify(a cache.Action) cache.ActionMeta {
	c.once.Do(c.hook)
	return c.base.Classify(a)
}

func TestPostgresMigrationsConcurrentAndIdempotent(t *testing.T) {
	dsn := newTestSchema(t, pgTestDSN(t))
	ctx := context.Background()
	const openers = 6
	var wg sync.WaitGroup
	errs := make([]error, openers)
	stores := make([]*cache.Postgres, openers)
	for i := range openers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = cache.OpenPostgres(ctx, dsn)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("opener %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	// Opening again applies nothing and keeps the data.
	if _, err := stores[0].Apply(ctx, cache.Batch{Apps: []cache.App{{Slug: "gmail", DisplayName: "Gmail"}}}); err != nil {
		t.Fatal(err)
	}
	again, err := cache.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer again.Close()
	if _, err := again.App(ctx, "gmail"); err != nil {
		t.Fatalf("after reopen: %v", err)
	}

	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var versions []int
	rows, err := db.QueryContext(ctx, `SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no migration files: %v", err)
	}
	var want []int
	for _, f := range files {
		n, err := strconv.Atoi(strings.SplitN(filepath.Base(f), "_", 2)[0])
		if err != nil {
			t.Fatalf("migration file %s: %v", f, err)
		}
		want = append(want, n)
	}
	if diff := cmp.Diff(want, versions); diff != "" {
		t.Errorf("applied migrations (-want +got):\n%s", diff)
	}
}

func TestPostgresSchemaIsolation(t *testing.T) {
	ctx := context.Background()
	a := cachetest.OpenPostgres(t)
	b := cachetest.OpenPostgres(t)
	if _, err := a.Apply(ctx, cache.Batch{Apps: []cache.App{{Slug: "only_in_a"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.App(ctx, "only_in_a"); !errors.Is(err, cache.ErrNotFound) {
		t.Errorf("store b sees store a's app: err = %v, want ErrNotFound", err)
	}
}

func TestOpenPostgresBadDSN(t *testing.T) {
	tests := []struct {
		name    string
		dsn     string
		invalid bool // the DSN itself is refused with ErrInvalid
	}{
		// Port 1 refuses connections at once.
		{"unreachable", "postgres://someone:s3cret-pw@127.0.0.1:1/db?sslmode=disable&connect_timeout=5", false},
		{"malformed URL", "postgres://someone:s3cret-pw@127.0.0.1:badport/db", true},
		{"malformed escape", "postgres://someone:s3cret%pw@127.0.0.1/db", true},
		{"bad parameter", "host=127.0.0.1 password=s3cret-pw sslmode=sometimes", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := cache.OpenPostgres(context.Background(), tt.dsn)
			if err == nil {
				st.Close()
				t.Fatal("OpenPostgres succeeded, want an error")
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error leaks the password: %v", err)
			}
			if got := errors.Is(err, cache.ErrInvalid); got != tt.invalid {
				t.Errorf("errors.Is(%v, ErrInvalid) = %v, want %v", err, got, tt.invalid)
			}
		})
	}
}

func TestOpenPostgresMissingSchema(t *testing.T) {
	dsn := pgTestDSN(t)
	switch {
	case !strings.Contains(dsn, "://"):
		dsn += " search_path=toolhint_test_no_such_schema"
	case strings.Contains(dsn, "?"):
		dsn += "&search_path=toolhint_test_no_such_schema"
	default:
		dsn += "?search_path=toolhint_test_no_such_schema"
	}
	st, err := cache.OpenPostgres(context.Background(), dsn)
	if err == nil {
		st.Close()
		t.Fatal("OpenPostgres into a schema that does not exist succeeded, want an error")
	}
}

// pgCatalogueOf reads every app and action of st, for before/after comparisons.
func pgCatalogueOf(t *testing.T, st cache.Store) ([]cache.App, []cache.Action, []cache.ActionMeta) {
	t.Helper()
	ctx := context.Background()
	page, err := st.ListApps(ctx, cache.AppQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	actions, err := st.Actions(ctx, cache.ActionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	meta, err := st.ActionMeta(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return page.Apps, actions, meta
}

func pgSmallBatch(n int) cache.Batch {
	b := cache.Batch{Apps: []cache.App{{Slug: "gmail", DisplayName: "Gmail", Categories: []string{"email"}}}}
	for i := range n {
		b.Actions = append(b.Actions, cache.Action{
			App:         "gmail",
			Slug:        fmt.Sprintf("GMAIL_ACTION_%03d", i),
			DisplayName: fmt.Sprintf("Action %d", i),
			Description: "Does thing number " + strconv.Itoa(i),
			Parameters:  json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
		})
	}
	return b
}

// TestPostgresApplyInterrupted interrupts Apply after the actions have been copied in, while
// the metadata is being computed: by cancelling its context, and by killing its connection.
// Either way Apply fails and the store holds what it held before.
func TestPostgresApplyInterrupted(t *testing.T) {
	dsn := pgTestDSN(t)
	tests := []struct {
		name string
		// interrupt returns the hook run inside Apply's transaction.
		interrupt func(t *testing.T, cancel context.CancelFunc, appName string) func()
	}{
		{"context cancelled", func(t *testing.T, cancel context.CancelFunc, _ string) func() {
			return cancel
		}},
		{"connection lost", func(t *testing.T, _ context.CancelFunc, appName string) func() {
			return func() {
				db, err := sql.Open("postgres", dsn)
				if err != nil {
					t.Error(err)
					return
				}
				defer db.Close()
				var n int
				if err := db.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
					WHERE application_name = $1`, appName).Scan(&n); err != nil || n == 0 {
					t.Errorf("terminating the store's connections: n = %d, err = %v", n, err)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			appName := "toolhint_test_" + strconv.FormatInt(time.Now().UnixNano(), 36)
			schemaDSN := newTestSchema(t, dsn)
			u, err := url.Parse(schemaDSN)
			if err != nil || u.Scheme == "" {
				t.Skipf("this test needs a URL DSN in %s", pgEnv)
			}
			q := u.Query()
			q.Set("application_name", appName)
			u.RawQuery = q.Encode()
			st, err := cache.OpenPostgres(context.Background(), u.String())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if _, err := st.Apply(context.Background(), pgSmallBatch(5)); err != nil {
				t.Fatal(err)
			}
			apps, actions, meta := pgCatalogueOf(t, st)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			st.SetClassifier(&hookClassifier{hook: tt.interrupt(t, cancel, appName), base: cache.NewClassifier(nil)})
			next := pgSmallBatch(50)
			next.Apps[0].DisplayName = "Gmail (changed)"
			next.DeleteActions = []string{"GMAIL_ACTION_000"}
			if _, err := st.Apply(ctx, next); err == nil {
				t.Fatal("interrupted Apply succeeded")
			} else {
				t.Logf("Apply: %v", err)
			}
			if tt.name == "context cancelled" && !errors.Is(ctx.Err(), context.Canceled) {
				t.Fatal("the hook did not run")
			}

			st.SetClassifier(nil)
			gotApps, gotActions, gotMeta := pgCatalogueOf(t, st)
			if diff := cmp.Diff(apps, gotApps); diff != "" {
				t.Errorf("apps changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(actions, gotActions); diff != "" {
				t.Errorf("actions changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(meta, gotMeta); diff != "" {
				t.Errorf("metadata changed (-before +after):\n%s", diff)
			}
			// The store still works. Deletions run first, so GMAIL_ACTION_000 is deleted and
			// written again.
			res, err := st.Apply(context.Background(), next)
			if err != nil {
				t.Fatalf("Apply after the interruption: %v", err)
			}
			want := cache.ApplyResult{AppsWritten: 1, ActionsWritten: 46, ActionsUnchanged: 4, ActionsDeleted: 1}
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("Apply after the interruption (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPostgresConformance runs the store conformance suite on PostgreSQL, each subtest in a
// schema of its own.
func TestPostgresConformance(t *testing.T) {
	newStore := postgresStoreMaker(t)
	if newStore == nil {
		t.Skipf("PostgreSQL tests skipped: set %s to a DSN to run them", pgEnv)
	}
	cachetest.Run(t, newStore)
}

// TestPostgresRoundTrip imports the full shared catalogue (and its apps) into PostgreSQL,
// exports it and checks nothing changed.
func TestPostgresRoundTrip(t *testing.T) {
	pgTestDSN(t) // skip or fail before reading the catalogue
	cachetest.RoundTrip(t, func(t *testing.T) cache.Store { return cachetest.OpenPostgres(t) },
		catalogPath(t), sharedPath("apps", "TOOLHINT_APPS"))
}
