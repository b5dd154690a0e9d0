package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// prepared is what the executor keeps per tool between calls: the compiled validator and
// the schema facts the pipeline needs.
type prepared struct {
	tool      Tool
	spec      registry.ToolSpec // platform tools
	action    cache.Action      // Composio actions
	validator *schema.Validator
	props     map[string]bool // declared top-level properties
	required  []string
	// closed is true when the schema refuses undeclared top-level properties; open is
	// true when it declares its properties and lets others through (undeclared ones then
	// get a notice).
	closed, open bool
	// fill is true when missing arguments get their schema defaults.
	fill bool
	// key identifies the source the entry was built from, to rebuild it when it changes.
	key any
}

type actionKey struct {
	params  string
	updated time.Time
}

// callState is shared by a call's goroutine and its watchdog; whichever finishes the call
// first delivers the result.
type callState struct {
	call    Call
	began   time.Time
	deliver func(Result)
	release func() // called once the call no longer occupies a concurrency slot
	replace func() // called by the watchdog after release; optional

	mu       sync.Mutex
	done     bool
	running  bool
	gen      int
	attempts int
	tool     string
	timer    *time.Timer

	// connectionID is the workspace connection the permission check read; set before the
	// tool runs, "" when the check read none.
	connectionID string
}

func (e *Executor) newState(ctx context.Context, call Call, deliver func(Result), release func()) (*callState, context.Context) {
	st := &callState{call: call, began: time.Now(), deliver: deliver, release: release, tool: call.Name}
	if e.cfg.Observer != nil {
		ctx = e.cfg.Observer.CallStart(ctx, call)
	}
	return st, ctx
}

// runInline runs call on the current goroutine and calls deliver exactly once with its
// result. It returns false after calling release. When the watchdog gives up on a tool that
// ignores its context, the watchdog calls deliver, release and then replace (so the caller
// can put another goroutine in this one's place) and runInline returns true once the tool
// finally returns.
func (e *Executor) runInline(ctx context.Context, call Call, deliver func(Result), release, replace func()) (abandoned bool) {
	st, ctx := e.newState(ctx, call, deliver, release)
	st.replace = replace
	p, args, res, ok := e.before(ctx, st)
	if ok {
		res = e.run(ctx, st, p, args, res)
	}
	if e.finish(ctx, st, res) {
		release()
		return false
	}
	return true
}

// finish delivers res unless the watchdog already delivered a result for the call, and
// reports whether it did.
func (e *Executor) finish(ctx context.Context, st *callState, res Result) bool {
	st.mu.Lock()
	if st.done {
		st.mu.Unlock()
		return false
	}
	st.done = true
	st.mu.Unlock()
	e.complete(ctx, st, res)
	return true
}

func (e *Executor) complete(ctx context.Context, st *callState, res Result) {
	res.CallID = st.call.ID
	res.Step = st.call.Step
	if res.Tool == "" {
		res.Tool = st.call.Name
	}
	res.Duration = time.Since(st.began)
	e.logCall(ctx, res)
	if e.cfg.Observer != nil {
		e.cfg.Observer.CallEnd(ctx, st.call, res)
	}
	st.deliver(res)
}

// abandon is the watchdog: the tool outlived its timeout (or the call was cancelled) by
// the grace period, so the call is reported and the tool left to return on its own.
func (e *Executor) abandon(parent context.Context, st *callState, gen int, timeout time.Duration) {
	st.mu.Lock()
	if st.done || !st.running || st.gen != gen {
		st.mu.Unlock()
		return
	}
	st.done = true
	attempts, tool := st.attempts, st.tool
	st.mu.Unlock()
	e.sh.abandoned.Add(1)
	res := Result{Tool: tool, Attempts: attempts}
	if parent.Err() != nil {
		res.ErrorKind = KindCancelled
		res.Error = fmt.Sprintf("%s was cancelled while running (%v); its outcome is unknown", tool, parent.Err())
	} else {
		res.ErrorKind = KindTimeout
		res.Error = fmt.Sprintf("%s did not finish within %v; its outcome is unknown", tool, timeout)
	}
	e.complete(parent, st, res)
	st.release()
	if st.replace != nil {
		st.replace()
	}
}

// before runs the per-call steps up to the tool: resolve, arguments, validation, checks and
// before-hooks. ok is false when res is the call's final result.
func (e *Executor) before(ctx context.Context, st *callState) (p *prepared, args json.RawMessage, out Result, ok bool) {
	call := st.call
	defer func() {
		if v := recover(); v != nil {
			out, ok = Result{Tool: call.Name, ErrorKind: KindPanic,
				Error: fmt.Sprintf("internal error while handling %s: %v", call.Name, v)}, false
			e.log.Error("executor: panic outside tool", "tool", call.Name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, nil, Result{ErrorKind: KindCancelled, Error: "cancelled before it started: " + err.Error()}, false
	}

	// 1. Resolve the name.
	p, res, found := e.resolve(ctx, call.Name)
	if !found {
		return nil, nil, res, false
	}
	name := p.tool.Name
	st.mu.Lock()
	st.tool = name
	st.mu.Unlock()
	out = Result{Tool: name}

	// 2. Arguments: size, JSON object, runtime-context keys.
	args = bytes.TrimSpace(call.Arguments)
	if len(args) > e.cfg.MaxArgBytes {
		out.ErrorKind = KindInvalidArguments
		out.Error = fmt.Sprintf("arguments for %s are %d bytes, over the limit of %d; send only the parameters the tool takes", name, len(args), e.cfg.MaxArgBytes)
		return nil, nil, out, false
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		out.ErrorKind = KindInvalidArguments
		out.Error = fmt.Sprintf("arguments for %s are not valid JSON; send one JSON object. %s", name, p.usage())
		return nil, nil, out, false
	}
	if !jsonObject(args) {
		out.ErrorKind = KindInvalidArguments
		out.Error = fmt.Sprintf("arguments for %s must be a JSON object. %s", name, p.usage())
		return nil, nil, out, false
	}
	args, stripped, unknown := e.inspectArgs(args, p)
	out.Stripped = stripped

	// 3. Coerce and validate.
	args, coerced, err := checkArgs(p.validator, args, p.fill)
	out.Coerced = coerced
	if err != nil {
		hints := ""
		if p.closed && len(unknown) > 0 {
			hints = "\n" + strings.Join(p.unknownNotices(unknown, false), "\n")
		}
		out.ErrorKind = KindInvalidArguments
		out.Error = fmt.Sprintf("arguments for %s do not match its schema:%s%s\n%s Fix the arguments and call %s again.", name, failureText(err), hints, p.usage(), name)
		return nil, nil, out, false
	}
	if p.open && len(unknown) > 0 {
		out.Notices = p.unknownNotices(unknown, true)
	}

	// 4. Permission and capability checks, again.
	if r, allowed := e.authorize(ctx, st, p, args); !allowed {
		r.Tool, r.Stripped, r.Coerced = name, out.Stripped, out.Coerced
		return nil, nil, r, false
	}

	// 5. Before-hooks.
	for _, h := range e.cfg.Before {
		next, err := h(ctx, p.tool, args)
		if err != nil {
			out.ErrorKind = KindForbidden
			out.Error = fmt.Sprintf("%s was refused by a host policy: %v", name, err)
			return nil, nil, out, false
		}
		if next != nil {
			args = next
		}
	}
	return p, args, out, true
}

// run runs the tool, the after-hooks and truncation.
func (e *Executor) run(ctx context.Context, st *callState, p *prepared, args json.RawMessage, out Result) (res Result) {
	defer func() {
		if v := recover(); v != nil {
			res = Result{Tool: p.tool.Name, ErrorKind: KindPanic,
				Error: fmt.Sprintf("internal error after %s ran: %v", p.tool.Name, v), Attempts: out.Attempts}
			e.log.Error("executor: panic in after-hook", "tool", p.tool.Name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	// 6. Run.
	data, attempts, err := e.runTool(ctx, st, p, args)
	if st.isDone() {
		return out // the watchdog delivered; finish ignores this
	}
	out.Attempts = attempts
	if err != nil {
		out.ErrorKind, out.Error = classify(ctx, p.tool.Name, err)
	} else {
		out.OK = true
		out.Data = asJSON(data)
	}

	// 7. After-hooks.
	for _, h := range e.cfg.After {
		h(ctx, p.tool, &out)
	}

	// 8. Truncate.
	if out.Data != nil {
		out.Data, out.Truncated = Truncate(out.Data, e.cfg.MaxResultChars)
	}
	return out
}

func (st *callState) isDone() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.done
}

// toolPanic is a recovered panic from a tool.
type toolPanic struct {
	tool  string
	value any
}

func (p *toolPanic) Error() string { return fmt.Sprintf("%s panicked: %v", p.tool, p.value) }

// timeoutError is an attempt that ran out of time.
type timeoutError struct {
	tool    string
	timeout time.Duration
	err     error
}

func (t *timeoutError) Error() string {
	return fmt.Sprintf("%s timed out after %v", t.tool, t.timeout)
}
func (t *timeoutError) Unwrap() error { return t.err }

func (e *Executor) timeoutFor(p *prepared) time.Duration {
	if d, ok := e.cfg.Timeouts[p.tool.Name]; ok && d > 0 {
		return d
	}
	if p.spec.Timeout > 0 {
		return p.spec.Timeout
	}
	return e.cfg.Timeout
}

// runTool runs the tool with a timeout per attempt and retries transient failures of
// retryable tools.
func (e *Executor) runTool(ctx context.Context, st *callState, p *prepared, args json.RawMessage) (json.RawMessage, int, error) {
	timeout := e.timeoutFor(p)
	retryable := (p.tool.ReadOnly || p.tool.Idempotent) && !p.tool.Destructive
	maxAttempts := 1
	if retryable {
		maxAttempts = e.cfg.MaxAttempts
	}
	backoff := e.cfg.RetryBackoff
	for attempt := 1; ; attempt++ {
		out, err, abandoned := e.attempt(ctx, st, p, args, attempt, timeout)
		if abandoned || err == nil {
			return out, attempt, err
		}
		if attempt >= maxAttempts || ctx.Err() != nil || !e.transient(err) {
			return nil, attempt, err
		}
		wait := backoff + time.Duration(rand.Int64N(int64(backoff)/2+1))
		backoff *= 2
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, attempt, err
		case <-t.C:
		}
	}
}

func (e *Executor) attempt(ctx context.Context, st *callState, p *prepared, args json.RawMessage, n int, timeout time.Duration) (out json.RawMessage, err error, abandoned bool) {
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
	out, err = e.invoke(actx, st, p, args)
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

// invoke runs the tool once, turning a panic into an error.
func (e *Executor) invoke(ctx context.Context, st *callState, p *prepared, args json.RawMessage) (out json.RawMessage, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &toolPanic{tool: p.tool.Name, value: v}
			e.log.Error("executor: tool panicked", "tool", p.tool.Name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	if p.tool.Kind == registry.KindPlatform {
		return p.spec.Run(ctx, args)
	}
	userID := e.cfg.Scope.UserID
	if userID == "" {
		userID = e.cfg.Scope.WorkspaceID
	}
	accountID := st.connectionID
	if accountID == "" && e.cfg.Scope.WorkspaceID != "" && e.cfg.Catalog != nil {
		if c, err := e.cfg.Catalog.Connection(ctx, e.cfg.Scope.WorkspaceID, p.action.App); err == nil {
			accountID = c.ConnectionID
		}
	}
	return e.cfg.Remote.ExecuteAction(ctx, p.action.Slug, args, userID, accountID, p.action.Version)
}

// transient reports whether err is worth retrying.
func (e *Executor) transient(err error) bool {
	if errors.Is(err, ErrTransient) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var tmp interface{ Temporary() bool }
	if errors.As(err, &tmp) && tmp.Temporary() {
		return true
	}
	return e.cfg.IsTransient != nil && e.cfg.IsTransient(err)
}

// classify turns a tool error into a kind and a model-readable message.
func classify(ctx context.Context, name string, err error) (ErrorKind, string) {
	var tp *toolPanic
	var te *timeoutError
	switch {
	case errors.As(err, &tp):
		return KindPanic, fmt.Sprintf("%s failed with an internal error (it panicked: %v)", name, tp.value)
	case errors.As(err, &te):
		return KindTimeout, te.Error() + "; try again later or with a smaller request"
	case ctx.Err() != nil:
		return KindCancelled, fmt.Sprintf("%s was cancelled: %v", name, ctx.Err())
	}
	msg := err.Error()
	if len(msg) > 2000 {
		msg = msg[:2000] + "…"
	}
	return KindToolError, fmt.Sprintf("%s failed: %s", name, msg)
}

// asJSON returns data when it is JSON and a JSON string of it otherwise.
func asJSON(data json.RawMessage) json.RawMessage {
	d := bytes.TrimSpace(data)
	if len(d) == 0 {
		return json.RawMessage("null")
	}
	if json.Valid(d) {
		return d
	}
	if _, err := decodeDeep(d, 1); err == nil {
		return d // JSON nested deeper than encoding/json reads: Truncate cuts it
	}
	return jsonString(string(d))
}

// usage describes the parameters a tool takes, for error messages.
func (p *prepared) usage() string {
	if len(p.props) == 0 {
		return p.tool.Name + " takes no parameters."
	}
	names := make([]string, 0, len(p.props))
	for n := range p.props {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString(p.tool.Name)
	b.WriteString(" takes: ")
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == 12 {
			fmt.Fprintf(&b, "and %d more", len(names)-12)
			break
		}
		b.WriteString(n)
		if slices.Contains(p.required, n) {
			b.WriteString(" (required)")
		}
	}
	b.WriteString(".")
	return b.String()
}

// failureText lists validation failures one per line.
func failureText(err error) string {
	var ve *schema.ValidationError
	if errors.As(err, &ve) && len(ve.Failures) > 0 {
		var b strings.Builder
		for i, f := range ve.Failures {
			if i == 20 {
				fmt.Fprintf(&b, "\n- and %d more", len(ve.Failures)-20)
				break
			}
			path := f.Path
			if path == "" {
				path = "(root)"
			}
			b.WriteString("\n- ")
			b.WriteString(path)
			b.WriteString(": ")
			b.WriteString(f.Reason)
		}
		return b.String()
	}
	return "\n- " + err.Error()
}

// newPrepared builds the entry of a tool from its compiled validator: the schema facts the
// pipeline needs.
func (e *Executor) newPrepared(t Tool, v *schema.Validator) *prepared {
	p := &prepared{tool: t, validator: v}
	root := v.Schema()
	p.props = make(map[string]bool, len(root.Properties))
	for k := range root.Properties {
		p.props[k] = true
	}
	p.required = root.Required
	ap := root.AdditionalProperties
	p.closed = ap != nil && ap.Bool != nil && !*ap.Bool
	_, patterns := root.Extra["patternProperties"]
	p.open = root.Properties != nil && !p.closed && !patterns && (ap == nil || ap.Bool != nil)
	p.fill = (e.cfg.FillDefaults || slices.Contains(e.cfg.FillDefaultsFor, t.Name)) && !updates(t)
	return p
}
