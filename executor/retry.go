package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"time"

	"github.com/toolhint/toolhint/registry"
)

// toolPanic is a recovered panic from a tool.
type toolPanic struct {
	tool  string
	value any
}

func (p *toolPanic) Error() string { return fmt.Sprintf("%s panicked: %v", p.tool, p.value) }

// timeoutError is an attempt that ran out of time. It unwraps to the context's error
// (context.DeadlineExceeded).
type timeoutError struct {
	tool    string
	timeout time.Duration
	err     error
}

func (t *timeoutError) Error() string {
	return fmt.Sprintf("%s timed out after %v", t.tool, t.timeout)
}
func (t *timeoutError) Unwrap() error { return t.err }

// onceRemote is a Remote that can send an action once, without retries of its own:
// *composio.Client's ExecuteActionOnce. The executor uses it for the actions it retries.
type onceRemote interface {
	ExecuteActionOnce(ctx context.Context, action string, arguments json.RawMessage, userID, connectedAccountID, version string) (json.RawMessage, error)
}

func (e *Executor) timeoutFor(p *prepared) time.Duration {
	if d, ok := e.cfg.Timeouts[p.tool.Name]; ok && d > 0 {
		return d
	}
	if p.spec.Timeout > 0 {
		return p.spec.Timeout
	}
	return e.cfg.Timeout
}

// runTool runs the tool with a timeout per attempt, under the call's overall deadline, and
// retries transient failures of retryable tools. It is the call's one retry budget: when it
// may retry, a Remote that can send an action once does so.
func (e *Executor) runTool(ctx context.Context, st *callState, p *prepared, args json.RawMessage) (json.RawMessage, int, error) {
	timeout := e.timeoutFor(p)
	retryable := (p.tool.ReadOnly || p.tool.Idempotent) && !p.tool.Destructive
	maxAttempts := 1
	if retryable {
		maxAttempts = e.cfg.MaxAttempts
	}
	budget := e.cfg.CallTimeout
	switch {
	case budget > 0:
	case p.retryTimeout && maxAttempts > 1:
		// Room for every attempt to time out, and for the waits between them.
		budget = time.Duration(maxAttempts)*timeout + e.cfg.RetryBackoff<<min(maxAttempts, 10)
	default:
		budget = 2 * timeout
	}
	deadline := time.Now().Add(budget)
	backoff := e.cfg.RetryBackoff
	for attempt := 1; ; attempt++ {
		limit := min(timeout, time.Until(deadline))
		out, err, abandoned := e.attempt(ctx, st, p, args, attempt, limit, maxAttempts > 1)
		if abandoned || err == nil {
			return out, attempt, err
		}
		if attempt >= maxAttempts || ctx.Err() != nil || !e.retryable(p, err) {
			return nil, attempt, err
		}
		wait := backoff + time.Duration(rand.Int64N(int64(backoff)/2+1))
		backoff *= 2
		var ra interface{ RetryAfter() time.Duration }
		if errors.As(err, &ra) {
			wait = max(wait, ra.RetryAfter())
		}
		if time.Until(deadline) <= wait {
			return nil, attempt, err // the wait would use up the call's deadline
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, attempt, err
		case <-t.C:
		}
	}
}

func (e *Executor) attempt(ctx context.Context, st *callState, p *prepared, args json.RawMessage, n int, timeout time.Duration, retrying bool) (out json.RawMessage, err error, abandoned bool) {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	st.mu.Lock()
	st.gen++
	gen := st.gen
	st.running = true
	st.attempts = n
	st.mu.Unlock()
	stop := context.AfterFunc(actx, func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.done || !st.running || st.gen != gen {
			return
		}
		st.timer = time.AfterFunc(e.cfg.AbandonGrace, func() { e.abandon(ctx, st, gen, timeout) })
	})
	out, err = e.invoke(actx, st, p, args, retrying)
	stop()
	st.mu.Lock()
	st.running = false
	if st.timer != nil {
		st.timer.Stop()
		st.timer = nil
	}
	abandoned = st.done
	st.mu.Unlock()
	if abandoned {
		e.sh.abandoned.Add(-1)
		return nil, nil, true
	}
	if err != nil && actx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		err = &timeoutError{tool: p.tool.Name, timeout: timeout, err: err}
	}
	return out, err, false
}

// invoke runs the tool once, turning a panic into an error. retrying says whether the
// executor may run it again, in which case the Remote is asked not to retry on its own.
func (e *Executor) invoke(ctx context.Context, st *callState, p *prepared, args json.RawMessage, retrying bool) (out json.RawMessage, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &toolPanic{tool: p.tool.Name, value: v}
			e.log.Error("executor: tool panicked", "tool", p.tool.Name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	if p.tool.Kind == registry.ToolPlatform {
		return p.spec.Run(ctx, args)
	}
	userID := st.scope.ComposioUserID()
	accountID := st.connectedAccountID
	if accountID == "" {
		accountID = e.accountOf(ctx, st.scope.WorkspaceID, p.action.App)
	}
	if once, ok := e.cfg.Remote.(onceRemote); ok && retrying {
		return once.ExecuteActionOnce(ctx, p.action.Slug, args, userID, accountID, p.action.Version)
	}
	return e.cfg.Remote.ExecuteAction(ctx, p.action.Slug, args, userID, accountID, p.action.Version)
}

// retryable reports whether a failed attempt of p is worth running again: a transient
// failure, or a timeout when the tool opted in.
func (e *Executor) retryable(p *prepared, err error) bool {
	if timedOut(err) {
		return p.retryTimeout
	}
	return e.transient(err)
}

// transient reports whether err is a failure that trying again later may cure.
func (e *Executor) transient(err error) bool {
	if errors.Is(err, ErrTransient) {
		return true
	}
	var tmp interface{ Temporary() bool }
	if errors.As(err, &tmp) && tmp.Temporary() {
		return true
	}
	return e.cfg.IsTransient != nil && e.cfg.IsTransient(err)
}

// timedOut reports whether err is a timeout: an attempt's, or one the tool or its
// transport reports.
func timedOut(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
