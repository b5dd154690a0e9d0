package adaptertest

import (
	"context"
	"encoding/json"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

// Catalogue returns a memory catalogue of two GitHub actions, GITHUB_CREATE_AN_ISSUE (owner,
// repo and title required) and GITHUB_LIST_ISSUES, assigned to agent 7 (GitHub needs no
// connection here), and an executor over it for agent 7 whose Remote answers
// {"args":<arguments>,"ran":<slug>}. The caller closes the executor. It panics if the store
// or executor.New refuses the fixture, which they cannot.
func Catalogue() (*cache.Memory, *executor.Executor) {
	ctx := context.Background()
	st := cache.NewMemory()
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	_, err := st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "github", DisplayName: "GitHub", NoAuth: true}},
		Actions: []cache.Action{
			{App: "github", Slug: "GITHUB_CREATE_AN_ISSUE", DisplayName: "Create an issue", Description: "Create an issue in a repository.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"title":{"type":"string"}},"required":["owner","repo","title"]}`)},
			{App: "github", Slug: "GITHUB_LIST_ISSUES", DisplayName: "List issues", Description: "List a repository's issues.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"}},"required":["owner","repo"]}`)},
		},
	})
	must(err)
	must(st.AssignApp(ctx, cache.Assignment{AgentID: 7, App: "github", Active: true}))
	remote := executor.RemoteFunc(func(_ context.Context, req executor.RemoteRequest) (json.RawMessage, error) {
		return json.Marshal(map[string]any{"ran": req.Action, "args": req.Arguments})
	})
	ex, err := executor.New(executor.Config{Catalog: st, Remote: remote,
		Access: registry.NewAccess(registry.AccessConfig{Store: st}), Scope: executor.Scope{Identity: hint.Identity{AgentID: 7}}})
	must(err)
	return st, ex
}
