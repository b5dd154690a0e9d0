package hint_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/hint"
)

type ctxKey struct{}

// recordingObserver records what it sees; it panics in the callbacks named in panics.
type recordingObserver struct {
	mu     sync.Mutex
	events []string
	panics map[string]bool
}

func (o *recordingObserver) BuildStart(ctx context.Context, req hint.Request) context.Context {
	o.mu.Lock()
	o.events = append(o.events, "start "+req.Prompt)
	o.mu.Unlock()
	if o.panics["start"] {
		panic("observer exploded at start")
	}
	return context.WithValue(ctx, ctxKey{}, "span")
}

func (o *recordingObserver) BuildEnd(ctx context.Context, req hint.Request, res hint.Result, err error, elapsed time.Duration) {
	o.mu.Lock()
	e := "end " + string(res.Strategy) + " " + strings.Join(res.MatchedActions, ",")
	if errors.Is(err, hint.ErrStoreUnavailable) {
		e += " err=unavailable"
	}
	if ctx.Value(ctxKey{}) == "span" {
		e += " ctx=span"
	}
	if elapsed <= 0 {
		e += " elapsed<=0"
	}
	o.events = append(o.events, e)
	o.mu.Unlock()
	if o.panics["end"] {
		panic("observer exploded at end")
	}
}

// TestObserver: the observer sees each Build start and end with what it returned and under
// the context BuildStart derived; a panicking observer is logged and changes nothing.
func TestObserver(t *testing.T) {
	ctx := context.Background()
	ok := hint.Request{AgentID: 1, WorkspaceID: "ws", Prompt: "list the slack channels"}
	failing := failStore()
	failing.failing["ActionMeta"] = true
	tests := []struct {
		name    string
		panics  map[string]bool
		st      *fakeStore
		want    []string // %s is the strategy of the same Build without an observer
		wantLog string
	}{
		{name: "a hint", st: failStore(),
			want: []string{"start list the slack channels", "end %s SLACK_LIST_ALL_CHANNELS ctx=span"}},
		{name: "a failed build", st: failing,
			want: []string{"start list the slack channels", "end %s  err=unavailable ctx=span"}},
		{name: "panicking at start", st: failStore(), panics: map[string]bool{"start": true},
			want:    []string{"start list the slack channels", "end %s SLACK_LIST_ALL_CHANNELS"},
			wantLog: "Observer.BuildStart failed"},
		{name: "panicking at end", st: failStore(), panics: map[string]bool{"end": true},
			want:    []string{"start list the slack channels", "end %s SLACK_LIST_ALL_CHANNELS ctx=span"},
			wantLog: "Observer.BuildEnd failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			obs := &recordingObserver{panics: tt.panics}
			b := hint.New(hint.Config{Observer: obs, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			res, err := b.Build(ctx, tt.st, ok)
			want, wantErr := hint.New(hint.Config{}).Build(ctx, tt.st, ok)
			if diff := cmp.Diff(want, res); diff != "" || (err == nil) != (wantErr == nil) {
				t.Errorf("observed Build differs (-want +got):\n%s\n%v, want %v", diff, err, wantErr)
			}
			for i := range tt.want {
				tt.want[i] = strings.ReplaceAll(tt.want[i], "%s", string(want.Strategy))
			}
			if diff := cmp.Diff(tt.want, obs.events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if tt.wantLog != "" && !strings.Contains(logs.String(), tt.wantLog) {
				t.Errorf("log %q does not say %q", logs.String(), tt.wantLog)
			}
		})
	}
}
