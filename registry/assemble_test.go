package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

// assembleStore fills st with two no-auth apps (gmail, slack) and their actions, assigns
// both to agent 7, and gives agent 7 two plugins in workspace ws1: notes (no estimate of
// its own: its skills' estimates count) first, then code-review (400 tokens).
func assembleStore(t testing.TB, st cache.Store) {
	t.Helper()
	ctx := context.Background()
	obj := json.RawMessage(`{"type":"object","properties":{"to":{"type":"string","description":"Who receives it."},"text":{"type":"string"}},"required":["to"]}`)
	if _, err := st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "gmail", DisplayName: "Gmail", NoAuth: true}, {Slug: "slack", DisplayName: "Slack", NoAuth: true}},
		Actions: []cache.Action{
			{App: "gmail", Slug: "GMAIL_FETCH_EMAILS", DisplayName: "Fetch emails", Description: "List recent emails.", Parameters: obj},
			{App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email", Description: "Send an email.", Parameters: obj},
			{App: "slack", Slug: "SLACK_LIST_CHANNELS", DisplayName: "List channels", Description: "List channels.", Parameters: obj},
			{App: "slack", Slug: "SLACK_SEND_MESSAGE", DisplayName: "Send message", Description: "Post a message to a Slack channel.", Parameters: obj},
		},
	}); err != nil {
		t.Fatal(err)
	}
	for _, app := range []string{"gmail", "slack"} {
		if err := st.AssignApp(ctx, cache.Assignment{AgentID: 7, App: app, Active: true}); err != nil {
			t.Fatal(err)
		}
	}
	ps := st.(cache.PluginStore)
	for _, p := range []cache.Plugin{
		{Slug: "code-review", Name: "Code review", TokenEstimate: 400,
			Skills: []cache.PluginSkill{{Name: "review", Content: "Read the whole diff before commenting."}}},
		{Slug: "notes", Name: "Meeting notes",
			Skills: []cache.PluginSkill{{Name: "summarise", Content: "Five bullets.", TokenEstimate: 60}, {Name: "actions", Content: "List owners.", TokenEstimate: 40}}},
	} {
		if _, err := ps.PutPlugin(ctx, p); err != nil {
			t.Fatal(err)
		}
		if _, err := ps.EnablePlugin(ctx, "ws1", p.Slug, "admin"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ps.SetAgentPlugins(ctx, "ws1", 7, []string{"notes", "code-review"}); err != nil {
		t.Fatal(err)
	}
}

func assembleRegistry(t testing.TB) *registry.Registry {
	t.Helper()
	reg := registry.New()
	for _, name := range []string{"search_knowledge", "read_file"} {
		reg.MustRegister(registry.ToolSpec{Name: name, Description: "A platform tool.", ReadOnly: true,
			Run: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }})
	}
	return reg
}

type partView struct {
	Kind   registry.PartKind
	Name   string
	Tokens int
}

func views(ps []registry.Part) []partView {
	out := []partView{}
	for _, p := range ps {
		out = append(out, partView{p.Kind, p.Name, p.Tokens})
	}
	return out
}

func sumTokens(ps []registry.Part) int {
	n := 0
	for _, p := range ps {
		n += p.Tokens
	}
	return n
}

// persona is 40 characters: 10 tokens.
var persona = registry.Persona{Name: "Ada", Text: "You are Ada, the team's careful helper.."}

func TestAssembleContext(t *testing.T) {
	for kind, newStore := range storeKinds(t) {
		t.Run(kind, func(t *testing.T) {
			st := newStore(t)
			assembleStore(t, st)
			a, err := registry.NewAssembler(registry.AssemblerConfig{Store: st.(registry.AssembleStore), Registry: assembleRegistry(t)})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			full, err := a.AssembleContext(ctx, registry.Agent{Identity: hint.Identity{AgentID: 7, WorkspaceID: "ws1"}, Persona: persona})
			if err != nil {
				t.Fatal(err)
			}
			type head struct {
				Kind registry.PartKind
				Name string
			}
			var got []head
			for _, p := range full.Parts {
				got = append(got, head{p.Kind, p.Name})
				if p.Tokens <= 0 {
					t.Errorf("part %s %s has %d tokens", p.Kind, p.Name, p.Tokens)
				}
			}
			want := []head{
				{registry.PartPersona, "Ada"},
				{registry.PartPlugin, "notes"}, {registry.PartPlugin, "code-review"},
				{registry.PartPlatform, "read_file"}, {registry.PartPlatform, "search_knowledge"},
				{registry.PartAction, "GMAIL_FETCH_EMAILS"}, {registry.PartAction, "GMAIL_SEND_EMAIL"},
				{registry.PartAction, "SLACK_LIST_CHANNELS"}, {registry.PartAction, "SLACK_SEND_MESSAGE"},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("parts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]partView{{registry.PartPersona, "Ada", 10}, {registry.PartPlugin, "notes", 100}, {registry.PartPlugin, "code-review", 400}},
				views(full.Parts[:3])); diff != "" {
				t.Errorf("persona and plugin tokens (-want +got):\n%s", diff)
			}
			if full.Tokens != sumTokens(full.Parts) {
				t.Errorf("Tokens = %d, sum of parts = %d", full.Tokens, sumTokens(full.Parts))
			}
			if len(full.Dropped) != 0 || full.DroppedSummary() != "" {
				t.Errorf("dropped without a budget: %v", views(full.Dropped))
			}
			if !strings.HasPrefix(full.System(), persona.Text+"\n\n## Meeting notes\n\n### summarise\nFive bullets.") ||
				!strings.Contains(full.System(), "## Code review\n\n### review\nRead the whole diff") {
				t.Errorf("System() =\n%s", full.System())
			}
			if n := len(full.Functions()); n != 6 {
				t.Errorf("Functions() has %d definitions, want 6", n)
			}

			// Plugins go first (lowest priority first), then actions (last first), then
			// platform tools: a large plugin does not take the tools with it.
			order := []int{2, 1, 8, 7, 6, 5, 4, 3}
			pluginTokens := sumTokens(full.Parts[1:3])
			toolTokens := sumTokens(full.Parts[3:])
			budgets := []struct {
				name    string
				budget  int
				dropped int // parts dropped, in order
			}{
				{"exactly the total", full.Tokens, 0},
				{"one short drops the lowest plugin", full.Tokens - 1, 1},
				{"without both plugins", full.Tokens - pluginTokens, 2},
				{"one short of that drops the last action", full.Tokens - pluginTokens - 1, 3},
				{"persona only", 10, 8},
			}
			for _, b := range budgets {
				t.Run(b.name, func(t *testing.T) {
					got, err := a.AssembleContext(ctx, registry.Agent{Identity: hint.Identity{AgentID: 7, WorkspaceID: "ws1"}, Persona: persona, Budget: b.budget})
					if err != nil {
						t.Fatal(err)
					}
					if got.Tokens > b.budget {
						t.Errorf("Tokens = %d over the budget %d", got.Tokens, b.budget)
					}
					if got.Tokens != sumTokens(got.Parts) {
						t.Errorf("Tokens = %d, sum of parts = %d", got.Tokens, sumTokens(got.Parts))
					}
					wantDropped := []partView{}
					gone := map[int]bool{}
					for _, i := range order[:b.dropped] {
						wantDropped = append(wantDropped, views(full.Parts[i:i+1])...)
						gone[i] = true
					}
					wantKept := []partView{}
					for i := range full.Parts {
						if !gone[i] {
							wantKept = append(wantKept, views(full.Parts[i:i+1])...)
						}
					}
					if diff := cmp.Diff(wantKept, views(got.Parts)); diff != "" {
						t.Errorf("kept (-want +got):\n%s", diff)
					}
					if diff := cmp.Diff(wantDropped, views(got.Dropped)); diff != "" {
						t.Errorf("dropped (-want +got):\n%s", diff)
					}
					if got.Tokens+sumTokens(got.Dropped) != full.Tokens {
						t.Errorf("kept %d + dropped %d != full %d", got.Tokens, sumTokens(got.Dropped), full.Tokens)
					}
				})
			}
			small, _ := a.AssembleContext(ctx, registry.Agent{Identity: hint.Identity{AgentID: 7, WorkspaceID: "ws1"}, Persona: persona, Budget: 10})
			wantSummary := fmt.Sprintf("dropped 4 actions, 2 platform tools, 2 plugins (%d tokens) to fit the budget of 10", toolTokens+pluginTokens)
			if diff := cmp.Diff(wantSummary, small.DroppedSummary()); diff != "" {
				t.Errorf("DroppedSummary (-want +got):\n%s", diff)
			}
			if _, err := a.AssembleContext(ctx, registry.Agent{Identity: hint.Identity{AgentID: 7}, Persona: persona, Budget: 9}); !errors.Is(err, registry.ErrOverBudget) {
				t.Errorf("persona over the budget: %v, want ErrOverBudget", err)
			}
		})
	}
}

func TestAssembleContextNarrowing(t *testing.T) {
	for kind, newStore := range storeKinds(t) {
		t.Run(kind, func(t *testing.T) {
			st := newStore(t)
			assembleStore(t, st)
			a, err := registry.NewAssembler(registry.AssemblerConfig{Store: st.(registry.AssembleStore), MaxActions: 3})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			names := func(c registry.AgentContext) []string {
				var out []string
				for _, p := range c.Parts {
					out = append(out, string(p.Kind)+":"+p.Name)
				}
				return out
			}
			tests := []struct {
				name  string
				agent registry.Agent
				want  []string
			}{
				{"a hint narrows the actions", registry.Agent{Identity: hint.Identity{AgentID: 7, WorkspaceID: "ws1"}, Persona: persona, Hint: "post a message to the slack channel"},
					// The hint is sure of the action that fits the named app's verb: it lists that one alone.
					[]string{"persona:Ada", "plugin:notes", "plugin:code-review", "action:SLACK_SEND_MESSAGE"}},
				{"MaxActions caps the actions", registry.Agent{Identity: hint.Identity{AgentID: 7, WorkspaceID: "ws1"}, Persona: persona},
					[]string{"persona:Ada", "plugin:notes", "plugin:code-review", "action:GMAIL_FETCH_EMAILS", "action:GMAIL_SEND_EMAIL", "action:SLACK_LIST_CHANNELS"}},
				{"another workspace's plugins are left out", registry.Agent{Identity: hint.Identity{AgentID: 7, WorkspaceID: "ws2", Apps: []string{"slack"}}, Persona: persona},
					[]string{"persona:Ada", "action:SLACK_LIST_CHANNELS", "action:SLACK_SEND_MESSAGE"}},
				{"an agent without plugins or apps", registry.Agent{Identity: hint.Identity{AgentID: 8}, Persona: persona}, []string{"persona:Ada"}},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					got, err := a.AssembleContext(ctx, tt.agent)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(tt.want, names(got)); diff != "" {
						t.Errorf("parts (-want +got):\n%s", diff)
					}
					if got.Tokens != sumTokens(got.Parts) {
						t.Errorf("Tokens = %d, sum of parts = %d", got.Tokens, sumTokens(got.Parts))
					}
				})
			}
			if _, err := registry.NewAssembler(registry.AssemblerConfig{}); !errors.Is(err, registry.ErrInvalidConfig) {
				t.Errorf("NewAssembler without a store: %v", err)
			}
			if _, err := a.AssembleContext(ctx, registry.Agent{}); !errors.Is(err, registry.ErrInvalidConfig) {
				t.Errorf("AssembleContext without an agent: %v", err)
			}
		})
	}
}

func BenchmarkAssembleContext(b *testing.B) {
	st := cache.NewMemory()
	assembleStore(b, st)
	a, err := registry.NewAssembler(registry.AssemblerConfig{Store: st, Registry: assembleRegistry(b)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	agent := registry.Agent{Identity: hint.Identity{AgentID: 7, WorkspaceID: "ws1"}, Persona: persona, Budget: 600}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.AssembleContext(ctx, agent); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAssembleContextHostileEstimates gives the assembler estimates that lie: a plugin
// that claims 1 token and sends 256 KB, and an estimator whose numbers overflow a sum.
func TestAssembleContextHostileEstimates(t *testing.T) {
	ctx := context.Background()
	persona := registry.Persona{Name: "Ada", Text: "You are Ada."}
	agent := registry.Agent{Identity: hint.Identity{AgentID: 7, WorkspaceID: "ws1"}, Persona: persona, Budget: 4000}
	t.Run("understated plugin", func(t *testing.T) {
		st := cache.NewMemory()
		assembleStore(t, st)
		var skills []cache.PluginSkill
		for i := range 4 {
			skills = append(skills, cache.PluginSkill{Name: fmt.Sprint("s", i), Content: strings.Repeat("word ", 13_000), TokenEstimate: 0})
		}
		if _, err := st.PutPlugin(ctx, cache.Plugin{Slug: "notes", Name: "Meeting notes", TokenEstimate: 1, Skills: skills}); err != nil {
			t.Fatal(err)
		}
		a, err := registry.NewAssembler(registry.AssemblerConfig{Store: st, Registry: assembleRegistry(t)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.AssembleContext(ctx, agent)
		if err != nil {
			t.Fatal(err)
		}
		if got.Tokens > agent.Budget || len(got.System()) > 4*agent.Budget {
			t.Errorf("Tokens = %d, system message %d bytes, against a budget of %d", got.Tokens, len(got.System()), agent.Budget)
		}
		var dropped []string
		for _, p := range got.Dropped {
			dropped = append(dropped, p.Name)
		}
		if diff := cmp.Diff([]string{"code-review", "notes"}, dropped); diff != "" {
			t.Errorf("dropped (-want +got):\n%s", diff)
		}
		if n := len(got.Functions()); n != 6 {
			t.Errorf("%d tools kept, want all 6", n)
		}
	})
	t.Run("overflowing estimates", func(t *testing.T) {
		st := cache.NewMemory()
		assembleStore(t, st)
		huge := func(text string) int {
			if strings.HasPrefix(text, "## ") { // a plugin's rendered skills
				return math.MaxInt - 5
			}
			return registry.EstimateTokens(text)
		}
		a, err := registry.NewAssembler(registry.AssemblerConfig{Store: st, Registry: assembleRegistry(t), Tokens: huge})
		if err != nil {
			t.Fatal(err)
		}
		full, err := a.AssembleContext(ctx, registry.Agent{Identity: agent.Identity, Persona: persona})
		if err != nil {
			t.Fatal(err)
		}
		if full.Tokens != math.MaxInt {
			t.Errorf("unbudgeted Tokens = %d, want saturated at MaxInt", full.Tokens)
		}
		got, err := a.AssembleContext(ctx, agent)
		if err != nil {
			t.Fatal(err)
		}
		if got.Tokens < 0 || got.Tokens > agent.Budget {
			t.Errorf("Tokens = %d against a budget of %d", got.Tokens, agent.Budget)
		}
		if diff := cmp.Diff(views(full.Parts[3:]), views(got.Parts[1:])); diff != "" {
			t.Errorf("the tools did not stay (-want +got):\n%s", diff)
		}
	})
}
