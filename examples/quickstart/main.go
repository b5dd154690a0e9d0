// Command quickstart tours toolhint with no network and no database: it loads the project's
// test catalogue into the memory store, shows what the store holds, builds hints for a few
// prompts, turns the chosen action into a function definition, and executes a model's tool
// calls through the executor with a stand-in Composio remote (an executor.RemoteFunc).
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

func main() {
	dir := flag.String("catalog", "", "folder holding actions.jsonl and apps.jsonl (default: testdata/catalog of this repository)")
	flag.Parse()
	if *dir == "" {
		*dir = findCatalog()
	}
	if err := run(context.Background(), *dir, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// findCatalog looks for testdata/catalog in the working directory and its parents, so the
// command runs from anywhere inside the repository.
func findCatalog() string {
	wd, err := os.Getwd()
	if err != nil {
		return filepath.Join("testdata", "catalog")
	}
	for d := wd; ; d = filepath.Dir(d) {
		c := filepath.Join(d, "testdata", "catalog")
		if _, err := os.Stat(filepath.Join(c, "actions.jsonl")); err == nil {
			return c
		}
		if filepath.Dir(d) == d {
			return filepath.Join("testdata", "catalog")
		}
	}
}

const (
	agentID   = 7
	workspace = "acme"
)

func run(ctx context.Context, dir string, w io.Writer) error {
	// 1. The catalogue, in memory.
	st := cache.NewMemory()
	if err := importFile(ctx, st, filepath.Join(dir, "apps.jsonl"), cache.ImportAppsJSONL); err != nil {
		return err
	}
	if err := importFile(ctx, st, filepath.Join(dir, "actions.jsonl"), cache.ImportJSONL); err != nil {
		return err
	}
	if err := showCatalogue(ctx, st, w); err != nil {
		return err
	}

	// 2. Who may use what: the agent is assigned four apps; the workspace connected them.
	for _, app := range []string{"gmail", "slack", "github", "googlecalendar"} {
		// EnsureAssignment and EnsureConnection are idempotent: set-up code may run on
		// every start.
		if _, err := cache.EnsureAssignment(ctx, st, cache.Assignment{AgentID: agentID, App: app, Type: "composio", Active: true}); err != nil {
			return err
		}
		if _, err := cache.EnsureConnection(ctx, st, workspace, app, cache.StatusActive, "ca_"+app); err != nil {
			return err
		}
	}

	// 3. Hints: what the model is told before it answers. One identity says who the turn
	// is for; the hint requests, the access checks and the executor all take it.
	who := hint.Identity{AgentID: agentID, WorkspaceID: workspace}
	recipeStep := who.Request("Read the newest unread emails from the support inbox")
	recipeStep.RecipeMode = true
	prompts := []hint.Request{
		who.Request("send a message to #eng that the deploy is done"),
		who.Request("what's on my calendar tomorrow?"),
		who.Request("open a bug in acme/website about the broken login and email jay@acme.com about it"),
		who.Request("delete tomorrow's standup meeting"),
		recipeStep,
	}
	var first hint.Result
	for i, req := range prompts {
		res, err := hint.Build(ctx, st, req)
		if err != nil {
			return err
		}
		if i == 0 {
			first = res
		}
		mode := "chatbot"
		if req.RecipeMode {
			mode = "recipe"
		}
		fmt.Fprintf(w, "\n== hint (%s) for %q\nstrategy %s, matched %s\n", mode, req.Prompt, res.Strategy, strings.Join(res.MatchedActions, ", "))
		if i == 0 {
			fmt.Fprintln(w, "-- system message --")
			fmt.Fprintln(w, res.Text)
			fmt.Fprintln(w, "--------------------")
		}
	}
	if len(first.MatchedActions) == 0 {
		return errors.New("the first prompt matched nothing")
	}

	// 4. The chosen action as a function definition the model can call.
	slug := first.MatchedActions[0]
	action, err := st.Action(ctx, slug)
	if err != nil {
		return err
	}
	fn, err := schema.Convert(action.Slug, action.Description, action.Parameters)
	if err != nil {
		return err
	}
	def, err := fn.OpenAI(true)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n== OpenAI function definition for %s (%d bytes)\n%s\n", slug, len(def), clip(string(def), 400))

	// 5. Execute the model's tool calls. The remote stands in for Composio.
	remote := executor.RemoteFunc(func(ctx context.Context, req executor.RemoteRequest) (json.RawMessage, error) {
		return json.Marshal(map[string]any{"ok": true, "action": req.Action, "account": req.ConnectedAccountID, "args": req.Arguments})
	})
	ex, err := executor.New(executor.Config{
		Catalog: st,
		Remote:  remote,
		Access:  registry.NewAccess(registry.AccessConfig{Store: st}),
		Scope:   executor.Scope{Identity: who},
	})
	if err != nil {
		return err
	}
	defer ex.Close()
	calls := []executor.Call{
		// Runs: the runtime-context key threadId is stripped; nothing the model did not write is added.
		{ID: "call_1", Name: slug, Arguments: json.RawMessage(`{"channel":"#eng","text":"deploy is done","threadId":"th_1"}`)},
		// A hallucinated name: the model is told the closest real tools.
		{ID: "call_2", Name: "SLACK_SEND_MESAGE", Arguments: json.RawMessage(`{}`)},
		// Bad arguments: the model is told which paths fail, so it can correct itself.
		{ID: "call_3", Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"subject":"Login is broken"}`)},
		// Destructive: refused unless the host's confirmation hook allows it.
		{ID: "call_4", Name: "GOOGLECALENDAR_DELETE_EVENT", Arguments: json.RawMessage(`{"event_id":"evt_1"}`)},
	}
	results := ex.ExecuteBatch(ctx, calls, executor.BatchOptions{})
	fmt.Fprintln(w, "\n== tool results, as the model sees them")
	for _, r := range results {
		fmt.Fprintf(w, "%s %s -> %s\n", r.CallID, r.Tool, clip(r.ForModel(), 220))
	}
	return nil
}

func importFile(ctx context.Context, st cache.Store, path string, imp func(context.Context, cache.ImportStore, io.Reader) (int, error)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := imp(ctx, st, f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func showCatalogue(ctx context.Context, st cache.Store, w io.Writer) error {
	page, err := st.ListApps(ctx, cache.AppQuery{})
	if err != nil {
		return err
	}
	metas, err := st.ActionMeta(ctx, nil)
	if err != nil {
		return err
	}
	destructive := map[string]int{}
	for _, m := range metas {
		if m.Destructive {
			destructive[m.App]++
		}
	}
	fmt.Fprintf(w, "== catalogue: %d apps, %d actions\n", page.Total, len(metas))
	for _, a := range page.Apps {
		fmt.Fprintf(w, "%-15s %2d actions (%d destructive)  %s\n", a.Slug, a.ActionCount, destructive[a.Slug], clip(a.Description, 60))
	}
	for _, slug := range []string{"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "SLACK_CREATE_CHANNEL_BASED_CONVERSATION"} {
		for _, m := range metas {
			if m.Action == slug {
				fmt.Fprintf(w, "%s: capabilities %v, destructive %v\n", slug, m.Capabilities, m.Destructive)
			}
		}
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
