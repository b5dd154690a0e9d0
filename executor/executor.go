package executor

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/internal/text"
	"github.com/toolhint/toolhint/registry"
)

// Defaults used when the Config field is zero.
const (
	DefaultMaxResultChars = 10_000
	DefaultMaxArgBytes    = 256 << 10
	DefaultTimeout        = 60 * time.Second
	DefaultMaxAttempts    = 3
	DefaultRetryBackoff   = 200 * time.Millisecond
	DefaultConcurrency    = 16
	DefaultAbandonGrace   = 100 * time.Millisecond
)

// DefaultStripKeys returns the runtime-context keys that agent frameworks inject into tool
// arguments and that tools never expect (threadId, resourceId, memory, and the rest of what
// Mastra-style runtimes add). A key is only stripped when the tool's schema
// does not declare it as a property.
func DefaultStripKeys() []string {
	return []string{"threadId", "resourceId", "memory", "runtimeContext", "runId", "tracingContext", "writer", "mastra"}
}

// Catalog is what the executor reads from the catalogue to run Composio actions.
// *cache.Memory and *cache.Postgres satisfy it.
type Catalog interface {
	Action(ctx context.Context, slug string) (cache.Action, error)
	ActionMeta(ctx context.Context, apps []string) ([]cache.ActionMeta, error)
	Connection(ctx context.Context, workspaceID, app string) (cache.Connection, error)
}

// Scope is who the calls are made for. It is fixed per Executor; WithScope derives an
// executor for another agent or workspace that shares everything else. It is a plain value, safe to copy and to read from several goroutines.
type Scope struct {
	AgentID     int64
	WorkspaceID string
	// Apps, when set, replaces the agent's app assignments for access checks; without an
	// access checker, actions of other apps are refused.
	Apps []string
	// UserID is the Composio user (entity) id. Optional. Defaults to WorkspaceID.
	UserID string
	// Capabilities, when set, are the capabilities the current intent allows: a Composio
	// action whose catalogue capabilities share none of them is refused at execution
	// (defence in depth behind the selection-time filter). Optional.
	Capabilities []string
}

func (s Scope) subject() registry.Subject {
	return registry.Subject{AgentID: s.AgentID, WorkspaceID: s.WorkspaceID, Apps: s.Apps}
}

// Config configures an Executor. Every field is optional. It is copied by the constructor; changing it afterwards has no effect.
// The values it points to (Registry, Catalog, Remote, Access, hooks) must be safe for
// concurrent use.
type Config struct {
	// Registry holds the platform tools. Optional: without it only Composio actions run.
	Registry *registry.Registry
	// Catalog holds the Composio actions. Optional: without it every non-platform name is
	// unknown.
	Catalog Catalog
	// Remote runs Composio actions. Optional: without it actions are refused.
	Remote Remote
	// Access checks permissions at execution. Optional: nil skips permission checks (the
	// host checked at selection time and trusts it).
	Access *registry.Access
	// Scope is who the calls are made for.
	Scope Scope
	// Confirm allows destructive calls. Optional: nil refuses every destructive call.
	Confirm ConfirmFunc
	// Before and After are hooks run around every tool, in order.
	Before []BeforeHook
	After  []AfterHook
	// Observer sees every call. Optional.
	Observer Observer
	// Logger gets one record per call with structured attributes. Optional: nil is silent.
	Logger *slog.Logger
	// StripKeys are the runtime-context keys removed from arguments. Optional: nil uses
	// DefaultStripKeys; an empty non-nil slice strips nothing.
	StripKeys []string
	// FillDefaults fills every missing argument that has a schema default with that
	// default before the tool runs, for every tool and action except those that update
	// stored data (see FillDefaultsFor). Optional. Defaults to false: the executor sends
	// what the model wrote, and Composio applies its own defaults server-side.
	FillDefaults bool
	// FillDefaultsFor names the tools and actions whose missing arguments get their schema
	// defaults, as FillDefaults does for all. Even when named, a tool that updates stored
	// data in place (the classifier gave it an update capability, or its name carries an
	// update verb: UPDATE, PATCH, EDIT, MODIFY, UPSERT, REPLACE, SET, RENAME, CHANGE) never
	// gets defaults: one would overwrite a value the user did not mention. Optional.
	FillDefaultsFor []string
	// MaxResultChars caps a result's data. Optional. Defaults to DefaultMaxResultChars;
	// negative disables truncation.
	MaxResultChars int
	// MaxArgBytes caps the arguments of one call. Optional. Defaults to DefaultMaxArgBytes.
	MaxArgBytes int
	// Timeout bounds one attempt of a tool without its own timeout. Optional. Defaults to
	// DefaultTimeout.
	Timeout time.Duration
	// Timeouts overrides Timeout per tool or action name. Optional.
	Timeouts map[string]time.Duration
	// MaxAttempts bounds attempts of retryable tools. Optional. Defaults to
	// DefaultMaxAttempts; 1 disables retries.
	MaxAttempts int
	// RetryBackoff is the wait before the first retry, doubled each time. Optional.
	// Defaults to DefaultRetryBackoff.
	RetryBackoff time.Duration
	// IsTransient adds to the built-in transient-error test. Optional.
	IsTransient func(error) bool
	// MaxConcurrency bounds the calls running at once across the executor (batches and
	// background runs share it). Optional. Defaults to DefaultConcurrency.
	MaxConcurrency int
	// AbandonGrace is how long a tool may keep running after its timeout or cancellation
	// before the executor reports the call and stops waiting for it. Optional. Defaults to
	// DefaultAbandonGrace.
	AbandonGrace time.Duration
}

// shared is what executors derived with WithScope have in common.
type shared struct {
	sem       chan struct{}
	closed    atomic.Bool
	closeCtx  context.Context
	closeFn   context.CancelFunc
	runs      sync.WaitGroup
	runsMu    sync.Mutex // guards runs.Add against Close's Wait
	abandoned atomic.Int64
	prepared  sync.Map     // name -> *prepared
	actions   atomic.Int64 // action entries in prepared
	// analyzer reads called names for suggestions: immutable once built, and built only
	// when a first unknown name needs it.
	analyzer func() *text.Analyzer
}

// Executor runs tool calls. It is safe for concurrent use. Background runs belong to the
// executor until they finish; call Close to cancel and wait for them.
type Executor struct {
	cfg   Config
	strip map[string]struct{}
	log   *slog.Logger
	sh    *shared
}

// New returns an Executor over cfg.
func New(cfg Config) *Executor {
	if cfg.MaxResultChars == 0 {
		cfg.MaxResultChars = DefaultMaxResultChars
	}
	if cfg.MaxArgBytes <= 0 {
		cfg.MaxArgBytes = DefaultMaxArgBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = DefaultRetryBackoff
	}
	if cfg.MaxConcurrency <= 0 {
		cfg.MaxConcurrency = DefaultConcurrency
	}
	if cfg.AbandonGrace <= 0 {
		cfg.AbandonGrace = DefaultAbandonGrace
	}
	keys := cfg.StripKeys
	if keys == nil {
		keys = DefaultStripKeys()
	}
	strip := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		strip[k] = struct{}{}
	}
	cfg.FillDefaultsFor = slices.Clone(cfg.FillDefaultsFor)
	cfg.Timeouts = maps.Clone(cfg.Timeouts)
	cfg.Before = slices.Clone(cfg.Before)
	cfg.After = slices.Clone(cfg.After)
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Executor{
		cfg:   cfg,
		strip: strip,
		log:   log,
		sh: &shared{
			sem:      make(chan struct{}, cfg.MaxConcurrency),
			closeCtx: ctx,
			closeFn:  cancel,
			analyzer: sync.OnceValue(text.New),
		},
	}
}

// WithScope returns an executor for another agent or workspace that shares e's registry,
// catalogue, hooks, concurrency limit, background runs and lifecycle: closing either closes
// both.
func (e *Executor) WithScope(s Scope) *Executor {
	cp := *e
	cp.cfg.Scope = s
	return &cp
}

// Scope returns the executor's scope.
func (e *Executor) Scope() Scope { return e.cfg.Scope }

// Registry returns the executor's platform-tool registry (nil when none is configured).
func (e *Executor) Registry() *registry.Registry { return e.cfg.Registry }

// Close cancels every background run, waits for them to deliver their results, and makes
// later Background calls fail with ErrClosed and later Execute calls return KindClosed
// results. Close is idempotent and returns nil.
func (e *Executor) Close() error {
	e.sh.runsMu.Lock()
	e.sh.closed.Store(true)
	e.sh.runsMu.Unlock()
	e.sh.closeFn()
	e.sh.runs.Wait()
	return nil
}

// Wait blocks until every background run started so far has delivered all its results.
func (e *Executor) Wait() {
	e.sh.runs.Wait()
}

// Abandoned returns how many tool goroutines are still running after the executor stopped
// waiting for them (tools that ignore their context). It returns to zero as they return.
func (e *Executor) Abandoned() int { return int(e.sh.abandoned.Load()) }

// Execute runs one call and returns its result. It never returns a Go error: every failure,
// including a cancelled ctx or a closed executor, is a Result with OK false.
func (e *Executor) Execute(ctx context.Context, call Call) Result {
	if call.ID == "" {
		call.ID = "call_0"
	}
	if e.sh.closed.Load() {
		return failed(call, KindClosed, "the executor is closed")
	}
	// The checks run on the caller's goroutine (its stack is warm); only the tool runs on
	// a new one, so a tool that never returns cannot hold the caller.
	var res Result
	st, cctx := e.newState(ctx, call, func(r Result) { res = r }, func() {})
	p, args, out, ok := e.before(cctx, st)
	if !ok {
		e.finish(cctx, st, out)
		return res
	}
	select {
	case e.sh.sem <- struct{}{}:
	case <-ctx.Done():
		e.finish(cctx, st, Result{Tool: out.Tool, ErrorKind: KindCancelled, Error: "cancelled before it started: " + ctx.Err().Error()})
		return res
	}
	ch := make(chan Result, 1)
	st.deliver = func(r Result) { ch <- r }
	st.release = func() { <-e.sh.sem }
	go func() {
		r := e.run(cctx, st, p, args, out)
		if e.finish(cctx, st, r) {
			st.release()
		}
	}()
	return <-ch
}

func failed(call Call, kind ErrorKind, msg string) Result {
	return Result{CallID: call.ID, Tool: call.Name, Step: call.Step, ErrorKind: kind, Error: msg}
}

// logCall writes the per-call record.
func (e *Executor) logCall(ctx context.Context, r Result) {
	level := slog.LevelInfo
	if !r.OK {
		level = slog.LevelWarn
	}
	if !e.log.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("tool", r.Tool),
		slog.String("call_id", r.CallID),
		slog.Int("step", r.Step),
		slog.Bool("ok", r.OK),
		slog.Duration("duration", r.Duration),
		slog.Int("attempts", r.Attempts),
		slog.Bool("truncated", r.Truncated),
		slog.Int64("agent_id", e.cfg.Scope.AgentID),
	}
	if e.cfg.Scope.WorkspaceID != "" {
		attrs = append(attrs, slog.String("workspace_id", e.cfg.Scope.WorkspaceID))
	}
	if !r.OK {
		attrs = append(attrs, slog.String("error_kind", string(r.ErrorKind)), slog.String("error", firstLine(r.Error)))
	}
	e.log.LogAttrs(ctx, level, "executor: call", attrs...)
}

// jsonObject reports whether b holds a JSON object.
func jsonObject(b json.RawMessage) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}
