package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/schema"
)

// AccessStore is what access checks read from the catalogue store. *cache.Memory and
// *cache.Postgres satisfy it.
type AccessStore interface {
	Action(ctx context.Context, slug string) (cache.Action, error)
	App(ctx context.Context, slug string) (cache.App, error)
	AgentApps(ctx context.Context, agentID int64) ([]cache.Assignment, error)
	Connection(ctx context.Context, workspaceID, app string) (cache.Connection, error)
	Connections(ctx context.Context, workspaceID string, statuses ...cache.ConnectionStatus) ([]cache.Connection, error)
	ToolConfig(ctx context.Context, workspaceID, app string) (cache.ToolConfig, error)
}

// PlatformPermissions says which platform tools an agent may call (for example a
// table of agent tool permissions). Implementations must be safe for concurrent use.
type PlatformPermissions interface {
	PlatformToolAllowed(ctx context.Context, agentID int64, tool string) (bool, error)
}

// Subject is who wants to call a tool: it is hint.Identity, so the identity a host builds
// once for a turn serves hint.Build, the resolver, the access checks and the executor's
// Scope alike. AgentID selects the agent's app assignments and platform permissions;
// WorkspaceID, when set, requires an active workspace connection for apps that need auth
// and applies the workspace's enabled actions; Apps, when set, replaces the agent's
// assignments; UserID is not read here.
type Subject = hint.Identity

// ToolKind says how a tool runs.
type ToolKind string

// Tool kinds. Their names start with Tool, as PartKind's start with Part; the Kind prefix
// is executor's, for its error kinds (executor.KindForbidden, …).
const (
	ToolPlatform ToolKind = "platform" // a ToolSpec in a Registry
	ToolAction   ToolKind = "composio" // a Composio action in the catalogue
	ToolUnknown  ToolKind = "unknown"
)

// The tool kinds' former names.
const (
	// KindPlatform is ToolPlatform.
	//
	// Deprecated: use ToolPlatform.
	KindPlatform = ToolPlatform
	// KindAction is ToolAction.
	//
	// Deprecated: use ToolAction.
	KindAction = ToolAction
	// KindUnknown is ToolUnknown.
	//
	// Deprecated: use ToolUnknown.
	KindUnknown = ToolUnknown
)

// Decision is the answer of an access check. When Allowed is false, Reason says why in a
// sentence fit for a log line or for the model. It is a plain value, safe to copy and to read from several goroutines.
type Decision struct {
	Allowed bool
	Reason  string
	Kind    ToolKind
	App     string // the action's app; empty for platform tools
	// ConnectedAccountID is the Composio id of the active workspace connection an allowed action
	// runs through, when the check read one (a workspace was given and the app needs auth).
	ConnectedAccountID string
}

// AccessConfig configures Access. It is copied by the constructor; changing it afterwards has no effect.
type AccessConfig struct {
	// Store holds assignments, connections, tool configs and the catalogue. Optional: without
	// it every Composio action is refused.
	Store AccessStore
	// Registry holds the platform tools. Optional: without it every platform tool is unknown.
	Registry *Registry
	// Platform decides platform-tool permissions. Optional: nil allows every active
	// registered platform tool (the host chose to register it).
	Platform PlatformPermissions
}

// Access checks whether an agent may call a tool and says why when it may not. It is safe
// for concurrent use.
type Access struct {
	cfg AccessConfig
	all bool
}

// NewAccess returns an Access over cfg.
func NewAccess(cfg AccessConfig) *Access { return &Access{cfg: cfg} }

// AllowAll returns an Access that reads no store and allows every active platform tool and
// every action that is not deprecated, of any app or, when the Subject names Apps, of those
// apps. It is how a host says, explicitly, that it checked permissions at selection time
// and trusts that check: an executor for an agent refuses to start without an Access, and
// AllowAll is the one that allows everything.
func AllowAll() *Access { return &Access{all: true} }

// AllowsAll reports whether a was made by AllowAll.
func (a *Access) AllowsAll() bool { return a != nil && a.all }

// Check reports whether sub may call tool. A "no" is a Decision with a reason, not an error;
// errors are reserved for a store that fails or a cancelled context.
func (a *Access) Check(ctx context.Context, sub Subject, tool string) (Decision, error) {
	if a.cfg.Registry != nil {
		if spec, ok := a.cfg.Registry.Get(tool); ok {
			return a.CheckPlatform(ctx, sub, spec)
		}
	}
	if a.cfg.Store == nil {
		return Decision{Kind: ToolUnknown, Reason: fmt.Sprintf("%q is not a known tool", schema.Excerpt(tool))}, nil
	}
	act, err := a.cfg.Store.Action(ctx, tool)
	if errors.Is(err, cache.ErrNotFound) {
		return Decision{Kind: ToolUnknown, Reason: fmt.Sprintf("%q is not a known tool or action", schema.Excerpt(tool))}, nil
	}
	if err != nil {
		return Decision{}, fmt.Errorf("registry: access %s: %w", schema.Excerpt(tool), err)
	}
	return a.CheckAction(ctx, sub, act)
}

// CheckPlatform reports whether sub may call the platform tool spec: it must be active and,
// when a PlatformPermissions is configured, permitted for the agent.
func (a *Access) CheckPlatform(ctx context.Context, sub Subject, spec ToolSpec) (Decision, error) {
	d := Decision{Kind: ToolPlatform}
	if spec.Inactive {
		d.Reason = fmt.Sprintf("platform tool %s is inactive", spec.Name)
		return d, nil
	}
	if a.cfg.Platform != nil && !a.all {
		ok, err := a.cfg.Platform.PlatformToolAllowed(ctx, sub.AgentID, spec.Name)
		if err != nil {
			return Decision{}, fmt.Errorf("registry: access %s: %w", spec.Name, err)
		}
		if !ok {
			d.Reason = fmt.Sprintf("agent %d has no permission for platform tool %s", sub.AgentID, spec.Name)
			return d, nil
		}
	}
	d.Allowed = true
	return d, nil
}

// CheckAction reports whether sub may call the Composio action act: the app must be one the
// agent may use, the workspace connection must be active (unless the app needs no auth), and
// the workspace must not have disabled the app or the action.
func (a *Access) CheckAction(ctx context.Context, sub Subject, act cache.Action) (Decision, error) {
	return a.checkAction(ctx, sub, act, nil)
}

// checkAction is CheckAction with sub's allowed apps, when the caller has read them
// already (nil: read them here, once the cheap checks pass).
func (a *Access) checkAction(ctx context.Context, sub Subject, act cache.Action, apps []string) (Decision, error) {
	d := Decision{Kind: ToolAction, App: act.App}
	if act.Deprecated {
		d.Reason = fmt.Sprintf("action %s is deprecated", schema.Excerpt(act.Slug))
		return d, nil
	}
	if a.all {
		if len(sub.Apps) > 0 && !slices.ContainsFunc(sub.Apps, func(app string) bool { return strings.EqualFold(strings.TrimSpace(app), act.App) }) {
			d.Reason = fmt.Sprintf("app %s is not among the apps allowed for this step", schema.Excerpt(act.App))
			return d, nil
		}
		d.Allowed = true
		return d, nil
	}
	if a.cfg.Store == nil {
		d.Reason = "no catalogue store is configured"
		return d, nil
	}
	if apps == nil {
		var err error
		if apps, err = a.AllowedApps(ctx, sub); err != nil {
			return Decision{}, err
		}
	}
	if !slices.Contains(apps, act.App) {
		if len(sub.Apps) > 0 {
			d.Reason = fmt.Sprintf("app %s is not among the apps allowed for this step", schema.Excerpt(act.App))
		} else {
			d.Reason = fmt.Sprintf("agent %d is not assigned app %s", sub.AgentID, schema.Excerpt(act.App))
		}
		return d, nil
	}
	if sub.WorkspaceID == "" {
		d.Allowed = true
		return d, nil
	}
	noAuth := act.NoAuth
	if !noAuth {
		app, err := a.cfg.Store.App(ctx, act.App)
		switch {
		case err == nil:
			noAuth = app.NoAuth
		case !errors.Is(err, cache.ErrNotFound):
			return Decision{}, fmt.Errorf("registry: access %s: %w", act.Slug, err)
		}
	}
	var connID string
	if !noAuth {
		conn, err := a.cfg.Store.Connection(ctx, sub.WorkspaceID, act.App)
		switch {
		case errors.Is(err, cache.ErrNotFound):
			d.Reason = fmt.Sprintf("workspace %s has no connection to %s", schema.Excerpt(sub.WorkspaceID), schema.Excerpt(act.App))
			return d, nil
		case err != nil:
			return Decision{}, fmt.Errorf("registry: access %s: %w", act.Slug, err)
		case conn.Status != cache.StatusActive:
			d.Reason = fmt.Sprintf("workspace %s connection to %s is %s, not active", schema.Excerpt(sub.WorkspaceID), schema.Excerpt(act.App), conn.Status)
			return d, nil
		}
		connID = conn.ConnectedAccountID
	}
	tc, err := a.cfg.Store.ToolConfig(ctx, sub.WorkspaceID, act.App)
	switch {
	case errors.Is(err, cache.ErrNotFound):
		// No configuration: every action of a connected app is enabled.
	case err != nil:
		return Decision{}, fmt.Errorf("registry: access %s: %w", act.Slug, err)
	case !tc.Enabled:
		d.Reason = fmt.Sprintf("workspace %s has disabled app %s", schema.Excerpt(sub.WorkspaceID), schema.Excerpt(act.App))
		return d, nil
	case tc.EnabledActions != nil && !slices.Contains(tc.EnabledActions, act.Slug):
		d.Reason = fmt.Sprintf("workspace %s has not enabled action %s", schema.Excerpt(sub.WorkspaceID), schema.Excerpt(act.Slug))
		return d, nil
	}
	d.Allowed, d.ConnectedAccountID = true, connID
	return d, nil
}

// AllowedApps returns the apps sub may use, ordered: sub.Apps when set; otherwise the
// agent's active assignments; otherwise, when a workspace is given, the workspace's active
// connections (an agent with no assignments inherits its workspace's apps). For AllowAll,
// it returns sub.Apps, and nil, meaning every app, when sub names none.
func (a *Access) AllowedApps(ctx context.Context, sub Subject) ([]string, error) {
	if len(sub.Apps) > 0 {
		out := make([]string, 0, len(sub.Apps))
		for _, app := range sub.Apps {
			app = strings.ToLower(strings.TrimSpace(app))
			if app != "" && !slices.Contains(out, app) {
				out = append(out, app)
			}
		}
		slices.Sort(out)
		return out, nil
	}
	if a.cfg.Store == nil || a.all {
		return nil, nil
	}
	as, err := a.cfg.Store.AgentApps(ctx, sub.AgentID)
	if err != nil && !errors.Is(err, cache.ErrNotFound) {
		return nil, fmt.Errorf("registry: agent %d apps: %w", sub.AgentID, err)
	}
	var out []string
	for _, x := range as {
		if x.Active && !slices.Contains(out, x.App) {
			out = append(out, x.App)
		}
	}
	if len(out) == 0 && sub.WorkspaceID != "" {
		conns, err := a.cfg.Store.Connections(ctx, sub.WorkspaceID, cache.StatusActive)
		if err != nil && !errors.Is(err, cache.ErrNotFound) {
			return nil, fmt.Errorf("registry: workspace %s connections: %w", sub.WorkspaceID, err)
		}
		for _, c := range conns {
			if !slices.Contains(out, c.App) {
				out = append(out, c.App)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}
