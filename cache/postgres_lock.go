package cache

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync"
	"time"
)

// pgLockSync is the first half of the sync lock's advisory key; the second half is
// hashtext(current_schema()), as for the store's other advisory locks.
const pgLockSync int32 = 0x74680003

// Postgres implements SyncLocker.
var _ SyncLocker = (*Postgres)(nil)

// LockSync takes the sync lock of the store's schema: a session-level PostgreSQL advisory
// lock held on a connection of its own until unlock is called, so one sync runs at a time
// across every process sharing the database. When the process dies, PostgreSQL drops the
// connection and with it the lock.
//
// When the lock is held elsewhere, LockSync returns an error wrapping ErrSyncRunning at
// once if wait is false, and otherwise polls until it is free or ctx is done. The caller
// must call unlock exactly once (further calls do nothing). Once ctx has ended, unlock
// waits on the server only briefly (see bookkeepingContext) and then closes the lock's
// connection, which releases the lock of a closed session.
func (p *Postgres) LockSync(ctx context.Context, wait bool) (unlock func(), err error) {
	conn, err := p.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("cache: sync lock: %w", pgErr(ctx, err))
	}
	// discard closes the connection without handing it back to the pool, in case the
	// server still counts the lock as held by its session.
	discard := func() {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		_ = conn.Close()
	}
	delay := 25 * time.Millisecond
	for {
		var ok bool
		err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1, hashtext(current_schema()))`, pgLockSync).Scan(&ok)
		if err != nil {
			discard()
			return nil, fmt.Errorf("cache: sync lock: %w", pgErr(ctx, err))
		}
		if ok {
			break
		}
		if !wait {
			_ = conn.Close()
			return nil, fmt.Errorf("%w (another process holds the PostgreSQL sync lock)", ErrSyncRunning)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			_ = conn.Close()
			return nil, fmt.Errorf("cache: sync lock: waiting: %w", ctx.Err())
		case <-t.C:
		}
		delay = min(2*delay, time.Second)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			uctx, cancel := bookkeepingContext(ctx)
			defer cancel()
			var released bool
			err := conn.QueryRowContext(uctx, `SELECT pg_advisory_unlock($1, hashtext(current_schema()))`, pgLockSync).Scan(&released)
			if err != nil || !released {
				discard()
				return
			}
			_ = conn.Close()
		})
	}, nil
}
