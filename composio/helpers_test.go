package composio_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
)

// fixture is a small catalogue written for these tests.
func fixture() composiotest.Catalog {
	params := json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"}},"required":["to"]}`)
	return composiotest.Catalog{
		Toolkits: []composio.Toolkit{
			{Slug: "gmail", Name: "Gmail", AuthSchemes: []string{"OAUTH2", "BEARER_TOKEN"}, ComposioManagedAuthSchemes: []string{"OAUTH2"},
				Meta: composio.ToolkitMeta{Description: "Email by Google", Categories: []composio.Category{{ID: "communication", Name: "communication"}}}},
			{Slug: "github", Name: "GitHub", AuthSchemes: []string{"OAUTH2"}, ComposioManagedAuthSchemes: []string{"OAUTH2"},
				Meta: composio.ToolkitMeta{Description: "Code hosting", Categories: []composio.Category{{ID: "developer-tools", Name: "developer tools"}}}},
			{Slug: "hackernews", Name: "Hacker News", AuthSchemes: []string{"NO_AUTH"}, NoAuth: true},
			{Slug: "ably", Name: "Ably", AuthSchemes: []string{"API_KEY"}},
		},
		Tools: []composio.Tool{
			{Slug: "GMAIL_SEND_EMAIL", Name: "Send email", Description: "Send an email message", Toolkit: composio.ToolkitRef{Slug: "gmail"}, InputParameters: params, Tags: []string{"important", "openWorldHint"}},
			{Slug: "GMAIL_FETCH_EMAILS", Name: "Fetch emails", Description: "List emails in the inbox", Toolkit: composio.ToolkitRef{Slug: "gmail"}, Tags: []string{"readOnlyHint"}},
			{Slug: "GMAIL_OLD_SEND", Name: "Old send", Description: "Deprecated email sender", Toolkit: composio.ToolkitRef{Slug: "gmail"}, IsDeprecated: true},
			{Slug: "GITHUB_CREATE_ISSUE", Name: "Create issue", Description: "Create an issue in a repository", Toolkit: composio.ToolkitRef{Slug: "github"}, Tags: []string{"important"}},
			{Slug: "HACKERNEWS_GET_USER", Name: "Get user", Description: "Get a Hacker News user", Toolkit: composio.ToolkitRef{Slug: "hackernews"}, NoAuth: true, Tags: []string{"readOnlyHint"}},
			{Slug: "ABLY_PUBLISH", Name: "Publish", Description: "Publish a message to a channel", Toolkit: composio.ToolkitRef{Slug: "ably"}},
		},
	}
}

// manyTools returns n tools of one toolkit, in slug order.
func manyTools(n int) []composio.Tool {
	out := make([]composio.Tool, n)
	for i := range out {
		out[i] = composio.Tool{Slug: fmt.Sprintf("BULK_TOOL_%04d", i), Name: fmt.Sprintf("Tool %d", i),
			Toolkit: composio.ToolkitRef{Slug: "bulk"}, InputParameters: json.RawMessage(`{"type":"object","properties":{}}`)}
	}
	return out
}

// newClient starts a fake with the fixture and returns it with a client; edit may change
// the client's config.
func newClient(t *testing.T, edit func(*composio.Config), opts ...composiotest.Option) (*composiotest.Server, *composio.Client) {
	t.Helper()
	srv := composiotest.NewServer(t, append([]composiotest.Option{composiotest.WithCatalog(fixture())}, opts...)...)
	cfg := srv.Config()
	if edit != nil {
		edit(&cfg)
	}
	c, err := composio.New(cfg)
	if err != nil {
		t.Fatalf("composio.New: %v", err)
	}
	return srv, c
}

func slugs(tools []composio.Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Slug
	}
	return out
}
