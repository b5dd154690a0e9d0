package cache

import (
	"context"
	"errors"
	"fmt"
)

// ConnectionStore is what EnsureConnection reads and writes. *Memory and *Postgres satisfy
// it, as does every Store.
type ConnectionStore interface {
	Connection(ctx context.Context, workspaceID, app string) (Connection, error)
	AddConnection(ctx context.Context, workspaceID, app string) (Connection, error)
	SetConnectionStatus(ctx context.Context, workspaceID, app string, to ConnectionStatus, connectedAccountID string) (Connection, error)
}

// EnsureConnection brings a workspace's connection to an app into status to, with
// connectedAccountID when it is not empty, whatever state it is in, so that host set-up code can
// run any number of times: a connection already there is returned unchanged (no error, no
// write); a missing one is added first; a status CanTransition does not reach directly is
// reached through StatusPending when that path is allowed (failed -> pending -> active).
//
// It fails with ErrInvalid for an unknown status, with ErrTransition when to cannot be reached (StatusAdded from any other status),
// with ErrConflict when the connection is in status to through another connected account
// (moving it is a decision for the host), and with the store's errors otherwise. Concurrent
// calls for the same connection are safe: a connection added meanwhile is read, not
// re-added.
func EnsureConnection(ctx context.Context, st ConnectionStore, workspaceID, app string, to ConnectionStatus, connectedAccountID string) (Connection, error) {
	if err := checkConnTarget(to, connectedAccountID); err != nil { // before anything is added
		return Connection{}, fmt.Errorf("cache: ensure connection: %w", err)
	}
	c, err := st.Connection(ctx, workspaceID, app)
	if errors.Is(err, ErrNotFound) {
		c, err = st.AddConnection(ctx, workspaceID, app)
		if errors.Is(err, ErrConflict) { // added by someone else since the read
			c, err = st.Connection(ctx, workspaceID, app)
		}
	}
	if err != nil {
		return Connection{}, fmt.Errorf("cache: ensure connection: %w", err)
	}
	if c.Status == to {
		if connectedAccountID == "" || c.ConnectedAccountID == connectedAccountID || to == StatusAdded {
			return c, nil
		}
		if c.ConnectedAccountID != "" {
			return Connection{}, fmt.Errorf("cache: ensure connection: %w: workspace %q app %q is %s through another connected account",
				ErrConflict, c.WorkspaceID, c.App, c.Status)
		}
		// Same status, no account recorded yet: CanTransition has no self-loop, so record
		// the account through pending when that round trip is allowed.
	}
	var path []ConnectionStatus
	switch {
	case c.Status != to && CanTransition(c.Status, to):
		path = []ConnectionStatus{to}
	case CanTransition(c.Status, StatusPending) && CanTransition(StatusPending, to):
		path = []ConnectionStatus{StatusPending, to}
	default:
		return Connection{}, fmt.Errorf("cache: ensure connection: %w: workspace %q app %q: %s -> %s",
			ErrTransition, c.WorkspaceID, c.App, c.Status, to)
	}
	for _, s := range path {
		id := ""
		if s == to {
			id = connectedAccountID
		}
		if c, err = st.SetConnectionStatus(ctx, workspaceID, app, s, id); err != nil {
			return Connection{}, fmt.Errorf("cache: ensure connection: %w", err)
		}
	}
	return c, nil
}
