package toolhint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint"
	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/registry/platform"
)

// countingObserver counts what it sees, by method. It is safe for concurrent use.
type countingObserver struct {
	mu   sync.Mutex
	seen map[string]int
}

func (o *countingObserver) note(what string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.seen == nil {
		o.seen = map[string]int{}
	}
	o.seen[what]++
}

func (o *countingObserver) counts() map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]int{}
	for k, v := range o.seen {
		out[k] = v
	}
	return out
}

func (o *countingObserver) BuildStart(ctx context.Context, _ hint.Request) context.Context {
	o.note("BuildStart")
	return ctx
}

func (o *countingObserver) BuildEnd(context.Context, hint.Request, hint.Result, error, time.Duration) {
	o.note("BuildEnd")
}

func (o *countingObserver) ResolveStart(ctx context.Context, _ registry.ResolveRequest) context.Context {
	o.note("ResolveStart")
	return ctx
}

func (o *countingObserver) ResolveEnd(context.Context, registry.ResolveRequest, registry.Resolution, error, time.Duration) {
	o.note("ResolveEnd")
}

func (o *countingObserver) CallStart(ctx context.Context, _ executor.Call) context.Context {
	o.note("CallStart")
	return ctx
}

func (o *countingObserver) CallEnd(context.Context, executor.Call, executor.Result) {
	o.note("CallEnd")
}

var _ toolhint.Observer = (*countingObserver)(nil)

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func debugLogger(w *lockedBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// testStore is the project's test catalogue in memory.
func testStore(t *testing.T) *cache.Memory {
	t.Helper()
	ctx := context.Background()
	st := cache.NewMemory()
	load := func(path string, imp func(context.Context, cache.ImportStore, io.Reader) (int, error)) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := imp(ctx, st, f); err != nil {
			t.Fatal(err)
		}
	}
	load("testdata/catalog/apps.jsonl", cache.ImportAppsJSONL)
	load("testdata/catalog/actions.jsonl", cache.ImportJSONL)
	return st
}

// useComponents builds a hint builder, a resolver, an executor (with one platform tool) and a
// Composio client from configurations passed through tel, applying own to each first,
// then uses each once.
func useComponents(t *testing.T, tel toolhint.Telemetry, own func(*hint.Config, *registry.ResolverConfig, *executor.Config, *composio.Config)) {
	t.Helper()
	ctx := context.Background()
	st := testStore(t)
	srv := composiotest.NewServer(t)
	reg := registry.New()
	reg.MustRegister(registry.ToolSpec{Name: "echo", Description: "Echo.", Run: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
		return args, nil
	}})
	hc, rc, ec, cc := hint.Config{}, registry.ResolverConfig{Store: st}, executor.Config{Registry: reg}, srv.Config()
	if own != nil {
		own(&hc, &rc, &ec, &cc)
	}
	who := hint.Identity{Apps: []string{"gmail"}}
	if _, err := hint.New(tel.Hint(hc)).Build(ctx, st, who.Request("send an email to jay@example.com")); err != nil {
		t.Fatal(err)
	}
	r, err := registry.NewResolver(tel.Resolver(rc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Functions(ctx, who, []string{"GMAIL_SEND_EMAIL"}); err != nil {
		t.Fatal(err)
	}
	ex, err := executor.New(tel.Executor(ec))
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	if res := ex.Execute(ctx, executor.Call{ID: "c1", Name: "echo", Arguments: json.RawMessage(`{}`)}); !res.OK {
		t.Fatalf("echo failed: %s", res.ForModel())
	}
	c, err := composio.New(tel.Composio(cc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListToolkits(ctx, composio.ToolkitFilter{}); err != nil {
		t.Fatal(err)
	}
}

var allSeen = map[string]int{"BuildStart": 1, "BuildEnd": 1, "ResolveStart": 1, "ResolveEnd": 1, "CallStart": 1, "CallEnd": 1}

// logMarks are a record of each component: a hint built, a tool call, a Composio request.
var logMarks = []string{`msg="hint: built"`, `tool=echo`, `msg="composio: request"`}

// TestTelemetryShared: components given nothing but Telemetry log through its logger and
// are observed by its observer.
func TestTelemetryShared(t *testing.T) {
	var logs lockedBuffer
	obs := &countingObserver{}
	useComponents(t, toolhint.Telemetry{Logger: debugLogger(&logs), Observer: obs}, nil)
	if diff := cmp.Diff(allSeen, obs.counts()); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
	for _, m := range logMarks {
		if !strings.Contains(logs.String(), m) {
			t.Errorf("the shared logger has no %s record:\n%s", m, logs.String())
		}
	}
}

// TestTelemetryOwnFieldsWin: a component's own Logger and Observer win over Telemetry's:
// the component logs and is observed there, and nothing reaches the shared ones.
func TestTelemetryOwnFieldsWin(t *testing.T) {
	var shared, own lockedBuffer
	sharedObs, ownObs := &countingObserver{}, &countingObserver{}
	ownLog := debugLogger(&own)
	useComponents(t, toolhint.Telemetry{Logger: debugLogger(&shared), Observer: sharedObs},
		func(h *hint.Config, r *registry.ResolverConfig, e *executor.Config, c *composio.Config) {
			h.Logger, h.Observer = ownLog, ownObs
			r.Logger, r.Observer = ownLog, ownObs
			e.Logger, e.Observer = ownLog, ownObs
			c.Logger = ownLog
		})
	if diff := cmp.Diff(allSeen, ownObs.counts()); diff != "" {
		t.Errorf("observed by the components' own observer (-want +got):\n%s", diff)
	}
	if got := sharedObs.counts(); len(got) != 0 {
		t.Errorf("the shared observer saw %v, want nothing", got)
	}
	for _, m := range logMarks {
		if !strings.Contains(own.String(), m) {
			t.Errorf("the components' own logger has no %s record:\n%s", m, own.String())
		}
	}
	if shared.String() != "" {
		t.Errorf("the shared logger got records:\n%s", shared.String())
	}
}

// TestTelemetryFillsEveryConfig: each method sets the Logger (and Observer) its
// configuration left nil, and keeps the ones it set.
func TestTelemetryFillsEveryConfig(t *testing.T) {
	shared, own := slog.New(slog.DiscardHandler), slog.New(slog.DiscardHandler)
	sharedObs, ownObs := &countingObserver{}, &countingObserver{}
	tel := toolhint.Telemetry{Logger: shared, Observer: sharedObs}
	type got struct {
		log *slog.Logger
		obs any
	}
	tests := []struct {
		name      string
		empty     got // after the method on a configuration with neither set
		set       got // after the method on one with both set (own)
		wantEmpty got
		wantSet   got
	}{
		{"Hint", got{tel.Hint(hint.Config{}).Logger, tel.Hint(hint.Config{}).Observer},
			got{tel.Hint(hint.Config{Logger: own, Observer: ownObs}).Logger, tel.Hint(hint.Config{Logger: own, Observer: ownObs}).Observer},
			got{shared, sharedObs}, got{own, ownObs}},
		{"Resolver", got{tel.Resolver(registry.ResolverConfig{}).Logger, tel.Resolver(registry.ResolverConfig{}).Observer},
			got{tel.Resolver(registry.ResolverConfig{Logger: own, Observer: ownObs}).Logger, tel.Resolver(registry.ResolverConfig{Logger: own, Observer: ownObs}).Observer},
			got{shared, sharedObs}, got{own, ownObs}},
		{"Executor", got{tel.Executor(executor.Config{}).Logger, tel.Executor(executor.Config{}).Observer},
			got{tel.Executor(executor.Config{Logger: own, Observer: ownObs}).Logger, tel.Executor(executor.Config{Logger: own, Observer: ownObs}).Observer},
			got{shared, sharedObs}, got{own, ownObs}},
		{"Assembler", got{log: tel.Assembler(registry.AssemblerConfig{}).Logger}, got{log: tel.Assembler(registry.AssemblerConfig{Logger: own}).Logger},
			got{log: shared}, got{log: own}},
		{"Usage", got{log: tel.Usage(executor.UsageConfig{}).Logger}, got{log: tel.Usage(executor.UsageConfig{Logger: own}).Logger},
			got{log: shared}, got{log: own}},
		{"Composio", got{log: tel.Composio(composio.Config{}).Logger}, got{log: tel.Composio(composio.Config{Logger: own}).Logger},
			got{log: shared}, got{log: own}},
		{"Sync", got{log: tel.Sync(cache.SyncOptions{}).Logger}, got{log: tel.Sync(cache.SyncOptions{Logger: own}).Logger},
			got{log: shared}, got{log: own}},
		{"Refresh", got{log: tel.Refresh(cache.RefreshOptions{}).Logger}, got{log: tel.Refresh(cache.RefreshOptions{Logger: own}).Logger},
			got{log: shared}, got{log: own}},
		{"HTTP", got{log: tel.HTTP(platform.HTTPConfig{}).Logger}, got{log: tel.HTTP(platform.HTTPConfig{Logger: own}).Logger},
			got{log: shared}, got{log: own}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.empty != tt.wantEmpty {
				t.Errorf("unset fields not filled from Telemetry")
			}
			if tt.set != tt.wantSet {
				t.Errorf("the configuration's own fields did not win")
			}
		})
	}
	// An empty Telemetry changes nothing: no typed-nil observer appears.
	if h := (toolhint.Telemetry{}).Hint(hint.Config{}); h.Logger != nil || h.Observer != nil {
		t.Errorf("an empty Telemetry set %v, %v", h.Logger, h.Observer)
	}
}
