package composiotest_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

// TestFromStore: a fake seeded from a store in one call serves the store's catalogue and
// its workspace's connected accounts, so that an executor over the store runs actions
// through the fake without copying anything by hand.
func TestFromStore(t *testing.T) {
	ctx := context.Background()
	st := cache.NewMemory()
	for name, load := range map[string]func(context.Context, cache.ImportStore, *os.File) (int, error){
		"apps.jsonl": func(ctx context.Context, st cache.ImportStore, f *os.File) (int, error) {
			return cache.ImportAppsJSONL(ctx, st, f)
		},
		"actions.jsonl": func(ctx context.Context, st cache.ImportStore, f *os.File) (int, error) {
			return cache.ImportJSONL(ctx, st, f)
		},
	} {
		f, err := os.Open("../../testdata/catalog/" + name)
		if err != nil {
			t.Fatal(err)
		}
		_, err = load(ctx, st, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cache.EnsureConnection(ctx, st, "acme", "gmail", cache.StatusActive, "ca_gmail"); err != nil {
		t.Fatal(err)
	}
	if _, err := cache.EnsureConnection(ctx, st, "acme", "slack", cache.StatusPending, "ca_slack"); err != nil {
		t.Fatal(err)
	}
	opt, err := composiotest.FromStore(ctx, st, "acme")
	if err != nil {
		t.Fatal(err)
	}
	srv := composiotest.NewServer(t, opt)
	srv.HandleAllExecute(func(ctx context.Context, call composiotest.ExecuteCall) (any, error) {
		return map[string]string{"ran": call.Action}, nil
	})

	client := srv.Client()
	tools, err := client.ListTools(ctx, composio.ToolFilter{})
	if err != nil {
		t.Fatal(err)
	}
	acts, err := st.Actions(ctx, cache.ActionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != len(acts) || len(acts) == 0 {
		t.Errorf("the fake serves %d tools, the store holds %d actions", len(tools), len(acts))
	}
	tks, err := client.ListToolkits(ctx, composio.ToolkitFilter{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tks, func(tk composio.Toolkit) bool { return tk.Slug == "gmail" })
	if i < 0 || !slices.Contains(tks[i].AuthSchemes, "OAUTH2") || tks[i].Meta.Description == "" {
		t.Errorf("gmail toolkit without the store's auth schemes or description: %+v", tks)
	}
	var got []string
	for _, id := range []string{"ca_gmail", "ca_slack"} {
		a, ok := srv.Account(id)
		got = append(got, a.ID+" "+a.UserID+" "+a.Toolkit.Slug+" "+a.Status)
		if !ok {
			t.Errorf("no account %s", id)
		}
	}
	if diff := cmp.Diff([]string{"ca_gmail acme gmail ACTIVE", "ca_slack acme slack INITIATED"}, got); diff != "" {
		t.Errorf("accounts (-want +got):\n%s", diff)
	}

	ex, err := executor.New(executor.Config{Catalog: st, Remote: client, Access: registry.AllowAll(),
		Scope: executor.Scope{Identity: hint.Identity{WorkspaceID: "acme"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	ok := ex.Execute(ctx, executor.Call{Name: "GMAIL_FETCH_EMAILS", Arguments: json.RawMessage(`{}`)})
	if !ok.OK {
		t.Errorf("an action of the active connection failed: %s %s", ok.ErrorKind, ok.Error)
	}
	pending := ex.Execute(ctx, executor.Call{Name: "SLACK_LIST_ALL_CHANNELS", Arguments: json.RawMessage(`{}`)})
	if pending.OK {
		t.Errorf("an action of the pending connection ran: %s", pending.ForModel())
	}
}
