package hint

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/internal/text"
)

// Errors of Build.
var (
	// ErrInvalidRequest reports a request Build cannot make sense of: no agent, no
	// workspace and no apps, a negative agent ID, or an identifier the store refuses (a
	// workspace ID with a NUL byte, say).
	ErrInvalidRequest = errors.New("hint: invalid request")
	// ErrStoreUnavailable reports that a store read Build needs failed: one that decides
	// what the agent may use (assignments, connections, tool configs) or the action
	// metadata. It wraps the store's error. See Request.Degrade.
	ErrStoreUnavailable = errors.New("hint: store unavailable")
	// ErrNoApps reports that the request leaves no app to hint at: the agent has no active
	// assignment and its workspace no active connection, the workspace has not connected
	// or has disabled the apps the agent is assigned, or none of Request.Apps is usable.
	// The error wrapping it says which. It is a fact about the host's data, not a failure:
	// tell the user to connect or assign an app.
	ErrNoApps = errors.New("hint: no usable apps")
)

// MaxPromptLen is the number of bytes of a prompt that are analysed; the rest is ignored.
// A prompt of any shape up to this length is analysed in time linear in its length.
const MaxPromptLen = 16 << 10

// Store is what Build reads: an agent's app assignments, a workspace's connections and
// enabled actions, and the action metadata of the candidate apps. *cache.Memory and
// *cache.Postgres satisfy it. Implementations must be safe for concurrent use.
type Store interface {
	AgentApps(ctx context.Context, agentID int64) ([]cache.Assignment, error)
	Connections(ctx context.Context, workspaceID string, statuses ...cache.ConnectionStatus) ([]cache.Connection, error)
	ToolConfigs(ctx context.Context, workspaceID string) ([]cache.ToolConfig, error)
	ActionMeta(ctx context.Context, apps []string) ([]cache.ActionMeta, error)
}

// Strategy names the tier that produced a hint.
type Strategy string

// Strategies, one per tier of Build.
const (
	StrategyCapability    Strategy = "capability"
	StrategyTokenFiltered Strategy = "token_filtered"
	StrategyRecipeToken   Strategy = "recipe_token"
	StrategyFallback      Strategy = "fallback"
	StrategyNone          Strategy = "none"
)

// Request asks for a hint. Its AgentID, WorkspaceID and Apps are an [Identity]'s fields,
// spelled out because Request's shape is fixed; the one way to fill them is to build the
// request from the turn's Identity ([Identity.Request]), and [Request.Identity] reads
// them back. Fill them by hand only where no Identity exists.
type Request struct {
	// AgentID is the agent whose app assignments are used. Required unless Apps or
	// WorkspaceID is set.
	AgentID int64
	// WorkspaceID, when set, limits the apps to those connected (active) in the workspace,
	// supplies them when the agent has no assignments, and applies the workspace's
	// enabled-action configuration.
	WorkspaceID string
	// Prompt is the user's message (chatbot mode) or the step instruction (recipe mode).
	Prompt string
	// RecipeMode switches to pure term matching with heavier weight on action names.
	RecipeMode bool
	// Apps, when set, replaces the agent's assignments. Names are matched in any case.
	Apps []string
	// Degrade opts in to a degraded hint when a store read fails: instead of an error
	// wrapping ErrStoreUnavailable, Build returns a hint limited to what is certainly
	// allowed, with Result.Degraded saying why. When a permission read failed nothing is
	// certain and the hint is empty; when the action metadata could not be read it names
	// the apps and no action. Config.Degrade opts in for every request.
	Degrade bool
	// SearchTool is the name of the search meta-tool the model is given with the hint's
	// actions (SearchTool, the router's search_tools), or "" when it has none. A hint that
	// is not confident points the model at it only when it is set, and then lists it in
	// Result.MetaTools. Optional. Defaults to Config.SearchTool.
	SearchTool string
}

// Result is a hint.
type Result struct {
	Text           string   // the system message; "" when nothing matched
	Lines          []string // Text, line by line
	MatchedActions []string // exact action slugs, best first across all apps
	Strategy       Strategy
	// Matches explains MatchedActions, in the same order.
	Matches []Match
	// Apps are the candidate apps after resolution, lower case, sorted.
	Apps []string
	// Capabilities are the capabilities read from the prompt.
	Capabilities []string
	// Confident reports whether the hint carries the strong directive ("You MUST call"):
	// the probability that the top action is right reaches the calibrated threshold, and its
	// app is one the prompt names when it names any. A hint that is not confident says so
	// and points the model at the search meta-tool when the model has one
	// (Request.SearchTool).
	Confident bool
	// Probability is the estimated probability that the first listed action is the right
	// one, calibrated on labelled requests held out of the fit (1 when the request names
	// the action by its slug, 0 when nothing is listed). Confident is set from it.
	Probability float64
	// MetaTools are the tools other than actions that Text tells the model to call: the
	// search meta-tool (Request.SearchTool) when the hint is not confident, nil otherwise.
	// Offer them beside MatchedActions (registry.Resolver.HintTools does), so that the
	// model is given every tool it is told of.
	MetaTools []string
	// Degraded, when not empty, says which store read failed and why: the hint is limited
	// to what is certainly allowed (see Request.Degrade).
	Degraded string
	// Reason says, in a sentence, why the hint has this tier and confidence.
	Reason string
	// Semantic reports that semantic similarity (Config.Embedder) took part in the ranking.
	Semantic bool
	// Reranked reports that Config.Reranker ordered the first actions.
	Reranked bool
	// Fallbacks say, a sentence each, which optional tier (semantic, rerank) failed or ran
	// out of time and was left out: the hint is then what the lexical ranking gives.
	Fallbacks []string
}

// Match explains why an action is listed.
type Match struct {
	// Action is the action's slug (cache.Action.Slug), as in Result.MatchedActions.
	Action string
	App    string
	Tier   Strategy
	Score  float64
	// Step is the index of the prompt clause the action serves (0 for single-step prompts).
	Step int
	// Terms are the analysed prompt terms the action matched (stems).
	Terms []string
	// Capabilities are the action capabilities that matched the prompt's.
	Capabilities []string
	// Params are the parameter hints given for the action (the top actions only).
	Params []cache.Param
	// Usage is the part of Score the workspace's record of use gave (Config.Usage): 0
	// without priors, negative when failed calls count against the action.
	Usage float64
}

// Limits bound the work and the size of a hint. Zero fields take the defaults noted beside
// each field. Every candidate app is scored in memory; MaxAppsSearch and MaxDBRowsPerApp
// bound what survives that scoring.
type Limits struct {
	MaxQueryTokens      int // prompt terms per clause (synonyms aside); default 24
	MaxAppsSearch       int // apps that may appear in a hint; default 12
	MaxDBRowsPerApp     int // candidates kept per app and clause before the final cut; default 100
	MaxActionsPerApp    int // actions listed per app; default 6
	MaxParamHintActions int // actions given parameter hints; default 10
	MaxParamsPerAction  int // parameters shown per action; default 5
	MaxAppsFallback     int // apps in the fallback tier; default 6
	MaxFallbackRows     int // actions per app in the fallback tier; default 10
	MaxActions          int // actions listed in all (ranked tiers); default 15
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxQueryTokens, 24)
	def(&l.MaxAppsSearch, 12)
	def(&l.MaxDBRowsPerApp, 100)
	def(&l.MaxActionsPerApp, 6)
	def(&l.MaxParamHintActions, 10)
	def(&l.MaxParamsPerAction, 5)
	def(&l.MaxAppsFallback, 6)
	def(&l.MaxFallbackRows, 10)
	def(&l.MaxActions, 15)
	return l
}

// Config configures a Builder.
type Config struct {
	// Taxonomy reads capabilities out of prompts. Optional. Defaults to
	// cache.DefaultTaxonomy(). It should be the taxonomy the store's classifier used.
	Taxonomy *cache.Taxonomy
	// Logger receives one debug record per Build and a warning per failed store call.
	// Optional. Nil means silent.
	Logger *slog.Logger
	// Limits bound the hint. Optional. Zero fields take the defaults.
	Limits Limits
	// Degrade opts every request in to degraded hints when a store read fails (see
	// Request.Degrade). Optional. Defaults to false: Build fails closed with an error.
	Degrade bool
	// Weights rank the candidate actions. Optional. Nil means DefaultWeights().
	Weights *Weights
	// Observer sees every Build, for metrics or tracing. Optional. Nil means none.
	Observer Observer
	// Embedder adds the semantic tier: each Build embeds the prompt's clauses (one Embed
	// call) and compares them with the vectors EmbedCatalog stored for the candidate
	// actions, which the store must keep (cache.VectorStore). Optional. Nil means lexical
	// ranking only. See EmbedCatalog.
	Embedder Embedder
	// EmbedTimeout bounds the semantic tier of one Build (reading vectors and the Embed
	// call); past it the Build goes on without it. Optional. Defaults to 1s.
	EmbedTimeout time.Duration
	// Reranker orders the first actions of a hint that is not confident. Optional. Nil
	// means the ranking's order stands.
	Reranker Reranker
	// RerankTop is how many of the first actions the Reranker orders. Optional. Defaults
	// to 5.
	RerankTop int
	// RerankTimeout bounds the re-ranking of one Build (reading descriptions and the
	// Rerank call); past it the hint keeps the ranking's order. Optional. Defaults to 2s.
	RerankTimeout time.Duration
	// Usage turns on priors learnt from each workspace's record of use. Optional. Nil
	// means none: every hint is what the prompt and the catalogue alone give.
	Usage *UsageConfig
	// SearchTool is Request.SearchTool for the requests that leave it empty: the name of
	// the search meta-tool every model this Builder serves is given (SearchTool).
	// Optional. Defaults to "": hints name no tool but their actions.
	SearchTool string
}

// Observer receives every Build, for metrics or tracing, without a tracing dependency in
// the library. BuildStart may return a derived context (carrying a span) that the Build
// runs under (nil keeps ctx); BuildEnd gets that context, the Result and error Build
// returns (Strategy and len(MatchedActions) say what it found) and the time it took. res
// belongs to the caller of Build: an Observer must not modify it. Both must be safe for
// concurrent use and fast: they run on the caller's goroutine. A panic in either is
// logged (Config.Logger) and does not affect the Build.
type Observer interface {
	BuildStart(ctx context.Context, req Request) context.Context
	BuildEnd(ctx context.Context, req Request, res Result, err error, elapsed time.Duration)
}

// Builder builds hints. It is safe for concurrent use; build one per configuration and share
// it. Its configuration is fixed at New; it keeps an internal, synchronised cache of term
// indexes for stores that hand out the same metadata on every call (the memory store), which
// only makes it faster: results never depend on it.
type Builder struct {
	tax    *cache.Taxonomy
	an     *text.Analyzer
	log    *slog.Logger
	limits Limits
	pool   *sync.Pool // *scratch
	index  *termIndex
	// know is the store knowledge the Builder analyses with (knowledge.go); nil in a view
	// over one version of it.
	know    *knowState
	weights Weights
	// degrade is Config.Degrade.
	degrade bool
	obs     Observer
	// The optional tiers (semantic.go, rerank.go); nil when not configured.
	emb           Embedder
	embedTimeout  time.Duration
	rr            Reranker
	rerankTop     int
	rerankTimeout time.Duration
	usage         *usagePriors // nil without Config.Usage
	searchTool    string       // Config.SearchTool
}

// New returns a Builder for cfg.
func New(cfg Config) *Builder {
	t := cfg.Taxonomy
	if t == nil {
		t = cache.DefaultTaxonomy()
	}
	w := DefaultWeights()
	if cfg.Weights != nil {
		w = *cfg.Weights
	}
	b := &Builder{tax: t, an: text.New(), log: cfg.Logger, limits: cfg.Limits.withDefaults(), index: newTermIndex(),
		pool: &sync.Pool{}, know: &knowState{},
		weights: w, degrade: cfg.Degrade, obs: cfg.Observer,
		emb: cfg.Embedder, embedTimeout: cfg.EmbedTimeout, rr: cfg.Reranker, rerankTop: cfg.RerankTop, rerankTimeout: cfg.RerankTimeout,
		usage: newUsagePriors(cfg.Usage), searchTool: cfg.SearchTool}
	if b.embedTimeout <= 0 {
		b.embedTimeout = time.Second
	}
	if b.rerankTop <= 0 {
		b.rerankTop = 5
	}
	if b.rerankTimeout <= 0 {
		b.rerankTimeout = 2 * time.Second
	}
	return b
}

// defaultBuilder backs the package-level Build: created on first use, configured once.
var defaultBuilder = sync.OnceValue(func() *Builder { return New(Config{}) })

// Build builds a hint with the default configuration (New(Config{})), shared by every caller
// of this function. See Builder.Build.
func Build(ctx context.Context, st Store, req Request) (Result, error) {
	return defaultBuilder().Build(ctx, st, req)
}

// Build builds the hint for req from st.
//
// It fails closed: when a store read fails (or the store panics in it), Build returns an
// error wrapping ErrStoreUnavailable and the store's error, never a hint that might list
// an app or action the agent may not use, unless the host opted in to degraded hints
// (Request.Degrade, Config.Degrade). A panic in a ranking tier is logged and the next
// tier runs. The error is otherwise non-nil only when ctx is done (it wraps ctx's error)
// or req is invalid (ErrInvalidRequest), and when req leaves no usable app (ErrNoApps,
// wrapped with the reason). Config.Observer, when set, sees it start and end.
func (b *Builder) Build(ctx context.Context, st Store, req Request) (Result, error) {
	if b.obs == nil {
		return b.build(ctx, st, req)
	}
	start := time.Now()
	b.safely(ctx, req, "Observer.BuildStart", func() {
		if c := b.obs.BuildStart(ctx, req); c != nil {
			ctx = c
		}
	})
	res, err := b.build(ctx, st, req)
	b.safely(ctx, req, "Observer.BuildEnd", func() { b.obs.BuildEnd(ctx, req, res, err, time.Since(start)) })
	return res, err
}

// build is Build without the observer.
func (b *Builder) build(ctx context.Context, st Store, req Request) (Result, error) {
	if err := b.check(ctx, st, req); err != nil {
		return Result{Strategy: StrategyNone}, err
	}
	b = b.over(ctx, st)
	prompt := req.Prompt
	if len(prompt) > MaxPromptLen {
		prompt = prompt[:MaxPromptLen]
	}

	apps, enabled, err := b.resolveApps(ctx, st, req)
	if err != nil {
		return b.storeFailed(ctx, req, nil, err)
	}
	res := Result{Strategy: StrategyNone, Apps: apps}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("hint: %w", err)
	}
	if len(apps) == 0 {
		res.Reason = noAppsReason(req)
		return res, fmt.Errorf("%w: %s", ErrNoApps, res.Reason)
	}
	if err := b.rankTiers(ctx, st, req, prompt, apps, enabled, &res); err != nil {
		return b.storeFailed(ctx, req, apps, err)
	}
	if err := ctx.Err(); err != nil {
		return Result{Strategy: StrategyNone, Apps: apps}, fmt.Errorf("hint: %w", err)
	}
	b.render(&res, b.search(req))
	if b.log != nil {
		b.log.LogAttrs(ctx, slog.LevelDebug, "hint: built",
			slog.Int64("agent_id", req.AgentID),
			slog.String("strategy", string(res.Strategy)),
			slog.String("apps", strings.Join(apps, ",")),
			slog.Int("matched", len(res.MatchedActions)),
			slog.Int("param_hints", countParams(res.Matches)))
	}
	return res, nil
}

// check refuses a request Build cannot serve.
func (b *Builder) check(ctx context.Context, st Store, req Request) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("hint: %w", ctx.Err())
	case st == nil:
		return fmt.Errorf("%w: nil store", ErrInvalidRequest)
	case req.AgentID < 0:
		return fmt.Errorf("%w: negative agent id %d", ErrInvalidRequest, req.AgentID)
	case req.AgentID == 0 && req.WorkspaceID == "" && len(req.Apps) == 0:
		return fmt.Errorf("%w: no agent, workspace or apps", ErrInvalidRequest)
	}
	return nil
}

// storeFailed is Build's answer when the store read err failed: ctx's error when ctx has
// ended, ErrInvalidRequest when the store refused the request's identifiers, and otherwise
// ErrStoreUnavailable wrapping err, or, for a host that opted in, a degraded hint naming
// apps (the apps certainly allowed; nil after a permission read failed) and no action.
func (b *Builder) storeFailed(ctx context.Context, req Request, apps []string, err error) (Result, error) {
	res := Result{Strategy: StrategyNone}
	if cerr := ctx.Err(); cerr != nil {
		return res, fmt.Errorf("hint: %w", cerr)
	}
	if errors.Is(err, cache.ErrInvalid) {
		return res, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	b.warn(ctx, req, "store read", err)
	if !req.Degrade && !b.degrade {
		return res, fmt.Errorf("%w: %w", ErrStoreUnavailable, err)
	}
	res.Apps = apps
	res.Degraded = err.Error()
	b.render(&res, b.search(req))
	return res, nil
}

// sources returns what the sources outside the lexical ranking say about metas for req:
// the workspace's record of use (signals and priors) and the semantic tier.
func (b *Builder) sources(ctx context.Context, st Store, req Request, pa *analysis, metas []cache.ActionMeta) (signalSource, *usageModel, semantic) {
	sem := b.semanticSource(ctx, st, pa, metas)
	usage, use := b.usageSource(ctx, st, req)
	return mergeSignals(usage, sem.src), use, sem
}

// rankTiers runs the tiers in order, recovering from a panic in any of them. It returns
// the error of the action metadata read, which no tier can do without.
func (b *Builder) rankTiers(ctx context.Context, st Store, req Request, prompt string, apps []string, enabled map[string]map[string]bool, res *Result) error {
	metas, err := storeRead(func() ([]cache.ActionMeta, error) { return st.ActionMeta(ctx, apps) })
	if err != nil {
		return fmt.Errorf("action metadata: %w", err)
	}
	metas = filterEnabled(metas, enabled)
	pa := newAnalysis(prompt, apps)
	src, use, sem := b.sources(ctx, st, req, pa, metas)
	ok := b.safely(ctx, req, "ranked tiers", func() {
		b.rank(req, pa, metas, src, use, res)
	})
	if !ok || len(res.MatchedActions) == 0 {
		// Nothing fits closely: say so and point the model at search, rather than list
		// actions that merely exist.
		*res = Result{Strategy: StrategyNone, Apps: apps, Capabilities: res.Capabilities}
		if len(metas) > 0 && !req.RecipeMode {
			res.Strategy = StrategyFallback
			res.Reason = "no action matched the request's words or capabilities"
		}
	}
	res.Semantic = sem.src != nil && len(res.MatchedActions) > 0
	if sem.fallback != "" {
		res.Fallbacks = append(res.Fallbacks, sem.fallback)
	}
	b.rerank(ctx, st, prompt, res)
	for _, f := range res.Fallbacks {
		b.warn(ctx, req, "optional tier", errors.New(f))
	}
	return nil
}

// safely runs f, turning a panic into a logged failure.
func (b *Builder) safely(ctx context.Context, req Request, what string, f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			b.warn(ctx, req, what, fmt.Errorf("panic: %v", r))
			ok = false
		}
	}()
	f()
	return true
}

func (b *Builder) warn(ctx context.Context, req Request, what string, err error) {
	if b.log == nil {
		return
	}
	b.log.LogAttrs(ctx, slog.LevelWarn, "hint: "+what+" failed",
		slog.Int64("agent_id", req.AgentID),
		slog.String("workspace_id", req.WorkspaceID),
		slog.String("error", err.Error()))
}

func countParams(ms []Match) int {
	n := 0
	for _, m := range ms {
		if len(m.Params) > 0 {
			n++
		}
	}
	return n
}
