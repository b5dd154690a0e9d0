package executor_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/executor/executortest"
	"github.com/toolhint/toolhint/hint"
)

// hintPrompts is a hint.Observer that records the prompt and mode of each finished Build.
type hintPrompts struct {
	mu   sync.Mutex
	seen []string
}

func (h *hintPrompts) BuildStart(ctx context.Context, _ hint.Request) context.Context { return ctx }

func (h *hintPrompts) BuildEnd(_ context.Context, req hint.Request, _ hint.Result, _ error, _ time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	mode := "chat"
	if req.RecipeMode {
		mode = "recipe"
	}
	h.seen = append(h.seen, mode+": "+req.Prompt)
}

// TestHintBuilderObserved: the hints RunStep, search_tools and create_plan build go through
// the builder the host gives, so its observer sees them.
func TestHintBuilderObserved(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		run  func(t *testing.T, b *hint.Builder)
		want []string
	}{
		{name: "RunStep", run: func(t *testing.T, b *hint.Builder) {
			ex, st, _, _ := stepExecutor(t)
			_, err := ex.RunStep(ctx, executortest.NewScriptedLLM(executortest.Say("done")), executor.Step{
				Prompt: "email jay that the meeting moved", Hints: st, HintBuilder: b})
			if err != nil {
				t.Fatal(err)
			}
		}, want: []string{"recipe: email jay that the meeting moved"}},
		{name: "search_tools", run: func(t *testing.T, b *hint.Builder) {
			inner, st, _, _ := stepExecutor(t)
			r, err := executor.NewRouter(inner, executor.RouterConfig{Hints: st, HintBuilder: b})
			if err != nil {
				t.Fatal(err)
			}
			for _, spec := range r.Tools() {
				if spec.Name == executor.ToolSearch {
					if _, err := spec.Run(ctx, json.RawMessage(`{"use_case":"send an email"}`)); err != nil {
						t.Fatal(err)
					}
				}
			}
		}, want: []string{"chat: send an email"}},
		{name: "Plan", run: func(t *testing.T, b *hint.Builder) {
			inner, st, _, _ := stepExecutor(t)
			r, err := executor.NewRouter(inner, executor.RouterConfig{Hints: st, HintBuilder: b})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Plan(ctx, "fetch my latest emails"); err != nil {
				t.Fatal(err)
			}
		}, want: []string{"chat: fetch my latest emails"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := &hintPrompts{}
			tt.run(t, hint.New(hint.Config{Observer: obs}))
			if diff := cmp.Diff(tt.want, obs.seen); diff != "" {
				t.Errorf("builds observed (-want +got):\n%s", diff)
			}
		})
	}
}
