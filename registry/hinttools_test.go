package registry_test

import (
	"context"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// testCatalog loads the project's catalogue (testdata/catalog, 8 apps) into a memory store
// and assigns every app to agent 1.
func testCatalog(t *testing.T) (*cache.Memory, []string) {
	t.Helper()
	ctx := context.Background()
	st := cache.NewMemory()
	for _, f := range []struct {
		name string
		load func(context.Context, cache.Store, *os.File) error
	}{
		{"apps.jsonl", func(ctx context.Context, st cache.Store, f *os.File) error {
			_, err := cache.ImportAppsJSONL(ctx, st, f)
			return err
		}},
		{"actions.jsonl", func(ctx context.Context, st cache.Store, f *os.File) error {
			_, err := cache.ImportJSONL(ctx, st, f)
			return err
		}},
	} {
		file, err := os.Open("../testdata/catalog/" + f.name)
		if err != nil {
			t.Fatal(err)
		}
		err = f.load(ctx, st, file)
		file.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	page, err := st.ListApps(ctx, cache.AppQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var apps []string
	for _, a := range page.Apps {
		apps = append(apps, a.Slug)
		if err := st.AssignApp(ctx, cache.Assignment{AgentID: 1, App: a.Slug, Active: true}); err != nil {
			t.Fatal(err)
		}
	}
	return st, apps
}

// metaTools are the names of every tool that is not an action a hint could name.
var metaTools = []string{"search_tools", "get_tool_schemas", "execute_tool", "batch_execute_tools", "create_plan", "manage_connections", "wait_for_connection"}

var slugInText = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)

// namedTools returns the tools a hint's text names: action slugs and meta-tools.
func namedTools(text string) []string {
	names := slugInText.FindAllString(text, -1)
	for _, m := range metaTools {
		if strings.Contains(text, m) {
			names = append(names, m)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// TestHintToolsAgree: in every strategy, whether the host offers search_tools or not, every
// tool a hint's text names is among the tools HintTools gives the model.
func TestHintToolsAgree(t *testing.T) {
	st, _ := testCatalog(t)
	ctx := context.Background()
	reg := registry.New()
	reg.MustRegister(registry.ToolSpec{Name: hint.SearchTool, Category: registry.CategoryRouter, Run: nop})
	prompts := []struct {
		prompt string
		recipe bool
	}{
		{prompt: "send a message to #general on slack saying hi"},
		{prompt: "create an issue"},
		{prompt: "post in slack"},
		{prompt: "fetch top stories"},
		{prompt: "zxqv plorb"},
		{prompt: "star the repository", recipe: true},
		{prompt: "zxqv plorb", recipe: true},
	}
	seen := map[hint.Strategy]bool{}
	for _, offered := range []bool{false, true} {
		cfg := hint.Config{}
		rcfg := registry.ResolverConfig{Store: st}
		if offered {
			cfg.SearchTool = hint.SearchTool
			rcfg.Registry = reg
		}
		b := hint.New(cfg)
		r, err := registry.NewResolver(rcfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range prompts {
			name := p.prompt
			if p.recipe {
				name += " (recipe)"
			}
			if offered {
				name += " with search"
			}
			t.Run(name, func(t *testing.T) {
				req := hint.Request{AgentID: 1, Prompt: p.prompt, RecipeMode: p.recipe}
				h, err := b.Build(ctx, st, req)
				if err != nil {
					t.Fatal(err)
				}
				seen[h.Strategy] = true
				tools, err := r.HintTools(ctx, registry.Subject{AgentID: 1}, h, schema.DialectOpenAI)
				if err != nil {
					t.Fatal(err)
				}
				given := append(slices.Clone(tools.Actions), tools.Platform...)
				for _, n := range namedTools(h.Text) {
					if !slices.Contains(given, n) {
						t.Errorf("the hint (%s) names %s, which the model is not given %v:\n%s", h.Strategy, n, given, h.Text)
					}
				}
				if len(tools.Definitions) != len(given) {
					t.Errorf("%d definitions for %d tools", len(tools.Definitions), len(given))
				}
				var wantMeta []string
				if offered && !h.Confident && h.Strategy != hint.StrategyNone {
					wantMeta = []string{hint.SearchTool}
				}
				if diff := cmp.Diff(wantMeta, h.MetaTools); diff != "" {
					t.Errorf("MetaTools (%s, confident %v) (-want +got):\n%s", h.Strategy, h.Confident, diff)
				}
				if diff := cmp.Diff(wantMeta, tools.Platform); diff != "" {
					t.Errorf("meta-tools given (-want +got):\n%s", diff)
				}
			})
		}
	}
	for _, s := range []hint.Strategy{hint.StrategyCapability, hint.StrategyTokenFiltered, hint.StrategyRecipeToken, hint.StrategyFallback, hint.StrategyNone} {
		if !seen[s] {
			t.Errorf("no prompt gave strategy %s: the agreement is not checked for it; change the prompts", s)
		}
	}
}

// TestHintToolsRefusesUnofferedMetaTool: a hint that names a meta-tool the resolver cannot
// offer is an error, not a model told of a tool it lacks.
func TestHintToolsRefusesUnofferedMetaTool(t *testing.T) {
	st, _ := testCatalog(t)
	ctx := context.Background()
	inactive := registry.New()
	inactive.MustRegister(registry.ToolSpec{Name: hint.SearchTool, Run: nop, Inactive: true})
	h, err := hint.New(hint.Config{SearchTool: hint.SearchTool}).Build(ctx, st, hint.Request{AgentID: 1, Prompt: "create an issue"})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.MetaTools) == 0 {
		t.Fatalf("the hint names no meta-tool (confident %v): the test needs one that does", h.Confident)
	}
	for name, reg := range map[string]*registry.Registry{"no registry": nil, "empty registry": registry.New(), "inactive": inactive} {
		t.Run(name, func(t *testing.T) {
			r, err := registry.NewResolver(registry.ResolverConfig{Store: st, Registry: reg})
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.HintTools(ctx, registry.Subject{AgentID: 1}, h, schema.DialectOpenAI)
			if !errors.Is(err, registry.ErrInvalidConfig) || !strings.Contains(err.Error(), hint.SearchTool) {
				t.Errorf("err = %v, want ErrInvalidConfig naming %s", err, hint.SearchTool)
			}
		})
	}
}
