package cache

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Memory implements UsageStore.
var _ UsageStore = (*Memory)(nil)

// memUsage holds a Memory's record of use. The zero value is ready to use.
type memUsage struct {
	mu sync.RWMutex
	// events are, per workspace, in the order of their time and, for equal times, of
	// recording; the oldest first.
	events map[string][]UsageEvent
}

// RecordUsage adds events. See UsageStore.
func (m *Memory) RecordUsage(ctx context.Context, events []UsageEvent, lim UsageLimits) error {
	evs, lim, cutoff, err := prepareUsage(ctx, events, lim, now())
	if err != nil || len(evs) == 0 {
		return err
	}
	u := &m.usage
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.events == nil {
		u.events = map[string][]UsageEvent{}
	}
	touched := map[string]bool{}
	for _, e := range evs {
		u.events[e.WorkspaceID] = append(u.events[e.WorkspaceID], e)
		touched[e.WorkspaceID] = true
	}
	for ws := range touched {
		list := u.events[ws]
		// Stable: equal times keep the order they were recorded in.
		slices.SortStableFunc(list, func(a, b UsageEvent) int { return a.At.Compare(b.At) })
		drop := 0
		for drop < len(list) && list[drop].At.Before(cutoff) {
			drop++
		}
		drop = max(drop, len(list)-lim.MaxPerWorkspace)
		if drop > 0 {
			list = slices.Delete(list, 0, drop)
		}
		u.events[ws] = list
	}
	return nil
}

// Usage returns a workspace's events, newest first. See UsageStore.
func (m *Memory) Usage(ctx context.Context, workspaceID string, since time.Time) ([]UsageEvent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkWorkspace(workspaceID); err != nil {
		return nil, err
	}
	u := &m.usage
	u.mu.RLock()
	defer u.mu.RUnlock()
	list := u.events[workspaceID]
	var out []UsageEvent
	for i := len(list) - 1; i >= 0 && !list[i].At.Before(since); i-- {
		e := list[i]
		e.Terms = slices.Clone(e.Terms)
		out = append(out, e)
	}
	return out, nil
}

// PurgeUsage deletes a workspace's record of use. See UsageStore.
func (m *Memory) PurgeUsage(ctx context.Context, workspaceID string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := checkWorkspace(workspaceID); err != nil {
		return 0, err
	}
	u := &m.usage
	u.mu.Lock()
	defer u.mu.Unlock()
	n := len(u.events[workspaceID])
	delete(u.events, workspaceID)
	return n, nil
}
