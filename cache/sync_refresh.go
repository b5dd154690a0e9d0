package cache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
)

// AccountSource reports the connected accounts a remote knows of: Composio's, as
// *composio.Client through composiosource.New, or a fake in tests. Implementations must be
// safe for concurrent use.
type AccountSource interface {
	// ConnectedAccounts lists one user's connected accounts, in any status, for the given
	// apps (lower_snake slugs).
	ConnectedAccounts(ctx context.Context, userID string, apps []string) ([]SourceAccount, error)
}

// SourceAccount is a connected account as an AccountSource reports it.
type SourceAccount struct {
	ID  string // the remote's account id, e.g. "ca_1a2b3c"
	App string // app slug, any case
	// Status is the remote's status: Composio's ACTIVE, INITIALIZING, INITIATED, FAILED,
	// EXPIRED, INACTIVE or REVOKED, in any case.
	Status string
	// UpdatedAt, when known, picks the newest of several accounts for one app.
	UpdatedAt time.Time
}

// RefreshOptions configure RefreshConnections.
type RefreshOptions struct {
	// WorkspaceID limits the refresh to one workspace. Optional. Defaults to every
	// workspace.
	WorkspaceID string
	// UserID maps a workspace to the user id its accounts are kept under at the source.
	// Optional. Defaults to the workspace id itself.
	UserID func(workspaceID string) string
	// Logger receives structured logs. Optional. Nil means silent.
	Logger *slog.Logger
}

// RefreshReport counts what RefreshConnections did.
type RefreshReport struct {
	Checked   int // pending connections looked up
	Activated int // moved to active
	Failed    int // moved to failed
	Pending   int // left pending: authorisation not finished, or no account found
}

// RefreshStore is what RefreshConnections reads and writes: the pending connections and
// their moves. *Memory, *Postgres and every Store satisfy it.
type RefreshStore interface {
	Connections(ctx context.Context, workspaceID string, statuses ...ConnectionStatus) ([]Connection, error)
	SetConnectionStatus(ctx context.Context, workspaceID, app string, to ConnectionStatus, connectedAccountID string) (Connection, error)
}

// RefreshConnections checks every pending workspace connection against the source's
// connected accounts and moves it on: to active when its account is ACTIVE, to failed when
// its account FAILED, EXPIRED, was made INACTIVE or REVOKED. A connection that names its
// account (Connection.ConnectedAccountID) is matched by that id; one that does not takes the
// newest active account of its app, else the newest failed one. Connections whose
// authorisation is still under way, or for which the source has no account, stay pending.
//
// One source request is made per workspace. A failed request skips that workspace's
// connections; RefreshConnections carries on with the others and returns every error
// joined, with the report of what it did. A connection moved meanwhile by someone else is
// left alone.
func RefreshConnections(ctx context.Context, st RefreshStore, src AccountSource, opts RefreshOptions) (RefreshReport, error) {
	var rep RefreshReport
	if st == nil || src == nil {
		return rep, fmt.Errorf("%w: refresh needs a store and an account source", ErrInvalid)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	userID := opts.UserID
	if userID == nil {
		userID = func(ws string) string { return ws }
	}
	conns, err := st.Connections(ctx, opts.WorkspaceID, StatusPending)
	if err != nil {
		return rep, fmt.Errorf("cache: refresh connections: %w", err)
	}
	byWS := map[string][]Connection{}
	for _, c := range conns {
		if c.Status == StatusPending { // the filter is the store's; be sure
			byWS[c.WorkspaceID] = append(byWS[c.WorkspaceID], c)
		}
	}
	var errs []error
	for _, ws := range slices.Sorted(maps.Keys(byWS)) {
		list := byWS[ws]
		apps := make([]string, 0, len(list))
		for _, c := range list {
			apps = append(apps, c.App)
		}
		rep.Checked += len(list)
		accounts, err := src.ConnectedAccounts(ctx, userID(ws), apps)
		if err != nil {
			if ctx.Err() != nil {
				return rep, fmt.Errorf("cache: refresh connections: %w", errors.Join(err, ctx.Err()))
			}
			rep.Pending += len(list)
			errs = append(errs, fmt.Errorf("cache: refresh connections of workspace %q: %w", ws, err))
			log.Warn("cache: refresh: listing accounts failed", "workspace_id", ws, "err", err)
			continue
		}
		for _, c := range list {
			to, acct := nextStatus(c, accounts)
			if to == StatusPending {
				rep.Pending++
				continue
			}
			_, err := st.SetConnectionStatus(ctx, ws, c.App, to, acct.ID)
			switch {
			case err == nil && to == StatusActive:
				rep.Activated++
				log.Info("cache: refresh: connection active", "workspace_id", ws, "app", c.App, "connected_account_id", acct.ID)
			case err == nil:
				rep.Failed++
				log.Info("cache: refresh: connection failed", "workspace_id", ws, "app", c.App, "connected_account_id", acct.ID, "status", acct.Status)
			case errors.Is(err, ErrTransition) || errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict):
				log.Info("cache: refresh: connection changed meanwhile; left alone", "workspace_id", ws, "app", c.App, "err", err)
			default:
				if ctx.Err() != nil {
					return rep, fmt.Errorf("cache: refresh connections: %w", err)
				}
				errs = append(errs, fmt.Errorf("cache: refresh connection %q/%q: %w", ws, c.App, err))
			}
		}
	}
	return rep, errors.Join(errs...)
}

// accountState sorts a remote account status into what it means for a pending connection.
func accountState(status string) ConnectionStatus {
	switch strings.ToUpper(strings.TrimSpace(status)) {
	case "ACTIVE":
		return StatusActive
	case "FAILED", "EXPIRED", "INACTIVE", "REVOKED":
		return StatusFailed
	}
	return StatusPending
}

// nextStatus picks the account that decides c's status, and the status it gives.
func nextStatus(c Connection, accounts []SourceAccount) (ConnectionStatus, SourceAccount) {
	if c.ConnectedAccountID != "" {
		for _, a := range accounts {
			if a.ID == c.ConnectedAccountID {
				return accountState(a.Status), a
			}
		}
		return StatusPending, SourceAccount{}
	}
	var mine []SourceAccount
	for _, a := range accounts {
		if strings.EqualFold(strings.TrimSpace(a.App), c.App) {
			mine = append(mine, a)
		}
	}
	// Newest first; ties keep the source's order.
	sort.SliceStable(mine, func(i, j int) bool { return mine[i].UpdatedAt.After(mine[j].UpdatedAt) })
	for _, want := range []ConnectionStatus{StatusActive, StatusPending, StatusFailed} {
		for _, a := range mine {
			if accountState(a.Status) == want {
				return want, a
			}
		}
	}
	return StatusPending, SourceAccount{}
}
