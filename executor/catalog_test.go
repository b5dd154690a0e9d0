package executor_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/registry"
)

var catalogPath = flag.String("catalog", os.Getenv("TOOLHINT_CATALOG"), "Composio catalogue JSONL (default $TOOLHINT_CATALOG)")

// TestRealCatalog runs calls against a sample of the real catalogue's schemas: whatever the
// schema, a call gets a clear result (run, or invalid arguments), never a panic or an
// internal error, and the resolver stays within its cap.
func TestRealCatalog(t *testing.T) {
	if *catalogPath == "" {
		t.Skip("set -catalog or TOOLHINT_CATALOG to run against the shared catalogue")
	}
	ctx := context.Background()
	f, err := os.Open(*catalogPath)
	if err != nil {
		t.Fatal(err)
	}
	st := cache.NewMemory()
	n, err := cache.ImportJSONL(ctx, st, f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	acts, err := st.Actions(ctx, cache.ActionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d actions imported", n)
	ex := executor.New(executor.Config{Catalog: st, Remote: &fakeRemote{}, Confirm: func(context.Context, executor.Tool, json.RawMessage) (bool, error) { return true, nil }})
	defer ex.Close()
	step := max(1, len(acts)/1500)
	var calls []executor.Call
	for i := 0; i < len(acts); i += step {
		calls = append(calls,
			executor.Call{Name: acts[i].Slug, Arguments: json.RawMessage(`{}`)},
			executor.Call{Name: acts[i].Slug, Arguments: json.RawMessage(`{"query":123,"threadId":"t","limit":"5"}`)})
	}
	kinds := map[executor.ErrorKind]int{}
	for i, r := range ex.ExecuteBatch(ctx, calls, executor.BatchOptions{}) {
		kinds[r.ErrorKind]++
		switch r.ErrorKind {
		case "", executor.KindInvalidArguments:
		default:
			t.Errorf("%s %s: %s: %s", calls[i].Name, calls[i].Arguments, r.ErrorKind, r.Error)
		}
		if !r.OK && r.Error == "" {
			t.Errorf("%s failed without a message", calls[i].Name)
		}
	}
	t.Logf("%d calls: %v", len(calls), kinds)

	start := time.Now()
	r := ex.Execute(ctx, executor.Call{Name: "GMAIL_SEND_MAIL"})
	t.Logf("unknown name over the whole catalogue: %v, suggestions %v", time.Since(start), r.Suggestions)
	if len(r.Suggestions) == 0 || r.Suggestions[0] != "GMAIL_SEND_EMAIL" {
		t.Errorf("suggestions %v, want GMAIL_SEND_EMAIL first", r.Suggestions)
	}

	res, err := registry.NewResolver(registry.ResolverConfig{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"create a task in the project tracker", "send a message to the team", "list files in a folder"} {
		r, err := res.Resolve(ctx, registry.Subject{Apps: []string{"slack", "gmail", "github", "notion", "googledrive", "jira", "asana", "trello"}}, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Actions) > registry.DefaultResolveLimit || len(r.Functions) != len(r.Actions) {
			t.Errorf("%q: %d actions, %d functions", p, len(r.Actions), len(r.Functions))
		}
		t.Logf("%q -> %s, %d actions", p, r.Tier, len(r.Actions))
	}
}
