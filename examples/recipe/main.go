// Command recipe runs one recipe step end to end without a network or a database: the
// project's test catalogue in a memory store, a fake Composio API (composiotest) behind a
// real *composio.Client, and a scripted model standing in for an LLM. The step's prompt names
// the actions it needs; the resolver offers exactly those, the hint makes the tool call
// required, the model calls both actions in one turn, the executor runs them in parallel
// through Composio, and the model answers with the results.
//
//	go run ./examples/recipe [-catalog testdata/catalog/actions.jsonl]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

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
		fmt.Fprintln(os.Stderr, "recipe:", err)
		os.Exit(1)
	}
}

// *composio.Client is an executor.Remote as it is: it runs the actions the executor
// resolved, with no adapter in between.
var _ executor.Remote = (*composio.Client)(nil)

// *composio.Client is the resolver's semantic search (tier 2) as it is.
var _ registry.SemanticSearch = (*composio.Client)(nil)

const step = `Create a GitHub issue in acme/website titled "Checkout button does nothing on Safari" with GITHUB_CREATE_AN_ISSUE, ` +
	`and tell the #eng Slack channel about it with SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL.`

func run(ctx context.Context, catalog string, w io.Writer) error {
	// The catalogue: a memory store for hints, resolution and checks.
	st := cache.NewMemory()
	f, err := os.Open(catalog)
	if err != nil {
		return err
	}
	_, err = cache.ImportJSONL(ctx, st, f)
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
	api.HandleExecute("GITHUB_CREATE_AN_ISSUE", func(ctx context.Context, c composiotest.ExecuteCall) (any, error) {
		var in struct{ Owner, Repo, Title string }
		_ = json.Unmarshal(c.Arguments, &in)
		return map[string]any{"number": 1347, "html_url": "https://github.com/" + in.Owner + "/" + in.Repo + "/issues/1347", "title": in.Title}, nil
	})
	api.HandleExecute("SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", func(ctx context.Context, c composiotest.ExecuteCall) (any, error) {
		return map[string]any{"ok": true, "channel": "C024BE91L", "ts": "1700000000.000100"}, nil
	})

	// Permissions: agent 42 may use GitHub and Slack; workspace "acme" has both connected.
	// Set-up code that may run on every start: EnsureAssignment and EnsureConnection leave
	// what is already in place as it is.
	for _, app := range []string{"github", "slack"} {
		if _, err := cache.EnsureAssignment(ctx, st, cache.Assignment{AgentID: 42, App: app, Type: "composio", Active: true}); err != nil {
			return err
		}
		if _, err := cache.EnsureConnection(ctx, st, "acme", app, cache.StatusActive, ""); err != nil {
			return err
		}
	}

	client := api.Client()
	resolver, err := registry.NewResolver(registry.ResolverConfig{Store: st, Search: client})
	if err != nil {
		return err
	}
	ex, err := executor.New(executor.Config{
		Catalog: st,
		Remote:  client,
		Access:  registry.NewAccess(registry.AccessConfig{Store: st}),
		Scope:   executor.Scope{Identity: hint.Identity{AgentID: 42, WorkspaceID: "acme"}},
	})
	if err != nil {
		return err
	}
	defer ex.Close()

	// The model: it calls both actions in one turn, then answers.
	llm := executortest.NewScriptedLLM(
		executortest.CallTools(
			executortest.Call("call_1", "GITHUB_CREATE_AN_ISSUE", `{"owner":"acme","repo":"website","title":"Checkout button does nothing on Safari","labels":"bug"}`),
			executortest.Call("call_2", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", `{"channel":"#eng","text":"Filed acme/website#1347: checkout button does nothing on Safari","threadId":"th_9"}`),
		),
		func(req executor.LLMRequest) (executor.Message, error) {
			return executor.Message{Content: fmt.Sprintf("Done: filed the issue and told #eng (%d tool results).", countTool(req.Messages))}, nil
		},
	)

	res, err := ex.RunStep(ctx, llm, executor.Step{Prompt: step, Hints: st, Resolver: resolver})
	if err != nil {
		return err
	}
	reqs := llm.Requests()
	fmt.Fprintf(w, "resolved (%s): %s\n", res.Resolution.Tier, strings.Join(res.Resolution.Actions, ", "))
	fmt.Fprintf(w, "hint strategy: %s, tool choice: %s\n", res.Hint.Strategy, reqs[0].ToolChoice)
	for _, r := range res.Results {
		fmt.Fprintf(w, "%s %s ok=%v coerced=%v stripped=%v -> %s\n", r.CallID, r.Tool, r.OK, r.Coerced, r.Stripped, r.ForModel())
	}
	fmt.Fprintf(w, "composio executions: %d\n", len(api.RequestsTo("POST", "/tools/execute/GITHUB_CREATE_AN_ISSUE"))+len(api.RequestsTo("POST", "/tools/execute/SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL")))
	fmt.Fprintf(w, "model: %s (%d turns)\n", res.Final, res.Turns)
	return nil
}

func countTool(ms []executor.Message) int {
	n := 0
	for _, m := range ms {
		if m.Role == executor.RoleTool {
			n++
		}
	}
	return n
}
