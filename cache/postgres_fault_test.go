package cache_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
)

// stallDeadline is the deadline of the calls the stalled-server tests make; stallGrace is
// how long past it a call may take to return (it closes its socket when the deadline
// passes, so a few milliseconds are usual). The overshoot is logged.
const (
	stallDeadline = 300 * time.Millisecond
	stallGrace    = 100 * time.Millisecond
)

// callWithin runs call under a stallDeadline deadline and fails t unless it returns an
// error wrapping context.DeadlineExceeded within a second of the deadline.
func callWithin(t *testing.T, name string, call func(ctx context.Context) error) {
	t.Helper()
	callWithinGrace(t, name, stallGrace, call)
}

// midImportGrace is how long past its deadline an import the server stalls under may take:
// the chunk being decoded when the deadline passes is finished first (tens of milliseconds
// under the race detector).
const midImportGrace = 500 * time.Millisecond

// callWithinGrace is callWithin with another grace.
func callWithinGrace(t *testing.T, name string, grace time.Duration, call func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stallDeadline)
	defer cancel()
	start := time.Now()
	err := call(ctx)
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%s: error %v, want one wrapping context.DeadlineExceeded", name, err)
	}
	if elapsed > stallDeadline+grace {
		t.Errorf("%s returned %v after its deadline of %v", name, elapsed-stallDeadline, stallDeadline)
	}
	t.Logf("%s: returned %v after the deadline", name, (elapsed - stallDeadline).Round(time.Millisecond))
}

// proxiedStore opens a store on the test catalogue in a schema of its own, through a
// Proxy the test can stall. It returns the DSN through the proxy too.
func proxiedStore(t *testing.T) (*cache.Postgres, *cachetest.Proxy, string) {
	t.Helper()
	proxy, pdsn := cachetest.NewProxy(t, newTestSchema(t, pgTestDSN(t)))
	st, err := cache.OpenPostgres(context.Background(), pdsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	importFiles(t, st, testdataApps, testdataActions)
	return st, proxy, pdsn
}

func TestPostgresDeadlinesOnStalledServer(t *testing.T) {
	st, proxy, pdsn := proxiedStore(t)
	ctx := context.Background()
	if err := st.AssignApp(ctx, cache.Assignment{AgentID: 1, App: "github", Active: true}); err != nil {
		t.Fatal(err)
	}
	actions, err := os.ReadFile(testdataActions)
	if err != nil {
		t.Fatal(err)
	}

	proxy.Stall()
	calls := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"ListApps", func(ctx context.Context) error { _, err := st.ListApps(ctx, cache.AppQuery{}); return err }},
		{"ActionMeta", func(ctx context.Context) error { _, err := st.ActionMeta(ctx, []string{"github"}); return err }},
		{"AgentApps", func(ctx context.Context) error { _, err := st.AgentApps(ctx, 1); return err }},
		{"Apply", func(ctx context.Context) error {
			_, err := st.Apply(ctx, cache.Batch{Apps: []cache.App{{Slug: "stalled"}}})
			return err
		}},
		{"ImportJSONL", func(ctx context.Context) error {
			_, err := cache.ImportJSONL(ctx, st, strings.NewReader(string(actions)))
			return err
		}},
		{"Sync", func(ctx context.Context) error {
			_, err := cache.Sync(ctx, st, newSource(), quick(cache.SyncOptions{}))
			return err
		}},
		{"OpenPostgres", func(ctx context.Context) error {
			st, err := cache.OpenPostgres(ctx, pdsn)
			if err == nil {
				st.Close()
			}
			return err
		}},
	}
	for _, c := range calls {
		callWithin(t, c.name, c.call)
	}

	// Once the server answers again, the store works: the connections closed under the
	// stalled calls were discarded, not handed out again.
	proxy.Resume()
	for range 3 {
		if _, err := st.ListApps(ctx, cache.AppQuery{}); err != nil {
			t.Fatalf("ListApps after the stall: %v", err)
		}
	}
	if _, err := cache.Sync(ctx, st, newSource(), quick(cache.SyncOptions{Force: true})); err != nil {
		t.Fatalf("Sync after the stall: %v", err)
	}
}

// TestPostgresStallMidImport stalls the server while an import is writing: the import
// returns by its deadline and the catalogue is as it was.
func TestPostgresStallMidImport(t *testing.T) {
	st, proxy, _ := proxiedStore(t)
	before := cachetest.Snapshot(t, st)

	// Enough lines for several chunks; the reader stalls the proxy after the first ones.
	in := synthActions(5000, "mid")
	r := &hookReader{r: strings.NewReader(in), after: 100 << 10, hook: proxy.Stall}
	callWithinGrace(t, "ImportJSONL", midImportGrace, func(ctx context.Context) error {
		_, err := cache.ImportJSONL(ctx, st, r)
		return err
	})
	proxy.Resume()
	assertSnapshot(t, st, before)
}

// hookReader reads r, calling hook once after the first after bytes.
type hookReader struct {
	r     *strings.Reader
	after int
	read  int
	hook  func()
}

func (h *hookReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.read += n
	if h.read >= h.after && h.hook != nil {
		h.hook()
		h.hook = nil
	}
	return n, err
}

// pgNamedSchema returns the schema named by the search_path of a DSN from newTestSchema.
func pgNamedSchema(t *testing.T, dsn string) string {
	t.Helper()
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal("DSN is not a URL")
		}
		return u.Query().Get("search_path")
	}
	_, s, _ := strings.Cut(dsn, "search_path=")
	return strings.Fields(s)[0]
}

// pgAsRole returns dsn connecting as role.
func pgAsRole(t *testing.T, dsn, role string) string {
	t.Helper()
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal("DSN is not a URL")
		}
		u.User = url.User(role)
		return u.String()
	}
	return dsn + " user=" + role
}

// pgRole creates a login role with no privileges, dropped when t ends, and returns its name.
func pgRole(t *testing.T, admin *sql.DB) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	role := "toolhint_test_role_" + hex.EncodeToString(b[:])
	// role is made of fixed letters and hex digits: safe to splice into DDL.
	if _, err := admin.Exec(`CREATE ROLE ` + role + ` LOGIN`); err != nil {
		t.Fatalf("create role: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(`DROP OWNED BY ` + role); err != nil {
			t.Errorf("drop owned by %s: %v", role, err)
		}
		if _, err := admin.Exec(`DROP ROLE ` + role); err != nil {
			t.Errorf("drop role %s: %v", role, err)
		}
	})
	return role
}

// TestPostgresLeastPrivilege opens stores as a role that may only read and write rows
// (SELECT, INSERT, UPDATE, DELETE on the tables): it opens a migrated schema and uses it,
// is refused with ErrPermission where a migration is due, and with SkipMigrations gets
// ErrMigrationNeeded without trying.
func TestPostgresLeastPrivilege(t *testing.T) {
	base := pgTestDSN(t)
	ctx := context.Background()
	admin, err := sql.Open("postgres", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() }) // after the role's cleanup, registered next
	role := pgRole(t, admin)

	migrated := newTestSchema(t, base)
	owner, err := cache.OpenPostgres(ctx, migrated)
	if err != nil {
		t.Fatal(err)
	}
	owner.Close()
	schema := pgNamedSchema(t, migrated)
	for _, q := range []string{
		`GRANT USAGE ON SCHEMA ` + schema + ` TO ` + role,
		`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ` + schema + ` TO ` + role,
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	t.Run("migrated schema", func(t *testing.T) {
		for _, opts := range []cache.PostgresOptions{{}, {SkipMigrations: true}} {
			st, err := cache.OpenPostgres(ctx, pgAsRole(t, migrated, role), opts)
			if err != nil {
				t.Fatalf("OpenPostgres(%+v) as a role without CREATE: %v", opts, err)
			}
			defer st.Close()
			importFiles(t, st, testdataApps, testdataActions)
			if _, err := cache.Sync(ctx, st, newSource(), quick(cache.SyncOptions{Force: true})); err != nil {
				t.Fatalf("Sync: %v", err)
			}
			if err := st.AssignApp(ctx, cache.Assignment{AgentID: 1, App: "app01", Active: true}); err != nil {
				t.Fatalf("AssignApp: %v", err)
			}
			if _, err := st.AddConnection(ctx, "ws", "app01"); err != nil && !errors.Is(err, cache.ErrConflict) {
				t.Fatalf("AddConnection: %v", err)
			}
		}
	})

	fresh := newTestSchema(t, base)
	if _, err := admin.Exec(`GRANT USAGE ON SCHEMA ` + pgNamedSchema(t, fresh) + ` TO ` + role); err != nil {
		t.Fatal(err)
	}
	t.Run("migration due", func(t *testing.T) {
		st, err := cache.OpenPostgres(ctx, pgAsRole(t, fresh, role))
		if err == nil {
			st.Close()
			t.Fatal("OpenPostgres applied migrations as a role without CREATE")
		}
		if !errors.Is(err, cache.ErrPermission) {
			t.Errorf("error %v, want one wrapping ErrPermission", err)
		}
	})
	t.Run("migration due, skipped", func(t *testing.T) {
		st, err := cache.OpenPostgres(ctx, pgAsRole(t, fresh, role), cache.PostgresOptions{SkipMigrations: true})
		if err == nil {
			st.Close()
			t.Fatal("OpenPostgres with SkipMigrations opened a schema without tables")
		}
		if !errors.Is(err, cache.ErrMigrationNeeded) || !strings.Contains(err.Error(), "001_init.sql") {
			t.Errorf("error %v, want one wrapping ErrMigrationNeeded naming 001_init.sql", err)
		}
	})
	t.Run("Migrate, then open", func(t *testing.T) {
		db, err := sqlx.Open("postgres", fresh)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := cache.Migrate(ctx, db); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		if err := cache.Migrate(ctx, db); err != nil {
			t.Fatalf("Migrate again: %v", err)
		}
		if _, err := admin.Exec(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ` + pgNamedSchema(t, fresh) + ` TO ` + role); err != nil {
			t.Fatal(err)
		}
		st, err := cache.OpenPostgres(ctx, pgAsRole(t, fresh, role), cache.PostgresOptions{SkipMigrations: true})
		if err != nil {
			t.Fatalf("OpenPostgres after Migrate: %v", err)
		}
		st.Close()
	})
}

// TestNewPostgres runs a store on a pool the test owns, built on NewPostgresConnector: the
// store works, keeps its deadlines on a stalled server, and leaves the pool open on Close.
func TestNewPostgres(t *testing.T) {
	dsn := newTestSchema(t, pgTestDSN(t))
	proxy, pdsn := cachetest.NewProxy(t, dsn)
	ctx := context.Background()
	c, err := cache.NewPostgresConnector(pdsn, cache.PostgresOptions{ConnectTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	db := sqlx.NewDb(sql.OpenDB(c), "postgres")
	defer db.Close()
	db.SetMaxOpenConns(3)
	st, err := cache.NewPostgres(ctx, db, cache.PostgresOptions{})
	if err != nil {
		t.Fatal(err)
	}
	importFiles(t, st, testdataApps, testdataActions)
	proxy.Stall()
	callWithin(t, "ListApps", func(ctx context.Context) error { _, err := st.ListApps(ctx, cache.AppQuery{}); return err })
	proxy.Resume()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.PingContext(ctx); err != nil {
		t.Errorf("the caller's pool after the store's Close: %v", err)
	}
	if _, err := cache.NewPostgres(ctx, nil, cache.PostgresOptions{}); !errors.Is(err, cache.ErrInvalid) {
		t.Errorf("NewPostgres(nil): %v, want ErrInvalid", err)
	}
	if _, err := cache.OpenPostgres(ctx, dsn, cache.PostgresOptions{}, cache.PostgresOptions{}); !errors.Is(err, cache.ErrInvalid) {
		t.Errorf("OpenPostgres with two options: %v, want ErrInvalid", err)
	}
}
