package cachetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolhint/toolhint/cache"
)

// RunUsage runs the conformance suite of cache.UsageStore against the stores newStore
// returns: a fresh, empty store per subtest. Beyond the interface's doc comments it pins
// down: app slugs come back lower case, action slugs upper case, terms lower case without
// duplicates and at most cache.MaxUsageTerms; the zero time is the time of recording;
// events of one workspace are invisible to others and a purge of one leaves the others;
// a term that is not one word is ErrInvalid; a cancelled context makes every method fail
// with context.Canceled and write nothing.
func RunUsage(t *testing.T, newStore func(t *testing.T) cache.UsageStore) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, st cache.UsageStore)
	}{
		{"Record", testUsageRecord},
		{"Order", testUsageOrder},
		{"Since", testUsageSince},
		{"Invalid", testUsageInvalid},
		{"Retention", testUsageRetention},
		{"Cap", testUsageCap},
		{"Purge", testUsagePurge},
		{"Context", testUsageContext},
		{"Concurrent", testUsageConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newStore(t)) })
	}
}

// usageTime is a fixed recent time, to the microsecond.
var usageTime = time.Now().UTC().Truncate(time.Hour).Add(-24 * time.Hour)

func record(t *testing.T, st cache.UsageStore, lim cache.UsageLimits, evs ...cache.UsageEvent) {
	t.Helper()
	if err := st.RecordUsage(context.Background(), evs, lim); err != nil {
		t.Fatalf("RecordUsage: %v", err)
	}
}

func usageOf(t *testing.T, st cache.UsageStore, ws string) []cache.UsageEvent {
	t.Helper()
	evs, err := st.Usage(context.Background(), ws, time.Time{})
	if err != nil {
		t.Fatalf("Usage(%s): %v", ws, err)
	}
	return evs
}

func usageActions(evs []cache.UsageEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Action)
	}
	return out
}

func testUsageRecord(t *testing.T, st cache.UsageStore) {
	before := time.Now().Add(-time.Second)
	record(t, st, cache.UsageLimits{},
		cache.UsageEvent{WorkspaceID: "ws1", AgentID: 7, App: "Gmail", Action: "gmail_send_email", OK: true,
			Terms: []string{"Send", "invoic", "send", "dana"}, At: usageTime},
		cache.UsageEvent{WorkspaceID: "ws1", App: "slack", Action: "SLACK_SEND_MESSAGE", OK: false})
	got := usageOf(t, st, "ws1")
	if len(got) != 2 {
		t.Fatalf("Usage: %d events, want 2: %+v", len(got), got)
	}
	if got[0].At.Before(before) || got[0].At.After(time.Now().Add(time.Second)) {
		t.Errorf("event recorded with the zero time has At %v, want about now", got[0].At)
	}
	want := []cache.UsageEvent{
		{WorkspaceID: "ws1", App: "slack", Action: "SLACK_SEND_MESSAGE", OK: false},
		{WorkspaceID: "ws1", AgentID: 7, App: "gmail", Action: "GMAIL_SEND_EMAIL", OK: true, Terms: []string{"send", "invoic", "dana"}, At: usageTime},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(cache.UsageEvent{}, "At")); diff != "" {
		t.Errorf("Usage (-want +got):\n%s", diff)
	}
	if !got[1].At.Equal(usageTime) || got[1].At.Location() != time.UTC {
		t.Errorf("At = %v, want %v in UTC", got[1].At, usageTime)
	}
	if evs := usageOf(t, st, "ws2"); len(evs) != 0 {
		t.Errorf("another workspace sees %d events", len(evs))
	}

	many := make([]string, cache.MaxUsageTerms+5)
	for i := range many {
		many[i] = fmt.Sprintf("t%d", i)
	}
	record(t, st, cache.UsageLimits{}, cache.UsageEvent{WorkspaceID: "ws3", App: "a", Action: "A_X", OK: true, Terms: many})
	if got := usageOf(t, st, "ws3"); len(got) != 1 || cmp.Diff(many[:cache.MaxUsageTerms], got[0].Terms) != "" {
		t.Errorf("terms beyond MaxUsageTerms: got %+v, want the first %d", got, cache.MaxUsageTerms)
	}
	// Nothing to write is no error.
	record(t, st, cache.UsageLimits{})
}

func testUsageOrder(t *testing.T, st cache.UsageStore) {
	ev := func(action string, at time.Time) cache.UsageEvent {
		return cache.UsageEvent{WorkspaceID: "ws1", App: "a", Action: action, OK: true, At: at}
	}
	record(t, st, cache.UsageLimits{}, ev("A_1", usageTime), ev("A_2", usageTime.Add(time.Minute)), ev("A_3", usageTime))
	record(t, st, cache.UsageLimits{}, ev("A_4", usageTime.Add(-time.Minute)), ev("A_5", usageTime))
	want := []string{"A_2", "A_5", "A_3", "A_1", "A_4"}
	if diff := cmp.Diff(want, usageActions(usageOf(t, st, "ws1"))); diff != "" {
		t.Errorf("newest first, then the last recorded first (-want +got):\n%s", diff)
	}
}

func testUsageSince(t *testing.T, st cache.UsageStore) {
	for i := range 4 {
		record(t, st, cache.UsageLimits{}, cache.UsageEvent{WorkspaceID: "ws1", App: "a", Action: fmt.Sprintf("A_%d", i), OK: true,
			At: usageTime.Add(time.Duration(i) * time.Hour)})
	}
	got, err := st.Usage(context.Background(), "ws1", usageTime.Add(2*time.Hour))
	wantErr(t, "Usage", err, nil)
	if diff := cmp.Diff([]string{"A_3", "A_2"}, usageActions(got)); diff != "" {
		t.Errorf("Usage since the third event (-want +got):\n%s", diff)
	}
}

func testUsageInvalid(t *testing.T, st cache.UsageStore) {
	good := cache.UsageEvent{WorkspaceID: "ws1", App: "a", Action: "A_X", OK: true, Terms: []string{"ok"}}
	for _, tt := range []struct {
		name string
		edit func(e *cache.UsageEvent)
	}{
		{"empty workspace", func(e *cache.UsageEvent) { e.WorkspaceID = " " }},
		{"NUL in workspace", func(e *cache.UsageEvent) { e.WorkspaceID = "w\x00s" }},
		{"long workspace", func(e *cache.UsageEvent) { e.WorkspaceID = long(cache.MaxSlugLen + 1) }},
		{"negative agent", func(e *cache.UsageEvent) { e.AgentID = -1 }},
		{"empty app", func(e *cache.UsageEvent) { e.App = "" }},
		{"bad action", func(e *cache.UsageEvent) { e.Action = "A X" }},
		{"empty term", func(e *cache.UsageEvent) { e.Terms = []string{""} }},
		{"two words", func(e *cache.UsageEvent) { e.Terms = []string{"two words"} }},
		{"control character", func(e *cache.UsageEvent) { e.Terms = []string{"a\x01"} }},
		{"long term", func(e *cache.UsageEvent) { e.Terms = []string{long(cache.MaxUsageTermLen + 1)} }},
		{"not UTF-8", func(e *cache.UsageEvent) { e.Terms = []string{"\xff"} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bad := good
			tt.edit(&bad)
			err := st.RecordUsage(context.Background(), []cache.UsageEvent{good, bad}, cache.UsageLimits{})
			wantErr(t, "RecordUsage", err, cache.ErrInvalid)
			if got := usageOf(t, st, "ws1"); len(got) != 0 {
				t.Errorf("a refused batch wrote %d events", len(got))
			}
		})
	}
	for _, ws := range []string{"", "w\x00s"} {
		_, err := st.Usage(context.Background(), ws, time.Time{})
		wantErr(t, fmt.Sprintf("Usage(%q)", ws), err, cache.ErrInvalid)
		_, err = st.PurgeUsage(context.Background(), ws)
		wantErr(t, fmt.Sprintf("PurgeUsage(%q)", ws), err, cache.ErrInvalid)
	}
}

func testUsageRetention(t *testing.T, st cache.UsageStore) {
	now := time.Now().UTC()
	ev := func(action string, age time.Duration) cache.UsageEvent {
		return cache.UsageEvent{WorkspaceID: "ws1", App: "a", Action: action, OK: true, At: now.Add(-age)}
	}
	day := 24 * time.Hour
	record(t, st, cache.UsageLimits{}, ev("A_OLD", 100*day), ev("A_MONTH", 30*day), ev("A_WEEK", 7*day))
	other := cache.UsageEvent{WorkspaceID: "ws2", App: "a", Action: "A_OTHER", OK: true, At: now.Add(-30 * day)}
	record(t, st, cache.UsageLimits{}, other)
	if diff := cmp.Diff([]string{"A_WEEK", "A_MONTH"}, usageActions(usageOf(t, st, "ws1"))); diff != "" {
		t.Errorf("default retention (-want +got):\n%s", diff)
	}
	// A shorter window drops what it no longer covers from the workspace written to.
	record(t, st, cache.UsageLimits{Retention: 10 * day}, ev("A_NEW", 0))
	if diff := cmp.Diff([]string{"A_NEW", "A_WEEK"}, usageActions(usageOf(t, st, "ws1"))); diff != "" {
		t.Errorf("10-day retention (-want +got):\n%s", diff)
	}
	if got := usageActions(usageOf(t, st, "ws2")); len(got) != 1 {
		t.Errorf("a write to ws1 pruned ws2: %v", got)
	}
}

func testUsageCap(t *testing.T, st cache.UsageStore) {
	lim := cache.UsageLimits{MaxPerWorkspace: 3}
	record(t, st, lim, cache.UsageEvent{WorkspaceID: "ws2", App: "a", Action: "A_OTHER", OK: true, At: usageTime})
	for i := range 5 {
		record(t, st, lim, cache.UsageEvent{WorkspaceID: "ws1", App: "a", Action: fmt.Sprintf("A_%d", i), OK: true,
			At: usageTime.Add(time.Duration(i) * time.Second)})
	}
	// One batch over the cap keeps its newest.
	var batch []cache.UsageEvent
	for i := range 5 {
		batch = append(batch, cache.UsageEvent{WorkspaceID: "ws3", App: "a", Action: fmt.Sprintf("B_%d", i), OK: true, At: usageTime})
	}
	record(t, st, lim, batch...)
	if diff := cmp.Diff([]string{"A_4", "A_3", "A_2"}, usageActions(usageOf(t, st, "ws1"))); diff != "" {
		t.Errorf("cap of 3 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"B_4", "B_3", "B_2"}, usageActions(usageOf(t, st, "ws3"))); diff != "" {
		t.Errorf("cap of 3, one batch (-want +got):\n%s", diff)
	}
	if got := usageActions(usageOf(t, st, "ws2")); len(got) != 1 {
		t.Errorf("ws2 holds %v, want its one event", got)
	}
}

func testUsagePurge(t *testing.T, st cache.UsageStore) {
	for _, ws := range []string{"ws1", "ws1", "ws2"} {
		record(t, st, cache.UsageLimits{}, cache.UsageEvent{WorkspaceID: ws, App: "a", Action: "A_X", OK: true})
	}
	n, err := st.PurgeUsage(context.Background(), "ws1")
	wantErr(t, "PurgeUsage", err, nil)
	if n != 2 {
		t.Errorf("PurgeUsage = %d, want 2", n)
	}
	if got := usageOf(t, st, "ws1"); len(got) != 0 {
		t.Errorf("purged workspace holds %d events", len(got))
	}
	if got := usageOf(t, st, "ws2"); len(got) != 1 {
		t.Errorf("other workspace holds %d events, want 1", len(got))
	}
	if n, err := st.PurgeUsage(context.Background(), "ws1"); err != nil || n != 0 {
		t.Errorf("PurgeUsage of an empty record = %d, %v; want 0, nil", n, err)
	}
}

func testUsageContext(t *testing.T, st cache.UsageStore) {
	record(t, st, cache.UsageLimits{}, cache.UsageEvent{WorkspaceID: "ws1", App: "a", Action: "A_X", OK: true})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := map[string]func() error{
		"RecordUsage": func() error {
			return st.RecordUsage(ctx, []cache.UsageEvent{{WorkspaceID: "ws1", App: "a", Action: "A_Y"}}, cache.UsageLimits{})
		},
		"Usage":      func() error { _, err := st.Usage(ctx, "ws1", time.Time{}); return err },
		"PurgeUsage": func() error { _, err := st.PurgeUsage(ctx, "ws1"); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", name, err)
		}
	}
	if diff := cmp.Diff([]string{"A_X"}, usageActions(usageOf(t, st, "ws1"))); diff != "" {
		t.Errorf("cancelled calls changed the record (-want +got):\n%s", diff)
	}
}

func testUsageConcurrent(t *testing.T, st cache.UsageStore) {
	const writers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				ev := cache.UsageEvent{WorkspaceID: "ws1", App: "a", Action: fmt.Sprintf("A_%d_%d", w, i), OK: i%2 == 0,
					Terms: []string{strings.Repeat("x", i+1)}}
				if err := st.RecordUsage(context.Background(), []cache.UsageEvent{ev}, cache.UsageLimits{}); err != nil {
					errs <- err
				}
				if _, err := st.Usage(context.Background(), "ws1", time.Time{}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := usageOf(t, st, "ws1"); len(got) != writers*each {
		t.Errorf("%d events after %d concurrent writes", len(got), writers*each)
	}
}
