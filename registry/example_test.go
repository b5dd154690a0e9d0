package registry_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

func ExampleTyped() {
	type searchIn struct {
		Query string `json:"query" jsonschema:"description=What to look for"`
		Limit int    `json:"limit,omitempty"`
	}
	type searchOut struct {
		Hits []string `json:"hits"`
	}
	spec, err := registry.Typed(registry.ToolSpec{
		Name:        "search_knowledge",
		Description: "Search the knowledge base.",
		Category:    registry.CategoryResearch,
		ReadOnly:    true,
	}, func(ctx context.Context, in searchIn) (searchOut, error) {
		return searchOut{Hits: []string{"doc about " + in.Query}}, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	reg := registry.New()
	if err := reg.Register(spec); err != nil {
		fmt.Println(err)
		return
	}
	fn, _ := reg.Function("search_knowledge")
	fmt.Println(string(fn.Parameters))
	out, _ := spec.Run(context.Background(), json.RawMessage(`{"query":"refunds"}`))
	fmt.Println(string(out))
	// Output:
	// {"additionalProperties":false,"properties":{"limit":{"type":"integer"},"query":{"description":"What to look for","type":"string"}},"required":["query"],"type":"object"}
	// {"hits":["doc about refunds"]}
}

func ExampleAccess_Check() {
	ctx := context.Background()
	st := cache.NewMemory()
	_, _ = st.Apply(ctx, cache.Batch{
		Apps:    []cache.App{{Slug: "slack", DisplayName: "Slack"}},
		Actions: []cache.Action{{App: "slack", Slug: "SLACK_SEND_MESSAGE", DisplayName: "Send message", Parameters: json.RawMessage(`{"type":"object"}`)}},
	})
	_ = st.AssignApp(ctx, cache.Assignment{AgentID: 7, App: "slack", Active: true})
	_, _ = st.AddConnection(ctx, "acme", "slack")

	access := registry.NewAccess(registry.AccessConfig{Store: st})
	d, _ := access.Check(ctx, registry.Subject{AgentID: 7, WorkspaceID: "acme"}, "SLACK_SEND_MESSAGE")
	fmt.Println(d.Allowed, d.Reason)
	d, _ = access.Check(ctx, registry.Subject{AgentID: 8, WorkspaceID: "acme"}, "SLACK_SEND_MESSAGE")
	fmt.Println(d.Allowed, d.Reason)
	// Output:
	// false workspace acme connection to slack is added, not active
	// false agent 8 is not assigned app slack
}

func ExampleResolver_Resolve() {
	ctx := context.Background()
	st := cache.NewMemory()
	obj := json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}}}`)
	_, _ = st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "github", NoAuth: true}, {Slug: "jira", NoAuth: true}},
		Actions: []cache.Action{
			{App: "github", Slug: "GITHUB_CREATE_AN_ISSUE", DisplayName: "Create an issue", Description: "Create an issue in a repository.", Parameters: obj},
			{App: "github", Slug: "GITHUB_LIST_ISSUES", DisplayName: "List issues", Description: "List a repository's issues.", Parameters: obj},
			{App: "jira", Slug: "JIRA_CREATE_ISSUE", DisplayName: "Create issue", Description: "Create a Jira issue.", Parameters: obj},
		},
	})
	r, _ := registry.NewResolver(registry.ResolverConfig{Store: st})
	sub := registry.Subject{AgentID: 1, Apps: []string{"github"}}

	res, _ := r.Resolve(ctx, sub, "Call GITHUB_CREATE_AN_ISSUE and JIRA_CREATE_ISSUE.")
	fmt.Println(res.Tier, res.Actions, res.Skipped["JIRA_CREATE_ISSUE"])
	res, _ = r.Resolve(ctx, sub, "list the open issues")
	fmt.Println(res.Tier, res.Actions[0])
	// Output:
	// explicit [GITHUB_CREATE_AN_ISSUE] app jira is not among the apps allowed for this step
	// ranked GITHUB_LIST_ISSUES
}

// From a hint to tools in one call: the hint names the actions, Tools checks them against
// the subject's access and renders them for the model API the host speaks.
func ExampleResolver_Tools() {
	ctx := context.Background()
	st := cache.NewMemory()
	_, _ = st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "github", NoAuth: true}},
		Actions: []cache.Action{
			{App: "github", Slug: "GITHUB_CREATE_AN_ISSUE", DisplayName: "Create an issue", Description: "Create an issue in a repository.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`)},
			{App: "github", Slug: "GITHUB_LIST_ISSUES", DisplayName: "List issues", Description: "List a repository's issues.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"state":{"type":"string"}}}`)},
		},
	})
	_ = st.AssignApp(ctx, cache.Assignment{AgentID: 7, App: "github", Active: true})

	h, err := hint.Build(ctx, st, hint.Request{AgentID: 7, Prompt: "open an issue about the login bug"})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, _ := registry.NewResolver(registry.ResolverConfig{Store: st})
	tools, err := r.Tools(ctx, registry.Subject{AgentID: 7}, h.MatchedActions, schema.DialectAnthropic)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tools.Tier, tools.Actions)
	fmt.Println(string(tools.Definitions[0]))
	// Output:
	// given [GITHUB_CREATE_AN_ISSUE GITHUB_LIST_ISSUES]
	// {"description":"Create an issue in a repository.","input_schema":{"properties":{"title":{"type":"string"}},"required":["title"],"type":"object"},"name":"GITHUB_CREATE_AN_ISSUE"}
}
