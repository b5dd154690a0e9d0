// Command router shows router mode: the model is given a handful of meta-tools (search_tools,
// get_tool_schemas, execute_tool, batch_execute_tools, create_plan) instead of every action's schema,
// and still reaches the whole catalogue. It runs with no network and no database: the
// project's test catalogue in a memory store, a fake Composio API (composiotest) and a
// scripted model that searches, reads a schema, runs a read with execute_tool, then a
// step-ordered batch.
//
//	go run ./examples/router [-catalog testdata/catalog/actions.jsonl]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/executor/executortest"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

func main() {
	catalog := flag.String("catalog", "testdata/catalog/actions.jsonl", "catalogue JSONL (run from the repository root)")
	flag.Parse()
	if err := run(context.Background(), *catalog, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "router:", err)
		os.Exit(1)
	}
}

// *composio.Client is an executor.Remote as it is: it runs the actions the executor
// resolved, with no adapter in between.
var _ executor.Remote = (*composio.Client)(nil)

func run(ctx context.Context, catalog string, w io.Writer) error {
	st := cache.NewMemory()
	f, err := os.Open(catalog)
	if err != nil {
		return err
	}
	n, err := cache.ImportJSONL(ctx, st, f)
	f.Close()
	if err != nil {
		return err
	}
	// The fake Composio API serves what the store holds: the catalogue is loaded once.
	fromStore, err := composiotest.FromStore(ctx, st)
	if err != nil {
		return err
	}
	api := composiotest.New(fromStore)
	defer api.Close()
	api.HandleAllExecute(func(ctx context.Context, c composiotest.ExecuteCall) (any, error) {
		switch c.Action {
		case "GITHUB_LIST_REPOSITORY_ISSUES":
			return map[string]any{"issues": []map[string]any{{"number": 1347, "title": "Checkout button does nothing on Safari", "state": "open"}}}, nil
		default:
			return map[string]any{"ok": true, "slug": c.Action}, nil
		}
	})

	// Workspace "acme" has GitHub and Slack connected.
	for _, app := range []string{"github", "slack"} {
		if _, err := cache.EnsureConnection(ctx, st, "acme", app, cache.StatusActive, ""); err != nil {
			return err
		}
	}

	// The inner executor runs actions for this agent; the router exposes it as five tools.
	inner, err := executor.New(executor.Config{
		Catalog: st,
		Remote:  api.Client(),
		Access:  registry.NewAccess(registry.AccessConfig{Store: st}),
		Scope:   executor.Scope{Identity: hint.Identity{AgentID: 7, WorkspaceID: "acme", Apps: []string{"github", "slack"}}},
	})
	if err != nil {
		return err
	}
	defer inner.Close()
	router, err := executor.NewRouter(inner, executor.RouterConfig{Hints: st})
	if err != nil {
		return err
	}
	reg := registry.New()
	for _, spec := range router.Tools() {
		if err := reg.Register(spec); err != nil {
			return err
		}
	}
	outer, err := executor.New(executor.Config{Registry: reg})
	if err != nil {
		return err
	}
	defer outer.Close()

	llm := executortest.NewScriptedLLM(
		executortest.CallTools(executortest.Call("s1", "search_tools", `{"use_case":"list the open issues of a github repository"}`)),
		executortest.CallTools(executortest.Call("s2", "get_tool_schemas", `{"slugs":["GITHUB_LIST_REPOSITORY_ISSUES"]}`)),
		executortest.CallTools(executortest.Call("s3", "execute_tool", `{"tool_slug":"GITHUB_LIST_REPOSITORY_ISSUES","arguments":{"owner":"acme","repo":"website","state":"open"}}`)),
		executortest.CallTools(executortest.Call("s4", "batch_execute_tools", `{"tools":[
			{"tool_slug":"GITHUB_CREATE_AN_ISSUE_COMMENT","arguments":{"owner":"acme","repo":"website","issue_number":1347,"body":"Looking into it."},"step":1},
			{"tool_slug":"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL","arguments":{"channel":"#eng","text":"Picked up #1347"},"step":2}]}`)),
		executortest.Say("Commented on #1347 and told #eng."),
	)
	res, err := outer.RunStep(ctx, llm, executor.Step{
		Prompt:   "Find the open issues in acme/website, comment on the first one, then tell #eng.",
		Platform: []registry.Category{registry.CategoryRouter},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "catalogue: %d actions; tools offered to the model: %d\n", n, len(res.Tools))
	for _, r := range res.Results {
		fmt.Fprintf(w, "%s ok=%v\n  %s\n", r.Tool, r.OK, shorten(r.ForModel(), 400))
	}
	fmt.Fprintf(w, "model: %s (%d turns)\n", res.Final, res.Turns)
	return nil
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
