package cache_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhint/toolhint/cache"
)

// lockingStore makes a pair of stores that share one sync lock.
type lockingStore struct {
	name string
	new  func(t *testing.T) (cache.Store, cache.Store)
}

// lockingStores lists pairs of stores that share one sync lock: the same memory store
// twice, and two PostgreSQL stores (two connection pools, as two processes would have) on
// one schema.
func lockingStores(t *testing.T) []lockingStore {
	out := []lockingStore{{"memory", func(*testing.T) (cache.Store, cache.Store) { m := cache.NewMemory(); return m, m }}}
	if postgresStoreMaker(t) != nil {
		out = append(out, lockingStore{"postgres", func(t *testing.T) (cache.Store, cache.Store) {
			a, b := pgOpenPair(t)
			return a, b
		}})
	}
	return out
}

func TestLockSync(t *testing.T) {
	for _, s := range lockingStores(t) {
		t.Run(s.name, func(t *testing.T) {
			a, b := s.new(t)
			la, ok := a.(cache.SyncLocker)
			lb, _ := b.(cache.SyncLocker)
			if !ok {
				t.Fatalf("%T does not implement cache.SyncLocker", a)
			}
			ctx := context.Background()
			unlock, err := la.LockSync(ctx, false)
			if err != nil {
				t.Fatalf("LockSync: %v", err)
			}
			if _, err := lb.LockSync(ctx, false); !errors.Is(err, cache.ErrSyncRunning) {
				t.Errorf("second LockSync error = %v, want ErrSyncRunning", err)
			}
			short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			_, err = lb.LockSync(short, true)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("waiting LockSync error = %v, want DeadlineExceeded", err)
			}

			// A waiter gets the lock once it is released.
			got := make(chan error, 1)
			go func() {
				u, err := lb.LockSync(ctx, true)
				if err == nil {
					u()
				}
				got <- err
			}()
			select {
			case err := <-got:
				t.Fatalf("waiter returned %v while the lock was held", err)
			case <-time.After(50 * time.Millisecond):
			}
			unlock()
			unlock() // a second call does nothing
			select {
			case err := <-got:
				if err != nil {
					t.Errorf("waiter: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("waiter did not get the lock after unlock")
			}
			u, err := la.LockSync(ctx, false)
			if err != nil {
				t.Fatalf("LockSync after release: %v", err)
			}
			u()
		})
	}
}

// TestSyncConcurrent runs two syncs at once: the second fails with ErrSyncRunning, or,
// told to wait, runs after the first and finds nothing to write.
func TestSyncConcurrent(t *testing.T) {
	for _, s := range lockingStores(t) {
		t.Run(s.name, func(t *testing.T) {
			a, b := s.new(t)
			if _, ok := a.(cache.SyncLocker); !ok {
				t.Fatalf("%T does not implement cache.SyncLocker", a)
			}
			src := newSource()
			started := make(chan struct{})
			release := make(chan struct{})
			var once sync.Once
			src.beforeActionPage = func(ctx context.Context, page int) {
				if page == 1 {
					once.Do(func() {
						close(started)
						<-release
					})
				}
			}
			ctx := context.Background()
			first := make(chan error, 1)
			go func() {
				_, err := cache.Sync(ctx, a, src, quick(cache.SyncOptions{}))
				first <- err
			}()
			<-started

			rep, err := cache.Sync(ctx, b, src, quick(cache.SyncOptions{}))
			if !errors.Is(err, cache.ErrSyncRunning) {
				t.Errorf("second sync error = %v, want ErrSyncRunning", err)
			}
			if rep.Job.ID != 0 {
				t.Errorf("a refused sync recorded job %+v", rep.Job)
			}

			waited := make(chan cache.SyncReport, 1)
			go func() {
				rep, err := cache.Sync(ctx, b, src, quick(cache.SyncOptions{Wait: true}))
				if err != nil {
					t.Errorf("waiting sync: %v", err)
				}
				waited <- rep
			}()
			select {
			case <-waited:
				t.Fatal("the waiting sync ran while the first held the lock")
			case <-time.After(50 * time.Millisecond):
			}
			close(release)
			if err := <-first; err != nil {
				t.Fatalf("first sync: %v", err)
			}
			rep = <-waited
			if rep.Applied.ActionsWritten != 0 || rep.Applied.ActionsUnchanged != 170 {
				t.Errorf("waiting sync applied %+v; want everything unchanged", rep.Applied)
			}
			jobs, err := a.SyncJobs(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != 2 || jobs[0].Status != cache.JobSucceeded || jobs[1].Status != cache.JobSucceeded {
				t.Errorf("jobs = %+v; want two succeeded", jobs)
			}
		})
	}
}

// TestSyncClosesAbandonedJobs: a job left running by a process that died is marked failed
// by the next sync, which holds the lock and so knows no one else is syncing.
func TestSyncClosesAbandonedJobs(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(*testing.T) cache.Store) {
		st := newStore(t)
		if _, ok := st.(cache.SyncLocker); !ok {
			t.Fatalf("%T does not implement cache.SyncLocker", st)
		}
		ctx := context.Background()
		dead, err := st.StartSyncJob(ctx, "full")
		if err != nil {
			t.Fatal(err)
		}
		mustSync(t, st, newSource(), cache.SyncOptions{})
		jobs, err := st.SyncJobs(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs {
			if j.ID == dead.ID && (j.Status != cache.JobFailed || !strings.Contains(j.Error, "abandoned")) {
				t.Errorf("abandoned job = %+v; want failed", j)
			}
		}
	})
}

// TestPostgresSyncLockDiesWithItsSession: when the process holding the sync lock dies, its
// session ends and the lock is free again. The holder's backend is terminated to stand in
// for the dead process.
func TestPostgresSyncLockDiesWithItsSession(t *testing.T) {
	schemaDSN := newTestSchema(t, pgTestDSN(t))
	a, b := pgOpen(t, schemaDSN), pgOpen(t, schemaDSN)
	ctx := context.Background()
	unlock, err := a.LockSync(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.LockSync(ctx, false); !errors.Is(err, cache.ErrSyncRunning) {
		t.Fatalf("LockSync while held: %v, want ErrSyncRunning", err)
	}

	db, err := sql.Open("postgres", schemaDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var schema string
	if err := db.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	// The sync lock's advisory key is (0x74680003, hashtext(schema)); no other session of
	// this test's schema holds an advisory lock with that first half.
	var n int
	err = db.QueryRowContext(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_locks
		WHERE locktype = 'advisory' AND classid = $1::bigint::oid AND objsubid = 2 AND granted
		AND objid = (SELECT (hashtext(nspname)::bigint & 4294967295)::oid FROM pg_namespace WHERE nspname = $2)`,
		0x74680003, schema).Scan(&n)
	if err != nil || n != 1 {
		t.Fatalf("terminating the holder: %d sessions, %v", n, err)
	}
	var u func()
	for i := 0; ; i++ { // the server drops the lock as the backend exits
		u, err = b.LockSync(ctx, false)
		if err == nil || i == 50 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("LockSync after the holder died: %v", err)
	}
	u()
	unlock() // the dead holder's unlock must not panic or hang
}
