package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
)

// TestUsageRecorder: finished action calls are recorded with their workspace, agent, app,
// outcome and the prompt's terms, never the prompt; platform tools, calls that did not run
// and calls after Close are not.
func TestUsageRecorder(t *testing.T) {
	ctx := context.Background()
	st := catalogStore(t)
	f := newFixture(t)
	rec, err := executor.NewUsageRecorder(executor.UsageConfig{Store: st, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close(ctx)
	remote := &fakeRemote{fn: func(r executor.RemoteRequest) (json.RawMessage, error) {
		if r.Action == "GMAIL_SEND_EMAIL" {
			return nil, errors.New("mailbox full")
		}
		return json.RawMessage(`{"messages":[]}`), nil
	}}
	ex := mustNew(t, executor.Config{Registry: f.reg, Catalog: st, Remote: remote, Observer: rec,
		Scope: executor.Scope{Identity: hint.Identity{WorkspaceID: "ws1", Apps: []string{"gmail"}}}})
	defer ex.Close()

	prompt := "fetch my latest emails from Dana, then email her: 'see you on Friday'"
	pctx := executor.WithPrompt(ctx, prompt)
	for _, c := range []executor.Call{
		{Name: "GMAIL_FETCH_EMAILS", Arguments: json.RawMessage(`{"max_results":5}`)},
		{Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":"dana@example.com","body":"see you on Friday"}`)},
		{Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"subject":"no recipient"}`)}, // invalid: never runs
		{Name: "noop"}, // a platform tool
	} {
		ex.Execute(pctx, c)
	}
	ex.Execute(ctx, executor.Call{Name: "GMAIL_FETCH_EMAILS"}) // no prompt
	if err := rec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := st.Usage(ctx, "ws1", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	terms := hint.PromptTerms(prompt)
	if len(terms) == 0 {
		t.Fatalf("no terms for %q", prompt)
	}
	want := []cache.UsageEvent{
		{WorkspaceID: "ws1", App: "gmail", Action: "GMAIL_FETCH_EMAILS", OK: true},
		{WorkspaceID: "ws1", App: "gmail", Action: "GMAIL_SEND_EMAIL", OK: false, Terms: terms},
		{WorkspaceID: "ws1", App: "gmail", Action: "GMAIL_FETCH_EMAILS", OK: true, Terms: terms},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(cache.UsageEvent{}, "At")); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	for _, e := range got {
		for _, term := range e.Terms {
			if strings.Contains(term, " ") || strings.Contains(term, "friday") {
				t.Errorf("term %q carries the prompt's text or its message body", term)
			}
		}
	}

	if err := rec.Close(ctx); err != nil {
		t.Fatal(err)
	}
	ex.Execute(pctx, executor.Call{Name: "GMAIL_FETCH_EMAILS"})
	if err := rec.Flush(ctx); !errors.Is(err, executor.ErrClosed) {
		t.Errorf("Flush after Close: %v, want ErrClosed", err)
	}
	if after, _ := st.Usage(ctx, "ws1", time.Time{}); len(after) != len(got) {
		t.Errorf("a call after Close was recorded: %d events, want %d", len(after), len(got))
	}
}

// blockingStore holds every write until released.
type blockingStore struct {
	*cache.Memory
	release chan struct{}
}

func (s *blockingStore) RecordUsage(ctx context.Context, evs []cache.UsageEvent, lim cache.UsageLimits) error {
	<-s.release
	return s.Memory.RecordUsage(ctx, evs, lim)
}

// TestUsageRecorderNeverBlocks: with the store stuck, calls go on at full speed and the
// calls the queue cannot hold are dropped and counted; Close writes the rest.
func TestUsageRecorderNeverBlocks(t *testing.T) {
	ctx := context.Background()
	st := &blockingStore{Memory: catalogStore(t), release: make(chan struct{})}
	rec, err := executor.NewUsageRecorder(executor.UsageConfig{Store: st, QueueSize: 2, BatchSize: 1, FlushInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ex := mustNew(t, executor.Config{Catalog: st, Remote: &fakeRemote{}, Observer: rec,
		Scope: executor.Scope{Identity: hint.Identity{WorkspaceID: "ws1", Apps: []string{"gmail"}}}})
	defer ex.Close()
	const n = 50
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range n {
			ex.Execute(ctx, executor.Call{Name: "GMAIL_FETCH_EMAILS"})
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("calls blocked on a stuck usage store")
	}
	dropped := rec.Dropped()
	if dropped == 0 || dropped > n {
		t.Errorf("Dropped = %d, want between 1 and %d", dropped, n)
	}
	close(st.release)
	if err := rec.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := st.Usage(ctx, "ws1", time.Time{})
	if int64(len(got))+dropped != n {
		t.Errorf("%d recorded + %d dropped, want %d", len(got), dropped, n)
	}
}

func TestNewUsageRecorderConfig(t *testing.T) {
	type writerOnly struct{ executor.UsageWriter }
	for name, cfg := range map[string]executor.UsageConfig{
		"no store":   {},
		"no catalog": {Store: writerOnly{cache.NewMemory()}},
	} {
		if _, err := executor.NewUsageRecorder(cfg); !errors.Is(err, executor.ErrInvalidConfig) {
			t.Errorf("%s: %v, want ErrInvalidConfig", name, err)
		}
	}
}

// BenchmarkUsageCallEnd measures what recording adds to a call on its path: the recorder's
// CallEnd, with the writes running beside it. Target: under 1µs.
func BenchmarkUsageCallEnd(b *testing.B) {
	ctx := context.Background()
	st := catalogStore(b)
	rec, err := executor.NewUsageRecorder(executor.UsageConfig{Store: st, QueueSize: 1 << 16})
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close(ctx)
	// The context a call's observers get, captured from inside a call.
	var callCtx context.Context
	f := newFixture(b)
	ex := mustNew(b, executor.Config{Registry: f.reg, Catalog: st, Remote: &fakeRemote{fn: func(executor.RemoteRequest) (json.RawMessage, error) {
		return json.RawMessage(`{}`), nil
	}}, Scope: executor.Scope{Identity: hint.Identity{WorkspaceID: "ws1", Apps: []string{"gmail"}}},
		Observer: captureObserver{&callCtx}})
	defer ex.Close()
	res := ex.Execute(executor.WithPrompt(ctx, "fetch my latest emails"), executor.Call{Name: "GMAIL_FETCH_EMAILS"})
	if !res.OK || callCtx == nil {
		b.Fatalf("setup call: %+v", res)
	}
	call := executor.Call{Name: "GMAIL_FETCH_EMAILS"}
	durs := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		rec.CallEnd(callCtx, call, res)
		durs = append(durs, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Nanoseconds()), "median-ns/call")
}

type captureObserver struct{ ctx *context.Context }

func (o captureObserver) CallStart(context.Context, executor.Call) context.Context { return nil }
func (o captureObserver) CallEnd(ctx context.Context, _ executor.Call, _ executor.Result) {
	*o.ctx = ctx
}

// refusingStore refuses, all or nothing as the cache stores do, a batch holding a call of
// one action.
type refusingStore struct {
	*cache.Memory
	refuse string
}

func (s refusingStore) RecordUsage(ctx context.Context, evs []cache.UsageEvent, lim cache.UsageLimits) error {
	for _, e := range evs {
		if e.Action == s.refuse {
			return fmt.Errorf("%w: refused", cache.ErrInvalid)
		}
	}
	return s.Memory.RecordUsage(ctx, evs, lim)
}

// TestUsageRecorderRefusedCall: a call the store refuses costs only itself.
func TestUsageRecorderRefusedCall(t *testing.T) {
	ctx := context.Background()
	st := refusingStore{Memory: catalogStore(t), refuse: "GMAIL_SEND_EMAIL"}
	rec, err := executor.NewUsageRecorder(executor.UsageConfig{Store: st, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close(ctx)
	ex := mustNew(t, executor.Config{Catalog: st, Remote: &fakeRemote{}, Observer: rec,
		Scope: executor.Scope{Identity: hint.Identity{WorkspaceID: "ws1", Apps: []string{"gmail"}}}})
	defer ex.Close()
	ex.ExecuteBatch(ctx, []executor.Call{
		{Name: "GMAIL_FETCH_EMAILS"},
		{Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":"a@example.com","body":"hi"}`)},
		{Name: "GMAIL_FETCH_EMAILS"},
	}, executor.BatchOptions{})
	if err := rec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := st.Usage(ctx, "ws1", time.Time{})
	if len(got) != 2 || rec.Dropped() != 1 {
		t.Errorf("%d calls recorded, %d dropped; want 2 and 1", len(got), rec.Dropped())
	}
}
