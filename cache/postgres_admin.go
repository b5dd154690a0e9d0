package cache

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Stats returns every stored statistic by key. The map is the caller's.
func (p *Postgres) Stats(ctx context.Context) (map[string]json.RawMessage, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT key, value FROM stats`)
	if err != nil {
		return nil, pgWrap(ctx, "stats", err)
	}
	defer rows.Close()
	out := map[string]json.RawMessage{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, pgWrap(ctx, "stats", err)
		}
		out[k] = json.RawMessage(v)
	}
	if err := rows.Err(); err != nil {
		return nil, pgWrap(ctx, "stats", err)
	}
	return out, nil
}

// PutStats stores statistics by key, replacing the keys given and keeping the others, in one
// statement. Each value must be valid JSON; it is stored byte-exact.
func (p *Postgres) PutStats(ctx context.Context, stats map[string]json.RawMessage) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkStats(stats); err != nil {
		return err
	}
	if len(stats) == 0 {
		return nil
	}
	keys := make([]string, 0, len(stats))
	for k := range stats {
		keys = append(keys, k)
	}
	slices.Sort(keys) // a fixed lock order for concurrent writers
	values := make([]string, len(keys))
	for i, k := range keys {
		values[i] = string(stats[k])
	}
	_, err := p.db.ExecContext(ctx, `INSERT INTO stats (key, value, updated_at)
		SELECT k, v::json, $3 FROM unnest($1::text[], $2::text[]) AS x(k, v)
		ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
		pq.StringArray(keys), pq.StringArray(values), pgNow())
	return pgWrap(ctx, "put stats", err)
}

type pgJobScan struct {
	ID             int64        `db:"id"`
	Type           string       `db:"type"`
	Status         string       `db:"status"`
	AppsSynced     int          `db:"apps_synced"`
	ActionsSynced  int          `db:"actions_synced"`
	ActionsDeleted int          `db:"actions_deleted"`
	StartedAt      sql.NullTime `db:"started_at"`
	FinishedAt     sql.NullTime `db:"finished_at"`
	Error          string       `db:"error"`
}

func (r pgJobScan) job() SyncJob {
	return SyncJob{ID: r.ID, Type: r.Type, Status: r.Status, AppsSynced: r.AppsSynced,
		ActionsSynced: r.ActionsSynced, ActionsDeleted: r.ActionsDeleted,
		StartedAt: pgTime(r.StartedAt), FinishedAt: pgTime(r.FinishedAt), Error: r.Error}
}

const pgJobColumns = `id, type, status, apps_synced, actions_synced, actions_deleted, started_at, finished_at, error`

// StartSyncJob records a new running sync job of the given type and returns it.
func (p *Postgres) StartSyncJob(ctx context.Context, jobType string) (SyncJob, error) {
	if err := ctx.Err(); err != nil {
		return SyncJob{}, err
	}
	if err := checkJobType(jobType); err != nil {
		return SyncJob{}, err
	}
	var r pgJobScan
	err := p.db.GetContext(ctx, &r, `INSERT INTO sync_jobs (type, status, started_at) VALUES ($1, $2, $3)
		RETURNING `+pgJobColumns, jobType, JobRunning, pgNow())
	if err != nil {
		return SyncJob{}, pgWrap(ctx, "start sync job", err)
	}
	return r.job(), nil
}

// FinishSyncJob records the end of a running job: its status (succeeded, failed or
// cancelled), counts and error text. FinishedAt is set by the store. ErrNotFound when the
// job does not exist, ErrConflict when it has already finished.
func (p *Postgres) FinishSyncJob(ctx context.Context, job SyncJob) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkJobEnd(job); err != nil {
		return err
	}
	res, err := p.db.ExecContext(ctx, `UPDATE sync_jobs SET status = $2, apps_synced = $3,
		actions_synced = $4, actions_deleted = $5, error = $6, finished_at = $7
		WHERE id = $1 AND status = $8`, job.ID, job.Status, job.AppsSynced, job.ActionsSynced,
		job.ActionsDeleted, job.Error, pgNow(), JobRunning)
	if err != nil {
		return pgWrap(ctx, "finish sync job", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return pgWrap(ctx, "finish sync job", err)
	} else if n == 1 {
		return nil
	}
	var status string
	err = p.db.GetContext(ctx, &status, `SELECT status FROM sync_jobs WHERE id = $1`, job.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("cache: sync job %d: %w", job.ID, ErrNotFound)
	}
	if err != nil {
		return pgWrap(ctx, "finish sync job", err)
	}
	return fmt.Errorf("cache: sync job %d: %w: already %s", job.ID, ErrConflict, status)
}

// SyncJobs lists sync jobs newest first; limit 0 means 20.
func (p *Postgres) SyncJobs(ctx context.Context, limit int) ([]SyncJob, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if limit < 0 {
		return nil, fmt.Errorf("cache: %w: negative limit", ErrInvalid)
	}
	if limit == 0 {
		limit = defaultJobLimit
	}
	var rows []pgJobScan
	if err := p.db.SelectContext(ctx, &rows, `SELECT `+pgJobColumns+` FROM sync_jobs ORDER BY id DESC LIMIT $1`, limit); err != nil {
		return nil, pgWrap(ctx, "sync jobs", err)
	}
	out := make([]SyncJob, len(rows))
	for i, r := range rows {
		out[i] = r.job()
	}
	return out, nil
}

// AssignApp gives an agent the use of an app, or updates the assignment's type and active
// flag when it exists (CreatedAt is kept). The app need not be in the catalogue.
func (p *Postgres) AssignApp(ctx context.Context, a Assignment) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	na, err := normAssignment(a)
	if err != nil {
		return err
	}
	_, err = p.db.ExecContext(ctx, `INSERT INTO agent_apps (agent_id, app, type, active, created_at)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (agent_id, app) DO UPDATE SET type = EXCLUDED.type, active = EXCLUDED.active`,
		na.AgentID, na.App, na.Type, na.Active, pgNow())
	return pgWrap(ctx, "assign app", err)
}

// UnassignApp removes an assignment; ErrNotFound when there is none.
func (p *Postgres) UnassignApp(ctx context.Context, agentID int64, app string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s, err := normAppSlug(app)
	if err != nil {
		return err
	}
	res, err := p.db.ExecContext(ctx, `DELETE FROM agent_apps WHERE agent_id = $1 AND app = $2`, agentID, s)
	if err != nil {
		return pgWrap(ctx, "unassign app", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return pgWrap(ctx, "unassign app", err)
	} else if n == 0 {
		return fmt.Errorf("cache: agent %d app %q assignment: %w", agentID, s, ErrNotFound)
	}
	return nil
}

// AgentApps lists an agent's assignments, active or not, ordered by app.
func (p *Postgres) AgentApps(ctx context.Context, agentID int64) ([]Assignment, error) {
	var rows []struct {
		AgentID   int64        `db:"agent_id"`
		App       string       `db:"app"`
		Type      string       `db:"type"`
		Active    bool         `db:"active"`
		CreatedAt sql.NullTime `db:"created_at"`
	}
	if err := p.db.SelectContext(ctx, &rows, `SELECT agent_id, app, type, active, created_at
		FROM agent_apps WHERE agent_id = $1 ORDER BY app`, agentID); err != nil {
		return nil, pgWrap(ctx, "agent apps", err)
	}
	out := make([]Assignment, len(rows))
	for i, r := range rows {
		out[i] = Assignment{AgentID: r.AgentID, App: r.App, Type: r.Type, Active: r.Active, CreatedAt: pgTime(r.CreatedAt)}
	}
	return out, nil
}

type pgConnScan struct {
	WorkspaceID        string       `db:"workspace_id"`
	App                string       `db:"app"`
	Status             string       `db:"status"`
	ConnectedAccountID string       `db:"connection_id"`
	ConnectedAt        sql.NullTime `db:"connected_at"`
	UpdatedAt          sql.NullTime `db:"updated_at"`
}

func (r pgConnScan) conn() Connection {
	return Connection{WorkspaceID: r.WorkspaceID, App: r.App, Status: ConnectionStatus(r.Status),
		ConnectedAccountID: r.ConnectedAccountID, ConnectedAt: pgTime(r.ConnectedAt), UpdatedAt: pgTime(r.UpdatedAt)}
}

const pgConnColumns = `workspace_id, app, status, connection_id, connected_at, updated_at`

// AddConnection creates a connection in status added. See Store.
func (p *Postgres) AddConnection(ctx context.Context, workspaceID, app string) (Connection, error) {
	if err := ctx.Err(); err != nil {
		return Connection{}, err
	}
	app, err := normConnArgs(workspaceID, app)
	if err != nil {
		return Connection{}, err
	}
	var r pgConnScan
	err = p.db.GetContext(ctx, &r, `INSERT INTO connections (workspace_id, app, status, updated_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING `+pgConnColumns,
		workspaceID, app, string(StatusAdded), pgNow())
	if errors.Is(err, sql.ErrNoRows) {
		err = p.db.GetContext(ctx, &r, `SELECT `+pgConnColumns+` FROM connections WHERE workspace_id = $1 AND app = $2`,
			workspaceID, app)
		switch {
		case errors.Is(err, sql.ErrNoRows): // removed since the insert: report what the insert saw
			return Connection{}, fmt.Errorf("cache: workspace %q app %q connection: %w: it existed a moment ago", workspaceID, app, ErrConflict)
		case err != nil:
			return Connection{}, pgWrap(ctx, "add connection", err)
		case ConnectionStatus(r.Status) == StatusAdded:
			return r.conn(), nil
		}
		return Connection{}, fmt.Errorf("cache: workspace %q app %q connection: %w: it exists in status %s", workspaceID, app, ErrConflict, r.Status)
	}
	if err != nil {
		return Connection{}, pgWrap(ctx, "add connection", err)
	}
	return r.conn(), nil
}

// SetConnectionStatus moves a connection to another status. See Store.
func (p *Postgres) SetConnectionStatus(ctx context.Context, workspaceID, app string, to ConnectionStatus, connectedAccountID string) (Connection, error) {
	if err := ctx.Err(); err != nil {
		return Connection{}, err
	}
	app, err := normConnArgs(workspaceID, app)
	if err != nil {
		return Connection{}, err
	}
	if err := checkConnTarget(to, connectedAccountID); err != nil {
		return Connection{}, err
	}
	var out Connection
	err = p.inTx(ctx, func(tx *sqlx.Tx) error {
		var r pgConnScan
		// FOR UPDATE: the transition is checked against the status no one else can change.
		err := tx.GetContext(ctx, &r, `SELECT `+pgConnColumns+` FROM connections
			WHERE workspace_id = $1 AND app = $2 FOR UPDATE`, workspaceID, app)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("cache: workspace %q app %q connection: %w", workspaceID, app, ErrNotFound)
		}
		if err != nil {
			return err
		}
		from := ConnectionStatus(r.Status)
		c := r.conn()
		same := from == to
		if same {
			write, err := sameStatus(c, connectedAccountID)
			if err != nil || !write {
				out = c
				return err
			}
		} else if !CanTransition(from, to) {
			return fmt.Errorf("cache: workspace %q app %q connection: %w: %s -> %s", workspaceID, app, ErrTransition, from, to)
		}
		t := pgNow()
		c.Status = to
		if connectedAccountID != "" {
			c.ConnectedAccountID = connectedAccountID
		}
		if to == StatusActive && !same {
			c.ConnectedAt = t
		}
		c.UpdatedAt = t
		connected := sql.NullTime{Time: c.ConnectedAt, Valid: !c.ConnectedAt.IsZero()}
		if _, err := tx.ExecContext(ctx, `UPDATE connections SET status = $3, connection_id = $4,
			connected_at = $5, updated_at = $6 WHERE workspace_id = $1 AND app = $2`,
			workspaceID, app, string(c.Status), c.ConnectedAccountID, connected, c.UpdatedAt); err != nil {
			return err
		}
		out = c
		return nil
	})
	if err != nil {
		return Connection{}, pgWrap(ctx, "set connection status", err)
	}
	return out, nil
}

// RemoveConnection deletes a connection in any status; ErrNotFound when there is none.
func (p *Postgres) RemoveConnection(ctx context.Context, workspaceID, app string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	app, err := normConnArgs(workspaceID, app)
	if err != nil {
		return err
	}
	res, err := p.db.ExecContext(ctx, `DELETE FROM connections WHERE workspace_id = $1 AND app = $2`, workspaceID, app)
	if err != nil {
		return pgWrap(ctx, "remove connection", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return pgWrap(ctx, "remove connection", err)
	} else if n == 0 {
		return fmt.Errorf("cache: workspace %q app %q connection: %w", workspaceID, app, ErrNotFound)
	}
	return nil
}

// Connection returns one connection; ErrNotFound when there is none.
func (p *Postgres) Connection(ctx context.Context, workspaceID, app string) (Connection, error) {
	if err := ctx.Err(); err != nil {
		return Connection{}, err
	}
	app, err := normConnArgs(workspaceID, app)
	if err != nil {
		return Connection{}, err
	}
	var r pgConnScan
	err = p.db.GetContext(ctx, &r, `SELECT `+pgConnColumns+` FROM connections WHERE workspace_id = $1 AND app = $2`, workspaceID, app)
	if errors.Is(err, sql.ErrNoRows) {
		return Connection{}, fmt.Errorf("cache: workspace %q app %q connection: %w", workspaceID, app, ErrNotFound)
	}
	if err != nil {
		return Connection{}, pgWrap(ctx, "connection", err)
	}
	return r.conn(), nil
}

// Connections lists connections ordered by app (then workspace). See Store.
func (p *Postgres) Connections(ctx context.Context, workspaceID string, statuses ...ConnectionStatus) ([]Connection, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkConnFilter(workspaceID, statuses); err != nil {
		return nil, err
	}
	var filter pq.StringArray // NULL: any status
	for _, s := range statuses {
		filter = append(filter, string(s))
	}
	var rows []pgConnScan
	err := p.db.SelectContext(ctx, &rows, `SELECT `+pgConnColumns+` FROM connections
		WHERE ($1 = '' OR workspace_id = $1) AND ($2::text[] IS NULL OR status = ANY($2))
		ORDER BY app, workspace_id`, workspaceID, filter)
	if err != nil {
		return nil, pgWrap(ctx, "connections", err)
	}
	out := make([]Connection, len(rows))
	for i, r := range rows {
		out[i] = r.conn()
	}
	return out, nil
}

// SaveEnabledActions sets a workspace's enabled actions for an app: nil enables every
// action, an empty list none. ErrNotFound when the app is not stored, ErrInvalid when a slug
// is not an action of the app. The app-level switch (SetAppEnabled) is kept.
func (p *Postgres) SaveEnabledActions(ctx context.Context, workspaceID, app string, actions []string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	app, err := normConnArgs(workspaceID, app)
	if err != nil {
		return err
	}
	list, err := normEnabledActions(actions)
	if err != nil {
		return err
	}
	err = p.inTx(ctx, func(tx *sqlx.Tx) error {
		// FOR SHARE keeps the app (and with it its actions) from being deleted under us.
		var found string
		err := tx.GetContext(ctx, &found, `SELECT slug FROM apps WHERE slug = $1 FOR SHARE`, app)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("cache: app %q: %w", app, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if len(list) > 0 {
			var bad []string
			if err := tx.SelectContext(ctx, &bad, `SELECT x FROM unnest($1::text[]) AS x
				WHERE NOT EXISTS (SELECT 1 FROM actions WHERE slug = x AND app = $2) ORDER BY x LIMIT 1`,
				pq.StringArray(list), app); err != nil {
				return err
			}
			if len(bad) > 0 {
				return fmt.Errorf("cache: %w: %q is not an action of app %q", ErrInvalid, bad[0], app)
			}
		}
		var enabled any = pq.StringArray(list)
		if list == nil {
			enabled = nil
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO tool_configs (workspace_id, app, enabled, enabled_actions, updated_at)
			VALUES ($1, $2, true, $3, $4)
			ON CONFLICT (workspace_id, app) DO UPDATE SET enabled_actions = EXCLUDED.enabled_actions,
				updated_at = EXCLUDED.updated_at`, workspaceID, app, enabled, pgNow())
		return err
	})
	return pgWrap(ctx, "save enabled actions", err)
}

// SetAppEnabled switches an app on or off for a workspace, keeping its enabled actions.
// ErrNotFound when the app is not stored.
func (p *Postgres) SetAppEnabled(ctx context.Context, workspaceID, app string, enabled bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	app, err := normConnArgs(workspaceID, app)
	if err != nil {
		return err
	}
	var n int
	// INSERT ... SELECT from apps: nothing is written when the app is not stored.
	err = p.db.GetContext(ctx, &n, `WITH w AS (
			INSERT INTO tool_configs (workspace_id, app, enabled, enabled_actions, updated_at)
			SELECT $1, slug, $3, NULL, $4 FROM apps WHERE slug = $2
			ON CONFLICT (workspace_id, app) DO UPDATE SET enabled = EXCLUDED.enabled,
				updated_at = EXCLUDED.updated_at
			RETURNING 1)
		SELECT count(*) FROM w`, workspaceID, app, enabled, pgNow())
	if err != nil {
		return pgWrap(ctx, "set app enabled", err)
	}
	if n == 0 {
		return fmt.Errorf("cache: app %q: %w", app, ErrNotFound)
	}
	return nil
}

type pgConfigScan struct {
	WorkspaceID    string         `db:"workspace_id"`
	App            string         `db:"app"`
	Enabled        bool           `db:"enabled"`
	EnabledActions pq.StringArray `db:"enabled_actions"`
	UpdatedAt      sql.NullTime   `db:"updated_at"`
}

func (r pgConfigScan) config() ToolConfig {
	var list []string
	if r.EnabledActions != nil {
		list = append([]string{}, r.EnabledActions...) // empty stays empty: no action enabled
	}
	return ToolConfig{WorkspaceID: r.WorkspaceID, App: r.App, Enabled: r.Enabled,
		EnabledActions: list, UpdatedAt: pgTime(r.UpdatedAt)}
}

const pgConfigColumns = `workspace_id, app, enabled, enabled_actions, updated_at`

// ToolConfig returns a workspace's configuration of an app; ErrNotFound when none was saved.
func (p *Postgres) ToolConfig(ctx context.Context, workspaceID, app string) (ToolConfig, error) {
	if err := ctx.Err(); err != nil {
		return ToolConfig{}, err
	}
	app, err := normConnArgs(workspaceID, app)
	if err != nil {
		return ToolConfig{}, err
	}
	var r pgConfigScan
	err = p.db.GetContext(ctx, &r, `SELECT `+pgConfigColumns+` FROM tool_configs WHERE workspace_id = $1 AND app = $2`, workspaceID, app)
	if errors.Is(err, sql.ErrNoRows) {
		return ToolConfig{}, fmt.Errorf("cache: workspace %q app %q tool config: %w", workspaceID, app, ErrNotFound)
	}
	if err != nil {
		return ToolConfig{}, pgWrap(ctx, "tool config", err)
	}
	return r.config(), nil
}

// ToolConfigs lists a workspace's tool configurations ordered by app.
func (p *Postgres) ToolConfigs(ctx context.Context, workspaceID string) ([]ToolConfig, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkWorkspace(workspaceID); err != nil {
		return nil, err
	}
	var rows []pgConfigScan
	if err := p.db.SelectContext(ctx, &rows, `SELECT `+pgConfigColumns+` FROM tool_configs
		WHERE workspace_id = $1 ORDER BY app`, workspaceID); err != nil {
		return nil, pgWrap(ctx, "tool configs", err)
	}
	out := make([]ToolConfig, len(rows))
	for i, r := range rows {
		out[i] = r.config()
	}
	return out, nil
}
