package executor

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/toolhint/toolhint/schema"
)

// BatchOptions tune ExecuteBatch and Background. It is a plain value, safe to copy and to read from several goroutines.
type BatchOptions struct {
	// StopOnFailure skips the steps after a step in which any call failed; the skipped calls
	// get KindSkipped results. Calls of the failing step itself all run.
	StopOnFailure bool
	// OnResult, when set, is called with each result as soon as it is ready, one call at a
	// time (never concurrently), in completion order. It must not block for long: it runs
	// on a call's goroutine. A panic in it is logged and does not affect the batch.
	// Optional.
	OnResult func(Result)
}

// ExecuteBatch runs calls and returns one result per call, in the order of calls. Calls with
// the same Step run in parallel, bounded by Config.MaxConcurrency; steps run in ascending
// order whatever the order of calls. A repeated non-empty call id is not run and gets a
// KindDuplicateCall result. When ctx is cancelled, calls not started get KindCancelled
// results and running calls are cancelled; ExecuteBatch still returns a result for every
// call. It never returns a Go error.
func (e *Executor) ExecuteBatch(ctx context.Context, calls []Call, opts BatchOptions) []Result {
	results := make([]Result, len(calls))
	var mu sync.Mutex
	e.runBatch(ctx, calls, opts, func(i int, r Result) {
		results[i] = r
		if opts.OnResult != nil {
			mu.Lock()
			defer mu.Unlock()
			e.guard(ctx, "BatchOptions.OnResult", r.Tool, func() { opts.OnResult(r) })
		}
	})
	return results
}

// runBatch runs calls step by step; deliver is called exactly once per call index, from
// any goroutine, and every delivery has happened when runBatch returns.
func (e *Executor) runBatch(ctx context.Context, calls []Call, opts BatchOptions, deliver func(int, Result)) {
	calls = slices.Clone(calls)
	seen := make(map[string]int, len(calls))
	runnable := make([]int, 0, len(calls))
	for i := range calls {
		if calls[i].ID == "" {
			calls[i].ID = "call_" + strconv.Itoa(i)
		} else if first, dup := seen[calls[i].ID]; dup {
			deliver(i, failed(calls[i], KindDuplicateCall,
				fmt.Sprintf("call id \"%s\" was already used by call %d of this batch; this call was not run", schema.Excerpt(calls[i].ID), first)))
			continue
		}
		seen[calls[i].ID] = i
		runnable = append(runnable, i)
	}
	if e.lc.closed.Load() {
		for _, i := range runnable {
			deliver(i, failed(calls[i], KindClosed, "the executor is closed"))
		}
		return
	}
	slices.SortStableFunc(runnable, func(a, b int) int { return calls[a].Step - calls[b].Step })

	var stopReason string
	for start := 0; start < len(runnable); {
		step := calls[runnable[start]].Step
		end := start
		for end < len(runnable) && calls[runnable[end]].Step == step {
			end++
		}
		group := runnable[start:end]
		start = end
		if stopReason != "" {
			for _, i := range group {
				deliver(i, failed(calls[i], KindSkipped, stopReason))
			}
			continue
		}
		var (
			failMu  sync.Mutex
			failure string
		)
		e.runGroup(ctx, calls, group, func(i int, r Result) {
			if !r.OK {
				failMu.Lock()
				if failure == "" {
					failure = fmt.Sprintf("not run: step %d failed (%s, call %s)", step, schema.Excerpt(r.Tool), schema.Excerpt(r.CallID))
				}
				failMu.Unlock()
			}
			deliver(i, r)
		})
		if opts.StopOnFailure && failure != "" {
			stopReason = failure
		}
	}
}

// runGroup runs the calls of one step on at most MaxConcurrency worker goroutines, each
// holding a slot of the executor-wide limit while a tool runs. A worker stuck in a tool that
// ignores its context is replaced when the watchdog gives up on it, so the group finishes
// and the goroutine count stays at the limit plus the abandoned tools.
func (e *Executor) runGroup(ctx context.Context, calls []Call, group []int, deliver func(int, Result)) {
	queue := make(chan int, len(group))
	for _, i := range group {
		queue <- i
	}
	close(queue)
	var wg sync.WaitGroup
	var spawn func()
	spawn = func() {
		wg.Add(1)
		go func() {
			for i := range queue {
				if err := ctx.Err(); err != nil {
					deliver(i, notStarted(calls[i], err))
					continue
				}
				select {
				case e.sh.sem <- struct{}{}:
				case <-ctx.Done():
					deliver(i, notStarted(calls[i], ctx.Err()))
					continue
				}
				if e.runInline(ctx, calls[i], func(r Result) { deliver(i, r) }, func() { <-e.sh.sem }, func() {
					spawn() // take the stuck worker's place before it leaves the group
					wg.Done()
				}) {
					return
				}
			}
			wg.Done()
		}()
	}
	for range min(cap(e.sh.sem), len(group)) {
		spawn()
	}
	wg.Wait()
}

// notStarted is the result of a call of a batch cancelled before the call started.
func notStarted(call Call, err error) Result {
	r := failed(call, KindCancelled, "not run: the batch was cancelled ("+err.Error()+")")
	r.Err = err
	return r
}

// Run is a batch started with Background. Its results arrive on Results (buffered for
// every call, closed after the last one) and through BatchOptions.OnResult; Wait returns
// them all in call order. A Run is safe for concurrent use.
type Run struct {
	results []Result
	ch      chan Result
	done    chan struct{}
	cancel  context.CancelFunc
}

// Results returns a channel that receives each result as it completes and is closed when
// the run is finished. It is buffered for every call, so a run never waits for a reader.
func (r *Run) Results() <-chan Result { return r.ch }

// Done returns a channel closed when every result has been delivered.
func (r *Run) Done() <-chan struct{} { return r.done }

// Wait blocks until the run finishes or ctx is done, and returns the results in call order.
// On ctx's end it returns ctx.Err() and the run goes on.
func (r *Run) Wait(ctx context.Context) ([]Result, error) {
	select {
	case <-r.done:
		return r.results, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Cancel stops the run: calls not started get KindCancelled results, running calls are
// cancelled. It returns at once; use Wait to wait for the last result.
func (r *Run) Cancel() { r.cancel() }

// Background starts a batch and returns at once (batch_execute_tools' "background" mode). The
// run keeps the values of ctx but not its cancellation: it ends when its calls finish, when
// Run.Cancel is called, or when the executor is closed. The executor owns the run: Close
// cancels it and waits for it. Background fails with ErrClosed after Close.
func (e *Executor) Background(ctx context.Context, calls []Call, opts BatchOptions) (*Run, error) {
	e.lc.runsMu.Lock()
	if e.lc.closed.Load() {
		e.lc.runsMu.Unlock()
		return nil, ErrClosed
	}
	e.lc.runs.Add(1)
	e.lc.runsMu.Unlock()

	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(e.lc.closeCtx, cancel)
	run := &Run{
		results: make([]Result, len(calls)),
		ch:      make(chan Result, len(calls)),
		done:    make(chan struct{}),
		cancel:  cancel,
	}
	go func() {
		defer e.lc.runs.Done()
		defer stop()
		defer cancel()
		var mu sync.Mutex
		e.runBatch(rctx, calls, opts, func(i int, r Result) {
			run.results[i] = r
			mu.Lock()
			defer mu.Unlock()
			run.ch <- r
			if opts.OnResult != nil {
				e.guard(rctx, "BatchOptions.OnResult", r.Tool, func() { opts.OnResult(r) })
			}
		})
		close(run.ch)
		close(run.done)
	}()
	return run, nil
}
