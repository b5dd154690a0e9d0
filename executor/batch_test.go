package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/registry"
)

// timeline records when each call started and ended.
type timeline struct {
	mu     sync.Mutex
	starts map[string]time.Time
	ends   map[string]time.Time
}

func (tl *timeline) tool(reg *registry.Registry, t *testing.T) {
	tl.starts, tl.ends = map[string]time.Time{}, map[string]time.Time{}
	err := reg.Register(registry.ToolSpec{Name: "mark", Description: "Sleeps, recording when.", ReadOnly: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"ms":{"type":"integer"},"fail":{"type":"boolean"}},"required":["id"]}`),
		Run: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			var in struct {
				ID   string
				MS   int
				Fail bool
			}
			_ = json.Unmarshal(args, &in)
			tl.mu.Lock()
			tl.starts[in.ID] = time.Now()
			tl.mu.Unlock()
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			tl.mu.Lock()
			tl.ends[in.ID] = time.Now()
			tl.mu.Unlock()
			if in.Fail {
				return nil, errors.New("failed on purpose")
			}
			return args, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
}

func mark(id string, step, ms int, fail bool) executor.Call {
	return executor.Call{ID: id, Name: "mark", Step: step, Arguments: json.RawMessage(fmt.Sprintf(`{"id":%q,"ms":%d,"fail":%v}`, id, ms, fail))}
}

func TestExecuteBatchOrderAndSteps(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFixture(t)
	var tl timeline
	tl.tool(f.reg, t)
	ex := newExec(f, nil)
	// Steps out of order in the call list; results must still follow the call list.
	calls := []executor.Call{
		mark("c", 2, 10, false),
		mark("a", 1, 40, false),
		mark("d", 2, 10, false),
		mark("b", 1, 20, false),
		{ID: "a", Name: "echo", Arguments: json.RawMessage(`{"text":"dup"}`)}, // duplicate id
		{Name: "echo", Arguments: json.RawMessage(`{"text":"no id"}`)},        // step 0: first
	}
	res := ex.ExecuteBatch(context.Background(), calls, executor.BatchOptions{})
	var got []string
	for _, r := range res {
		got = append(got, fmt.Sprintf("%s:%s:%v:%s", r.CallID, r.Tool, r.OK, r.ErrorKind))
	}
	want := []string{"c:mark:true:", "a:mark:true:", "d:mark:true:", "b:mark:true:", "a:echo:false:duplicate_call", "call_5:echo:true:"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("results (-want +got):\n%s", diff)
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	step1End := tl.ends["a"]
	if tl.ends["b"].After(step1End) {
		step1End = tl.ends["b"]
	}
	for _, id := range []string{"c", "d"} {
		if tl.starts[id].Before(step1End) {
			t.Errorf("step 2 call %s started before step 1 ended", id)
		}
	}
	// a and b share step 1 and must overlap.
	if !tl.starts["b"].Before(tl.ends["a"]) {
		t.Errorf("step 1 calls did not run in parallel")
	}
	ex.Close()
	checkGoroutines(t, base)
}

func TestExecuteBatchStopOnFailure(t *testing.T) {
	f := newFixture(t)
	var tl timeline
	tl.tool(f.reg, t)
	ex := newExec(f, nil)
	defer ex.Close()
	calls := []executor.Call{mark("a", 1, 5, true), mark("b", 1, 5, false), mark("c", 2, 5, false), mark("d", 3, 5, false)}
	tests := []struct {
		name string
		stop bool
		want []executor.ErrorKind
	}{
		{"caller stops later steps", true, []executor.ErrorKind{executor.KindToolError, "", executor.KindSkipped, executor.KindSkipped}},
		{"caller continues", false, []executor.ErrorKind{executor.KindToolError, "", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := ex.ExecuteBatch(context.Background(), calls, executor.BatchOptions{StopOnFailure: tt.stop})
			var got []executor.ErrorKind
			for _, r := range res {
				got = append(got, r.ErrorKind)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
			if tt.stop && !strings.Contains(res[2].Error, "step 1 failed") {
				t.Errorf("skip reason %q does not name the failed step", res[2].Error)
			}
		})
	}
}

func TestExecuteBatchLarge(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFixture(t)
	ex := newExec(f, func(c *executor.Config) { c.MaxConcurrency = 64 })
	const n = 10_000
	calls := make([]executor.Call, n)
	for i := range calls {
		calls[i] = executor.Call{ID: fmt.Sprint("id", i), Name: "echo", Step: i % 3, Arguments: json.RawMessage(fmt.Sprintf(`{"text":"%d"}`, i))}
	}
	var delivered int
	res := ex.ExecuteBatch(context.Background(), calls, executor.BatchOptions{OnResult: func(executor.Result) { delivered++ }})
	if len(res) != n || delivered != n {
		t.Fatalf("got %d results, %d callbacks; want %d", len(res), delivered, n)
	}
	for i, r := range res {
		if !r.OK || r.CallID != calls[i].ID || string(r.Data) != fmt.Sprintf(`{"text":"%d"}`, i) {
			t.Fatalf("result %d = %+v, want OK echo of its own call", i, r)
		}
	}
	ex.Close()
	checkGoroutines(t, base)
}

func TestExecuteBatchCancelledMidway(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFixture(t)
	ex := newExec(f, func(c *executor.Config) { c.MaxConcurrency = 4 })
	ctx, cancel := context.WithCancel(context.Background())
	calls := make([]executor.Call, 40)
	for i := range calls {
		calls[i] = executor.Call{Name: "sleep", Step: i / 10, Arguments: json.RawMessage(`{"ms":30}`)}
	}
	defer cancel()
	done := 0
	res := ex.ExecuteBatch(ctx, calls, executor.BatchOptions{OnResult: func(executor.Result) {
		if done++; done == 5 {
			cancel() // mid-batch: some calls done, some running, most not started
		}
	}})
	counts := map[string]int{}
	for i, r := range res {
		if r.CallID != fmt.Sprint("call_", i) {
			t.Errorf("result %d has call id %q", i, r.CallID)
		}
		if !r.OK && r.Error == "" {
			t.Errorf("result %d failed without a message", i)
		}
		counts[fmt.Sprintf("%v/%s", r.OK, r.ErrorKind)]++
	}
	if counts["true/"] == 0 || counts["false/cancelled"] == 0 || counts["true/"]+counts["false/cancelled"] != len(calls) {
		t.Errorf("outcomes %v: want some done, the rest cancelled, none lost", counts)
	}
	ex.Close()
	checkGoroutines(t, base)
}

func TestBackground(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFixture(t)
	ex := newExec(f, nil)
	calls := []executor.Call{
		{ID: "1", Name: "sleep", Arguments: json.RawMessage(`{"ms":20}`), Step: 1},
		{ID: "2", Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`), Step: 2},
	}
	var mu sync.Mutex
	var order []string
	run, err := ex.Background(context.Background(), calls, executor.BatchOptions{OnResult: func(r executor.Result) {
		mu.Lock()
		order = append(order, r.CallID)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	var fromChan []string
	for r := range run.Results() {
		fromChan = append(fromChan, r.CallID)
	}
	res, err := run.Wait(context.Background())
	if err != nil || len(res) != 2 || !res[0].OK || !res[1].OK {
		t.Fatalf("Wait = %v, %v", res, err)
	}
	mu.Lock()
	if diff := cmp.Diff([]string{"1", "2"}, order); diff != "" {
		t.Errorf("callback order (-want +got):\n%s", diff)
	}
	mu.Unlock()
	if diff := cmp.Diff([]string{"1", "2"}, fromChan); diff != "" {
		t.Errorf("channel order (-want +got):\n%s", diff)
	}

	// Cancelling the caller's context does not stop a background run; Close does.
	ctx, cancel := context.WithCancel(context.Background())
	long, err := ex.Background(ctx, []executor.Call{{Name: "sleep", Arguments: json.RawMessage(`{"ms":60000}`)}, {Name: "sleep", Step: 1, Arguments: json.RawMessage(`{"ms":1}`)}}, executor.BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-long.Done():
		t.Fatal("background run ended with its caller's context")
	case <-time.After(30 * time.Millisecond):
	}
	ex.Close()
	res, err = long.Wait(context.Background())
	if err != nil || res[0].ErrorKind != executor.KindCancelled || res[1].ErrorKind != executor.KindCancelled {
		t.Fatalf("after Close: %+v, %v; want both cancelled", res, err)
	}
	for _, r := range res {
		if !errors.Is(r.Err, context.Canceled) {
			t.Errorf("%s: Err = %v, want context.Canceled", r.CallID, r.Err)
		}
	}
	if _, err := ex.Background(context.Background(), calls, executor.BatchOptions{}); !errors.Is(err, executor.ErrClosed) {
		t.Errorf("Background after Close: %v, want ErrClosed", err)
	}
	if r := ex.Execute(context.Background(), calls[1]); r.ErrorKind != executor.KindClosed {
		t.Errorf("Execute after Close: kind %q, want closed", r.ErrorKind)
	}
	checkGoroutines(t, base)
}

func TestExecuteBatchWithHungTool(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFixture(t)
	ex := newExec(f, func(c *executor.Config) { c.MaxConcurrency = 1 })
	calls := []executor.Call{{Name: "hang"}, {Name: "echo", Arguments: json.RawMessage(`{"text":"after"}`)}, {Name: "hang"}, {Name: "noop", Step: 1}}
	start := time.Now()
	res := ex.ExecuteBatch(context.Background(), calls, executor.BatchOptions{})
	var kinds []executor.ErrorKind
	for _, r := range res {
		kinds = append(kinds, r.ErrorKind)
	}
	if diff := cmp.Diff([]executor.ErrorKind{executor.KindTimeout, "", executor.KindTimeout, ""}, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("batch took %v with a limit of 1 and two hung tools", d)
	}
	if n := ex.Abandoned(); n != 2 {
		t.Errorf("Abandoned() = %d, want 2", n)
	}
	close(f.release)
	ex.Close()
	checkGoroutines(t, base)
}
