package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/text"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
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
// arguments and that tools never expect: Mastra's (threadId, resourceId, memory,
// runtimeContext, runId, tracingContext, writer, mastra), LangChain's (run_manager,
// callbacks, tool_call_id), the Vercel AI SDK's (toolCallId, abortSignal,
// experimental_context) and AutoGen's (cancellation_token). A key is only stripped when
// the tool's schema does not declare it as a property. Identity keys
// (registry.IdentityKeys) are stripped whatever this list holds.
func DefaultStripKeys() []string {
	return []string{
		"threadId", "resourceId", "memory", "runtimeContext", "runId", "tracingContext", "writer", "mastra",
		"run_manager", "callbacks", "tool_call_id",
		"toolCallId", "abortSignal", "experimental_context",
		"cancellation_token",
	}
}

// Catalog is what the executor reads from the catalogue to run Composio actions.
// *cache.Memory and *cache.Postgres satisfy it.
type Catalog interface {
	Action(ctx context.Context, slug string) (cache.Action, error)
	ActionMeta(ctx context.Context, apps []string) ([]cache.ActionMeta, error)
	Connection(ctx context.Context, workspaceID, app string) (cache.Connection, error)
}

// Scope is who the calls are made for. It is fixed per Executor; WithScope derives an
// executor for another agent or workspace that shares everything else. It is a plain value,
// safe to copy and to read from several goroutines.
type Scope struct {
	// Identity is who the calls are for: AgentID and WorkspaceID select the assignments,
	// connections and permissions the access checks read; Apps, when set, replaces the
	// agent's app assignments for access checks (with registry.AllowAll, or without an
	// access checker, actions of other apps are refused); UserID is the Composio user
	// (entity) the actions run as, WorkspaceID when it is empty.
	hint.Identity
	// Capabilities, when set, are the capabilities the current intent allows: a Composio
	// action whose catalogue capabilities share none of them is refused at execution
	// (defence in depth behind the selection-time filter). Optional.
	Capabilities []string
}

// scopeKey carries the call's scope in the context tools, hooks and observers get.
type scopeKey struct{}

// ScopeFrom returns the scope of the call a context belongs to: the context a platform
// tool's Run, a hook, the confirmation function and an Observer's CallEnd receive carries
// it. ok is false for any other context.
func ScopeFrom(ctx context.Context) (s Scope, ok bool) {
	st, ok := ctx.Value(scopeKey{}).(*callState)
	if !ok {
		return Scope{}, false
	}
	return *st.scope, true
}

// Config configures an Executor. Every field is optional, except that an executor for an
// agent needs an Access. It is copied by the constructor; changing it afterwards has no
// effect. The values it points to (Registry, Catalog, Remote, Access, hooks) must be safe
// for concurrent use.
type Config struct {
	// Registry holds the platform tools. Optional: without it only Composio actions run.
	Registry *registry.Registry
	// Catalog holds the Composio actions. Optional: without it every non-platform name is
	// unknown.
	Catalog Catalog
	// Remote runs Composio actions. Required when Catalog holds actions: New fails
	// without it rather than let every action call fail. When it
	// also has the method ExecuteActionOnce (as *composio.Client does), the executor calls
	// that for the actions it retries itself, so that one call has one retry budget.
	Remote Remote
	// Access checks permissions at execution, before anything else about a call. Required
	// when Scope.AgentID is set: New fails without it. A host that checked permissions at
	// selection time and trusts that check passes registry.AllowAll() explicitly. Nil, for
	// an executor without an agent, allows every active platform tool and the actions of
	// Scope.Apps (of every app when it is empty).
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
	// Logger gets one record per call with structured attributes, and a record for every
	// host callback that panicked. Optional: nil is silent.
	Logger *slog.Logger
	// StripKeys are the runtime-context keys removed from arguments. Optional: nil uses
	// DefaultStripKeys; an empty non-nil slice strips none of them (identity keys are
	// stripped whatever this list holds).
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
	// Arguments nested deeper than schema's default Limits.MaxArgDepth (64) are refused
	// too; both are checked before the arguments are decoded.
	MaxArgBytes int
	// Validation is how strictly arguments are checked against a tool's schema:
	// schema.Lenient checks the schema after the normaliser (schema.Relax), so a property
	// the catalogue marks required while its description calls it optional may be left
	// out, and null is accepted for every optional property; schema.Strict checks the
	// schema as declared; schema.Off only checks the size and depth limits and that the
	// arguments are one JSON object (they are still coerced, and a Typed tool's CheckArgs
	// still runs). The "(required)" labels of error messages follow the mode. Optional.
	// Defaults to schema.Lenient.
	Validation schema.Mode
	// Overrides are the host's changes to Composio action schemas, by action slug, applied
	// before the normaliser and the validation. Give the same map to
	// registry.ResolverConfig so the definitions the model sees agree; the router's
	// get_tool_schemas uses it already. A Replace or Patch that is not JSON makes New fail.
	// Optional.
	Overrides schema.Overrides
	// Timeout bounds one attempt of a tool without its own timeout. Optional. Defaults to
	// DefaultTimeout.
	Timeout time.Duration
	// Timeouts overrides Timeout per tool or action name. Optional.
	Timeouts map[string]time.Duration
	// CallTimeout bounds a whole call: every attempt and the waits between them. An
	// attempt gets what is left of it when that is less than its own timeout, and no wait
	// begins that would use it up. Optional. Defaults to twice the tool's attempt timeout
	// (two minutes at the default), or, for a tool whose timeouts are retried, enough for
	// MaxAttempts attempts and the waits between them.
	CallTimeout time.Duration
	// MaxAttempts bounds attempts of retryable tools. Optional. Defaults to
	// DefaultMaxAttempts; 1 disables retries.
	MaxAttempts int
	// RetryBackoff is the wait before the first retry, doubled each time; a longer wait
	// the service asks for (a Retry-After) is honoured. Optional. Defaults to
	// DefaultRetryBackoff.
	RetryBackoff time.Duration
	// RetryTimeouts names the tools and actions whose attempts that time out are retried
	// like other transient failures (platform tools opt in with ToolSpec.RetryTimeout
	// too). Optional: by default a timeout ends the call.
	RetryTimeouts []string
	// IsTransient adds to the built-in transient-error test. Optional.
	IsTransient func(error) bool
	// MaxConcurrency bounds the calls running at once across the executor and the
	// executors derived from it with WithScope (batches and background runs share it).
	// Optional. Defaults to DefaultConcurrency.
	MaxConcurrency int
	// AbandonGrace is how long a tool may keep running after its timeout or cancellation
	// before the executor reports the call and stops waiting for it. Optional. Defaults to
	// DefaultAbandonGrace.
	AbandonGrace time.Duration
}

// pool is what executors derived with WithScope share: the concurrency limit, the compiled
// tools and the suggestion index.
type pool struct {
	sem       chan struct{}
	compiler  *schema.Compiler // in the executor's mode and limits
	abandoned atomic.Int64
	prepared  sync.Map     // name -> *prepared
	actions   atomic.Int64 // action entries in prepared
	// analyzer reads called names for suggestions: immutable once built, and built only
	// when a first unknown name needs it.
	analyzer func() *text.Analyzer
}

// lifecycle is what each executor owns alone: its background runs and its closed state.
type lifecycle struct {
	closed   atomic.Bool
	closeCtx context.Context
	closeFn  context.CancelFunc
	runs     sync.WaitGroup
	runsMu   sync.Mutex // guards runs.Add against Close's Wait
}

func newLifecycle() *lifecycle {
	ctx, cancel := context.WithCancel(context.Background())
	return &lifecycle{closeCtx: ctx, closeFn: cancel}
}

// Executor runs tool calls. It is safe for concurrent use. Background runs belong to the
// executor that started them until they finish; call Close to cancel and wait for them.
type Executor struct {
	cfg      Config
	strip    map[string]struct{} // runtime-context and identity keys
	allowAll *registry.Access    // the checker when cfg.Access is nil
	log      *slog.Logger
	sh       *pool
	lc       *lifecycle
}

// New returns an Executor over cfg. It fails with an error wrapping ErrInvalidConfig when
// cfg.Scope names an agent (AgentID not 0) and cfg.Access is nil (pass registry.AllowAll()
// to allow everything on purpose), when cfg.Catalog holds Composio actions and cfg.Remote
// is nil, when cfg.Validation is not a schema mode, and when an entry of cfg.Overrides is
// not JSON.
func New(cfg Config) (*Executor, error) {
	if cfg.Access == nil && cfg.Scope.AgentID != 0 {
		return nil, fmt.Errorf("%w: scope names agent %d but Access is nil; pass a registry.Access, or registry.AllowAll() to skip permission checks on purpose", ErrInvalidConfig, cfg.Scope.AgentID)
	}
	if err := checkRemote(cfg); err != nil {
		return nil, err
	}
	switch cfg.Validation {
	case schema.Lenient, schema.Strict, schema.Off:
	default:
		return nil, fmt.Errorf("%w: unknown validation mode %v", ErrInvalidConfig, cfg.Validation)
	}
	for slug, ov := range cfg.Overrides {
		if (len(ov.Replace) > 0 && !json.Valid(ov.Replace)) || (len(ov.Patch) > 0 && !json.Valid(ov.Patch)) {
			return nil, fmt.Errorf("%w: the override for %s is not valid JSON", ErrInvalidConfig, slug)
		}
	}
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
	strip := make(map[string]struct{}, len(keys)+5)
	for _, k := range keys {
		strip[k] = struct{}{}
	}
	for _, k := range registry.IdentityKeys() {
		strip[k] = struct{}{}
	}
	cfg.Timeouts = maps.Clone(cfg.Timeouts)
	cfg.Overrides = maps.Clone(cfg.Overrides)
	cfg.Before = slices.Clone(cfg.Before)
	cfg.After = slices.Clone(cfg.After)
	cfg.FillDefaultsFor = slices.Clone(cfg.FillDefaultsFor)
	cfg.RetryTimeouts = slices.Clone(cfg.RetryTimeouts)
	cfg.Scope.Apps = slices.Clone(cfg.Scope.Apps)
	cfg.Scope.Capabilities = slices.Clone(cfg.Scope.Capabilities)
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Executor{
		cfg:      cfg,
		strip:    strip,
		allowAll: registry.AllowAll(),
		log:      log,
		sh: &pool{
			sem:      make(chan struct{}, cfg.MaxConcurrency),
			compiler: schema.NewCompiler(schema.CompilerConfig{Limits: schema.Limits{MaxArgBytes: cfg.MaxArgBytes}}),
			analyzer: sync.OnceValue(text.New),
		},
		lc: newLifecycle(),
	}, nil
}

// remoteCheckTimeout bounds New's look into the catalogue for a missing Remote.
const remoteCheckTimeout = 5 * time.Second

// checkRemote refuses a configuration whose catalogue holds Composio actions that nothing
// could run: without it every action call would fail as forbidden, told to the model. A
// catalogue that cannot list its actions (no Actions method, or a failing read) is not
// refused: New cannot tell.
func checkRemote(cfg Config) error {
	if cfg.Remote != nil || cfg.Catalog == nil {
		return nil
	}
	l, ok := cfg.Catalog.(interface {
		Actions(ctx context.Context, f cache.ActionFilter) ([]cache.Action, error)
	})
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), remoteCheckTimeout)
	defer cancel()
	acts, err := l.Actions(ctx, cache.ActionFilter{Limit: 1})
	if err != nil || len(acts) == 0 {
		return nil
	}
	return fmt.Errorf("%w: the catalogue holds Composio actions but Remote is nil, so every action call would fail; set Config.Remote (a *composio.Client, or a RemoteFunc)", ErrInvalidConfig)
}

// WithScope returns an executor for another agent or workspace. It shares e's registry,
// catalogue, checks, hooks, compiled schemas and concurrency limit, but has a lifecycle of
// its own: its Close cancels and waits for the background runs started through it, and
// neither closing it nor closing e affects the other. Calls of a child whose scope names
// an agent while e has no Access are refused with KindForbidden, as New would refuse it.
func (e *Executor) WithScope(s Scope) *Executor {
	cp := *e
	s.Apps = slices.Clone(s.Apps)
	s.Capabilities = slices.Clone(s.Capabilities)
	cp.cfg.Scope = s
	cp.lc = newLifecycle()
	return &cp
}

// Scope returns the executor's scope.
func (e *Executor) Scope() Scope { return e.cfg.Scope }

// Registry returns the executor's platform-tool registry (nil when none is configured).
func (e *Executor) Registry() *registry.Registry { return e.cfg.Registry }

// Close cancels every background run started through this executor, waits for them to
// deliver their results, and makes later Background calls fail with ErrClosed and later
// Execute calls return KindClosed results. Executors derived with WithScope, and the one
// this was derived from, are not affected. Close is idempotent and returns nil.
func (e *Executor) Close() error {
	e.lc.runsMu.Lock()
	e.lc.closed.Store(true)
	e.lc.runsMu.Unlock()
	e.lc.closeFn()
	e.lc.runs.Wait()
	return nil
}

// Wait blocks until every background run started so far through this executor has
// delivered all its results.
func (e *Executor) Wait() {
	e.lc.runs.Wait()
}

// Abandoned returns how many tool goroutines are still running after the executor stopped
// waiting for them (tools that ignore their context), across the executors that share its
// concurrency limit. It returns to zero as they return.
func (e *Executor) Abandoned() int { return int(e.sh.abandoned.Load()) }

// Execute runs one call and returns its result. It never returns a Go error: every failure,
// including a cancelled ctx or a closed executor, is a Result with OK false.
func (e *Executor) Execute(ctx context.Context, call Call) Result {
	if call.ID == "" {
		call.ID = "call_0"
	}
	if e.lc.closed.Load() {
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
		e.finish(cctx, st, Result{Tool: out.Tool, ErrorKind: KindCancelled, Error: "cancelled before it started: " + ctx.Err().Error(), Err: ctx.Err()})
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
	return Result{CallID: call.ID, Tool: call.Name, Step: call.Step, ErrorKind: kind, Error: msg}.bounded()
}

// logCall writes the per-call record. A failure's record carries the whole reason: the
// model's text, and the underlying error with what the model is not shown (the request's
// path, a request id).
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
		attrs = append(attrs, slog.String("error_kind", string(r.ErrorKind)), slog.String("error", r.Error))
		if r.Err != nil {
			attrs = append(attrs, slog.String("cause", r.Err.Error()))
		}
	}
	e.log.LogAttrs(ctx, level, "executor: call", attrs...)
}

// guard runs a host callback, recovering and logging a panic; it reports whether fn
// returned normally.
func (e *Executor) guard(ctx context.Context, what, tool string, fn func()) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			ok = false
			e.log.ErrorContext(ctx, "executor: host callback panicked", "callback", what, "tool", tool, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	fn()
	return true
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
