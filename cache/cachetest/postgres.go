package cachetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhint/toolhint/cache"
)

// PostgresDSNEnv names the environment variable that switches the PostgreSQL tests on: it
// holds the DSN of a database the tests may create and drop schemas in.
const PostgresDSNEnv = "TOOLHINT_TEST_POSTGRES_DSN"

// reachable remembers, per DSN, whether the database answered, so an unreachable database
// fails every test that needs it with the same message without retrying the connection.
var reachable sync.Map // dsn -> error (nil when reachable)

// PostgresDSN returns the DSN named by PostgresDSNEnv. It skips tb when the variable is
// unset and fails it when the variable is set but the database cannot be reached.
func PostgresDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(PostgresDSNEnv)
	if dsn == "" {
		tb.Skipf("PostgreSQL tests skipped: set %s to a DSN to run them", PostgresDSNEnv)
	}
	v, ok := reachable.Load(dsn)
	if !ok {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		db, err := sql.Open("postgres", dsn)
		if err == nil {
			err = db.PingContext(ctx)
			db.Close()
		}
		v, _ = reachable.LoadOrStore(dsn, err)
	}
	if err, _ := v.(error); err != nil {
		tb.Fatalf("%s is set but PostgreSQL cannot be reached: %v", PostgresDSNEnv, err)
	}
	return dsn
}

// PostgresSchema creates an empty schema of its own in the database at dsn, drops it when
// tb ends, and returns dsn with that schema as its search_path: a store opened on the
// result sees nothing of any other test's data.
func PostgresSchema(tb testing.TB, dsn string) string {
	tb.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		tb.Fatal(err)
	}
	schema := "toolhint_test_" + hex.EncodeToString(b[:])
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		tb.Fatal(err)
	}
	// schema is made of fixed letters and hex digits: safe to splice into DDL.
	if _, err := db.ExecContext(context.Background(), `CREATE SCHEMA `+schema); err != nil {
		db.Close()
		tb.Fatalf("create schema: %v", err)
	}
	tb.Cleanup(func() {
		defer db.Close()
		if _, err := db.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
		}
	})
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			tb.Fatalf("%s: not a URL", PostgresDSNEnv) // the parse error would echo the password
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema
}

// OpenPostgres opens a PostgreSQL store in a schema of its own (see PostgresDSN and
// PostgresSchema), closed and dropped when tb ends. It skips tb when PostgresDSNEnv is unset.
func OpenPostgres(tb testing.TB) *cache.Postgres {
	tb.Helper()
	st, err := cache.OpenPostgres(context.Background(), PostgresSchema(tb, PostgresDSN(tb)))
	if err != nil {
		tb.Fatalf("OpenPostgres: %v", err)
	}
	tb.Cleanup(func() {
		if err := st.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return st
}
