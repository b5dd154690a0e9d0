package registry

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"runtime/debug"
	"slices"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/schema"
)

// DefaultResolveLimit caps the actions a Resolver returns.
const DefaultResolveLimit = 30

// Tier says which tier of the resolver produced the actions.
type Tier string

// Resolver tiers.
const (
	TierExplicit Tier = "explicit" // action slugs written in the prompt
	TierSemantic Tier = "semantic" // the semantic search
	TierRanked   Tier = "ranked"   // the catalogue ranked by package hint
	TierGiven    Tier = "given"    // slugs the host gave (Functions, Tools), such as a hint's
	TierNone     Tier = "none"     // nothing the agent may call fits
)

// ResolverStore is what the resolver reads. *cache.Memory and *cache.Postgres satisfy it.
type ResolverStore interface {
	AccessStore
	hint.Store
}

// SemanticSearch finds actions for a natural-language query among the given apps, best
// first: Composio's tool-router search, or a host's own embedder. Implementations must be
// safe for concurrent use.
type SemanticSearch interface {
	SearchActions(ctx context.Context, query string, apps []string, limit int) ([]string, error)
}

// Ranker ranks the catalogue actions of apps against a prompt, best first (tier 3).
// Implementations must be safe for concurrent use.
type Ranker interface {
	Rank(ctx context.Context, prompt string, apps []string, limit int) ([]string, error)
}

// RankerFunc adapts a function to Ranker.
type RankerFunc func(ctx context.Context, prompt string, apps []string, limit int) ([]string, error)

// Rank calls f.
func (f RankerFunc) Rank(ctx context.Context, prompt string, apps []string, limit int) ([]string, error) {
	return f(ctx, prompt, apps, limit)
}

// ResolverConfig configures a Resolver. It is copied by the constructor; changing it afterwards has no effect.
type ResolverConfig struct {
	// Store is the catalogue and the permission data. Required.
	Store ResolverStore
	// Search is tier 2. Optional: without it the resolver goes from tier 1 to tier 3.
	Search SemanticSearch
	// Ranker is tier 3. Optional. Defaults to ranking by package hint.
	Ranker Ranker
	// Limit caps the actions returned. Optional. Defaults to DefaultResolveLimit.
	Limit int
	// Platform decides platform-tool permissions for the access checks. Optional.
	Platform PlatformPermissions
	// Logger records tier failures (a failing tier is skipped, not fatal). Optional: nil is
	// silent.
	Logger *slog.Logger
	// Validation is the mode the executor validates arguments in; definitions are rendered
	// to match it (schema.ConvertOptions.Mode): normalised required lists in
	// schema.Lenient and schema.Off, the declared ones in schema.Strict. Optional. Defaults
	// to schema.Lenient, as executor.Config.Validation does.
	Validation schema.Mode
	// Overrides are the host's changes to action schemas, by slug, applied before a
	// definition is rendered. Give the executor the same map (executor.Config.Overrides).
	// Optional.
	Overrides schema.Overrides
	// Observer sees every Resolve, Functions and Tools call, for metrics or tracing.
	// Optional. Nil means none.
	Observer ResolveObserver
	// Registry holds the platform tools Functions, Tools and HintTools may be given by
	// name beside actions: the router's meta-tools (executor.Router.Tools) that a hint
	// points the model at (hint.Result.MetaTools). Each is access-checked as the executor
	// checks it (Platform). Optional: without it every name is looked up in the catalogue.
	Registry *Registry
}

// ResolveRequest is what a Resolver was asked, as a ResolveObserver sees it.
type ResolveRequest struct {
	// Subject is who the actions are for.
	Subject Subject
	// Prompt is Resolve's prompt; empty for Functions and Tools.
	Prompt string
	// Slugs are the actions given to Functions or Tools; nil for Resolve.
	Slugs []string
}

// ResolveObserver receives every Resolve, Functions and Tools call, for metrics or tracing,
// without a tracing dependency in the library. ResolveStart may return a derived context
// (carrying a span) that the call runs under (nil keeps ctx); ResolveEnd gets that context,
// the Resolution and error returned (Tier, len(Actions), len(Skipped) say what was found)
// and the time it took. res belongs to the caller: an observer must not modify it. Both
// must be safe for concurrent use and fast: they run on the caller's goroutine. A panic in
// either is logged (ResolverConfig.Logger) and does not affect the call.
type ResolveObserver interface {
	ResolveStart(ctx context.Context, req ResolveRequest) context.Context
	ResolveEnd(ctx context.Context, req ResolveRequest, res Resolution, err error, elapsed time.Duration)
}

// Resolver turns a step's prompt into the function definitions of the actions the agent may
// call. It is safe for concurrent use.
type Resolver struct {
	cfg    ResolverConfig
	access *Access
	log    *slog.Logger
}

// NewResolver returns a Resolver. It fails when cfg.Store is nil.
func NewResolver(cfg ResolverConfig) (*Resolver, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("%w: resolver needs a store", ErrInvalidConfig)
	}
	if cfg.Limit <= 0 {
		cfg.Limit = DefaultResolveLimit
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Ranker == nil {
		cfg.Ranker = newHintRanker(cfg.Store, cfg.Limit, cfg.Logger)
	}
	cfg.Overrides = maps.Clone(cfg.Overrides)
	return &Resolver{cfg: cfg, access: NewAccess(AccessConfig{Store: cfg.Store, Registry: cfg.Registry, Platform: cfg.Platform}), log: log}, nil
}

// Resolution is what Resolve found. It belongs to the caller.
type Resolution struct {
	// Functions are the function definitions, in the order of Actions.
	Functions []schema.Function
	// Actions are the action slugs, best first.
	Actions []string
	// Tier is the tier that produced them.
	Tier Tier
	// Apps are the apps the subject may use.
	Apps []string
	// Skipped names actions found but left out, with the reason (not allowed, bad schema).
	Skipped map[string]string
	// Platform are the platform tools kept among the names given to Functions, Tools or
	// HintTools (ResolverConfig.Registry), in the order given. Their definitions follow
	// the actions' in Functions; they do not count against the limit.
	Platform []string
}

var slugRE = regexp.MustCompile(`\b_?[A-Z0-9]*[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)

// ExplicitSlugs returns the upper-case action-like slugs written in a prompt, in order of
// first appearance, without duplicates.
func ExplicitSlugs(prompt string) []string {
	var out []string
	for _, m := range slugRE.FindAllString(prompt, 64) {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// function renders the definition of act in the configured mode, with the host's override
// and without the parameters the host fills.
func (r *Resolver) function(act cache.Action) (schema.Function, error) {
	return schema.Convert(act.Slug, act.Description, act.Parameters, schema.ConvertOptions{
		Mode: r.cfg.Validation, Overrides: r.cfg.Overrides, Hidden: HostFilledParams(act.App)})
}

// Resolve returns the actions sub may call for prompt, at most the configured limit. Tier 1
// keeps the slugs written in the prompt that sub may call; when it finds none, tier 2 asks
// the semantic search; when that finds none (or fails, which is logged), tier 3 ranks the
// catalogue. Every returned action passed the same access check the executor applies, and
// its definition is rendered as the executor validates (Validation, Overrides) and leaves
// out the parameters the host fills (HostFilledParams).
// Errors are returned only for a cancelled context or a store failure while reading the
// subject's apps. ResolverConfig.Observer, when set, sees the call.
func (r *Resolver) Resolve(ctx context.Context, sub Subject, prompt string) (Resolution, error) {
	return r.observe(ctx, ResolveRequest{Subject: sub, Prompt: prompt}, func(ctx context.Context) (Resolution, error) {
		return r.resolve(ctx, sub, prompt)
	})
}

// observe runs call between the observer's ResolveStart and ResolveEnd, when there is an
// observer.
func (r *Resolver) observe(ctx context.Context, req ResolveRequest, call func(context.Context) (Resolution, error)) (Resolution, error) {
	obs := r.cfg.Observer
	if obs == nil {
		return call(ctx)
	}
	start := time.Now()
	r.guard(ctx, "ResolveStart", func() {
		if c := obs.ResolveStart(ctx, req); c != nil {
			ctx = c
		}
	})
	res, err := call(ctx)
	r.guard(ctx, "ResolveEnd", func() { obs.ResolveEnd(ctx, req, res, err, time.Since(start)) })
	return res, err
}

// guard runs a host callback, logging a panic in it instead of letting it through.
func (r *Resolver) guard(ctx context.Context, what string, fn func()) {
	defer func() {
		if v := recover(); v != nil {
			r.log.ErrorContext(ctx, "registry: host callback panicked", "callback", "ResolveObserver."+what,
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	fn()
}

func (r *Resolver) resolve(ctx context.Context, sub Subject, prompt string) (Resolution, error) {
	apps, err := r.access.AllowedApps(ctx, sub)
	if err != nil {
		return Resolution{}, err
	}
	res := Resolution{Tier: TierNone, Apps: apps}
	if len(apps) == 0 {
		return res, nil
	}
	tiers := []struct {
		tier Tier
		find func() ([]string, error)
	}{
		{TierExplicit, func() ([]string, error) { return ExplicitSlugs(prompt), nil }},
		{TierSemantic, func() ([]string, error) {
			if r.cfg.Search == nil {
				return nil, nil
			}
			return r.cfg.Search.SearchActions(ctx, prompt, apps, r.cfg.Limit)
		}},
		{TierRanked, func() ([]string, error) { return r.cfg.Ranker.Rank(ctx, prompt, apps, r.cfg.Limit) }},
	}
	for _, t := range tiers {
		if err := ctx.Err(); err != nil {
			return Resolution{}, fmt.Errorf("registry: resolve: %w", err)
		}
		slugs, err := t.find()
		if err != nil {
			if ctx.Err() != nil {
				return Resolution{}, fmt.Errorf("registry: resolve: %w", ctx.Err())
			}
			r.log.WarnContext(ctx, "registry: resolver tier failed", "tier", string(t.tier), "agent_id", sub.AgentID, "error", err)
			continue
		}
		if len(slugs) == 0 {
			continue
		}
		if err := r.keep(ctx, sub, apps, slugs, false, &res); err != nil {
			return Resolution{}, err
		}
		if len(res.Actions) > 0 {
			res.Tier = t.tier
			r.log.DebugContext(ctx, "registry: resolved", "tier", string(t.tier), "agent_id", sub.AgentID, "apps", apps, "matched", len(res.Actions))
			return res, nil
		}
	}
	return res, nil
}

// keep adds the slugs sub may call to res, up to the limit. apps are sub's allowed apps,
// read once per Resolve rather than once per slug. With missing, a slug that is not in the
// catalogue is listed in res.Skipped; without, it is passed over in silence (a word of the
// prompt that only looks like a slug).
func (r *Resolver) keep(ctx context.Context, sub Subject, apps, slugs []string, missing bool, res *Resolution) error {
	for i, slug := range slugs {
		if len(res.Actions) >= r.cfg.Limit {
			if missing {
				for _, s := range slugs[i:] {
					if !slices.Contains(res.Actions, s) {
						r.skip(res, s, fmt.Sprintf("over the limit of %d actions", r.cfg.Limit))
					}
				}
			}
			break
		}
		if slices.Contains(res.Actions, slug) {
			continue
		}
		act, err := r.cfg.Store.Action(ctx, slug)
		if errors.Is(err, cache.ErrNotFound) {
			if missing {
				r.skip(res, slug, "not in the catalogue")
			}
			continue // a word that looks like a slug, or a stale search hit
		}
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("registry: resolve: %w", ctx.Err())
			}
			r.skip(res, slug, "lookup failed: "+err.Error())
			continue
		}
		d, err := r.access.checkAction(ctx, sub, act, apps)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("registry: resolve: %w", ctx.Err())
			}
			r.skip(res, slug, "access check failed: "+err.Error())
			continue
		}
		if !d.Allowed {
			r.skip(res, slug, d.Reason)
			continue
		}
		fn, err := r.function(act)
		if err != nil {
			r.skip(res, slug, "schema: "+err.Error())
			continue
		}
		res.Actions = append(res.Actions, act.Slug)
		res.Functions = append(res.Functions, fn)
	}
	return nil
}

// Functions returns the definitions of the given actions that sub may call, in the order
// given, at most the configured limit, followed by those of the given platform tools
// (ResolverConfig.Registry) sub may call. It is the part of HintFunctions that takes names
// rather than a hint: HintFunctions is Functions over a hint's MatchedActions and
// MetaTools. Each action passes the access check the executor applies and is rendered as
// Resolve renders it (Validation, Overrides, HostFilledParams hidden). A name left out is
// named in Resolution.Skipped with the reason (not in the catalogue, not allowed, bad
// schema, over the limit); Resolution.Tier is TierGiven when any is kept and TierNone otherwise.
// Errors are returned only for a cancelled context or a store failure while reading the
// subject's apps. ResolverConfig.Observer, when set, sees the call.
func (r *Resolver) Functions(ctx context.Context, sub Subject, slugs []string) (Resolution, error) {
	return r.observe(ctx, ResolveRequest{Subject: sub, Slugs: slugs}, func(ctx context.Context) (Resolution, error) {
		return r.functions(ctx, sub, slugs)
	})
}

func (r *Resolver) functions(ctx context.Context, sub Subject, names []string) (Resolution, error) {
	apps, err := r.access.AllowedApps(ctx, sub)
	if err != nil {
		return Resolution{}, err
	}
	res := Resolution{Tier: TierNone, Apps: apps}
	slugs, platform := r.splitPlatform(names)
	if len(apps) == 0 {
		for _, s := range slugs {
			r.skip(&res, s, "no app is allowed for this step")
		}
	} else if err := r.keep(ctx, sub, apps, slugs, true, &res); err != nil {
		return Resolution{}, err
	}
	var fns []schema.Function
	for _, e := range platform {
		d, err := r.access.CheckPlatform(ctx, sub, e.spec)
		if err != nil {
			if ctx.Err() != nil {
				return Resolution{}, fmt.Errorf("registry: resolve: %w", ctx.Err())
			}
			r.skip(&res, e.spec.Name, "access check failed: "+err.Error())
			continue
		}
		if !d.Allowed {
			r.skip(&res, e.spec.Name, d.Reason) // CheckPlatform always gives a refusal's reason
			continue
		}
		res.Platform = append(res.Platform, e.spec.Name)
		fns = append(fns, e.function)
	}
	res.Functions = append(res.Functions, fns...)
	if len(res.Actions)+len(res.Platform) > 0 {
		res.Tier = TierGiven
	}
	return res, nil
}

// splitPlatform separates the names of ResolverConfig.Registry's tools from the rest, each
// once, in the order given. A tool's spec and definition come from one read of the
// registry, so a tool unregistered meanwhile cannot leave one without the other.
func (r *Resolver) splitPlatform(names []string) (slugs []string, platform []entry) {
	if r.cfg.Registry == nil {
		return names, nil
	}
	for _, n := range names {
		e, ok := r.cfg.Registry.lookupEntry(n)
		switch {
		case !ok:
			slugs = append(slugs, n)
		case !slices.ContainsFunc(platform, func(p entry) bool { return p.spec.Name == n }):
			platform = append(platform, e)
		}
	}
	return slugs, platform
}

// Tools is what Resolver.Tools returns: the kept actions' definitions in one dialect, beside
// the Resolution they were rendered from. It belongs to the caller.
type Tools struct {
	// Definitions are Resolution.Functions rendered in the dialect asked for, in the same
	// order: ready to be sent as the tools of a model request.
	Definitions []json.RawMessage
	Resolution
}

// Tools is Functions followed by schema.Render: the definitions of the given actions and
// platform tools that sub may call, in dialect d (schema.DialectOpenAIStrict,
// schema.DialectAnthropic, …), for a host that sends JSON rather than an SDK's types. It
// fails with an error wrapping schema.ErrUnknownDialect for an unknown dialect, and
// otherwise as Functions does. From a hint, use HintTools.
func (r *Resolver) Tools(ctx context.Context, sub Subject, slugs []string, d schema.Dialect) (Tools, error) {
	res, err := r.Functions(ctx, sub, slugs)
	if err != nil {
		return Tools{}, err
	}
	return render(res, d)
}

func render(res Resolution, d schema.Dialect) (Tools, error) {
	defs, err := schema.Render(res.Functions, d)
	if err != nil {
		return Tools{}, fmt.Errorf("registry: tools: %w", err)
	}
	return Tools{Definitions: defs, Resolution: res}, nil
}

// HintTools is the one call from a hint to the tools of a model request in chatbot mode:
// the definitions, in dialect d, of the hint's actions (h.MatchedActions) that sub may
// call, followed by those of the meta-tools the hint's text points the model at
// (h.MetaTools, such as search_tools), so that the model is given every tool it is told
// of. It is HintFunctions followed by schema.Render; it fails as HintFunctions does, and
// with an error wrapping schema.ErrUnknownDialect for an unknown dialect.
func (r *Resolver) HintTools(ctx context.Context, sub Subject, h hint.Result, d schema.Dialect) (Tools, error) {
	res, err := r.HintFunctions(ctx, sub, h)
	if err != nil {
		return Tools{}, err
	}
	return render(res, d)
}

// HintFunctions is HintTools without the rendering, for a host that converts
// schema.Functions to its SDK's types: Functions over h.MatchedActions and h.MetaTools. It
// fails with an error wrapping ErrInvalidConfig when a meta-tool the hint names cannot be
// offered (ResolverConfig.Registry does not hold it, it is inactive, or sub may not call
// it): the hint would otherwise name a tool the model was not given. Build the hint with
// hint.Config.SearchTool (or Request.SearchTool) only when the tool is offered. Other
// errors are those of Functions.
func (r *Resolver) HintFunctions(ctx context.Context, sub Subject, h hint.Result) (Resolution, error) {
	names := make([]string, 0, len(h.MatchedActions)+len(h.MetaTools))
	names = append(append(names, h.MatchedActions...), h.MetaTools...)
	res, err := r.Functions(ctx, sub, names)
	if err != nil {
		return Resolution{}, err
	}
	for _, m := range h.MetaTools {
		if !slices.Contains(res.Platform, m) {
			why := "the resolver's Registry does not hold it"
			if r.cfg.Registry != nil {
				if _, ok := r.cfg.Registry.Get(m); ok {
					why = cmp.Or(res.Skipped[m], "not kept")
				}
			}
			return Resolution{}, fmt.Errorf("%w: the hint points the model at %s, which cannot be offered: %s", ErrInvalidConfig, schema.Excerpt(m), why)
		}
	}
	return res, nil
}

func (r *Resolver) skip(res *Resolution, slug, why string) {
	if res.Skipped == nil {
		res.Skipped = make(map[string]string)
	}
	res.Skipped[slug] = why
}

// hintRanker is the default tier 3: package hint's ranking in recipe mode (pure token
// matching, no capability gate), with its per-app and total caps raised to the limit.
type hintRanker struct {
	st ResolverStore
	b  *hint.Builder
}

func newHintRanker(st ResolverStore, limit int, log *slog.Logger) hintRanker {
	return hintRanker{st: st, b: hint.New(hint.Config{Logger: log, Limits: hint.Limits{
		MaxActions:       limit,
		MaxActionsPerApp: limit,
		MaxFallbackRows:  limit,
	}})}
}

func (h hintRanker) Rank(ctx context.Context, prompt string, apps []string, limit int) ([]string, error) {
	res, err := h.b.Build(ctx, h.st, hint.Request{Prompt: prompt, RecipeMode: true, Apps: apps})
	if err != nil {
		return nil, err
	}
	out := res.MatchedActions
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
