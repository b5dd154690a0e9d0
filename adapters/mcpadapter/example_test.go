package mcpadapter_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhint/toolhint/adapters/mcpadapter"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adaptertest"
)

// A host's MCP server offers an executor's tools; an MCP client from the official SDK lists
// and calls them. Here the two ends meet over an in-memory transport; a host would serve
// the server over stdio or streamable HTTP.
func ExampleAddTools() {
	ctx := context.Background()
	ex := adaptertest.Executor() // an executor with get_weather and get_time
	defer ex.Close()

	server := mcp.NewServer(&mcp.Implementation{Name: "host", Version: "1.0.0"}, nil)
	if err := mcpadapter.AddTools(server, ex, ex.Registry().Functions(), mcpadapter.Config{
		// Every session here is agent 7 of workspace acme; a real host reads the session's
		// token (req.Extra.TokenInfo) or its own session table. A scope that names an agent
		// needs an executor with an Access: this one has registry.AllowAll().
		Scope: func(context.Context, *mcp.CallToolRequest) (executor.Scope, error) {
			return executor.Scope{Identity: hint.Identity{AgentID: 7, WorkspaceID: "acme"}}, nil
		},
	}); err != nil {
		fmt.Println(err)
		return
	}

	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, serverEnd, nil); err != nil {
		fmt.Println(err)
		return
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	list, err := session.ListTools(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range list.Tools {
		fmt.Printf("%s: %s (read-only %v)\n", t.Name, t.Description, t.Annotations.ReadOnlyHint)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Oslo"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text, res.IsError)
	// Wrong arguments: an error result the model can read and correct.
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"town": "Oslo"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	first, _, _ := strings.Cut(res.Content[0].(*mcp.TextContent).Text, ":")
	fmt.Println(first, res.IsError)
	// Output:
	// get_time: Local time in a city. (read-only true)
	// get_weather: Current weather in a city. (read-only true)
	// {"city":"Oslo","temp_c":18,"sky":"clear"} false
	// error (invalid_arguments) true
}
