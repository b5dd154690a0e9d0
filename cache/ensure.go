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
// It fails with ErrInvalid for an unknown status, with ErrTransition when to cannot be
// reached (StatusAdded from any other status),
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
		if errors.Is(err, ErrConflict) { // added and moved on by someone else since the read
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
		// Same status, an account given: SetConnectionStatus records it when none is, and
		// refuses another one with ErrConflict (moving it is a decision for the host).
		if c, err = st.SetConnectionStatus(ctx, workspaceID, app, to, connectedAccountID); err != nil {
			return Connection{}, fmt.Errorf("cache: ensure connection: %w", err)
		}
		return c, nil
	}
	var path []ConnectionStatus
	switch {
	case CanTransition(c.Status, to):
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

// sameStatus decides a SetConnectionStatus to the status c is already in: write is false
// when there is nothing to change, true when connectedAccountID is to be recorded; the
// error wraps ErrConflict when c is through another account.
func sameStatus(c Connection, connectedAccountID string) (write bool, err error) {
	switch {
	case connectedAccountID == "" || connectedAccountID == c.ConnectedAccountID:
		return false, nil
	case c.ConnectedAccountID == "":
		return true, nil
	}
	return false, fmt.Errorf("%w: workspace %q app %q connection is %s through another connected account",
		ErrConflict, c.WorkspaceID, c.App, c.Status)
}

// AssignmentStore is what EnsureAssignment reads and writes. *Memory and *Postgres satisfy
// it, as does every Store.
type AssignmentStore interface {
	AgentApps(ctx context.Context, agentID int64) ([]Assignment, error)
	AssignApp(ctx context.Context, a Assignment) error
}

// EnsureAssignment makes a's agent assigned a's app with a's Type and Active flag, so that
// host set-up code can run any number of times: an assignment already like that is
// returned unchanged (no write); a missing or different one is written (CreatedAt of an
// existing one stays). It returns the stored assignment. a.CreatedAt is ignored.
//
// It fails with ErrInvalid for an agent id that is not positive or an empty app, and with
// the store's errors otherwise.
func EnsureAssignment(ctx context.Context, st AssignmentStore, a Assignment) (Assignment, error) {
	na, err := normAssignment(a)
	if err != nil {
		return Assignment{}, fmt.Errorf("cache: ensure assignment: %w", err)
	}
	find := func() (Assignment, bool, error) {
		as, err := st.AgentApps(ctx, na.AgentID)
		if err != nil {
			return Assignment{}, false, fmt.Errorf("cache: ensure assignment: %w", err)
		}
		for _, x := range as {
			if x.App == na.App {
				return x, true, nil
			}
		}
		return Assignment{}, false, nil
	}
	cur, ok, err := find()
	if err != nil {
		return Assignment{}, err
	}
	if ok && cur.Type == na.Type && cur.Active == na.Active {
		return cur, nil
	}
	if err := st.AssignApp(ctx, na); err != nil {
		return Assignment{}, fmt.Errorf("cache: ensure assignment: %w", err)
	}
	cur, ok, err = find()
	if err != nil {
		return Assignment{}, err
	}
	if !ok { // unassigned by someone else since the write
		return Assignment{}, fmt.Errorf("cache: ensure assignment: agent %d app %q: %w: removed while it was written", na.AgentID, na.App, ErrConflict)
	}
	return cur, nil
}
