package executor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// UsageWriter is where a UsageRecorder writes: a workspace's record of use.
// *cache.Memory and *cache.Postgres satisfy it. It must be safe for concurrent use.
type UsageWriter interface {
	RecordUsage(ctx context.Context, events []cache.UsageEvent, lim cache.UsageLimits) error
}

// UsageConfig configures a UsageRecorder. It is plain data but for the interfaces and Terms.
type UsageConfig struct {
	// Store receives the calls, in batches. Required.
	Store UsageWriter
	// Catalog tells an action's app, and which calls are Composio actions (a platform tool
	// is not recorded). Optional. Defaults to Store when it has the method, as both cache
	// stores do; without either, NewUsageRecorder fails.
	Catalog cache.ActionReader
	// Limits are the retention window and per-workspace cap the store applies. Optional.
	Limits cache.UsageLimits
	// Terms turns the prompt that led to a call (WithPrompt) into the terms kept. Optional.
	// Defaults to hint.PromptTerms. It runs off the call path.
	Terms func(prompt string) []string
	// QueueSize bounds the calls waiting to be written; a call that finds the queue full
	// is dropped (see UsageRecorder.Dropped). Optional. Defaults to 4096.
	QueueSize int
	// BatchSize is the most calls written at once. Optional. Defaults to 256.
	BatchSize int
	// FlushInterval is the longest a call waits to be written. Optional. Defaults to one
	// second.
	FlushInterval time.Duration
	// WriteTimeout bounds one write. Optional. Defaults to ten seconds.
	WriteTimeout time.Duration
	// Logger receives a warning per failed write. Optional. Nil is silent.
	Logger *slog.Logger
}

// UsageRecorder is an Observer that records each finished Composio action call in its
// workspace's record of use, which hint's usage priors (hint.UsageConfig) learn from: the
// workspace and agent (the call's Scope), the app, the action, whether it succeeded, and
// the terms of the prompt that led to it (WithPrompt; never the prompt itself). A call
// that did not run (refused, invalid arguments) is not recorded, nor is a call without a
// workspace. Wire it with one line, Config.Observer: rec.
//
// The call path only queues the call: terms, app lookups and writes happen on the
// recorder's goroutine, in batches; a full queue drops the call rather than wait. It is
// safe for concurrent use. Close it to write what is queued and stop its goroutine.
type UsageRecorder struct {
	cfg     UsageConfig
	q       chan usageCall
	flush   chan chan struct{}
	stop    chan struct{}
	done    chan struct{}
	closed  atomic.Bool
	dropped atomic.Int64      // calls not recorded: the queue was full, or the store refused their batch
	apps    map[string]string // slug -> app ("" for no action); the goroutine's own
}

// usageCall is a finished call as the call path queues it.
type usageCall struct {
	ws, action, prompt string
	agent              int64
	ok                 bool
	at                 time.Time
}

// NewUsageRecorder starts a recorder. It fails with ErrInvalidConfig without a Store or
// a way to tell an action's app.
func NewUsageRecorder(cfg UsageConfig) (*UsageRecorder, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("%w: usage recorder without a store", ErrInvalidConfig)
	}
	if cfg.Catalog == nil {
		c, ok := cfg.Store.(cache.ActionReader)
		if !ok {
			return nil, fmt.Errorf("%w: usage recorder without a catalog", ErrInvalidConfig)
		}
		cfg.Catalog = c
	}
	if cfg.Terms == nil {
		cfg.Terms = hint.PromptTerms
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 4096
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 256
	}
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 10 * time.Second
	}
	r := &UsageRecorder{cfg: cfg, q: make(chan usageCall, cfg.QueueSize), flush: make(chan chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{}), apps: map[string]string{}}
	go r.loop()
	return r, nil
}

// promptKey carries the prompt behind the calls made under a context.
type promptKey struct{}

// WithPrompt returns a context whose calls a UsageRecorder records as led to by prompt.
// The prompt stays in memory: only its terms are recorded. RunStep sets the step's prompt
// unless ctx already has one.
func WithPrompt(ctx context.Context, prompt string) context.Context {
	return context.WithValue(ctx, promptKey{}, prompt)
}

func promptFrom(ctx context.Context) (string, bool) {
	p, ok := ctx.Value(promptKey{}).(string)
	return p, ok
}

// CallStart does nothing; it is part of Observer.
func (r *UsageRecorder) CallStart(context.Context, Call) context.Context { return nil }

// CallEnd queues a finished call to be recorded; it never blocks.
func (r *UsageRecorder) CallEnd(ctx context.Context, _ Call, res Result) {
	if res.Attempts == 0 || r.closed.Load() {
		return
	}
	sc, ok := ScopeFrom(ctx)
	if !ok || sc.WorkspaceID == "" {
		return
	}
	prompt, _ := promptFrom(ctx)
	select {
	case r.q <- usageCall{ws: sc.WorkspaceID, agent: sc.AgentID, action: res.Tool, ok: res.OK, prompt: prompt, at: time.Now()}:
	default:
		r.dropped.Add(1)
	}
}

// Dropped returns the number of calls not recorded: found the queue full, or in a batch
// the store refused.
func (r *UsageRecorder) Dropped() int64 { return r.dropped.Load() }

// Flush writes the calls queued before it, returning when they are written (or their
// write failed) or ctx is done. After Close it returns ErrClosed.
func (r *UsageRecorder) Flush(ctx context.Context) error {
	if r.closed.Load() {
		return ErrClosed
	}
	ack := make(chan struct{})
	select {
	case r.flush <- ack:
	case <-r.done:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("executor: usage flush: %w", ctx.Err())
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("executor: usage flush: %w", ctx.Err())
	}
}

// Close stops recording, writes what is queued and stops the recorder's goroutine; it
// returns when that is done or ctx is. Calls that end after Close are not recorded. It
// may be called more than once.
func (r *UsageRecorder) Close(ctx context.Context) error {
	if r.closed.CompareAndSwap(false, true) {
		close(r.stop)
	}
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("executor: usage close: %w", ctx.Err())
	}
}

// loop is the recorder's goroutine: it gathers queued calls into batches and writes them
// when a batch is full, every FlushInterval, on Flush and on Close.
func (r *UsageRecorder) loop() {
	defer close(r.done)
	tick := time.NewTicker(r.cfg.FlushInterval)
	defer tick.Stop()
	batch := make([]usageCall, 0, r.cfg.BatchSize)
	write := func() {
		if len(batch) > 0 {
			r.write(batch)
			batch = batch[:0]
		}
	}
	take := func(c usageCall) {
		batch = append(batch, c)
		if len(batch) == cap(batch) {
			write()
		}
	}
	// drain moves every call queued so far into batches.
	drain := func() {
		for {
			select {
			case c := <-r.q:
				take(c)
			default:
				return
			}
		}
	}
	for {
		select {
		case c := <-r.q:
			take(c)
		case <-tick.C:
			write()
		case ack := <-r.flush:
			drain()
			write()
			close(ack)
		case <-r.stop:
			drain()
			write()
			return
		}
	}
}

// write records calls, leaving out those that are not Composio actions.
func (r *UsageRecorder) write(calls []usageCall) {
	ctx, cancel := context.WithTimeout(context.Background(), r.cfg.WriteTimeout)
	defer cancel()
	evs := make([]cache.UsageEvent, 0, len(calls))
	terms := map[string][]string{} // by prompt: a batch often holds one prompt's calls
	for _, c := range calls {
		app, ok := r.appOf(ctx, c.action)
		if !ok {
			continue
		}
		ts, seen := terms[c.prompt]
		if !seen && c.prompt != "" {
			ts = r.cfg.Terms(c.prompt)
			terms[c.prompt] = ts
		}
		evs = append(evs, cache.UsageEvent{WorkspaceID: c.ws, AgentID: c.agent, App: app, Action: c.action, OK: c.ok, Terms: ts, At: c.at})
	}
	if len(evs) == 0 {
		return
	}
	err := r.cfg.Store.RecordUsage(ctx, evs, r.cfg.Limits)
	if errors.Is(err, cache.ErrInvalid) && len(evs) > 1 {
		// A batch is all or nothing: one event the store refuses (a workspace ID it cannot
		// hold) must not cost the others theirs.
		for _, e := range evs {
			r.failedWrite(ctx, 1, r.cfg.Store.RecordUsage(ctx, []cache.UsageEvent{e}, r.cfg.Limits))
		}
		return
	}
	r.failedWrite(ctx, len(evs), err)
}

// failedWrite counts and logs n calls lost to err, when err is not nil.
func (r *UsageRecorder) failedWrite(ctx context.Context, n int, err error) {
	if err == nil {
		return
	}
	r.dropped.Add(int64(n))
	if r.cfg.Logger != nil {
		r.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "executor: recording usage failed",
			slog.Int("calls", n), slog.String("error", err.Error()))
	}
}

// maxAppCache bounds the slugs whose app the recorder remembers.
const maxAppCache = 4096

// appOf returns the app of an action slug, and false for a name that is not an action (a
// platform tool) or whose lookup failed.
func (r *UsageRecorder) appOf(ctx context.Context, slug string) (string, bool) {
	if app, ok := r.apps[slug]; ok {
		return app, app != ""
	}
	a, err := r.cfg.Catalog.Action(ctx, slug)
	switch {
	case errors.Is(err, cache.ErrNotFound), errors.Is(err, cache.ErrInvalid):
		a.App = ""
	case err != nil:
		return "", false // not remembered: the next call asks again
	}
	if len(r.apps) >= maxAppCache {
		clear(r.apps)
	}
	r.apps[slug] = a.App
	return a.App, a.App != ""
}
