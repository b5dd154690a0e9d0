package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/executor/executortest"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

func weatherRegistry() *registry.Registry {
	reg := registry.New()
	reg.MustRegister(registry.ToolSpec{
		Name:        "get_weather",
		Description: "Current weather in a city.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`),
		ReadOnly:    true,
		Run: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			var in struct{ City string }
			_ = json.Unmarshal(args, &in)
			return json.RawMessage(`{"city":"` + in.City + `","temp_c":21}`), nil
		},
	})
	return reg
}

func ExampleExecutor_Execute() {
	ex, err := executor.New(executor.Config{Registry: weatherRegistry()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ex.Close()
	ctx := context.Background()

	res := ex.Execute(ctx, executor.Call{ID: "1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris","days":"2","threadId":"t-9"}`)})
	fmt.Println(res.ForModel())
	fmt.Println(res.Coerced, res.Stripped)

	res = ex.Execute(ctx, executor.Call{ID: "2", Name: "get_wether", Arguments: json.RawMessage(`{"city":"Paris"}`)})
	fmt.Println(res.ForModel())

	res = ex.Execute(ctx, executor.Call{ID: "3", Name: "get_weather", Arguments: json.RawMessage(`{"town":"Paris"}`)})
	fmt.Println(res.ForModel())
	// Output:
	// {"city":"Paris","temp_c":21}
	// [/days: integer] [threadId]
	// error (unknown_tool): there is no tool named "get_wether". The closest real tools are: get_weather. Call one of the tools you were given, with its exact name.
	// error (invalid_arguments): arguments for get_weather do not match its schema:
	// - (root): missing required properties: 'city'; add them
	// get_weather takes: city (required), days. Fix the arguments and call get_weather again.
}

func ExampleNew() {
	// An executor for an agent checks the agent's permissions before anything else about a
	// call, so it needs an Access.
	_, err := executor.New(executor.Config{Registry: weatherRegistry(), Scope: executor.Scope{Identity: hint.Identity{AgentID: 7}}})
	fmt.Println(errors.Is(err, executor.ErrInvalidConfig))

	// A host that checked permissions when it chose the tools says so explicitly.
	ex, err := executor.New(executor.Config{Registry: weatherRegistry(), Scope: executor.Scope{Identity: hint.Identity{AgentID: 7}}, Access: registry.AllowAll()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ex.Close()
	res := ex.Execute(context.Background(), executor.Call{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)})
	fmt.Println(res.OK)
	// Output:
	// true
	// true
}

func ExampleExecutor_ExecuteBatch() {
	ex, err := executor.New(executor.Config{Registry: weatherRegistry()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ex.Close()
	calls := []executor.Call{
		{ID: "b", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`), Step: 2},
		{ID: "a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Rome"}`), Step: 1},
		{ID: "c", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Lima"}`), Step: 1},
	}
	// a and c run in parallel, then b; results follow the order of calls.
	for _, r := range ex.ExecuteBatch(context.Background(), calls, executor.BatchOptions{StopOnFailure: true}) {
		fmt.Println(r.CallID, r.OK, string(r.Data))
	}
	// Output:
	// b true {"city":"Oslo","temp_c":21}
	// a true {"city":"Rome","temp_c":21}
	// c true {"city":"Lima","temp_c":21}
}

func ExampleExecutor_Background() {
	ex, err := executor.New(executor.Config{Registry: weatherRegistry()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ex.Close() // cancels and waits for unfinished runs
	run, err := ex.Background(context.Background(), []executor.Call{
		{ID: "1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Kyiv"}`)},
	}, executor.BatchOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for r := range run.Results() { // closed after the last result
		fmt.Println(r.CallID, r.ForModel())
	}
	// Output:
	// 1 {"city":"Kyiv","temp_c":21}
}

func ExampleTruncate() {
	data := json.RawMessage(`{"items":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20],"note":"` + strings.Repeat("long ", 20) + `"}`)
	out, cut := executor.Truncate(data, 120)
	fmt.Println(cut, json.Valid(out))
	fmt.Println(string(out))
	// Output:
	// true true
	// {"items":[1,2,3,"[17 of 20 items truncated]"],"note":"long long long long long long lo…[68 more characters truncated]"}
}

func ExampleExecutor_RunStep() {
	ctx := context.Background()
	st := cache.NewMemory()
	_, _ = st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "gmail", DisplayName: "Gmail"}},
		Actions: []cache.Action{{App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email", Description: "Send an email.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}},"required":["to","body"]}`)}},
	})
	remote := executor.RemoteFunc(func(ctx context.Context, req executor.RemoteRequest) (json.RawMessage, error) {
		return json.RawMessage(`{"sent":true}`), nil
	})
	resolver, _ := registry.NewResolver(registry.ResolverConfig{Store: st})
	ex, err := executor.New(executor.Config{Catalog: st, Remote: remote, Scope: executor.Scope{Identity: hint.Identity{AgentID: 1, Apps: []string{"gmail"}}},
		Access: registry.NewAccess(registry.AccessConfig{Store: st})})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ex.Close()

	llm := executortest.NewScriptedLLM(
		executortest.CallTools(executortest.Call("c1", "GMAIL_SEND_EMAIL", `{"to":"jay@example.com","body":"Meeting at 3."}`)),
		executortest.Say("Email sent."),
	)
	res, err := ex.RunStep(ctx, llm, executor.Step{Prompt: "Use GMAIL_SEND_EMAIL to tell jay@example.com: meeting at 3.", Hints: st, Resolver: resolver})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(llm.Requests()[0].ToolChoice, res.Resolution.Actions)
	fmt.Println(res.Results[0].ForModel())
	fmt.Println(res.Final, res.Turns)
	// Output:
	// required [GMAIL_SEND_EMAIL]
	// {"sent":true}
	// Email sent. 2
}

// A chatbot turn: the hint's actions and the meta-tools it points at are offered, and the
// model's calls run until it answers.
func ExampleExecutor_RunTurn() {
	ctx := context.Background()
	st := cache.NewMemory()
	_, _ = st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "gmail", DisplayName: "Gmail"}},
		Actions: []cache.Action{{App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email", Description: "Send an email.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}},"required":["to","body"]}`)}},
	})
	remote := executor.RemoteFunc(func(ctx context.Context, req executor.RemoteRequest) (json.RawMessage, error) {
		return json.RawMessage(`{"sent":true}`), nil
	})
	ex, err := executor.New(executor.Config{Catalog: st, Remote: remote, Scope: executor.Scope{Identity: hint.Identity{AgentID: 1, Apps: []string{"gmail"}}},
		Access: registry.NewAccess(registry.AccessConfig{Store: st})})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ex.Close()

	llm := executortest.NewScriptedLLM(
		executortest.CallTools(executortest.Call("c1", "GMAIL_SEND_EMAIL", `{"to":"jay@example.com","body":"Meeting at 3."}`)),
		executortest.Say("Email sent."),
	)
	res, err := ex.RunTurn(ctx, llm, executor.Turn{Prompt: "email jay@example.com that the meeting is at 3", Hints: st, MaxTurns: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range llm.Requests()[0].Tools {
		fmt.Println("offered:", f.Name)
	}
	fmt.Println(res.Results[0].ForModel())
	fmt.Println(res.Final, res.Turns)
	// Output:
	// offered: GMAIL_SEND_EMAIL
	// {"sent":true}
	// Email sent. 2
}

func ExampleNewRouter() {
	ctx := context.Background()
	st := cache.NewMemory()
	_, _ = st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "hackernews", NoAuth: true}},
		Actions: []cache.Action{{App: "hackernews", Slug: "HACKERNEWS_GET_TOP_STORIES", DisplayName: "Get top stories",
			Description: "Get the top stories on Hacker News.", Parameters: json.RawMessage(`{"type":"object","properties":{"limit":{"type":"integer"}}}`)}},
	})
	inner, err := executor.New(executor.Config{Catalog: st, Scope: executor.Scope{Identity: hint.Identity{Apps: []string{"hackernews"}}},
		Remote: executor.RemoteFunc(func(ctx context.Context, req executor.RemoteRequest) (json.RawMessage, error) {
			return json.RawMessage(`{"stories":["Go 1.26 released"]}`), nil
		})})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer inner.Close()
	router, _ := executor.NewRouter(inner, executor.RouterConfig{Hints: st})

	// The model sees a handful of tools, whatever the size of the catalogue.
	reg := registry.New()
	for _, spec := range router.Tools() {
		reg.MustRegister(spec)
	}
	for _, f := range reg.Functions() {
		fmt.Println(f.Name)
	}
	outer, err := executor.New(executor.Config{Registry: reg})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer outer.Close()
	r := outer.Execute(ctx, executor.Call{Name: "search_tools", Arguments: json.RawMessage(`{"use_case":"top hacker news stories"}`)})
	var found struct {
		Tools []struct{ Slug string }
	}
	_ = json.Unmarshal(r.Data, &found)
	fmt.Println(found.Tools[0].Slug)
	r = outer.Execute(ctx, executor.Call{Name: "execute_tool", Arguments: json.RawMessage(`{"tool_slug":"HACKERNEWS_GET_TOP_STORIES","arguments":{"limit":"1"}}`)})
	var env executor.Envelope
	_ = json.Unmarshal(r.Data, &env)
	fmt.Println(env.Tool, env.OK, string(env.Data))
	// Output:
	// batch_execute_tools
	// create_plan
	// execute_tool
	// get_tool_schemas
	// search_tools
	// HACKERNEWS_GET_TOP_STORIES
	// HACKERNEWS_GET_TOP_STORIES true {"stories":["Go 1.26 released"]}
}
