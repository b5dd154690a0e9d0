package cache

import (
	"context"
	"fmt"
	"sync"
)

// Memory implements SyncLocker.
var _ SyncLocker = (*Memory)(nil)

// LockSync takes the store's sync lock, so that one sync runs at a time on this store.
// When another sync holds it, LockSync returns an error wrapping ErrSyncRunning at once if
// wait is false, and otherwise waits until it is free or ctx is done. The caller must
// call unlock once; further calls do nothing.
func (m *Memory) LockSync(ctx context.Context, wait bool) (unlock func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cache: sync lock: %w", err)
	}
	if wait {
		select {
		case m.syncSlot <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("cache: sync lock: waiting: %w", ctx.Err())
		}
	} else {
		select {
		case m.syncSlot <- struct{}{}:
		default:
			return nil, fmt.Errorf("%w (on this memory store)", ErrSyncRunning)
		}
	}
	var once sync.Once
	return func() { once.Do(func() { <-m.syncSlot }) }, nil
}
