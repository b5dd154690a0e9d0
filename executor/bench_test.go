package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

// BenchmarkExecuteOverhead measures the executor's own cost per call: a no-op tool with a
// warm validator, arguments that need validating. Target: median under 8µs (its
// median-µs/call metric; ns/op is a mean, which a loaded machine inflates).
func BenchmarkExecuteOverhead(b *testing.B) {
	reg := registry.New()
	out := json.RawMessage(`{"ok":true}`)
	reg.MustRegister(registry.ToolSpec{Name: "noop", Description: "No-op.", Parameters: json.RawMessage(echoSchema),
		Run: func(context.Context, json.RawMessage) (json.RawMessage, error) { return out, nil }})
	ex := mustNew(b, executor.Config{Registry: reg})
	defer ex.Close()
	call := executor.Call{ID: "c", Name: "noop", Arguments: json.RawMessage(`{"text":"hello","count":3}`)}
	benchExecute(b, ex, call)
}

// BenchmarkBatchParallel runs 10 independent 100ms calls as one batch and reports the
// batch's time as a multiple of one call's. Target: under 1.3.
func BenchmarkBatchParallel(b *testing.B) {
	reg := registry.New()
	reg.MustRegister(registry.ToolSpec{Name: "wait", Description: "Waits 100ms.", ReadOnly: true,
		Run: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			select {
			case <-time.After(100 * time.Millisecond):
				return json.RawMessage(`{}`), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}})
	ex := mustNew(b, executor.Config{Registry: reg, MaxConcurrency: 16})
	defer ex.Close()
	ctx := context.Background()
	calls := make([]executor.Call, 10)
	for i := range calls {
		calls[i] = executor.Call{Name: "wait"}
	}
	var worst float64
	for range b.N {
		t0 := time.Now()
		ex.Execute(ctx, calls[0])
		one := time.Since(t0)
		t0 = time.Now()
		for _, r := range ex.ExecuteBatch(ctx, calls, executor.BatchOptions{}) {
			if !r.OK {
				b.Fatal(r.Error)
			}
		}
		ratio := float64(time.Since(t0)) / float64(one)
		worst = max(worst, ratio)
	}
	b.ReportMetric(worst, "worst-batch/one")
}

// BenchmarkBatch10kLimit64 runs 10,000 calls through a concurrency limit of 64 and reports
// the most goroutines seen above the baseline while it ran.
func BenchmarkBatch10kLimit64(b *testing.B) {
	reg := registry.New()
	var peak atomic.Int64
	reg.MustRegister(registry.ToolSpec{Name: "probe", Description: "Samples the goroutine count.", ReadOnly: true,
		Run: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			n := int64(runtime.NumGoroutine())
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(50 * time.Microsecond)
			return json.RawMessage(`{}`), nil
		}})
	ex := mustNew(b, executor.Config{Registry: reg, MaxConcurrency: 64})
	defer ex.Close()
	calls := make([]executor.Call, 10_000)
	for i := range calls {
		calls[i] = executor.Call{ID: fmt.Sprint(i), Name: "probe"}
	}
	base := int64(runtime.NumGoroutine())
	b.ResetTimer()
	for range b.N {
		// The previous batch's workers have all called Done, but some may not have exited
		// yet; let them go, so the peak is one batch's goroutines, not two batches'.
		b.StopTimer()
		for deadline := time.Now().Add(time.Second); int64(runtime.NumGoroutine()) > base && time.Now().Before(deadline); {
			runtime.Gosched()
		}
		b.StartTimer()
		res := ex.ExecuteBatch(context.Background(), calls, executor.BatchOptions{})
		if len(res) != len(calls) {
			b.Fatal("lost results")
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(peak.Load()-base), "max-goroutines-above-base")
	// The executor runs at most 64 workers; a goroutine dump taken at a peak of 65 showed
	// exactly 64 workers, the extra one being the runtime's or the testing package's, so
	// allow two of those.
	if extra := peak.Load() - base; extra > 64+2 {
		b.Errorf("saw %d goroutines above the baseline, want <= 64 (+2 not ours)", extra)
	}
}

// BenchmarkExecuteActionOverhead is BenchmarkExecuteOverhead for a Composio action with
// access checks against a memory store and a no-op Remote.
func BenchmarkExecuteActionOverhead(b *testing.B) {
	st := catalogStore(b)
	ex := mustNew(b, executor.Config{
		Catalog: st,
		Remote: executor.RemoteFunc(func(context.Context, executor.RemoteRequest) (json.RawMessage, error) {
			return json.RawMessage(`{"ok":true}`), nil
		}),
		Access: registry.NewAccess(registry.AccessConfig{Store: st}),
		Scope:  executor.Scope{Identity: hint.Identity{AgentID: 1, WorkspaceID: "ws1"}},
	})
	defer ex.Close()
	call := executor.Call{ID: "c", Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":"a@b.c","body":"hi"}`)}
	benchExecute(b, ex, call)
}

// benchExecute runs call once to warm ex up, then b.N times, and reports the median time
// of one call.
func benchExecute(b *testing.B, ex *executor.Executor, call executor.Call) {
	b.Helper()
	ctx := context.Background()
	if r := ex.Execute(ctx, call); !r.OK {
		b.Fatal(r.Error)
	}
	durs := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		r := ex.Execute(ctx, call)
		durs = append(durs, time.Since(t0))
		if !r.OK {
			b.Fatal(r.Error)
		}
	}
	b.StopTimer()
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Nanoseconds()), "median-ns/call")
}
