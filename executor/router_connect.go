package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// Names of the router's connection meta-tools.
const (
	ToolManageConnections = "manage_connections"
	ToolWaitForConnection = "wait_for_connection"
)

// Defaults of ConnectConfig.
const (
	DefaultWaitPoll     = time.Second
	DefaultMaxWait      = 2 * time.Minute
	DefaultStartTimeout = 30 * time.Second
)

// maxWaitPoll caps the interval between two status checks of wait_for_connection.
const maxWaitPoll = 10 * time.Second

// Connector starts connections to apps and reports their status: Composio's connected
// accounts. *composio.Client satisfies it (StartConnection finds or creates the app's auth
// config and creates a Connect Link; AccountStatus reads the account's status, upper
// case). Implementations must be safe for concurrent use.
type Connector interface {
	StartConnection(ctx context.Context, userID, app, callbackURL string) (accountID, status, redirectURL string, err error)
	AccountStatus(ctx context.Context, accountID string) (string, error)
}

// ConnectionStore is where the router keeps workspace connections. *cache.Memory and
// *cache.Postgres satisfy it.
type ConnectionStore interface {
	App(ctx context.Context, slug string) (cache.App, error)
	Connection(ctx context.Context, workspaceID, app string) (cache.Connection, error)
	AddConnection(ctx context.Context, workspaceID, app string) (cache.Connection, error)
	SetConnectionStatus(ctx context.Context, workspaceID, app string, to cache.ConnectionStatus, connectedAccountID string) (cache.Connection, error)
}

// ConnectConfig configures the router's connection meta-tools, manage_connections and
// wait_for_connection. They are offered when Connector is set. It is a plain value.
type ConnectConfig struct {
	// Connector starts connections and reports their status. Optional: without it the
	// connection tools are not offered.
	Connector Connector
	// Store records each workspace connection (pending, then active or failed). Required
	// with Connector.
	Store ConnectionStore
	// CallbackURL is where users return after authorising. Optional.
	CallbackURL string
	// WaitPoll is the first interval between status checks of wait_for_connection; it
	// doubles after each check, up to 10 s. Optional. Defaults to DefaultWaitPoll.
	WaitPoll time.Duration
	// MaxWait caps how long one wait_for_connection call waits, whatever the model asks.
	// Optional. Defaults to DefaultMaxWait.
	MaxWait time.Duration
	// StartTimeout bounds one manage_connections call, its Connector and Store calls
	// included, so a stalled Connector cannot hold the call. Optional. Defaults to
	// DefaultStartTimeout.
	StartTimeout time.Duration
}

// prepare checks c and fills its defaults.
func (c ConnectConfig) prepare() (ConnectConfig, error) {
	if c.Connector == nil {
		return c, nil
	}
	if c.Store == nil {
		return c, fmt.Errorf("%w: the connection tools need a connection store", ErrInvalidConfig)
	}
	if c.WaitPoll <= 0 {
		c.WaitPoll = DefaultWaitPoll
	}
	if c.MaxWait <= 0 {
		c.MaxWait = DefaultMaxWait
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = DefaultStartTimeout
	}
	return c, nil
}

// connectTools returns the connection meta-tools when a Connector is configured.
func (r *Router) connectTools() []registry.ToolSpec {
	if r.cfg.Connect.Connector == nil {
		return nil
	}
	return []registry.ToolSpec{
		{
			Name: ToolManageConnections,
			Description: "Connect the workspace to an app it has not connected yet. Returns a link the user must open to authorise the app; " +
				"then call wait_for_connection. Apps that need no authorisation report not_needed.",
			Category: registry.CategoryRouter,
			Security: registry.SecurityMedium,
			Timeout:  r.cfg.Connect.StartTimeout + 10*time.Second,
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"app":{"type":"string","description":"The app (toolkit) slug, e.g. \"slack\"."},` +
				`"restart":{"type":"boolean","description":"Abandon a pending connection and start again with a new link."}},` +
				`"required":["app"]}`),
			Run: r.manageConnections,
		},
		{
			Name:        ToolWaitForConnection,
			Description: "Wait until the user has authorised an app started with manage_connections. Returns active, failed, or pending when the time runs out.",
			Category:    registry.CategoryRouter,
			Idempotent:  true,
			Timeout:     r.cfg.Connect.MaxWait + 10*time.Second,
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"app":{"type":"string","description":"The app (toolkit) slug."},` +
				`"timeout_seconds":{"type":"number","minimum":0,"description":"How long to wait at most (default 60)."}},` +
				`"required":["app"]}`),
			Run: r.waitForConnection,
		},
	}
}

// connStatus is what the connection tools return.
type connStatus struct {
	App         string `json:"app"`
	Status      string `json:"status"` // "active", "pending", "failed", "not_needed"
	RedirectURL string `json:"redirect_url,omitempty"`
	Reason      string `json:"reason,omitempty"`
	TimedOut    bool   `json:"timed_out,omitempty"`
	Note        string `json:"note,omitempty"`
}

// Status values of the connection tools beyond cache's connection statuses.
const statusNotNeeded = "not_needed"

// connectTarget checks a connection tool's call: a workspace in scope, an app the agent
// may use and the catalogue knows. It returns the app's slug and whether it needs no auth.
func (r *Router) connectTarget(ctx context.Context, app string) (string, bool, error) {
	ws := r.inner.cfg.Scope.WorkspaceID
	if ws == "" {
		return "", false, errors.New("connections belong to a workspace, and this agent runs without one")
	}
	app = strings.ToLower(strings.TrimSpace(app))
	if app == "" {
		return "", false, errors.New("name the app to connect")
	}
	allowed, err := r.allowedApps(ctx)
	if err != nil {
		return "", false, err
	}
	if allowed != nil && !slices.Contains(allowed, app) {
		return "", false, fmt.Errorf("app %s is not among the apps this agent may use", schema.Excerpt(app))
	}
	a, err := r.cfg.Connect.Store.App(ctx, app)
	if errors.Is(err, cache.ErrNotFound) || errors.Is(err, cache.ErrInvalid) {
		return "", false, fmt.Errorf("there is no app \"%s\" in the catalogue; use the app slug search_tools reports", schema.Excerpt(app))
	}
	if err != nil {
		return "", false, err
	}
	return a.Slug, a.NoAuth, nil
}

// allowedApps returns the apps the agent may use, or nil when any app is allowed (no
// access checker and no apps in scope).
func (r *Router) allowedApps(ctx context.Context) ([]string, error) {
	sc := r.inner.cfg.Scope
	if r.inner.cfg.Access != nil {
		// Connecting is how a workspace gets an app: the agent's assignments decide, not
		// the workspace's current connections.
		sub := registry.Subject{AgentID: sc.AgentID, Apps: sc.Apps}
		apps, err := r.inner.cfg.Access.AllowedApps(ctx, sub)
		if err != nil {
			return nil, err
		}
		if apps == nil {
			apps = []string{}
		}
		return apps, nil
	}
	if len(sc.Apps) > 0 {
		out := make([]string, len(sc.Apps))
		for i, a := range sc.Apps {
			out[i] = strings.ToLower(strings.TrimSpace(a))
		}
		return out, nil
	}
	return nil, nil
}

func (r *Router) manageConnections(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, r.cfg.Connect.StartTimeout, errStartTimeout)
	defer cancel()
	out, err := r.startConnection(ctx, args)
	if err != nil && context.Cause(ctx) == errStartTimeout {
		return nil, fmt.Errorf("the connection service gave no answer within %v: %w", r.cfg.Connect.StartTimeout, err)
	}
	return out, err
}

// errStartTimeout is the cause of a manage_connections call cut at ConnectConfig.StartTimeout.
var errStartTimeout = errors.New("executor: manage_connections deadline")

// startConnection is manage_connections under its deadline.
func (r *Router) startConnection(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var in struct {
		App     string `json:"app"`
		Restart bool   `json:"restart"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf("reading arguments: %w", err)
	}
	app, noAuth, err := r.connectTarget(ctx, in.App)
	if err != nil {
		return nil, err
	}
	if noAuth {
		return json.Marshal(connStatus{App: app, Status: statusNotNeeded, Note: app + " needs no authorisation; its actions can run now"})
	}
	cc := r.cfg.Connect
	ws := r.inner.cfg.Scope.WorkspaceID
	conn, err := cc.Store.Connection(ctx, ws, app)
	if errors.Is(err, cache.ErrNotFound) {
		conn, err = cc.Store.AddConnection(ctx, ws, app)
		if errors.Is(err, cache.ErrConflict) { // added meanwhile by another call
			conn, err = cc.Store.Connection(ctx, ws, app)
		}
	}
	if err != nil {
		return nil, err
	}
	switch conn.Status {
	case cache.StatusActive:
		return json.Marshal(connStatus{App: app, Status: string(cache.StatusActive), Note: app + " is connected already"})
	case cache.StatusPending:
		if conn, err = r.recheck(ctx, app, conn, in.Restart); err != nil || conn.Status == cache.StatusActive {
			return marshalStatus(connStatus{App: app, Status: string(conn.Status), Note: app + " is connected"}, err)
		}
		if conn.Status == cache.StatusPending && !in.Restart {
			return json.Marshal(connStatus{App: app, Status: string(cache.StatusPending),
				Note: "a connection to " + app + " is waiting for the user to authorise it; call wait_for_connection, or manage_connections with restart=true for a new link"})
		}
		if conn.Status == cache.StatusPending {
			// Abandon the pending attempt: it ends as failed, and a new one starts.
			if conn, err = cc.Store.SetConnectionStatus(ctx, ws, app, cache.StatusFailed, ""); err != nil {
				return nil, err
			}
		}
	}
	userID := r.inner.cfg.Scope.UserID
	if userID == "" {
		userID = ws
	}
	id, status, redirect, err := cc.Connector.StartConnection(ctx, userID, app, cc.CallbackURL)
	if err != nil {
		return nil, fmt.Errorf("starting a connection to %s: %w", app, err)
	}
	if strings.EqualFold(status, "ACTIVE") { // credentials that need no user step
		if conn.Status == cache.StatusFailed { // failed -> active is not a transition
			if _, err := cc.Store.SetConnectionStatus(ctx, ws, app, cache.StatusPending, id); err != nil {
				return nil, err
			}
		}
		if _, err := cc.Store.SetConnectionStatus(ctx, ws, app, cache.StatusActive, id); err != nil {
			return nil, err
		}
		return json.Marshal(connStatus{App: app, Status: string(cache.StatusActive), Note: app + " is connected"})
	}
	if _, err := cc.Store.SetConnectionStatus(ctx, ws, app, cache.StatusPending, id); err != nil {
		return nil, err
	}
	return json.Marshal(connStatus{App: app, Status: string(cache.StatusPending), RedirectURL: redirect,
		Note: "give the user this link to authorise " + app + ", then call wait_for_connection"})
}

// recheck asks Composio about a pending connection's account and records what it says:
// the connection comes back active, failed, or still pending.
func (r *Router) recheck(ctx context.Context, app string, conn cache.Connection, restart bool) (cache.Connection, error) {
	if conn.ConnectedAccountID == "" {
		return conn, nil
	}
	st, err := r.cfg.Connect.Connector.AccountStatus(ctx, conn.ConnectedAccountID)
	if err != nil {
		if restart {
			return conn, nil // a new link replaces it anyway
		}
		return conn, fmt.Errorf("checking the pending connection to %s: %w", app, err)
	}
	out, settled, err := r.settle(ctx, app, conn, st)
	if err != nil || !settled {
		return conn, err
	}
	conn.Status = cache.ConnectionStatus(out.Status)
	return conn, nil
}

func marshalStatus(s connStatus, err error) (json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// settle records a Composio account status for a pending connection: ACTIVE makes it
// active, FAILED, EXPIRED, INACTIVE and REVOKED make it failed. settled is false while the
// account still waits for the user.
func (r *Router) settle(ctx context.Context, app string, conn cache.Connection, accountStatus string) (connStatus, bool, error) {
	var to cache.ConnectionStatus
	switch strings.ToUpper(accountStatus) {
	case "ACTIVE":
		to = cache.StatusActive
	case "FAILED", "EXPIRED", "INACTIVE", "REVOKED":
		to = cache.StatusFailed
	default:
		return connStatus{App: app, Status: string(cache.StatusPending)}, false, nil
	}
	ws := r.inner.cfg.Scope.WorkspaceID
	c, err := r.cfg.Connect.Store.SetConnectionStatus(ctx, ws, app, to, conn.ConnectedAccountID)
	if errors.Is(err, cache.ErrTransition) {
		// Another call settled it first: report what it recorded.
		if c, err = r.cfg.Connect.Store.Connection(ctx, ws, app); err != nil {
			return connStatus{}, false, err
		}
	} else if err != nil {
		return connStatus{}, false, err
	}
	out := connStatus{App: app, Status: string(c.Status)}
	if c.Status == cache.StatusFailed {
		out.Reason = strings.ToLower(accountStatus)
		out.Note = "the connection to " + app + " was not authorised (" + out.Reason + "); call manage_connections to start again"
	}
	return out, true, nil
}

func (r *Router) waitForConnection(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var in struct {
		App     string   `json:"app"`
		Timeout *float64 `json:"timeout_seconds"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf("reading arguments: %w", err)
	}
	app, noAuth, err := r.connectTarget(ctx, in.App)
	if err != nil {
		return nil, err
	}
	if noAuth {
		return json.Marshal(connStatus{App: app, Status: statusNotNeeded})
	}
	cc := r.cfg.Connect
	wait := time.Minute
	if in.Timeout != nil {
		// Clamped in seconds before converting: a huge number would overflow a Duration.
		wait = time.Duration(min(max(*in.Timeout, 0), cc.MaxWait.Seconds()) * float64(time.Second))
	}
	wait = min(max(wait, 0), cc.MaxWait)
	ws := r.inner.cfg.Scope.WorkspaceID
	conn, err := cc.Store.Connection(ctx, ws, app)
	if errors.Is(err, cache.ErrNotFound) {
		return nil, fmt.Errorf("no connection to %s was started; call manage_connections first", app)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case conn.Status == cache.StatusActive:
		return json.Marshal(connStatus{App: app, Status: string(cache.StatusActive)})
	case conn.Status == cache.StatusFailed:
		return json.Marshal(connStatus{App: app, Status: string(cache.StatusFailed), Note: "call manage_connections to start again"})
	case conn.Status != cache.StatusPending || conn.ConnectedAccountID == "":
		return nil, fmt.Errorf("no connection to %s is waiting for the user; call manage_connections first", app)
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	poll := cc.WaitPoll
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-wctx.Done():
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return json.Marshal(connStatus{App: app, Status: string(cache.StatusPending), TimedOut: true,
				Note: "the user has not finished authorising " + app + "; ask them to, then wait again"})
		case <-timer.C:
		}
		st, err := cc.Connector.AccountStatus(wctx, conn.ConnectedAccountID)
		if err != nil {
			if wctx.Err() != nil {
				continue // the deadline passed during the check: report as timed out
			}
			return nil, fmt.Errorf("checking the connection to %s: %w", app, err)
		}
		out, settled, err := r.settle(ctx, app, conn, st)
		if err != nil {
			return nil, err
		}
		if settled {
			return json.Marshal(out)
		}
		timer.Reset(poll)
		poll = min(2*poll, max(maxWaitPoll, cc.WaitPoll))
	}
}
