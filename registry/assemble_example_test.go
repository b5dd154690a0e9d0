package registry_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

func ExampleAssembler_AssembleContext() {
	ctx := context.Background()
	st := cache.NewMemory()
	_, _ = st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "slack", NoAuth: true}},
		Actions: []cache.Action{
			{App: "slack", Slug: "SLACK_SEND_MESSAGE", Description: "Post a message to a channel.", Parameters: json.RawMessage(`{"type":"object","properties":{"channel":{"type":"string"},"text":{"type":"string"}}}`)},
			{App: "slack", Slug: "SLACK_LIST_CHANNELS", Description: "List channels.", Parameters: json.RawMessage(`{"type":"object"}`)},
		},
	})
	_ = st.AssignApp(ctx, cache.Assignment{AgentID: 7, App: "slack", Active: true})

	// A plugin must be enabled in the workspace before an agent there is given it.
	_, _ = st.PutPlugin(ctx, cache.Plugin{Slug: "standup", Name: "Stand-up", TokenEstimate: 120,
		Skills: []cache.PluginSkill{{Name: "standup", Content: "Post yesterday, today and blockers."}}})
	_, err := st.SetAgentPlugins(ctx, "acme", 7, []string{"standup"})
	fmt.Println(err)
	_, _ = st.EnablePlugin(ctx, "acme", "standup", "admin")
	_, _ = st.SetAgentPlugins(ctx, "acme", 7, []string{"standup"})

	a, _ := registry.NewAssembler(registry.AssemblerConfig{Store: st})
	agent := registry.Agent{Identity: hint.Identity{AgentID: 7, WorkspaceID: "acme"}, Persona: registry.Persona{Name: "Ada", Text: "You are Ada, who runs the team's stand-up."}}
	full, _ := a.AssembleContext(ctx, agent)
	for _, p := range full.Parts {
		fmt.Println(p.Kind, p.Name, p.Tokens)
	}
	fmt.Println("total", full.Tokens)

	agent.Budget = 200
	fit, _ := a.AssembleContext(ctx, agent)
	fmt.Println("total", fit.Tokens, "-", fit.DroppedSummary())
	// Output:
	// cache: plugin not enabled for the workspace: plugin "standup" in workspace "acme" (agent 7)
	// persona Ada 11
	// plugin standup 120
	// action SLACK_LIST_CHANNELS 35
	// action SLACK_SEND_MESSAGE 55
	// total 221
	// total 101 - dropped 1 plugin (120 tokens) to fit the budget of 200
}
