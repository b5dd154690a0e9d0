package registry_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/toolhint/toolhint/cache"
)

// storeKinds returns the stores the permission tests run against: memory always, PostgreSQL
// when TOOLHINT_TEST_POSTGRES_DSN names a database (skipped with a message when unset,
// failed when set but unreachable). Each call gives an empty store of its own.
func storeKinds(t *testing.T) map[string]func(t *testing.T) cache.Store {
	t.Helper()
	kinds := map[string]func(t *testing.T) cache.Store{
		"memory": func(*testing.T) cache.Store { return cache.NewMemory() },
	}
	dsn := os.Getenv("TOOLHINT_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Log("PostgreSQL runs skipped: set TOOLHINT_TEST_POSTGRES_DSN to run them")
		return kinds
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := sql.Open("postgres", dsn)
	if err == nil {
		err = db.PingContext(ctx)
		db.Close()
	}
	if err != nil {
		t.Fatalf("TOOLHINT_TEST_POSTGRES_DSN is set but the database cannot be reached: %v", err)
	}
	kinds["postgres"] = func(t *testing.T) cache.Store { return postgresStore(t, dsn) }
	return kinds
}

// postgresStore opens a store in a schema of its own, dropped when the test ends.
func postgresStore(t *testing.T, dsn string) cache.Store {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("TOOLHINT_TEST_POSTGRES_DSN must be a postgres:// URL for these tests")
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema := "toolhint_registry_" + hex.EncodeToString(b[:])
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	// schema is fixed letters and hex digits: safe to splice into DDL.
	if _, err := db.Exec(`CREATE SCHEMA ` + schema); err != nil {
		db.Close()
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		defer db.Close()
		if _, err := db.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	st, err := cache.OpenPostgres(context.Background(), u.String())
	if err != nil {
		t.Fatalf("OpenPostgres: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
