package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/executor/executortest"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

func stepExecutor(t *testing.T) (*executor.Executor, *cache.Memory, *fakeRemote, *registry.Resolver) {
	t.Helper()
	st := catalogStore(t)
	f := newFixture(t)
	remote := &fakeRemote{}
	res, err := registry.NewResolver(registry.ResolverConfig{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ex := newExec(f, func(c *executor.Config) {
		c.Catalog = st
		c.Remote = remote
		c.Access = registry.NewAccess(registry.AccessConfig{Store: st, Registry: f.reg})
		c.Scope = executor.Scope{Identity: hint.Identity{AgentID: 1, WorkspaceID: "ws1"}}
	})
	t.Cleanup(func() { ex.Close() })
	return ex, st, remote, res
}

func TestRunStep(t *testing.T) {
	ex, st, remote, resolver := stepExecutor(t)
	llm := executortest.NewScriptedLLM(
		executortest.CallTools(
			executortest.Call("c1", "GMAIL_SEND_EMAIL", `{"recipient_email":"jay@example.com","body":"The meeting moved to 3pm.","threadId":"th_1"}`),
			executortest.Call("c2", "GMAIL_SEND_MAIL", `{}`),
		),
		executortest.Say("Sent the email to Jay."),
	)
	res, err := ex.RunStep(context.Background(), llm, executor.Step{
		Prompt:   "Use GMAIL_SEND_EMAIL to email jay@example.com that the meeting moved to 3pm.",
		Hints:    st,
		Resolver: resolver,
	})
	if err != nil {
		t.Fatalf("RunStep: %v", err)
	}
	if res.Final != "Sent the email to Jay." || res.Turns != 2 {
		t.Errorf("final %q after %d turns", res.Final, res.Turns)
	}
	if diff := cmp.Diff([]string{"GMAIL_SEND_EMAIL"}, res.Resolution.Actions); diff != "" {
		t.Errorf("resolved actions (-want +got):\n%s", diff)
	}
	if res.Resolution.Tier != registry.TierExplicit {
		t.Errorf("tier %q, want explicit", res.Resolution.Tier)
	}
	reqs := llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if !res.Hint.Confident {
		t.Fatalf("hint for an explicit slug is not confident:\n%s", res.Hint.Text)
	}
	if reqs[0].ToolChoice != executor.ToolChoiceRequired || reqs[1].ToolChoice != executor.ToolChoiceAuto {
		t.Errorf("tool choices %q, %q; want required (the hint says MUST) then auto", reqs[0].ToolChoice, reqs[1].ToolChoice)
	}
	if res.Hint.Text != "" && reqs[0].Messages[0].Content != res.Hint.Text {
		t.Errorf("hint not sent as the first system message")
	}
	// The second request carries both tool results, in call order, with the model's ids.
	var tools []string
	for _, m := range reqs[1].Messages {
		if m.Role == executor.RoleTool {
			tools = append(tools, m.ToolCallID+" "+m.Content)
		}
	}
	if len(tools) != 2 || !strings.HasPrefix(tools[0], `c1 {"successful":true}`) || !strings.HasPrefix(tools[1], "c2 error (unknown_tool)") || !strings.Contains(tools[1], "GMAIL_SEND_EMAIL") {
		t.Errorf("tool messages:\n%s", strings.Join(tools, "\n"))
	}
	reqsSent := remote.requests()
	if len(reqsSent) != 1 || strings.Contains(string(reqsSent[0].Arguments), "threadId") {
		t.Errorf("remote requests %+v: want one, without the runtime key", reqsSent)
	}
}

func TestRunStepRequiredToolChoice(t *testing.T) {
	ex, st, _, _ := stepExecutor(t)
	llm := executortest.NewScriptedLLM(executortest.Say("ok"))
	res, err := ex.RunStep(context.Background(), llm, executor.Step{Prompt: "use GMAIL_SEND_EMAIL to email jay@example.com", Hints: st})
	if err != nil {
		t.Fatal(err)
	}
	got := llm.Requests()[0].ToolChoice
	if !res.Hint.Confident {
		t.Fatalf("hint is not confident for this prompt (strategy %q); the check below needs a confident hint", res.Hint.Strategy)
	}
	// No resolver and no platform tools: nothing to call, so the choice stays auto even
	// though the hint says MUST.
	if got != executor.ToolChoiceAuto {
		t.Errorf("tool choice %q with no tools offered, want auto", got)
	}
}

func TestRunStepLongSlugRoundTrip(t *testing.T) {
	ex, st, remote, resolver := stepExecutor(t)
	long := "GMAIL_" + strings.Repeat("VERY_LONG_", 8) + "SEND"
	if _, err := st.Apply(context.Background(), cache.Batch{Actions: []cache.Action{{App: "gmail", Slug: long, DisplayName: "Long", Description: "A long slug.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"}}}`)}}}); err != nil {
		t.Fatal(err)
	}
	fn := schema.FunctionName(long)
	llm := executortest.NewScriptedLLM(executortest.CallTools(executortest.Call("c1", fn, `{"to":"x"}`)), executortest.Say("done"))
	res, err := ex.RunStep(context.Background(), llm, executor.Step{Prompt: "Run " + long + " now.", Resolver: resolver})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || !res.Results[0].OK || res.Results[0].Tool != long {
		t.Fatalf("results %+v", res.Results)
	}
	if r := remote.requests(); len(r) != 1 || r[0].Action != long {
		t.Errorf("remote got %+v, want the full slug", r)
	}
}

func TestRunStepErrors(t *testing.T) {
	ex, _, _, _ := stepExecutor(t)
	loop := executortest.CallTools(executortest.Call("", "echo", `{"text":"again"}`))
	tests := []struct {
		name    string
		llm     *executortest.ScriptedLLM
		ctx     func() context.Context
		want    error
		results int
	}{
		{name: "max turns", llm: executortest.NewScriptedLLM(loop, loop, loop), want: executor.ErrMaxTurns, results: 2},
		{name: "model fails", llm: executortest.NewScriptedLLM(executortest.Fail(errors.New("503 from provider"))), want: nil},
		{name: "cancelled", llm: executortest.NewScriptedLLM(loop), ctx: func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, want: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.ctx != nil {
				ctx = tt.ctx()
			}
			res, err := ex.RunStep(ctx, tt.llm, executor.Step{Prompt: "echo", Platform: []registry.Category{}, MaxTurns: 2})
			if err == nil {
				t.Fatal("RunStep succeeded, want an error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
			if len(res.Results) != tt.results {
				t.Errorf("%d results, want %d", len(res.Results), tt.results)
			}
		})
	}
}
