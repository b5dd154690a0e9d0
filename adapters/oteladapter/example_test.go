package oteladapter_test

import (
	"context"
	"encoding/json"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolhint/toolhint/adapters/oteladapter"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
	"github.com/toolhint/toolhint/executor"
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
