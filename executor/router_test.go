package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/registry"
)

func routerExecutor(t *testing.T, onBackground func(executor.Result)) (*executor.Executor, *fakeRemote) {
	t.Helper()
	inner, st, remote, _ := stepExecutor(t)
	r, err := executor.NewRouter(inner, executor.RouterConfig{Hints: st, OnBackgroundResult: onBackground})
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	for _, spec := range r.Tools() {
		if err := reg.Register(spec); err != nil {
			t.Fatalf("register %s: %v", spec.Name, err)
		}
	}
	outer := mustNew(t, executor.Config{Registry: reg})
	t.Cleanup(func() { outer.Close() })
	return outer, remote
}

func TestRouterTools(t *testing.T) {
	outer, remote := routerExecutor(t, nil)
	ctx := context.Background()
	tests := []struct {
		name     string
		call     executor.Call
		wantOK   bool
		contains []string
	}{
		{name: "search", call: executor.Call{Name: executor.ToolSearch, Arguments: json.RawMessage(`{"use_case":"send an email"}`)},
			wantOK: true, contains: []string{`"slug":"GMAIL_SEND_EMAIL"`, `"recipient_email"`}},
		{name: "search outside the agent's apps finds nothing", call: executor.Call{Name: executor.ToolSearch, Arguments: json.RawMessage(`{"use_case":"post a slack message to a channel"}`)},
			wantOK: true, contains: []string{`"tools":[`}},
		{name: "schemas", call: executor.Call{Name: executor.ToolGetSchemas, Arguments: json.RawMessage(`{"slugs":["GMAIL_SEND_EMAIL","SLACK_SEND_MESSAGE","GMAIL_SEND_MAIL"]}`)},
			wantOK: true, contains: []string{`"recipient_email"`, `not assigned app slack`, `GMAIL_SEND_EMAIL`}},
		{name: "execute", call: executor.Call{Name: executor.ToolExecute, Arguments: json.RawMessage(`{"tool_slug":"GMAIL_SEND_EMAIL","arguments":{"recipient_email":"a@b.c","body":"hi"}}`)},
			wantOK: true, contains: []string{`"tool":"GMAIL_SEND_EMAIL"`, `"ok":true`}},
		{name: "execute with bad arguments reports them", call: executor.Call{Name: executor.ToolExecute, Arguments: json.RawMessage(`{"tool_slug":"GMAIL_SEND_EMAIL","arguments":{}}`)},
			contains: []string{"invalid_arguments", "recipient_email"}},
		{name: "execute refuses meta-tools", call: executor.Call{Name: executor.ToolExecute, Arguments: json.RawMessage(`{"tool_slug":"execute_tool","arguments":{}}`)},
			contains: []string{"cannot run execute_tool"}},
		{name: "batch with steps", call: executor.Call{Name: executor.ToolBatchExecute, Arguments: json.RawMessage(`{"tools":[
			{"tool_slug":"GMAIL_SEND_EMAIL","arguments":{"recipient_email":"a@b.c","body":"2"},"step":2},
			{"tool_slug":"GMAIL_FETCH_EMAILS","arguments":{},"step":1}]}`)},
			wantOK: true, contains: []string{`"results":[{"tool":"GMAIL_SEND_EMAIL"`, `{"tool":"GMAIL_FETCH_EMAILS"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := outer.Execute(ctx, tt.call)
			if got.OK != tt.wantOK {
				t.Fatalf("OK = %v, want %v: %s", got.OK, tt.wantOK, got.ForModel())
			}
			text := got.ForModel()
			for _, s := range tt.contains {
				if !strings.Contains(text, s) {
					t.Errorf("%s\ndoes not contain %s", text, s)
				}
			}
		})
	}
	// The batch ran step 1 (the fetch) before step 2 (the send).
	var order []string
	for _, r := range remote.requests() {
		order = append(order, r.Action)
	}
	want := []string{"GMAIL_SEND_EMAIL", "GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("remote calls (-want +got):\n%s", diff)
	}
}

func TestNewRouterConfig(t *testing.T) {
	st := catalogStore(t)
	tests := []struct {
		name  string
		inner *executor.Executor
		cfg   executor.RouterConfig
	}{
		{"nil inner", nil, executor.RouterConfig{Hints: st}},
		{"inner without catalog", mustNew(t, executor.Config{}), executor.RouterConfig{Hints: st}},
		{"no hints", mustNew(t, executor.Config{Catalog: st, Remote: unreachable}), executor.RouterConfig{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := executor.NewRouter(tt.inner, tt.cfg); !errors.Is(err, executor.ErrInvalidConfig) {
				t.Errorf("NewRouter: %v, want ErrInvalidConfig", err)
			}
		})
	}
}

func TestRouterBackgroundBatch(t *testing.T) {
	var mu sync.Mutex
	var got []string
	done := make(chan struct{})
	outer, _ := routerExecutor(t, func(r executor.Result) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, r.Tool)
		if len(got) == 2 {
			close(done)
		}
	})
	res := outer.Execute(context.Background(), executor.Call{Name: executor.ToolBatchExecute, Arguments: json.RawMessage(`{"background":true,"tools":[
		{"tool_slug":"GMAIL_FETCH_EMAILS","arguments":{}},{"tool_slug":"GMAIL_SEND_EMAIL","arguments":{"recipient_email":"a@b.c","body":"x"},"step":1}]}`)})
	if !res.OK || !strings.Contains(res.ForModel(), `"started":2`) {
		t.Fatalf("background batch: %s", res.ForModel())
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("background results never arrived")
	}
	mu.Lock()
	if diff := cmp.Diff([]string{"GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL"}, got); diff != "" {
		t.Errorf("background results (-want +got):\n%s", diff)
	}
	mu.Unlock()
}
