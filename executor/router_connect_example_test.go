package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

func ExampleRouter_Plan() {
	ctx := context.Background()
	st := cache.NewMemory()
	obj := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
	_, _ = st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "gmail"}, {Slug: "slack"}},
		Actions: []cache.Action{
			{App: "gmail", Slug: "GMAIL_FETCH_EMAILS", DisplayName: "Fetch emails", Description: "Fetch the latest emails from the inbox.", Parameters: obj},
			{App: "slack", Slug: "SLACK_SEND_MESSAGE", DisplayName: "Send message", Description: "Post a message to a Slack channel.", Parameters: obj},
		},
	})
	_, _ = st.AddConnection(ctx, "acme", "gmail")
	_, _ = st.SetConnectionStatus(ctx, "acme", "gmail", cache.StatusActive, "ca_1")
	inner, err := executor.New(executor.Config{Catalog: st, Remote: unreachable, Scope: executor.Scope{Identity: hint.Identity{WorkspaceID: "acme", Apps: []string{"gmail", "slack"}}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer inner.Close()
	router, _ := executor.NewRouter(inner, executor.RouterConfig{Hints: st})

	// create_plan runs this: local, no remote call.
	plan, _ := router.Plan(ctx, "Fetch my latest emails, then post a summary of them to #general on slack")
	for _, s := range plan.Steps {
		fmt.Printf("step %d: %s (%s, %s) waits for %d, needs its result: %v\n",
			s.Step, s.Candidates[0].Slug, s.App, s.Connection, s.WaitsFor, s.NeedsResult)
	}
	fmt.Println("connect first:", plan.ConnectFirst)
	// Output:
	// step 1: GMAIL_FETCH_EMAILS (gmail, active) waits for 0, needs its result: false
	// step 2: SLACK_SEND_MESSAGE (slack, none) waits for 1, needs its result: true
	// connect first: [slack]
}

func ExampleConnectConfig() {
	ctx := context.Background()
	// A fake Composio API; with a real one, pass the *composio.Client of your API key.
	api := composiotest.New(composiotest.WithToolkits(composio.Toolkit{Slug: "slack", ComposioManagedAuthSchemes: []string{"OAUTH2"}}))
	defer api.Close()
	client := api.Client()

	st := cache.NewMemory()
	_, _ = st.Apply(ctx, cache.Batch{Apps: []cache.App{{Slug: "slack"}}})
	inner, err := executor.New(executor.Config{Catalog: st, Remote: client, Scope: executor.Scope{Identity: hint.Identity{WorkspaceID: "acme", Apps: []string{"slack"}}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer inner.Close()
	router, _ := executor.NewRouter(inner, executor.RouterConfig{Hints: st,
		Connect: executor.ConnectConfig{Connector: client, Store: st, WaitPoll: 10 * time.Millisecond}})
	reg := registry.New()
	for _, spec := range router.Tools() {
		reg.MustRegister(spec)
	}
	outer, err := executor.New(executor.Config{Registry: reg})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer outer.Close()

	r := outer.Execute(ctx, executor.Call{Name: executor.ToolManageConnections, Arguments: json.RawMessage(`{"app":"slack"}`)})
	var started struct {
		Status      string `json:"status"`
		RedirectURL string `json:"redirect_url"`
	}
	_ = json.Unmarshal(r.Data, &started)
	fmt.Println(started.Status, started.RedirectURL != "")

	// The user opens the link and authorises slack.
	conn, _ := st.Connection(ctx, "acme", "slack")
	api.SetAccountStatus(conn.ConnectedAccountID, composio.StatusActive)

	r = outer.Execute(ctx, executor.Call{Name: executor.ToolWaitForConnection, Arguments: json.RawMessage(`{"app":"slack","timeout_seconds":5}`)})
	fmt.Println(string(r.Data))
	conn, _ = st.Connection(ctx, "acme", "slack")
	fmt.Println(conn.Status)
	// Output:
	// pending true
	// {"app":"slack","status":"active"}
	// active
}
