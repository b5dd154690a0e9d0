package hinteval_test

import (
	"bufio"
	"context"
	crand "crypto/rand"
	"database/sql"
	"encoding/hex"
	"flag"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	_ "github.com/lib/pq"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint/hinteval"
)

// pgDSNEnv names the environment variable holding the DSN of the PostgreSQL tests.
const pgDSNEnv = "TOOLHINT_TEST_POSTGRES_DSN"

// pgSharedPath returns the value of the test flag name when a test file of the package
// defines it and it is set, else the environment variable env.
func pgSharedPath(name, env string) string {
	if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
		return f.Value.String()
	}
	return os.Getenv(env)
}

// pgOpen opens a PostgreSQL store in a new schema of its own, closed and dropped when the
// test ends. It skips when TOOLHINT_TEST_POSTGRES_DSN is unset and fails when the database
// cannot be reached.
func pgOpen(t *testing.T) *cache.Postgres {
	t.Helper()
	dsn := os.Getenv(pgDSNEnv)
	if dsn == "" {
		t.Skipf("PostgreSQL tests skipped: set %s to a DSN to run them", pgDSNEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := sql.Open("postgres", dsn)
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		t.Fatalf("%s is set but PostgreSQL cannot be reached: %v", pgDSNEnv, err)
	}
	var rnd [6]byte
	if _, err := crand.Read(rnd[:]); err != nil {
		db.Close()
		t.Fatal(err)
	}
	// The schema name is fixed letters and hex digits: safe to splice into DDL.
	schema := "toolhint_hinteval_test_" + hex.EncodeToString(rnd[:])
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		db.Close()
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		defer db.Close()
		if _, err := db.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	schemaDSN := dsn + " search_path=" + schema
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatalf("%s: not a URL", pgDSNEnv) // the parse error would echo the password
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		schemaDSN = u.String()
	}
	st, err := cache.OpenPostgres(context.Background(), schemaDSN)
	if err != nil {
		t.Fatalf("OpenPostgres: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return st
}

// TestRunStoresAgree runs the labelled cases against the shared catalogue in a memory store
// and in a PostgreSQL store and requires the same outcome for every case (hint and BM25
// baseline alike), latencies aside.
func TestRunStoresAgree(t *testing.T) {
	pg := pgOpen(t)
	catalog, eval := pgSharedPath("catalog", "TOOLHINT_CATALOG"), pgSharedPath("eval", "TOOLHINT_EVAL")
	if catalog == "" || eval == "" {
		t.Skip("set -catalog/-eval or TOOLHINT_CATALOG/TOOLHINT_EVAL to compare the stores on the labelled cases")
	}
	if testing.Short() {
		t.Skip("imports the full catalogue into PostgreSQL; skipped with -short")
	}
	ctx := context.Background()
	f, err := os.Open(catalog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := cache.ImportJSONL(ctx, pg, bufio.NewReaderSize(f, 1<<20)); err != nil {
		t.Fatalf("postgres: importing %s: %v", catalog, err)
	}
	mem, err := hinteval.LoadCatalog(ctx, catalog)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := hinteval.ReadCasesFile(eval)
	if err != nil {
		t.Fatal(err)
	}
	want, err := hinteval.Run(ctx, mem, cases, hinteval.Options{})
	if err != nil {
		t.Fatalf("memory: %v", err)
	}
	got, err := hinteval.Run(ctx, pg, cases, hinteval.Options{})
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	if len(want.Outcomes) != len(cases) || len(got.Outcomes) != len(cases) {
		t.Fatalf("outcomes: memory %d, postgres %d, want %d", len(want.Outcomes), len(got.Outcomes), len(cases))
	}
	noLatency := cmp.Options{
		cmpopts.IgnoreFields(hinteval.Outcome{}, "Latency"),
		cmpopts.IgnoreFields(hinteval.Metrics{}, "LatencyP50", "LatencyP99"),
	}
	for i := range cases {
		if diff := cmp.Diff(want.Outcomes[i], got.Outcomes[i], noLatency); diff != "" {
			t.Errorf("case %s: outcomes differ (-memory +postgres):\n%s", cases[i].ID, diff)
		}
	}
	want.Outcomes, got.Outcomes = nil, nil
	if diff := cmp.Diff(want, got, noLatency); diff != "" {
		t.Errorf("metrics differ (-memory +postgres):\n%s", diff)
	}
	t.Logf("%d cases agree; latency p50 memory %v, postgres %v", len(cases), want.Overall.LatencyP50, got.Overall.LatencyP50)
}
