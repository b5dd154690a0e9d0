package cache

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Postgres implements UsageStore.
var _ UsageStore = (*Postgres)(nil)

// RecordUsage adds events in one transaction. See UsageStore.
func (p *Postgres) RecordUsage(ctx context.Context, events []UsageEvent, lim UsageLimits) error {
	evs, lim, cutoff, err := prepareUsage(ctx, events, lim, pgNow())
	if err != nil || len(evs) == 0 {
		return err
	}
	n := len(evs)
	var (
		ws, apps, actions, terms, times = make(pq.StringArray, n), make(pq.StringArray, n), make(pq.StringArray, n), make(pq.StringArray, n), make(pq.StringArray, n)
		agents                          = make(pq.Int64Array, n)
		oks                             = make(pq.BoolArray, n)
		touched                         pq.StringArray
	)
	for i, e := range evs {
		ws[i], apps[i], actions[i], agents[i], oks[i] = e.WorkspaceID, e.App, e.Action, e.AgentID, e.OK
		terms[i] = strings.Join(e.Terms, " ")
		times[i] = e.At.Format(time.RFC3339Nano)
		if !slices.Contains(touched, e.WorkspaceID) {
			touched = append(touched, e.WorkspaceID)
		}
	}
	err = p.inTx(ctx, func(tx *sqlx.Tx) error {
		// WITH ORDINALITY keeps the rows' ids in the order of the events.
		if _, err := tx.ExecContext(ctx, `INSERT INTO usage_events (workspace_id, agent_id, app, action, ok, terms, at)
			SELECT w, g, a, x, o, t, ts::timestamptz
			FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::boolean[], $6::text[], $7::text[])
				WITH ORDINALITY AS u(w, g, a, x, o, t, ts, i)
			ORDER BY i`, ws, agents, apps, actions, oks, terms, times); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM usage_events WHERE workspace_id = ANY($1) AND at < $2`, touched, cutoff); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM usage_events d USING (
				SELECT id, row_number() OVER (PARTITION BY workspace_id ORDER BY at DESC, id DESC) AS rn
				FROM usage_events WHERE workspace_id = ANY($1)) r
			WHERE d.id = r.id AND r.rn > $2`, touched, lim.MaxPerWorkspace)
		return err
	})
	return pgWrap(ctx, "record usage", err)
}

type pgUsageScan struct {
	WorkspaceID string    `db:"workspace_id"`
	AgentID     int64     `db:"agent_id"`
	App         string    `db:"app"`
	Action      string    `db:"action"`
	OK          bool      `db:"ok"`
	Terms       string    `db:"terms"`
	At          time.Time `db:"at"`
}

// Usage returns a workspace's events, newest first. See UsageStore.
func (p *Postgres) Usage(ctx context.Context, workspaceID string, since time.Time) ([]UsageEvent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkWorkspace(workspaceID); err != nil {
		return nil, err
	}
	var rows []pgUsageScan
	err := p.db.SelectContext(ctx, &rows, `SELECT workspace_id, agent_id, app, action, ok, terms, at FROM usage_events
		WHERE workspace_id = $1 AND at >= $2 ORDER BY at DESC, id DESC`, workspaceID, since.UTC())
	if err != nil {
		return nil, pgWrap(ctx, "usage", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	out := make([]UsageEvent, len(rows))
	for i, r := range rows {
		out[i] = UsageEvent{WorkspaceID: r.WorkspaceID, AgentID: r.AgentID, App: r.App, Action: r.Action, OK: r.OK,
			Terms: strings.Fields(r.Terms), At: r.At.UTC()}
	}
	return out, nil
}

// PurgeUsage deletes a workspace's record of use. See UsageStore.
func (p *Postgres) PurgeUsage(ctx context.Context, workspaceID string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := checkWorkspace(workspaceID); err != nil {
		return 0, err
	}
	res, err := p.db.ExecContext(ctx, `DELETE FROM usage_events WHERE workspace_id = $1`, workspaceID)
	if err != nil {
		return 0, pgWrap(ctx, "purge usage", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, pgWrap(ctx, "purge usage", err)
	}
	return int(n), nil
}
