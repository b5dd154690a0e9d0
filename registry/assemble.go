package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/schema"
)

// ErrOverBudget reports a token budget smaller than the persona, the one part that is
// never dropped.
var ErrOverBudget = errors.New("registry: context over budget")

// AssembleStore is what an Assembler reads: the permission data and catalogue of a
// Resolver, plus the agent's plugins. *cache.Memory and *cache.Postgres satisfy it.
type AssembleStore interface {
	ResolverStore
	cache.ActionLister
	AgentPlugins(ctx context.Context, agentID int64) ([]cache.PluginAssignment, error)
	Plugin(ctx context.Context, slug string) (cache.Plugin, error)
}

// AssemblerConfig configures an Assembler. It is copied by the constructor; changing it
// afterwards has no effect.
type AssemblerConfig struct {
	// Store holds the agent's assignments, plugins and the catalogue. Required.
	Store AssembleStore
	// Registry holds the platform tools offered to agents (active ones, permitted by
	// Platform). Optional: without it a context has no platform tools.
	Registry *Registry
	// Categories limit the platform tools to these categories. Optional: empty means all.
	Categories []Category
	// Platform decides platform-tool permissions. Optional: nil allows every active tool.
	Platform PlatformPermissions
	// Tokens estimates the tokens of a text. Optional. Defaults to EstimateTokens.
	Tokens func(string) int
	// MaxActions caps the app actions in a context. Optional. Defaults to
	// DefaultResolveLimit. Without a hint the first actions of the allowed apps (by app,
	// then slug) are taken; with one, the best.
	MaxActions int
	// Logger records assemblies (agent_id, tokens, dropped). Optional: nil is silent.
	Logger *slog.Logger
	// Validation and Overrides render action definitions as the executor validates them;
	// see ResolverConfig. Optional.
	Validation schema.Mode
	Overrides  schema.Overrides
}

// Assembler builds the context an agent starts with: its persona, the skills of its
// plugins and its tools, each with a token estimate, within a budget. It is safe for
// concurrent use.
type Assembler struct {
	cfg      AssemblerConfig
	access   *Access
	resolver *Resolver
	log      *slog.Logger
}

// NewAssembler returns an Assembler. It fails with ErrInvalidConfig without a store.
func NewAssembler(cfg AssemblerConfig) (*Assembler, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("%w: assembler needs a store", ErrInvalidConfig)
	}
	if cfg.Tokens == nil {
		cfg.Tokens = EstimateTokens
	}
	if cfg.MaxActions <= 0 {
		cfg.MaxActions = DefaultResolveLimit
	}
	cfg.Categories = append([]Category(nil), cfg.Categories...)
	res, err := NewResolver(ResolverConfig{Store: cfg.Store, Limit: cfg.MaxActions, Platform: cfg.Platform, Logger: cfg.Logger,
		Validation: cfg.Validation, Overrides: cfg.Overrides})
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Assembler{
		cfg:      cfg,
		access:   NewAccess(AccessConfig{Store: cfg.Store, Registry: cfg.Registry, Platform: cfg.Platform}),
		resolver: res,
		log:      log,
	}, nil
}

// EstimateTokens estimates the tokens of a text the way most tokenizers average on English
// and JSON: one token per four characters, rounded up.
func EstimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// Persona is who the agent is: its name and the text that introduces it to the model.
type Persona struct {
	Name string
	Text string
}

// Agent asks for a context. It is a plain value, safe to copy.
type Agent struct {
	// Identity says whose context it is. AgentID selects the agent's app assignments and
	// plugins and is required; WorkspaceID, when set, applies the workspace's connections
	// and enabled actions, and keeps only the plugins assigned to the agent in that
	// workspace; Apps, when set, replaces the agent's app assignments.
	hint.Identity
	// Persona is the part every context starts with; it is never dropped.
	Persona Persona
	// Hint, when set, narrows the apps' actions to those that fit it (a step's prompt,
	// say), best first. Optional.
	Hint string
	// Budget caps the context's tokens. Optional: 0 means no cap.
	Budget int
}

// PartKind says what a part of a context is.
type PartKind string

// Part kinds, in the order a context holds them (highest priority first).
const (
	PartPersona  PartKind = "persona"
	PartPlugin   PartKind = "plugin"   // one plugin's skills
	PartPlatform PartKind = "platform" // one platform tool
	PartAction   PartKind = "action"   // one app action
)

// Part is one piece of an agent's context with its token estimate.
type Part struct {
	Kind PartKind
	// Name is the persona's name, the plugin's slug, the tool's name or the action's slug.
	Name string
	// Tokens is the part's estimate: for a plugin its TokenEstimate (else its skills'
	// estimates, else the estimate of Text), for a tool that of its function definition.
	Tokens int
	// Text is the persona's text or the plugin's skills rendered for a system message.
	Text string
	// Skills are a plugin part's skills.
	Skills []cache.PluginSkill
	// Function is a tool part's definition.
	Function *schema.Function
}

// AgentContext is an assembled context. Tokens is always the sum of the Tokens of Parts.
// It belongs to the caller.
type AgentContext struct {
	// Parts are kept in priority order: the persona, the plugins by assignment priority,
	// the platform tools by name, the actions best first.
	Parts []Part
	// Tokens is the sum of the Parts' tokens.
	Tokens int
	// Budget is the budget asked for (0: none).
	Budget int
	// Dropped are the parts left out to fit the budget, lowest priority first (the order
	// they were dropped in).
	Dropped []Part
	// Apps are the apps the agent may use.
	Apps []string
	// Skipped names plugins and actions found but left out for another reason than the
	// budget (a deleted plugin, an action not allowed), with the reason.
	Skipped map[string]string
}

// System returns the text for the system message: the persona, then each plugin's skills.
func (c AgentContext) System() string {
	var b strings.Builder
	for _, p := range c.Parts {
		if p.Kind != PartPersona && p.Kind != PartPlugin || p.Text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// Functions returns the function definitions of the tool parts, in order: an agent's
// starting tools. Render them for a model API with schema.Render; for the tools of one
// turn from a hint, Resolver.HintTools is the one call.
func (c AgentContext) Functions() []schema.Function {
	var out []schema.Function
	for _, p := range c.Parts {
		if p.Function != nil {
			out = append(out, *p.Function)
		}
	}
	return out
}

// DroppedSummary says in one line what was dropped to fit the budget ("" when nothing).
func (c AgentContext) DroppedSummary() string {
	if len(c.Dropped) == 0 {
		return ""
	}
	count := map[PartKind]int{}
	tokens := 0
	for _, p := range c.Dropped {
		count[p.Kind]++
		tokens += p.Tokens
	}
	var what []string
	for _, k := range []struct {
		kind PartKind
		noun string
	}{{PartAction, "action"}, {PartPlatform, "platform tool"}, {PartPlugin, "plugin"}} {
		if n := count[k.kind]; n > 0 {
			what = append(what, fmt.Sprintf("%d %s", n, plural(k.noun, n)))
		}
	}
	return fmt.Sprintf("dropped %s (%d tokens) to fit the budget of %d", strings.Join(what, ", "), tokens, c.Budget)
}

func plural(word string, n int) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// AssembleContext builds agent's context: the persona; the skills of the plugins assigned
// to it (in the workspace, when one is given), by priority; the platform tools it may
// call; and the actions of its apps it may call (narrowed by agent.Hint when set). With a
// budget, parts are dropped until the total fits: plugins first (lowest priority first),
// then actions (least fitting first), then platform tools; the persona is never dropped,
// and a persona over the budget fails with ErrOverBudget. A plugin counts the tokens of
// the text it sends, or its stored estimate when that is more; sums saturate.
// Errors are returned for a store that fails or a cancelled context.
func (a *Assembler) AssembleContext(ctx context.Context, agent Agent) (AgentContext, error) {
	if agent.AgentID <= 0 {
		return AgentContext{}, fmt.Errorf("%w: agent id %d is not positive", ErrInvalidConfig, agent.AgentID)
	}
	if agent.Budget < 0 {
		return AgentContext{}, fmt.Errorf("%w: negative budget", ErrInvalidConfig)
	}
	out := AgentContext{Budget: agent.Budget}
	sub := agent.Identity
	skip := func(name, why string) {
		if out.Skipped == nil {
			out.Skipped = map[string]string{}
		}
		out.Skipped[name] = why
	}
	persona := Part{Kind: PartPersona, Name: agent.Persona.Name, Text: agent.Persona.Text, Tokens: a.tokens(agent.Persona.Text)}
	if agent.Budget > 0 && persona.Tokens > agent.Budget {
		return AgentContext{}, fmt.Errorf("%w: the persona alone is %d tokens, the budget %d", ErrOverBudget, persona.Tokens, agent.Budget)
	}
	out.Parts = append(out.Parts, persona)

	plugins, err := a.pluginParts(ctx, agent, skip)
	if err != nil {
		return AgentContext{}, err
	}
	out.Parts = append(out.Parts, plugins...)

	platform, err := a.platformParts(ctx, sub)
	if err != nil {
		return AgentContext{}, err
	}
	out.Parts = append(out.Parts, platform...)

	actions, apps, err := a.actionParts(ctx, sub, agent.Hint, skip)
	if err != nil {
		return AgentContext{}, err
	}
	out.Apps = apps
	out.Parts = append(out.Parts, actions...)

	for _, p := range out.Parts {
		out.Tokens = addTokens(out.Tokens, p.Tokens)
	}
	if agent.Budget > 0 && out.Tokens > agent.Budget {
		out.Parts, out.Dropped, out.Tokens = fitBudget(out.Parts, agent.Budget)
	}
	a.log.DebugContext(ctx, "registry: context assembled", "agent_id", agent.AgentID, "apps", apps,
		"parts", len(out.Parts), "tokens", out.Tokens, "budget", agent.Budget, "dropped", len(out.Dropped))
	return out, nil
}

// tokens estimates text with the host's estimator, never below zero.
func (a *Assembler) tokens(text string) int { return max(a.cfg.Tokens(text), 0) }

// addTokens adds two token counts, saturating at the largest int instead of wrapping;
// a negative count counts as zero.
func addTokens(x, y int) int {
	x, y = max(x, 0), max(y, 0)
	if x > math.MaxInt-y {
		return math.MaxInt
	}
	return x + y
}

// fitBudget drops parts until the rest fit budget: plugins first (the lowest priority
// first), then actions (the last, least fitting, first), then platform tools (last
// first); the persona stays. It returns the parts kept, in their order, the parts dropped
// in the order they were dropped, and the total kept.
func fitBudget(parts []Part, budget int) (kept, dropped []Part, total int) {
	var order []int
	for _, kind := range []PartKind{PartPlugin, PartAction, PartPlatform} {
		for i := len(parts) - 1; i >= 0; i-- {
			if parts[i].Kind == kind {
				order = append(order, i)
			}
		}
	}
	for _, p := range parts {
		total = addTokens(total, p.Tokens)
	}
	gone := make([]bool, len(parts))
	for _, i := range order {
		if total <= budget {
			break
		}
		gone[i] = true
		dropped = append(dropped, parts[i])
		total = 0 // recounted: a saturated sum cannot be taken apart
		for j, p := range parts {
			if !gone[j] {
				total = addTokens(total, p.Tokens)
			}
		}
	}
	for i, p := range parts {
		if !gone[i] {
			kept = append(kept, p)
		}
	}
	return kept, dropped, total
}

// pluginParts returns one part per plugin assigned to the agent, by priority.
func (a *Assembler) pluginParts(ctx context.Context, agent Agent, skip func(name, why string)) ([]Part, error) {
	as, err := a.cfg.Store.AgentPlugins(ctx, agent.AgentID)
	if err != nil {
		return nil, fmt.Errorf("registry: agent %d plugins: %w", agent.AgentID, err)
	}
	var out []Part
	for _, x := range as {
		if agent.WorkspaceID != "" && x.WorkspaceID != agent.WorkspaceID {
			continue
		}
		p, err := a.cfg.Store.Plugin(ctx, x.Plugin)
		if errors.Is(err, cache.ErrNotFound) {
			skip(x.Plugin, "the plugin no longer exists")
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("registry: plugin %s: %w", x.Plugin, err)
		}
		part := Part{Kind: PartPlugin, Name: p.Slug, Skills: p.Skills, Text: renderSkills(p)}
		// What is sent counts: the estimate of the rendered text, or what the store
		// claims when that is more, never less.
		skills := 0
		for _, s := range p.Skills {
			skills = addTokens(skills, s.TokenEstimate)
		}
		part.Tokens = max(a.tokens(part.Text), p.TokenEstimate, skills)
		out = append(out, part)
	}
	return out, nil
}

// renderSkills writes a plugin's skills for a system message.
func renderSkills(p cache.Plugin) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s", p.Name)
	for _, s := range p.Skills {
		fmt.Fprintf(&b, "\n\n### %s", s.Name)
		if s.Description != "" {
			fmt.Fprintf(&b, "\n%s", s.Description)
		}
		if s.Content != "" {
			fmt.Fprintf(&b, "\n%s", s.Content)
		}
	}
	return b.String()
}

// platformParts returns the platform tools sub may call, by name.
func (a *Assembler) platformParts(ctx context.Context, sub Subject) ([]Part, error) {
	if a.cfg.Registry == nil {
		return nil, nil
	}
	var out []Part
	for _, spec := range a.cfg.Registry.All(true) {
		if len(a.cfg.Categories) > 0 && !slices.Contains(a.cfg.Categories, spec.Category) {
			continue
		}
		d, err := a.access.CheckPlatform(ctx, sub, spec)
		if err != nil {
			return nil, err
		}
		if !d.Allowed {
			continue
		}
		fn, ok := a.cfg.Registry.Function(spec.Name)
		if !ok {
			continue // unregistered meanwhile
		}
		part, err := a.toolPart(PartPlatform, fn)
		if err != nil {
			return nil, err
		}
		out = append(out, part)
	}
	return out, nil
}

// toolPart makes a part of a function definition, estimating the tokens of its OpenAI
// rendering.
func (a *Assembler) toolPart(kind PartKind, fn schema.Function) (Part, error) {
	def, err := fn.OpenAI(false)
	if err != nil {
		return Part{}, fmt.Errorf("registry: rendering %s: %w", fn.Name, err)
	}
	return Part{Kind: kind, Name: fn.Name, Tokens: a.tokens(string(def)), Function: &fn}, nil
}

// actionParts returns the actions sub may call: the resolver's best for a hint, else the
// first actions of the allowed apps.
func (a *Assembler) actionParts(ctx context.Context, sub Subject, hint string, skip func(name, why string)) ([]Part, []string, error) {
	if strings.TrimSpace(hint) != "" {
		res, err := a.resolver.Resolve(ctx, sub, hint)
		if err != nil {
			return nil, nil, err
		}
		for slug, why := range res.Skipped {
			skip(slug, why)
		}
		var out []Part
		for _, fn := range res.Functions {
			part, err := a.toolPart(PartAction, fn)
			if err != nil {
				skip(fn.Name, err.Error())
				continue
			}
			out = append(out, part)
		}
		return out, res.Apps, nil
	}
	apps, err := a.access.AllowedApps(ctx, sub)
	if err != nil || len(apps) == 0 {
		return nil, apps, err
	}
	acts, err := a.cfg.Store.Actions(ctx, cache.ActionFilter{Apps: apps})
	if err != nil {
		return nil, nil, fmt.Errorf("registry: actions of %v: %w", apps, err)
	}
	var out []Part
	for _, act := range acts {
		if len(out) == a.cfg.MaxActions {
			break
		}
		d, err := a.access.checkAction(ctx, sub, act, apps)
		if err != nil {
			return nil, nil, err
		}
		if !d.Allowed {
			skip(act.Slug, d.Reason)
			continue
		}
		fn, err := a.resolver.function(act)
		if err != nil {
			skip(act.Slug, "schema: "+err.Error())
			continue
		}
		part, err := a.toolPart(PartAction, fn)
		if err != nil {
			skip(act.Slug, err.Error())
			continue
		}
		out = append(out, part)
	}
	return out, apps, nil
}
