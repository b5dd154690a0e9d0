package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// resolve finds the tool a name refers to: a platform tool first, then a Composio action
// (accepting "composio-gmail_send_email" and lower-case spellings). An unknown name gives a
// result naming the closest real tools.
func (e *Executor) resolve(ctx context.Context, name string) (*prepared, Result, bool) {
	if e.cfg.Registry != nil {
		if spec, v, ok := e.cfg.Registry.Lookup(name); ok {
			if spec.Inactive {
				return nil, Result{Tool: name, ErrorKind: KindForbidden, Error: fmt.Sprintf("%s is turned off; use another tool", name)}, false
			}
			p, err := e.preparePlatform(spec, v)
			if err != nil {
				return nil, Result{Tool: name, ErrorKind: KindInternal, Error: fmt.Sprintf("%s cannot be called: %v", name, err)}, false
			}
			return p, Result{}, true
		}
	}
	if e.cfg.Catalog != nil && name != "" && len(name) <= cache.MaxSlugLen {
		for _, slug := range slugCandidates(name) {
			act, err := e.cfg.Catalog.Action(ctx, slug)
			if errors.Is(err, cache.ErrNotFound) || errors.Is(err, cache.ErrInvalid) { // a name no slug can have
				continue
			}
			if err != nil {
				return nil, Result{Tool: name, ErrorKind: KindInternal, Error: fmt.Sprintf("could not look up %s: %v", slug, err)}, false
			}
			p, err := e.prepareAction(ctx, act)
			if err != nil {
				return nil, Result{Tool: act.Slug, ErrorKind: KindInternal, Error: fmt.Sprintf("%s cannot be called: %v", act.Slug, err)}, false
			}
			return p, Result{}, true
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, Result{Tool: name, ErrorKind: KindCancelled, Error: "cancelled: " + err.Error()}, false
	}
	if len(name) == schema.MaxNameLength && e.cfg.Catalog != nil {
		// A slug too long for the model APIs reaches us as its schema.FunctionName.
		if slug, ok := e.fromFunctionName(ctx, name); ok {
			return e.resolve(ctx, slug)
		}
	}
	sugg := e.allowedNames(ctx, e.suggest(ctx, name, 6), 3)
	msg := fmt.Sprintf("there is no tool named \"%s\".", schema.Excerpt(name))
	if len(sugg) > 0 {
		msg += " The closest real tools are: " + strings.Join(sugg, ", ") + "."
	}
	msg += " Call one of the tools you were given, with its exact name."
	return nil, Result{Tool: schema.Excerpt(name), ErrorKind: KindUnknownTool, Error: msg, Suggestions: sugg}, false
}

// slugCandidates lists the spellings of name worth looking up as an action slug.
func slugCandidates(name string) []string {
	out := []string{name}
	n := name
	for _, pre := range []string{"composio-", "composio_", "COMPOSIO-"} {
		n = strings.TrimPrefix(n, pre)
	}
	n = strings.ToUpper(strings.ReplaceAll(n, "-", "_"))
	if n != name {
		out = append(out, n)
	}
	return out
}

// preparePlatform returns the entry of a platform tool. reg is the registry's validator of
// spec, which identifies the registration; the entry's own validator is compiled in the
// executor's mode and limits.
func (e *Executor) preparePlatform(spec registry.ToolSpec, reg *schema.Validator) (*prepared, error) {
	if x, ok := e.sh.prepared.Load(spec.Name); ok {
		// Only active tools get here, and re-registering a name compiles a new validator.
		if p := x.(*prepared); p.key == reg {
			return p, nil
		}
	}
	v, err := e.sh.compiler.Compile(spec.Parameters, schema.CompileOptions{Mode: e.cfg.Validation})
	if err != nil {
		return nil, fmt.Errorf("its parameter schema is invalid: %w", err)
	}
	p := e.newPrepared(Tool{
		Name:        spec.Name,
		Kind:        registry.ToolPlatform,
		ReadOnly:    spec.ReadOnly,
		Idempotent:  spec.Idempotent,
		Destructive: spec.NeedsConfirmation(),
	}, v, nil, spec.RetryTimeout)
	p.spec, p.key = spec, reg
	e.sh.prepared.Store(spec.Name, p)
	return p, nil
}

// maxPreparedActions bounds the actions whose compiled validators an executor keeps.
const maxPreparedActions = 4096

func (e *Executor) prepareAction(ctx context.Context, act cache.Action) (*prepared, error) {
	key := actionKey{params: string(act.Parameters), updated: act.UpdatedAt}
	cacheKey := "action:" + act.Slug
	if x, ok := e.sh.prepared.Load(cacheKey); ok {
		p := x.(*prepared)
		if p.key == key {
			return p, nil
		}
	}
	// The host's override, then the normaliser (unless Strict), then the compiled checks.
	v, err := e.sh.compiler.Compile(act.Parameters, schema.CompileOptions{Mode: e.cfg.Validation, Action: act.Slug, Overrides: e.cfg.Overrides})
	if err != nil {
		return nil, fmt.Errorf("its parameter schema is invalid: %w", err)
	}
	t := Tool{Name: act.Slug, Kind: registry.ToolAction, App: act.App}
	metas, err := e.cfg.Catalog.ActionMeta(ctx, []string{act.App})
	if err != nil && !errors.Is(err, cache.ErrNotFound) {
		return nil, fmt.Errorf("reading its metadata: %w", err)
	}
	for _, m := range metas {
		if m.Action == act.Slug {
			t.ReadOnly, t.Destructive, t.Capabilities = m.ReadOnly, m.Destructive, m.Capabilities
			break
		}
	}
	// The catalogue's own flags win over the classifier's guesses.
	if act.Destructive != nil {
		t.Destructive = t.Destructive || *act.Destructive
	}
	if act.ReadOnly != nil {
		t.ReadOnly = *act.ReadOnly
	}
	if t.Destructive {
		t.ReadOnly = false
	}
	p := e.newPrepared(t, v, registry.HostFilledParams(act.App), false)
	p.action, p.key = act, key
	if _, loaded := e.sh.prepared.Swap(cacheKey, p); !loaded && e.sh.actions.Add(1) > maxPreparedActions {
		// Bound the memory compiled schemas take: start over rather than track recency.
		e.sh.prepared.Range(func(k, _ any) bool {
			if strings.HasPrefix(k.(string), "action:") {
				e.sh.prepared.Delete(k)
			}
			return true
		})
		e.sh.actions.Store(0)
	}
	return p, nil
}

// access returns the access checker: the configured one, or AllowAll when none is.
func (e *Executor) access() *registry.Access {
	if e.cfg.Access == nil {
		return e.allowAll
	}
	return e.cfg.Access
}

// permitted runs the permission check of p for the executor's scope.
func (e *Executor) permitted(ctx context.Context, p *prepared) (registry.Decision, error) {
	if e.cfg.Access == nil && e.cfg.Scope.AgentID != 0 {
		return registry.Decision{Reason: fmt.Sprintf("no access checker is configured for agent %d", e.cfg.Scope.AgentID)}, nil
	}
	sub := e.cfg.Scope.Identity
	if p.tool.Kind == registry.ToolAction {
		return e.access().CheckAction(ctx, sub, p.action)
	}
	return e.access().CheckPlatform(ctx, sub, p.spec)
}

// authorize runs the access checks: permission and capability. It records in st the
// workspace connection the permission check read, so the call does not read it again. A
// refusal says why without showing the tool's parameters.
func (e *Executor) authorize(ctx context.Context, st *callState, p *prepared) (Result, bool) {
	if p.tool.Kind == registry.ToolAction && e.cfg.Remote == nil {
		return Result{ErrorKind: KindForbidden, Error: fmt.Sprintf("%s cannot run: no Composio executor is configured", p.tool.Name)}, false
	}
	d, err := e.permitted(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return Result{ErrorKind: KindCancelled, Error: "cancelled: " + ctx.Err().Error(), Err: ctx.Err()}, false
		}
		e.log.WarnContext(ctx, "executor: access check failed", "tool", p.tool.Name, "error", err)
		return Result{ErrorKind: KindInternal, Err: err, Error: fmt.Sprintf("could not check access to %s; try again later", p.tool.Name)}, false
	}
	if !d.Allowed {
		return Result{ErrorKind: KindForbidden, Error: fmt.Sprintf("%s is not allowed: %s", p.tool.Name, d.Reason)}, false
	}
	st.connectedAccountID = d.ConnectedAccountID
	if caps := e.cfg.Scope.Capabilities; len(caps) > 0 && p.tool.Kind == registry.ToolAction && len(p.tool.Capabilities) > 0 {
		if !slices.ContainsFunc(p.tool.Capabilities, func(c string) bool { return slices.Contains(caps, c) }) {
			return Result{ErrorKind: KindForbidden, Error: fmt.Sprintf("%s does not fit the current request (it can %s; the request needs %s)",
				p.tool.Name, strings.Join(p.tool.Capabilities, ", "), strings.Join(caps, ", "))}, false
		}
	}
	return Result{}, true
}
