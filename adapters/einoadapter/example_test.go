package einoadapter_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/compose"
	einoschema "github.com/cloudwego/eino/schema"

	"github.com/toolhint/toolhint/adapters/einoadapter"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/registry"
)

// An Eino ToolsNode runs toolhint's tools: the assistant message below is what a chat
// model bound to the tools' Info would answer. A failed call (a city missing) comes back as
// a tool message the model can act on, not as an error that ends the graph.
func Example() {
	ctx := context.Background()
	ex := adaptertest.Executor() // an executor with get_weather and get_time
	defer ex.Close()

	tools, err := einoadapter.Tools(ex, ex.Registry().Functions())
	if err != nil {
		fmt.Println(err)
		return
	}
	node, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{Tools: tools})
	if err != nil {
		fmt.Println(err)
		return
	}
	infos, err := einoadapter.Infos(ctx, tools) // for chatModel.WithTools(infos)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("bound:", infos[0].Name, infos[1].Name)

	assistant := einoschema.AssistantMessage("", []einoschema.ToolCall{
		{ID: "call_w", Type: "function", Function: einoschema.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
		{ID: "call_t", Type: "function", Function: einoschema.FunctionCall{Name: "get_time", Arguments: `{}`}},
	})
	msgs, err := node.Invoke(ctx, assistant)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range msgs {
		first, _, _ := strings.Cut(m.Content, "\n")
		fmt.Println(m.ToolCallID, first)
	}
	// Output:
	// bound: get_time get_weather
	// call_w {"city":"Paris","temp_c":18,"sky":"clear"}
	// call_t error (invalid_arguments): arguments for get_time do not match its schema:
}

// Chatbot mode: a hint before the turn names the actions that fit, and HintTools turns it
// into Eino tools (access-checked, identity keys hidden) in one call.
func ExampleHintTools() {
	ctx := context.Background()
	st, ex := adaptertest.Catalogue() // GitHub actions agent 7 may call, and an executor for it
	defer ex.Close()
	resolver, err := registry.NewResolver(registry.ResolverConfig{Store: st})
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := hint.Build(ctx, st, hint.Request{AgentID: 7, Prompt: "open an issue in acme/web: login fails"})
	if err != nil {
		fmt.Println(err)
		return
	}
	tools, res, err := einoadapter.HintTools(ctx, resolver, registry.Subject{AgentID: 7}, h, ex)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("offered:", res.Actions)
	out, err := tools[0].(*einoadapter.Tool).InvokableRun(ctx, `{"owner":"acme","repo":"web","title":"Login fails"}`)
	fmt.Println(out, err)
	// Output:
	// offered: [GITHUB_CREATE_AN_ISSUE GITHUB_LIST_ISSUES]
	// {"args":{"owner":"acme","repo":"web","title":"Login fails"},"ran":"GITHUB_CREATE_AN_ISSUE"} <nil>
}
