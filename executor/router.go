package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// Names of the router meta-tools.
const (
	ToolSearch       = "search_tools"
	ToolGetSchemas   = "get_tool_schemas"
	ToolExecute      = "execute_tool"
	ToolBatchExecute = "batch_execute_tools"
)

// DefaultSearchLimit is how many actions search_tools returns by default.
const DefaultSearchLimit = 8

// maxBatchCalls bounds one batch_execute_tools call written by a model.
const maxBatchCalls = 50

// RouterConfig configures a Router. It is copied by the constructor; changing it afterwards has no effect.
type RouterConfig struct {
	// Hints is the catalogue store search_tools asks through hint.Build. Required.
	Hints hint.Store
	// HintBuilder builds the hints of search_tools and create_plan: one with a
	// hint.Config.Observer traces them. Optional. Defaults to hint.Build's shared builder.
	HintBuilder *hint.Builder
	// SearchLimit caps the actions one search returns. Optional. Defaults to
	// DefaultSearchLimit.
	SearchLimit int
	// OnBackgroundResult, when set, lets batch_execute_tools run in the background
	// ("background": true): the tool returns at once and each result is delivered here.
	// Optional: nil runs every batch synchronously.
	OnBackgroundResult func(Result)
	// Connect adds manage_connections and wait_for_connection when its Connector is set.
	// Optional.
	Connect ConnectConfig
}

// Router offers the whole catalogue through a handful of meta-tools (router mode):
// search_tools, get_tool_schemas, execute_tool and batch_execute_tools, create_plan to
// order a multi-step job, and, with a Connector, manage_connections and
// wait_for_connection to connect an app the workspace lacks. Register its Tools in a
// registry, give an executor over that registry to the model, and the model reaches every
// action the inner executor may run while seeing only these schemas. Use an
// executor other than inner for the meta-tools: a batch_execute_tools call holds a slot of
// its executor's concurrency limit while its actions wait for slots of inner's.
// A Router is safe for concurrent use.
type Router struct {
	inner *Executor
	cfg   RouterConfig
}

// NewRouter returns a Router that runs actions through inner, with inner's scope,
// catalogue, checks and hooks. It fails without cfg.Hints or without a catalogue in inner.
func NewRouter(inner *Executor, cfg RouterConfig) (*Router, error) {
	if inner == nil || inner.cfg.Catalog == nil {
		return nil, fmt.Errorf("%w: router needs an executor with a catalog", ErrInvalidConfig)
	}
	if cfg.Hints == nil {
		return nil, fmt.Errorf("%w: router needs a hint store", ErrInvalidConfig)
	}
	if cfg.SearchLimit <= 0 {
		cfg.SearchLimit = DefaultSearchLimit
	}
	var err error
	if cfg.Connect, err = cfg.Connect.prepare(); err != nil {
		return nil, err
	}
	return &Router{inner: inner, cfg: cfg}, nil
}

// Tools returns the meta-tools as ToolSpecs in CategoryRouter: the four above, create_plan,
// and manage_connections and wait_for_connection when RouterConfig.Connect has a Connector.
func (r *Router) Tools() []registry.ToolSpec {
	tools := []registry.ToolSpec{
		{
			Name:        ToolSearch,
			Description: "Find the actions that fit a use case. Call this first; it returns exact action slugs with their main parameters.",
			Category:    registry.CategoryRouter,
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"use_case":{"type":"string","description":"What you want to do, in a short sentence, e.g. \"send an email to Jay\"."},` +
				`"limit":{"type":"integer","minimum":1,"maximum":30,"description":"How many actions to return (default 8)."}},` +
				`"required":["use_case"]}`),
			ReadOnly: true,
			Run:      r.search,
		},
		{
			Name:        ToolGetSchemas,
			Description: "Get the full parameter schemas of actions found with search_tools, to fill their arguments exactly.",
			Category:    registry.CategoryRouter,
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"slugs":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":20,"description":"Exact action slugs."}},` +
				`"required":["slugs"]}`),
			ReadOnly: true,
			Run:      r.schemas,
		},
		{
			Name:        ToolExecute,
			Description: "Run one action and wait for its result. Use it when you need the result to decide what to do next.",
			Category:    registry.CategoryRouter,
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"tool_slug":{"type":"string","description":"Exact action slug."},` +
				`"arguments":{"type":"object","description":"The action's arguments, following its schema."}},` +
				`"required":["tool_slug","arguments"]}`),
			Run: r.execute,
		},
		{
			Name: ToolBatchExecute,
			Description: "Run several actions at once. Actions with the same step run in parallel; steps run in ascending order. " +
				"Use steps when an action must wait for another to finish; use execute_tool when it needs another's result.",
			Category: registry.CategoryRouter,
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"tools":{"type":"array","minItems":1,"maxItems":50,"items":{"type":"object","properties":{` +
				`"tool_slug":{"type":"string"},"arguments":{"type":"object"},"step":{"type":"integer","minimum":0}},` +
				`"required":["tool_slug","arguments"]}},` +
				`"stop_on_failure":{"type":"boolean","description":"Skip later steps when a step fails."},` +
				`"background":{"type":"boolean","description":"Return at once and report results later, when supported."}},` +
				`"required":["tools"]}`),
			Run: r.batch,
		},
		r.planTool(),
	}
	return append(tools, r.connectTools()...)
}

func isRouterTool(name string) bool {
	return slices.Contains([]string{ToolSearch, ToolGetSchemas, ToolExecute, ToolBatchExecute, ToolCreatePlan, ToolManageConnections, ToolWaitForConnection}, name)
}

type searchHit struct {
	Slug        string        `json:"slug"`
	App         string        `json:"app"`
	Description string        `json:"description"`
	Parameters  []cache.Param `json:"parameters,omitempty"`
}

func (r *Router) search(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var in struct {
		UseCase string `json:"use_case"`
		Limit   int    `json:"limit"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf("reading arguments: %w", err)
	}
	limit := r.cfg.SearchLimit
	if in.Limit > 0 && in.Limit < limit {
		limit = in.Limit
	}
	sc := r.inner.cfg.Scope
	h, err := buildHint(ctx, r.cfg.HintBuilder, r.cfg.Hints, sc.Request(in.UseCase))
	if err != nil {
		return nil, err
	}
	hits := []searchHit{}
	metas := map[string]cache.ActionMeta{}
	for _, slug := range h.MatchedActions {
		if len(hits) == limit {
			break
		}
		act, err := r.inner.cfg.Catalog.Action(ctx, slug)
		if err != nil {
			continue
		}
		if _, ok := metas[slug]; !ok {
			if ms, err := r.inner.cfg.Catalog.ActionMeta(ctx, []string{act.App}); err == nil {
				for _, m := range ms {
					metas[m.Action] = m
				}
			}
		}
		hit := searchHit{Slug: act.Slug, App: act.App, Description: firstSentence(act.Description)}
		hit.Parameters = metas[slug].Params
		hits = append(hits, hit)
	}
	out := struct {
		Tools []searchHit `json:"tools"`
		Note  string      `json:"note,omitempty"`
	}{Tools: hits}
	if len(hits) == 0 {
		out.Note = "no action fits this use case among the apps you may use; rephrase it or ask the user"
	}
	return json.Marshal(out)
}

func (r *Router) schemas(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var in struct {
		Slugs []string `json:"slugs"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf("reading arguments: %w", err)
	}
	type entry struct {
		Slug        string          `json:"slug"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
		Error       string          `json:"error,omitempty"`
	}
	out := make([]entry, 0, len(in.Slugs))
	for _, slug := range in.Slugs {
		p, res, ok := r.inner.resolve(ctx, slug)
		if !ok {
			out = append(out, entry{Slug: slug, Error: res.ForModel()})
			continue
		}
		if p.tool.Kind != registry.ToolAction {
			out = append(out, entry{Slug: slug, Error: "not an action; call it directly"})
			continue
		}
		d, err := r.inner.permitted(ctx, p)
		if err != nil {
			return nil, err
		}
		if !d.Allowed {
			out = append(out, entry{Slug: p.action.Slug, Error: "not allowed: " + d.Reason})
			continue
		}
		// Rendered as the inner executor validates: its mode, its overrides, without the
		// parameters it fills itself.
		fn, err := r.inner.function(p)
		if err != nil {
			out = append(out, entry{Slug: p.action.Slug, Error: "its schema is unusable"})
			continue
		}
		out = append(out, entry{Slug: p.action.Slug, Description: p.action.Description, Parameters: fn.Parameters})
	}
	return json.Marshal(map[string]any{"schemas": out})
}

func (r *Router) execute(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var in struct {
		Slug      string          `json:"tool_slug"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf("reading arguments: %w", err)
	}
	if isRouterTool(in.Slug) {
		return nil, fmt.Errorf("%s cannot run %s", ToolExecute, schema.Excerpt(in.Slug))
	}
	res := r.inner.Execute(ctx, Call{ID: "inner", Name: in.Slug, Arguments: in.Arguments})
	if !res.OK {
		return nil, &resultError{res: res}
	}
	return json.Marshal(res.Envelope())
}

func (r *Router) batch(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var in struct {
		Tools []struct {
			Slug      string          `json:"tool_slug"`
			Arguments json.RawMessage `json:"arguments"`
			Step      int             `json:"step"`
		} `json:"tools"`
		StopOnFailure bool `json:"stop_on_failure"`
		Background    bool `json:"background"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf("reading arguments: %w", err)
	}
	if len(in.Tools) > maxBatchCalls {
		return nil, fmt.Errorf("at most %d actions per batch", maxBatchCalls)
	}
	calls := make([]Call, len(in.Tools))
	for i, t := range in.Tools {
		calls[i] = Call{ID: fmt.Sprintf("batch_%d", i), Name: t.Slug, Arguments: t.Arguments, Step: t.Step}
		if isRouterTool(t.Slug) {
			calls[i].Name = "(meta-tool " + t.Slug + " cannot be batched)"
		}
	}
	opts := BatchOptions{StopOnFailure: in.StopOnFailure}
	if in.Background && r.cfg.OnBackgroundResult != nil {
		opts.OnResult = r.cfg.OnBackgroundResult
		if _, err := r.inner.Background(ctx, calls, opts); err != nil {
			return nil, err
		}
		return json.Marshal(map[string]any{"started": len(calls), "note": "running in the background; results will be reported when ready"})
	}
	results := r.inner.ExecuteBatch(ctx, calls, opts)
	envs := make([]Envelope, len(results))
	for i, res := range results {
		envs[i] = res.Envelope()
	}
	return json.Marshal(map[string]any{"results": envs})
}

func firstSentence(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n') {
			s = s[:i+1]
			break
		}
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
