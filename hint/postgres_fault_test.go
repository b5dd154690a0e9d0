package hint_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
	"github.com/toolhint/toolhint/hint"
)

// pgPermissionsStore opens a PostgreSQL store at dsn holding the test catalogue and the
// permissions of pgSetupPermissions.
func pgPermissionsStore(t *testing.T, dsn string) *cache.Postgres {
	t.Helper()
	ctx := context.Background()
	st, err := cache.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := pgLoadTestdata(ctx, st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestBuildPostgresStalled stalls the server under a store: Build returns by its deadline
// with context.DeadlineExceeded.
func TestBuildPostgresStalled(t *testing.T) {
	proxy, dsn := cachetest.NewProxy(t, cachetest.PostgresSchema(t, cachetest.PostgresDSN(t)))
	st := pgPermissionsStore(t, dsn)
	req := hint.Request{AgentID: pgAgentMain, WorkspaceID: pgWorkspaceA, Prompt: "send a slack message to #eng"}
	if _, err := hint.Build(context.Background(), st, req); err != nil {
		t.Fatal(err)
	}
	proxy.Stall()
	defer proxy.Resume()
	const deadline = 300 * time.Millisecond
	for _, degrade := range []bool{false, true} {
		req.Degrade = degrade
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		start := time.Now()
		_, err := hint.Build(ctx, st, req)
		elapsed := time.Since(start)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Degrade %v: err = %v, want context.DeadlineExceeded", degrade, err)
		}
		if elapsed > deadline+100*time.Millisecond { // the store closes its socket at the deadline
			t.Errorf("Degrade %v: Build returned %v after its deadline", degrade, elapsed-deadline)
		}
		t.Logf("Degrade %v: returned %v after the deadline", degrade, (elapsed - deadline).Round(time.Millisecond))
	}
}

// TestBuildPostgresOddWorkspaceIDs: the PostgreSQL store refuses what the memory store
// refuses, so Build answers alike (see TestOddWorkspaceIDs), and IDs that are only odd
// text work as any other.
func TestBuildPostgresOddWorkspaceIDs(t *testing.T) {
	st := cachetest.OpenPostgres(t)
	ctx := context.Background()
	mem := cache.NewMemory()
	for _, s := range []cache.Store{mem, st} {
		if err := pgLoadTestdata(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	for _, ws := range []string{"ws\x00", "\xff", "   ", "50%_", `o'brien`} {
		req := hint.Request{AgentID: 1, WorkspaceID: ws, Prompt: "create a github issue"}
		want, werr := hint.Build(ctx, mem, req)
		got, gerr := hint.Build(ctx, st, req)
		if errors.Is(werr, hint.ErrInvalidRequest) != errors.Is(gerr, hint.ErrInvalidRequest) || (werr == nil) != (gerr == nil) {
			t.Errorf("workspace %q: memory error %v, postgres error %v", ws, werr, gerr)
		}
		if strings.Join(want.MatchedActions, ",") != strings.Join(got.MatchedActions, ",") {
			t.Errorf("workspace %q: memory %v, postgres %v", ws, want.MatchedActions, got.MatchedActions)
		}
	}
}

// TestBuildPostgresConcurrent runs 2,000 Builds at once on a store with the default pool:
// every one succeeds, and the store never holds more connections than its bound.
func TestBuildPostgresConcurrent(t *testing.T) {
	const builds = 2000
	schemaDSN := cachetest.PostgresSchema(t, cachetest.PostgresDSN(t))
	app := fmt.Sprintf("toolhint_pool_%d", time.Now().UnixNano())
	st := pgPermissionsStore(t, pgWithParam(t, schemaDSN, "application_name", app))
	admin, err := sql.Open("postgres", cachetest.PostgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	bound := max(4, 4*runtime.GOMAXPROCS(0))

	prompts := []string{"create a github issue", "send a message to #eng", "what's on my calendar", "email the team"}
	var (
		wg       sync.WaitGroup
		failures atomic.Int64
		firstErr atomic.Value
		peak     atomic.Int64
		stop     = make(chan struct{})
		sampled  = make(chan struct{})
	)
	go func() { // samples the server's count of the store's connections
		defer close(sampled)
		for {
			var n int64
			if err := admin.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&n); err == nil && n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	start := make(chan struct{})
	for i := range builds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			req := hint.Request{AgentID: []int64{pgAgentMain, pgAgentDev}[i%2], WorkspaceID: []string{pgWorkspaceA, pgWorkspaceB}[i%2], Prompt: prompts[i%len(prompts)]}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if _, err := hint.Build(ctx, st, req); err != nil {
				failures.Add(1)
				firstErr.CompareAndSwap(nil, err)
			}
		}()
	}
	begin := time.Now()
	close(start)
	wg.Wait()
	close(stop)
	<-sampled
	t.Logf("%d concurrent builds in %v; at most %d server connections (bound %d)", builds, time.Since(begin).Round(time.Millisecond), peak.Load(), bound)
	if n := failures.Load(); n > 0 {
		t.Errorf("%d of %d builds failed; first: %v", n, builds, firstErr.Load())
	}
	if peak.Load() > int64(bound) {
		t.Errorf("the store held %d connections, over its default bound of %d", peak.Load(), bound)
	}
	if peak.Load() == 0 {
		t.Error("no connection of the store seen: the sampling is broken")
	}
}

// pgWithParam returns dsn with a connection parameter set.
func pgWithParam(t *testing.T, dsn, key, value string) string {
	t.Helper()
	if !strings.Contains(dsn, "://") {
		return dsn + " " + key + "=" + value
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal("DSN is not a URL")
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}
