package composio_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
)

// Example lists a toolkit's tools and executes one, against the composiotest fake.
func Example() {
	// A fake API serving two Hacker News tools; the host answers executions itself.
	srv := composiotest.New(composiotest.WithCatalog(composiotest.Catalog{
		Toolkits: []composio.Toolkit{{Slug: "hackernews", Name: "Hacker News", NoAuth: true}},
		Tools: []composio.Tool{
			{Slug: "HACKERNEWS_GET_USER", Name: "Get user", Toolkit: composio.ToolkitRef{Slug: "hackernews"},
				InputParameters: json.RawMessage(`{"type":"object","properties":{"username":{"type":"string"}},"required":["username"]}`)},
			{Slug: "HACKERNEWS_GET_TOP_STORIES", Name: "Get top stories", Toolkit: composio.ToolkitRef{Slug: "hackernews"}},
		},
	}))
	defer srv.Close()
	srv.HandleExecute("HACKERNEWS_GET_USER", func(_ context.Context, call composiotest.ExecuteCall) (any, error) {
		var args struct{ Username string }
		if err := json.Unmarshal(call.Arguments, &args); err != nil {
			return nil, err
		}
		return map[string]any{"id": args.Username, "karma": 157316}, nil
	})

	ctx := context.Background()
	client, err := composio.New(composio.Config{APIKey: srv.APIKey(), BaseURL: srv.URL})
	if err != nil {
		log.Fatal(err)
	}
	for tool, err := range client.Tools(ctx, composio.ToolFilter{Toolkits: []string{"hackernews"}}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(tool.Slug, "-", tool.Name)
	}
	res, err := client.Execute(ctx, "HACKERNEWS_GET_USER", composio.ExecuteRequest{
		UserID:    "default",
		Arguments: json.RawMessage(`{"username":"pg"}`),
	})
	if err != nil {
		log.Fatal(err) // a platform failure
	}
	fmt.Println(res.Successful, string(res.Data))
	// Output:
	// HACKERNEWS_GET_TOP_STORIES - Get top stories
	// HACKERNEWS_GET_USER - Get user
	// true {"id":"pg","karma":157316}
}

func ExampleToolkitIndex() {
	ix := composio.NewToolkitIndex([]string{"one_drive", "google", "googlesuper", "_21risk"})
	for _, slug := range []string{"ONE_DRIVE_UPLOAD_FILE", "GOOGLESUPER_SEND_EMAIL", "composio-_21risk_get_items", "SLACK_SEND_MESSAGE"} {
		tk, ok := ix.Toolkit(slug)
		fmt.Printf("%s -> %q %v\n", slug, tk, ok)
	}
	// Output:
	// ONE_DRIVE_UPLOAD_FILE -> "one_drive" true
	// GOOGLESUPER_SEND_EMAIL -> "googlesuper" true
	// composio-_21risk_get_items -> "_21risk" true
	// SLACK_SEND_MESSAGE -> "" false
}

func ExampleToolSlugFromID() {
	slug, ok := composio.ToolSlugFromID("composio-gmail_send_email")
	fmt.Println(slug, ok)
	fmt.Println(composio.ToolID("GMAIL_SEND_EMAIL"))
	// Output:
	// GMAIL_SEND_EMAIL true
	// composio-gmail_send_email
}

// ExampleClient_FindOrCreateAuthConfig connects a user to Gmail: find (or create) the
// toolkit's auth config, start the connection, and wait until the user has authorised.
func ExampleClient_FindOrCreateAuthConfig() {
	srv := composiotest.New(composiotest.WithToolkits(composio.Toolkit{
		Slug: "gmail", Name: "Gmail", AuthSchemes: []string{"OAUTH2"}, ComposioManagedAuthSchemes: []string{"OAUTH2"},
	}))
	defer srv.Close()
	ctx := context.Background()
	client, err := composio.New(composio.Config{APIKey: srv.APIKey(), BaseURL: srv.URL})
	if err != nil {
		log.Fatal(err)
	}

	ac, err := client.FindOrCreateAuthConfig(ctx, "gmail") // cached for an hour
	if err != nil {
		log.Fatal(err)
	}
	conn, err := client.InitiateConnection(ctx, composio.InitiateRequest{AuthConfigID: ac.ID, UserID: "user-42"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(conn.Status, conn.RedirectURL != "")

	srv.SetAccountStatus(conn.ID, composio.StatusActive) // the user authorises in a browser
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	acct, err := client.WaitForConnection(wctx, conn.ID, 10*time.Millisecond)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(acct.Status, acct.Toolkit.Slug, acct.UserID)
	// Output:
	// INITIATED true
	// ACTIVE gmail user-42
}

// ExampleClient_ExecuteAction runs a tool the way the executor does (executor.Remote): the
// tool's data on success, a *composio.ToolError when the tool itself failed.
func ExampleClient_ExecuteAction() {
	srv := composiotest.New(composiotest.WithCatalog(composiotest.Catalog{
		Toolkits: []composio.Toolkit{{Slug: "hackernews", Name: "Hacker News", NoAuth: true}},
		Tools:    []composio.Tool{{Slug: "HACKERNEWS_GET_USER", Name: "Get user", Toolkit: composio.ToolkitRef{Slug: "hackernews"}}},
	}))
	defer srv.Close()
	srv.HandleExecute("HACKERNEWS_GET_USER", func(_ context.Context, call composiotest.ExecuteCall) (any, error) {
		var args struct{ Username string }
		if err := json.Unmarshal(call.Arguments, &args); err != nil || args.Username == "" {
			return nil, fmt.Errorf("username is required")
		}
		return map[string]any{"id": args.Username}, nil
	})
	client := srv.Client()
	ctx := context.Background()

	data, err := client.ExecuteAction(ctx, "HACKERNEWS_GET_USER", json.RawMessage(`{"username":"pg"}`), "default", "", "")
	fmt.Println(string(data), err)
	_, err = client.ExecuteAction(ctx, "HACKERNEWS_GET_USER", nil, "default", "", "")
	var te *composio.ToolError
	fmt.Println(errors.As(err, &te), te.Tool, te.Message)
	// Output:
	// {"id":"pg"} <nil>
	// true HACKERNEWS_GET_USER username is required
}
