package executor_test

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/executor/executortest"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

// turnExecutor returns an executor for agent 1 in workspace ws1 (gmail active, github
// pending) over catalogStore; with router, its registry holds the router's meta-tools,
// run through an inner executor of the same scope.
func turnExecutor(t *testing.T, router bool) (*executor.Executor, *cache.Memory, *fakeRemote) {
	t.Helper()
	return turnExecutorWith(t, router, nil)
}

// turnExecutorWith is turnExecutor with perms deciding the platform tools (nil allows all).
func turnExecutorWith(t *testing.T, router bool, perms registry.PlatformPermissions) (*executor.Executor, *cache.Memory, *fakeRemote) {
	t.Helper()
	st := catalogStore(t)
	remote := &fakeRemote{}
	scope := executor.Scope{Identity: hint.Identity{AgentID: 1, WorkspaceID: "ws1"}}
	reg := registry.New()
	cfg := executor.Config{Catalog: st, Remote: remote, Scope: scope, Registry: reg,
		Access: registry.NewAccess(registry.AccessConfig{Store: st, Registry: reg, Platform: perms})}
	if router {
		inner := mustNew(t, executor.Config{Catalog: st, Remote: remote, Scope: scope, Access: registry.NewAccess(registry.AccessConfig{Store: st})})
		t.Cleanup(func() { inner.Close() })
		r, err := executor.NewRouter(inner, executor.RouterConfig{Hints: st})
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range r.Tools() {
			reg.MustRegister(spec)
		}
	}
	ex := mustNew(t, cfg)
	t.Cleanup(func() { ex.Close() })
	return ex, st, remote
}

var slugRE = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)

// toolsNamed returns the tools a hint's text names: action slugs and router meta-tools.
func toolsNamed(text string) []string {
	names := slugRE.FindAllString(text, -1)
	for _, m := range []string{executor.ToolSearch, executor.ToolGetSchemas, executor.ToolExecute, executor.ToolBatchExecute, executor.ToolCreatePlan} {
		if strings.Contains(text, m) {
			names = append(names, m)
		}
	}
	return names
}

// TestRunTurnToldAndGivenAgree: whatever the prompt and whether the executor can run
// search_tools, every tool the hint sent to the model names is among the tools the model
// is given, and search_tools is named exactly when the executor has it and the hint is not
// sure.
func TestRunTurnToldAndGivenAgree(t *testing.T) {
	prompts := []string{"send an email to jay@example.com saying hi", "fetch my latest emails", "zxqv plorb",
		"create an issue in the repo", "delete that email"}
	for _, router := range []bool{false, true} {
		for _, prompt := range prompts {
			name := prompt
			if router {
				name += " (router)"
			}
			t.Run(name, func(t *testing.T) {
				ex, st, _ := turnExecutor(t, router)
				llm := executortest.NewScriptedLLM(executortest.Say("done"))
				res, err := ex.RunTurn(context.Background(), llm, executor.Turn{Prompt: prompt, Hints: st})
				if err != nil {
					t.Fatal(err)
				}
				reqs := llm.Requests()
				if len(reqs) != 1 {
					t.Fatalf("%d model requests, want 1", len(reqs))
				}
				var given []string
				for _, f := range reqs[0].Tools {
					given = append(given, f.Slug)
				}
				var told string
				for _, m := range reqs[0].Messages {
					if m.Role == executor.RoleSystem {
						told += m.Content + "\n"
					}
				}
				if told != res.Hint.Text+"\n" {
					t.Fatalf("the hint was not sent as the system message:\n%s", told)
				}
				for _, n := range toolsNamed(told) {
					if !slices.Contains(given, n) {
						t.Errorf("told of %s, given %v:\n%s", n, given, told)
					}
				}
				wantSearch := router && !res.Hint.Confident
				if got := slices.Contains(given, executor.ToolSearch); got != wantSearch {
					t.Errorf("search_tools given: %v, want %v (confident %v)", got, wantSearch, res.Hint.Confident)
				}
				if got := strings.Contains(told, executor.ToolSearch); got != wantSearch {
					t.Errorf("search_tools named: %v, want %v:\n%s", got, wantSearch, told)
				}
				for _, a := range res.Hint.MatchedActions {
					if !slices.Contains(given, a) && res.Skipped[a] == "" {
						t.Errorf("%s neither given nor skipped with a reason", a)
					}
				}
			})
		}
	}
}

// denyTool is a PlatformPermissions that refuses one platform tool to every agent.
type denyTool string

func (d denyTool) PlatformToolAllowed(_ context.Context, _ int64, tool string) (bool, error) {
	return tool != string(d), nil
}

// TestSearchOfferShared: RunTurn and RunStep decide alike whether the hint may point at
// search_tools: only when the executor's registry holds it and the scope may call it, and
// then the model is given it. A step whose Platform lists search_tools while the agent may
// not call it gets a hint that never names it.
func TestSearchOfferShared(t *testing.T) {
	tests := []struct {
		name       string
		router     bool
		perms      registry.PlatformPermissions
		wantOffers bool
	}{
		{"no router", false, nil, false},
		{"router", true, nil, true},
		{"router, search_tools denied", true, denyTool(executor.ToolSearch), false},
	}
	prompts := []string{"zxqv plorb", "fetch my latest emails", "send an email", "create an issue in the repo",
		"delete that email", "list my calendar events"}
	for _, tt := range tests {
		for _, run := range []string{"turn", "step"} {
			t.Run(tt.name+"/"+run, func(t *testing.T) {
				unsure := 0 // hints with text that are not sure: those that may name search_tools
				for _, prompt := range prompts {
					ex, st, _ := turnExecutorWith(t, tt.router, tt.perms)
					llm := executortest.NewScriptedLLM(executortest.Say("done"))
					var h hint.Result
					var err error
					if run == "turn" {
						var res executor.TurnResult
						res, err = ex.RunTurn(context.Background(), llm, executor.Turn{Prompt: prompt, Hints: st})
						h = res.Hint
					} else {
						var res executor.StepResult
						// Every platform tool: search_tools among them when the router
						// is registered, whether the agent may call it or not.
						res, err = ex.RunStep(context.Background(), llm, executor.Step{Prompt: prompt, Hints: st, Platform: []registry.Category{}})
						h = res.Hint
					}
					if err != nil {
						t.Fatal(err)
					}
					if h.Confident || h.Text == "" {
						continue
					}
					unsure++
					if named := strings.Contains(h.Text, executor.ToolSearch); named != tt.wantOffers {
						t.Errorf("%q: search_tools named: %v, want %v:\n%s", prompt, named, tt.wantOffers, h.Text)
					}
					var given bool
					for _, f := range llm.Requests()[0].Tools {
						given = given || f.Slug == executor.ToolSearch
					}
					if tt.wantOffers && !given {
						t.Errorf("%q: the hint names search_tools but the model was not given it", prompt)
					}
				}
				if unsure == 0 {
					t.Fatal("no prompt gave a hint that is not sure; the test checks nothing")
				}
			})
		}
	}
}

// TestRunTurn: a whole chatbot turn: the model searches, calls the action it found and
// answers; every call runs for the executor's scope and the model sees each result.
func TestRunTurn(t *testing.T) {
	ex, st, remote := turnExecutor(t, true)
	llm := executortest.NewScriptedLLM(
		executortest.CallTools(executortest.Call("s1", executor.ToolSearch, `{"use_case":"read my latest emails"}`)),
		executortest.CallTools(executortest.Call("c1", "GMAIL_FETCH_EMAILS", `{"max_results":3,"threadId":"th_1"}`)),
		executortest.Say("You have three new emails."),
	)
	res, err := ex.RunTurn(context.Background(), llm, executor.Turn{Prompt: "zxqv plorb", System: "Be brief.", Hints: st})
	if err != nil {
		t.Fatal(err)
	}
	if res.Final != "You have three new emails." || res.Turns != 3 {
		t.Errorf("final %q after %d turns", res.Final, res.Turns)
	}
	var kinds []string
	for _, r := range res.Results {
		kinds = append(kinds, r.Tool+":"+string(r.ErrorKind))
	}
	if diff := cmp.Diff([]string{"search_tools:", "GMAIL_FETCH_EMAILS:"}, kinds); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	reqs := remote.requests()
	if len(reqs) != 1 || reqs[0].Action != "GMAIL_FETCH_EMAILS" || reqs[0].ConnectedAccountID != "ca_gmail_1" || strings.Contains(string(reqs[0].Arguments), "threadId") {
		t.Errorf("remote requests %+v", reqs)
	}
	var roles []executor.Role
	for _, m := range res.Messages {
		roles = append(roles, m.Role)
	}
	want := []executor.Role{executor.RoleSystem, executor.RoleSystem, executor.RoleUser, executor.RoleAssistant, executor.RoleTool,
		executor.RoleAssistant, executor.RoleTool, executor.RoleAssistant}
	if diff := cmp.Diff(want, roles); diff != "" {
		t.Errorf("conversation roles (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.Messages[4].Content, "GMAIL_FETCH_EMAILS") {
		t.Errorf("the search result the model saw does not name the action:\n%s", res.Messages[4].Content)
	}
}

// TestRunTurnBounds: a turn ends at its bound, with what happened so far.
func TestRunTurnBounds(t *testing.T) {
	t.Run("max turns", func(t *testing.T) {
		ex, st, remote := turnExecutor(t, false)
		call := executortest.CallTools(executortest.Call("c", "GMAIL_FETCH_EMAILS", `{}`))
		llm := executortest.NewScriptedLLM(call, call, call)
		res, err := ex.RunTurn(context.Background(), llm, executor.Turn{Prompt: "fetch my emails", Hints: st, MaxTurns: 2})
		if !errors.Is(err, executor.ErrMaxTurns) {
			t.Fatalf("err = %v, want ErrMaxTurns", err)
		}
		if res.Turns != 2 || len(res.Results) != 2 || res.Results[1].ErrorKind != executor.KindSkipped {
			t.Errorf("turns %d, results %+v: want 2 turns, the last call skipped", res.Turns, res.Results)
		}
		if n := len(remote.requests()); n != 1 {
			t.Errorf("%d actions ran, want 1", n)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		ex, st, _ := turnExecutor(t, false)
		// The bound covers the hint too: long enough for a hint on a loaded machine under
		// -race, so that the deadline is met in the model call, which blocks until it.
		res, err := ex.RunTurn(context.Background(), blockingLLM{}, executor.Turn{Prompt: "fetch my emails", Hints: st, Timeout: 500 * time.Millisecond})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want the deadline", err)
		}
		if res.Turns != 1 || res.Hint.Strategy == "" {
			t.Errorf("turns %d, strategy %q: want the one model call and the hint", res.Turns, res.Hint.Strategy)
		}
	})
	t.Run("no apps", func(t *testing.T) {
		ex, st, _ := turnExecutor(t, false)
		other := ex.WithScope(executor.Scope{Identity: hint.Identity{AgentID: 9}})
		defer other.Close()
		llm := executortest.NewScriptedLLM(executortest.Say("hi"))
		_, err := other.RunTurn(context.Background(), llm, executor.Turn{Prompt: "fetch my emails", Hints: st})
		if !errors.Is(err, hint.ErrNoApps) || llm.Remaining() != 1 {
			t.Errorf("err = %v, model called %v: want hint.ErrNoApps before any model call", err, llm.Remaining() != 1)
		}
	})
	t.Run("nil model", func(t *testing.T) {
		ex, st, _ := turnExecutor(t, false)
		if _, err := ex.RunTurn(context.Background(), nil, executor.Turn{Prompt: "x", Hints: st}); !errors.Is(err, executor.ErrInvalidConfig) {
			t.Errorf("err = %v, want ErrInvalidConfig", err)
		}
	})
}

// blockingLLM answers only when its context ends.
type blockingLLM struct{}

func (blockingLLM) Complete(ctx context.Context, _ executor.LLMRequest) (executor.Message, error) {
	<-ctx.Done()
	return executor.Message{}, ctx.Err()
}
