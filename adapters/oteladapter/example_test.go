package oteladapter_test

import (
	"context"
	"encoding/json"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolhint/toolhint/adapters/oteladapter"
	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// Wiring: the Telemetry observes the executor's calls, and its transport traces the
// Composio client's requests. Here the spans go to a recorder; a host passes its own
// providers (or sets the global ones).
func ExampleNew() {
	spans := tracetest.NewSpanRecorder()
	tel, err := oteladapter.New(oteladapter.Config{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))})
	if err != nil {
		fmt.Println(err)
		return
	}

	api := composiotest.New(composiotest.WithCatalog(composiotest.Catalog{
		Tools: []composio.Tool{{Slug: "HACKERNEWS_GET_USER", Name: "Get user", Toolkit: composio.ToolkitRef{Slug: "hackernews"}}},
	}))
	defer api.Close()
	api.HandleExecute("HACKERNEWS_GET_USER", func(context.Context, composiotest.ExecuteCall) (any, error) {
		return map[string]any{"id": "pg", "karma": 157316}, nil
	})
	cfg := api.Config()
	cfg.HTTPClient = composio.NewHTTPClient(tel.Transport(nil)) // each request a span
	client, err := composio.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}

	ex, err := executor.New(executor.Config{Remote: client, Observer: tel}) // each call a span
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ex.Close()
	// Without a catalogue the executor knows no action: an error result, and a span that
	// says so. The client is called directly to show its span.
	ex.Execute(context.Background(), executor.Call{ID: "c1", Name: "HACKERNEWS_GET_USER", Arguments: json.RawMessage(`{"username":"pg"}`)})
	if _, err := client.ExecuteAction(context.Background(), "HACKERNEWS_GET_USER", json.RawMessage(`{"username":"pg"}`), "u1", "", ""); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range spans.Ended() {
		fmt.Println(s.Name(), s.Status().Code)
	}
	// Output:
	// execute_tool HACKERNEWS_GET_USER Error
	// HTTP POST Unset
}

// The Telemetry is also the observer of a hint builder and of a resolver: each Build and
// each Resolver call is a span, under the caller's.
func Example_hintAndResolver() {
	ctx := context.Background()
	spans := tracetest.NewSpanRecorder()
	tel, err := oteladapter.New(oteladapter.Config{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))})
	if err != nil {
		fmt.Println(err)
		return
	}
	st := cache.NewMemory()
	_, _ = st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "github", NoAuth: true}},
		Actions: []cache.Action{{App: "github", Slug: "GITHUB_CREATE_AN_ISSUE", DisplayName: "Create an issue",
			Description: "Create an issue in a repository.", Parameters: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}}}`)}},
	})
	_ = st.AssignApp(ctx, cache.Assignment{AgentID: 7, App: "github", Active: true})

	hints := hint.New(hint.Config{Observer: tel})
	resolver, err := registry.NewResolver(registry.ResolverConfig{Store: st, Observer: tel})
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := hints.Build(ctx, st, hint.Request{AgentID: 7, Prompt: "open an issue about the login bug"})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := resolver.Tools(ctx, registry.Subject{AgentID: 7}, h.MatchedActions, schema.DialectOpenAIStrict); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range spans.Ended() {
		fmt.Println(s.Name(), s.Status().Code)
	}
	// Output:
	// toolhint.hint.build Unset
	// toolhint.registry.functions Unset
}
