package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	props     map[string]bool // declared top-level properties the model may write
	required  []string
	// closed is true when the schema refuses undeclared top-level properties; open is
	// true when it declares its properties and lets others through (undeclared ones then
	// get a notice).
	closed, open bool
	// fill is true when missing arguments get their schema defaults.
	fill bool
	// retryTimeout is true when an attempt that timed out may be retried.
	retryTimeout bool
	// inject lists the identity parameters the schema declares that the executor fills
	// from the scope (see registry.HostFilledParams).
	inject []string
	// key identifies the source the entry was built from, to rebuild it when it changes.
	key any
}

type actionKey struct {
	params  string
	updated time.Time
}

// callState is shared by a call's goroutine and its watchdog; whichever finishes the call
// first delivers the result. It is also the call's context: the caller's, carrying the
// call for ScopeFrom (one allocation less than context.WithValue).
type callState struct {
	context.Context
	call    Call
	scope   *Scope // the executor's, which never changes
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

	// connectedAccountID is the workspace connection the permission check read; set before the
	// tool runs, "" when the check read none.
	connectedAccountID string
}

// Value returns the call itself for scopeKey, and the caller's values otherwise.
func (st *callState) Value(key any) any {
	if _, ok := key.(scopeKey); ok {
		return st
	}
	return st.Context.Value(key)
}

func (e *Executor) newState(ctx context.Context, call Call, deliver func(Result), release func()) (*callState, context.Context) {
	st := &callState{Context: ctx, call: call, scope: &e.cfg.Scope, began: time.Now(), deliver: deliver, release: release, tool: call.Name}
	ctx = st
	if e.cfg.Observer != nil {
		e.guard(ctx, "Observer.CallStart", call.Name, func() {
			if c := e.cfg.Observer.CallStart(ctx, call); c != nil {
				ctx = c
			}
		})
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
	res = res.bounded()
	e.logCall(ctx, res)
	if e.cfg.Observer != nil {
		e.guard(ctx, "Observer.CallEnd", res.Tool, func() { e.cfg.Observer.CallEnd(ctx, st.call, res) })
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
	if err := parent.Err(); err != nil {
		res.ErrorKind, res.Err = KindCancelled, err
		res.Error = fmt.Sprintf("%s was cancelled while running (%v); its outcome is unknown", tool, err)
	} else {
		res.ErrorKind, res.Err = KindTimeout, &timeoutError{tool: tool, timeout: timeout, err: context.DeadlineExceeded}
		res.Error = fmt.Sprintf("%s did not finish within %v; its outcome is unknown", tool, timeout)
	}
	e.complete(parent, st, res)
	st.release()
	if st.replace != nil {
		st.replace()
	}
}

// before runs the per-call steps up to the tool, in this order: resolve the name; check
// access (a refused call shows no schema); read the arguments, strip runtime-context and
// identity keys and fill identity from the scope; coerce and validate; confirm a
// destructive call; run the before-hooks. ok is false when out is the call's final result.
func (e *Executor) before(ctx context.Context, st *callState) (p *prepared, args json.RawMessage, out Result, ok bool) {
	call := st.call
	defer func() {
		if v := recover(); v != nil {
			out, ok = Result{Tool: call.Name, ErrorKind: KindPanic,
				Error: fmt.Sprintf("internal error while handling %s: %v", schema.Excerpt(call.Name), v)}, false
			e.log.Error("executor: panic outside tool", "tool", call.Name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, nil, Result{ErrorKind: KindCancelled, Error: "cancelled before it started: " + err.Error(), Err: err}, false
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
	out = Result{CallID: call.ID, Step: call.Step, Tool: name}

	// 2. Access: permission and capability.
	if r, allowed := e.authorize(ctx, st, p); !allowed {
		r.Tool = name
		return nil, nil, r, false
	}

	// 3. Arguments: size and depth before anything reads them, one JSON object;
	// runtime-context and identity keys.
	args = bytes.TrimSpace(call.Arguments)
	if err := p.validator.CheckLimits(args); err != nil {
		out.ErrorKind, out.Err = KindInvalidArguments, err
		out.Error = fmt.Sprintf("arguments for %s are %s", name, limitText(err))
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
	if len(p.inject) > 0 {
		var missing string
		if args, missing = e.injectIdentity(ctx, args, p, *st.scope); missing != "" {
			out.ErrorKind = KindInvalidArguments
			out.Err = errors.New(missing)
			out.Error = fmt.Sprintf("%s cannot run: %s. %s", name, missing, p.usage())
			return nil, nil, out, false
		}
	}

	// 4. Coerce and validate.
	args, coerced, err := checkArgs(p.validator, args, p.fill)
	out.Coerced = coerced
	if err == nil && p.spec.CheckArgs != nil {
		if !e.guard(ctx, "ToolSpec.CheckArgs", name, func() { err = p.spec.CheckArgs(args) }) {
			err = errors.New("its argument check failed")
		}
	}
	if err != nil {
		hints := ""
		if p.closed && len(unknown) > 0 {
			hints = "\n" + strings.Join(p.unknownNotices(unknown, false), "\n")
		}
		out.ErrorKind, out.Err = KindInvalidArguments, err
		out.Error = fmt.Sprintf("arguments for %s do not match its schema:%s%s\n%s Fix the arguments and call %s again.", name, failureText(err), hints, p.usage(), name)
		return nil, nil, out, false
	}
	if p.open && len(unknown) > 0 {
		out.Notices = p.unknownNotices(unknown, true)
	}

	// 5. Confirmation of a destructive call.
	tool := p.tool
	tool.CallID = call.ID
	if tool.Destructive {
		if r, allowed := e.confirm(ctx, tool, args); !allowed {
			r.Tool, r.Stripped, r.Coerced = name, out.Stripped, out.Coerced
			return nil, nil, r, false
		}
	}

	// 6. Before-hooks.
	for i, h := range e.cfg.Before {
		var next json.RawMessage
		var err error
		if !e.guard(ctx, "BeforeHook", name, func() { next, err = h(ctx, tool, args) }) {
			out.ErrorKind = KindInternal
			out.Error = fmt.Sprintf("%s was not run: a host hook failed; try again later", name)
			out.Err = fmt.Errorf("executor: before-hook %d panicked", i)
			return nil, nil, out, false
		}
		if err != nil {
			out.ErrorKind, out.Err = KindForbidden, err
			out.Error = fmt.Sprintf("%s was refused by a host policy: %v", name, err)
			return nil, nil, out, false
		}
		if next != nil {
			args = next
		}
	}
	return p, args, out, true
}

// confirm asks the host's confirmation function about a destructive call.
func (e *Executor) confirm(ctx context.Context, tool Tool, args json.RawMessage) (Result, bool) {
	refused := func(why string, err error) (Result, bool) {
		return Result{ErrorKind: KindNeedsConfirmation, Err: err, Error: fmt.Sprintf("%s is destructive and was not run: %s", tool.Name, why)}, false
	}
	if e.cfg.Confirm == nil {
		return refused("it needs the user's confirmation", nil)
	}
	var ok bool
	var err error
	if !e.guard(ctx, "ConfirmFunc", tool.Name, func() { ok, err = e.cfg.Confirm(ctx, tool, args) }) {
		return refused("the confirmation could not be asked", errors.New("executor: confirm function panicked"))
	}
	if err != nil {
		return refused(err.Error(), err)
	}
	if !ok {
		return refused("the user did not confirm it", nil)
	}
	return Result{}, true
}

// run runs the tool, the after-hooks and truncation.
func (e *Executor) run(ctx context.Context, st *callState, p *prepared, args json.RawMessage, out Result) (res Result) {
	defer func() {
		if v := recover(); v != nil {
			res = Result{Tool: p.tool.Name, ErrorKind: KindPanic,
				Error: fmt.Sprintf("internal error after %s ran: %v", p.tool.Name, v), Attempts: out.Attempts}
			e.log.Error("executor: panic after tool", "tool", p.tool.Name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	// 7. Run.
	data, attempts, err := e.runTool(ctx, st, p, args)
	if st.isDone() {
		return out // the watchdog delivered; finish ignores this
	}
	out.Attempts = attempts
	if err != nil {
		out.ErrorKind, out.Error = classify(ctx, p.tool, err)
		out.Err = err
	} else {
		out.OK = true
		out.Data = asJSON(data)
	}

	// 8. After-hooks.
	tool := p.tool
	tool.CallID = st.call.ID
	for _, h := range e.cfg.After {
		e.guard(ctx, "AfterHook", tool.Name, func() { h(ctx, tool, &out) })
	}

	// 9. Truncate.
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

// limitText is the reason of an argument-limit error without its leading "arguments ":
// "too deep: …" or "too large: …".
func limitText(err error) string {
	var ve *schema.ValidationError
	if errors.As(err, &ve) && len(ve.Failures) > 0 {
		return strings.TrimPrefix(ve.Failures[0].Reason, "arguments ") + "."
	}
	return "over a limit: " + err.Error() + "."
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
func (e *Executor) newPrepared(t Tool, v *schema.Validator, hostFilled []string, retryTimeout bool) *prepared {
	p := &prepared{tool: t, validator: v}
	root := v.Schema()
	p.props = make(map[string]bool, len(root.Properties))
	for k := range root.Properties {
		if slices.Contains(hostFilled, k) {
			p.inject = append(p.inject, k)
			continue
		}
		p.props[k] = true
	}
	slices.Sort(p.inject)
	p.required = root.Required
	ap := root.AdditionalProperties
	p.closed = ap != nil && ap.Bool != nil && !*ap.Bool
	_, patterns := root.Extra["patternProperties"]
	p.open = root.Properties != nil && !p.closed && !patterns && (ap == nil || ap.Bool != nil)
	p.fill = (e.cfg.FillDefaults || slices.Contains(e.cfg.FillDefaultsFor, t.Name)) && !updates(t)
	p.retryTimeout = retryTimeout || slices.Contains(e.cfg.RetryTimeouts, t.Name)
	return p
}
