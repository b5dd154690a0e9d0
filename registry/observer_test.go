package registry_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/registry"
)

type spanKey struct{}

// resolveRecorder records what a ResolveObserver sees; it panics where told to.
type resolveRecorder struct {
	mu      sync.Mutex
	events  []string
	panicAt string
}

func (o *resolveRecorder) ResolveStart(ctx context.Context, req registry.ResolveRequest) context.Context {
	o.add(fmt.Sprintf("start agent=%d prompt=%q slugs=%v", req.Subject.AgentID, req.Prompt, req.Slugs))
	if o.panicAt == "start" {
		panic("observer exploded")
	}
	return context.WithValue(ctx, spanKey{}, "span")
}

func (o *resolveRecorder) ResolveEnd(ctx context.Context, req registry.ResolveRequest, res registry.Resolution, err error, elapsed time.Duration) {
	o.add(fmt.Sprintf("end tier=%s actions=%v skipped=%d err=%v span=%v timed=%v", res.Tier, res.Actions, len(res.Skipped), err,
		ctx.Value(spanKey{}) != nil, elapsed > 0))
	if o.panicAt == "end" {
		panic("observer exploded")
	}
}

func (o *resolveRecorder) add(e string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, e)
}

// TestResolveObserver: Resolve, Functions and Tools are each seen once, start and end, with
// what they returned and under the context ResolveStart derived; a panicking observer is
// logged and changes nothing.
func TestResolveObserver(t *testing.T) {
	ctx := context.Background()
	st := cache.NewMemory()
	fill(t, st)
	ws := registry.Subject{AgentID: 1, WorkspaceID: "ws1"}
	tests := []struct {
		name    string
		panicAt string
		call    func(r *registry.Resolver) (registry.Resolution, error)
		want    []string
	}{
		{name: "resolve", call: func(r *registry.Resolver) (registry.Resolution, error) {
			return r.Resolve(ctx, ws, "Call GMAIL_SEND_EMAIL and SLACK_SEND_MESSAGE")
		}, want: []string{`start agent=1 prompt="Call GMAIL_SEND_EMAIL and SLACK_SEND_MESSAGE" slugs=[]`,
			"end tier=explicit actions=[GMAIL_SEND_EMAIL] skipped=1 err=<nil> span=true timed=true"}},
		{name: "functions", call: func(r *registry.Resolver) (registry.Resolution, error) {
			return r.Functions(ctx, ws, []string{"GMAIL_FETCH_EMAILS"})
		}, want: []string{`start agent=1 prompt="" slugs=[GMAIL_FETCH_EMAILS]`,
			"end tier=given actions=[GMAIL_FETCH_EMAILS] skipped=0 err=<nil> span=true timed=true"}},
		{name: "tools, once", call: func(r *registry.Resolver) (registry.Resolution, error) {
			tools, err := r.Tools(ctx, ws, []string{"GMAIL_FETCH_EMAILS"}, "openai")
			return tools.Resolution, err
		}, want: []string{`start agent=1 prompt="" slugs=[GMAIL_FETCH_EMAILS]`,
			"end tier=given actions=[GMAIL_FETCH_EMAILS] skipped=0 err=<nil> span=true timed=true"}},
		{name: "a cancelled call", call: func(r *registry.Resolver) (registry.Resolution, error) {
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			return r.Functions(cctx, ws, []string{"GMAIL_FETCH_EMAILS"})
		}, want: []string{`start agent=1 prompt="" slugs=[GMAIL_FETCH_EMAILS]`,
			"end tier= actions=[] skipped=0 err=registry: agent 1 apps: context canceled span=true timed=true"}},
		{name: "panicking at start", panicAt: "start", call: func(r *registry.Resolver) (registry.Resolution, error) {
			return r.Functions(ctx, ws, []string{"GMAIL_FETCH_EMAILS"})
		}, want: []string{`start agent=1 prompt="" slugs=[GMAIL_FETCH_EMAILS]`,
			"end tier=given actions=[GMAIL_FETCH_EMAILS] skipped=0 err=<nil> span=false timed=true"}},
		{name: "panicking at end", panicAt: "end", call: func(r *registry.Resolver) (registry.Resolution, error) {
			return r.Functions(ctx, ws, []string{"GMAIL_FETCH_EMAILS"})
		}, want: []string{`start agent=1 prompt="" slugs=[GMAIL_FETCH_EMAILS]`,
			"end tier=given actions=[GMAIL_FETCH_EMAILS] skipped=0 err=<nil> span=true timed=true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			obs := &resolveRecorder{panicAt: tt.panicAt}
			r, err := registry.NewResolver(registry.ResolverConfig{Store: st, Observer: obs, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			res, err := tt.call(r)
			if tt.panicAt == "" && err == nil && len(res.Actions) == 0 {
				t.Errorf("nothing resolved")
			}
			if diff := cmp.Diff(tt.want, obs.events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if logged := strings.Contains(logs.String(), "host callback panicked"); logged != (tt.panicAt != "") {
				t.Errorf("panic logged %v, want %v: %s", logged, tt.panicAt != "", logs.String())
			}
		})
	}
}
