package cache

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Postgres implements PluginStore.
var _ PluginStore = (*Postgres)(nil)

type pgPluginScan struct {
	Slug          string         `db:"slug"`
	Name          string         `db:"name"`
	Version       string         `db:"version"`
	Description   string         `db:"description"`
	Author        string         `db:"author"`
	Source        string         `db:"source"`
	WorkspaceID   sql.NullString `db:"workspace_id"`
	Skills        string         `db:"skills"`
	Commands      string         `db:"commands"`
	TokenEstimate int            `db:"token_estimate"`
	Metadata      sql.NullString `db:"metadata"`
	CreatedAt     sql.NullTime   `db:"created_at"`
	UpdatedAt     sql.NullTime   `db:"updated_at"`
}

const pgPluginColumns = `slug, name, version, description, author, source, workspace_id, skills, commands,
	token_estimate, metadata, created_at, updated_at`

func (r pgPluginScan) plugin() (Plugin, error) {
	p := Plugin{Slug: r.Slug, Name: r.Name, Version: r.Version, Description: r.Description, Author: r.Author,
		Source: r.Source, WorkspaceID: r.WorkspaceID.String, TokenEstimate: r.TokenEstimate,
		CreatedAt: pgTime(r.CreatedAt), UpdatedAt: pgTime(r.UpdatedAt)}
	if err := json.Unmarshal([]byte(r.Skills), &p.Skills); err != nil {
		return Plugin{}, fmt.Errorf("cache: plugin %q: stored skills: %w", r.Slug, err)
	}
	if err := json.Unmarshal([]byte(r.Commands), &p.Commands); err != nil {
		return Plugin{}, fmt.Errorf("cache: plugin %q: stored commands: %w", r.Slug, err)
	}
	if r.Metadata.Valid {
		p.Metadata = json.RawMessage(r.Metadata.String)
	}
	return copyPlugin(p), nil
}

// pgJSONList encodes a slice for a json column: "[]" when empty.
func pgJSONList[T any](s []T) (string, error) {
	if len(s) == 0 {
		return "[]", nil
	}
	b, err := json.Marshal(s)
	return string(b), err
}

// PutPlugin creates or replaces a plugin. See PluginStore.
func (p *Postgres) PutPlugin(ctx context.Context, pl Plugin) (Plugin, error) {
	if err := ctx.Err(); err != nil {
		return Plugin{}, err
	}
	np, err := normPlugin(pl)
	if err != nil {
		return Plugin{}, err
	}
	skills, err := pgJSONList(np.Skills)
	if err != nil {
		return Plugin{}, fmt.Errorf("%w: plugin %q: skills: %v", ErrInvalid, np.Slug, err)
	}
	commands, err := pgJSONList(np.Commands)
	if err != nil {
		return Plugin{}, fmt.Errorf("%w: plugin %q: commands: %v", ErrInvalid, np.Slug, err)
	}
	ws := sql.NullString{String: np.WorkspaceID, Valid: np.WorkspaceID != ""}
	meta := sql.NullString{String: string(np.Metadata), Valid: np.Metadata != nil}
	var out Plugin
	err = p.inTx(ctx, func(tx *sqlx.Tx) error {
		// The row lock keeps enablements from appearing while the scope check runs.
		var existing []string
		if err := tx.SelectContext(ctx, &existing, `SELECT slug FROM plugins WHERE slug = $1 FOR UPDATE`, np.Slug); err != nil {
			return err
		}
		if len(existing) > 0 && ws.Valid {
			var other []string
			if err := tx.SelectContext(ctx, &other, `SELECT workspace_id FROM workspace_plugins
				WHERE plugin = $1 AND workspace_id <> $2 ORDER BY workspace_id LIMIT 1`, np.Slug, np.WorkspaceID); err != nil {
				return err
			}
			if len(other) > 0 {
				return fmt.Errorf("%w: plugin %q is enabled in workspace %q; it cannot move to workspace %q", ErrConflict, np.Slug, other[0], np.WorkspaceID)
			}
		}
		var r pgPluginScan
		t := pgNow()
		if err := tx.GetContext(ctx, &r, `INSERT INTO plugins (slug, name, version, description, author, source, workspace_id,
				skills, commands, skills_count, commands_count, token_estimate, metadata, search, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)
			ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name, version = EXCLUDED.version,
				description = EXCLUDED.description, author = EXCLUDED.author, source = EXCLUDED.source,
				workspace_id = EXCLUDED.workspace_id, skills = EXCLUDED.skills, commands = EXCLUDED.commands,
				skills_count = EXCLUDED.skills_count, commands_count = EXCLUDED.commands_count,
				token_estimate = EXCLUDED.token_estimate, metadata = EXCLUDED.metadata, search = EXCLUDED.search,
				updated_at = EXCLUDED.updated_at
			RETURNING `+pgPluginColumns,
			np.Slug, np.Name, np.Version, np.Description, np.Author, np.Source, ws, skills, commands,
			len(np.Skills), len(np.Commands), np.TokenEstimate, meta,
			pgSearchText(np.Slug, np.Name, np.Description), t); err != nil {
			return err
		}
		out, err = r.plugin()
		return err
	})
	if err != nil {
		return Plugin{}, pgWrap(ctx, "put plugin", err)
	}
	return out, nil
}

// Plugin returns one plugin; ErrNotFound when there is none.
func (p *Postgres) Plugin(ctx context.Context, slug string) (Plugin, error) {
	if err := ctx.Err(); err != nil {
		return Plugin{}, err
	}
	s, err := normPluginSlug(slug)
	if err != nil {
		return Plugin{}, err
	}
	var r pgPluginScan
	err = p.db.GetContext(ctx, &r, `SELECT `+pgPluginColumns+` FROM plugins WHERE slug = $1`, s)
	if errors.Is(err, sql.ErrNoRows) {
		return Plugin{}, fmt.Errorf("cache: plugin %q: %w", s, ErrNotFound)
	}
	if err != nil {
		return Plugin{}, pgWrap(ctx, "plugin", err)
	}
	return r.plugin()
}

// Plugins lists plugins ordered by slug. See PluginStore.
func (p *Postgres) Plugins(ctx context.Context, q PluginQuery) (PluginPage, error) {
	if err := ctx.Err(); err != nil {
		return PluginPage{}, err
	}
	limit, offset, err := pageBounds(q.Limit, q.Offset)
	if err != nil {
		return PluginPage{}, err
	}
	if err := checkPluginQuery(q); err != nil {
		return PluginPage{}, err
	}
	pattern := "%" + likeEscape(strings.ToLower(q.Search)) + "%"
	var rows []struct {
		pgPluginScan
		Total int `db:"total"`
	}
	err = p.db.SelectContext(ctx, &rows, `SELECT `+pgPluginColumns+`, count(*) OVER () AS total FROM plugins
		WHERE (workspace_id IS NULL OR workspace_id = $1) AND search LIKE $2 ESCAPE '\'
		ORDER BY slug LIMIT $3 OFFSET $4`, q.WorkspaceID, pattern, limit, offset)
	if err != nil {
		return PluginPage{}, pgWrap(ctx, "plugins", err)
	}
	page := PluginPage{Plugins: make([]Plugin, 0, len(rows))}
	for _, r := range rows {
		pl, err := r.plugin()
		if err != nil {
			return PluginPage{}, err
		}
		page.Plugins = append(page.Plugins, pl)
		page.Total = r.Total
	}
	if len(rows) == 0 && offset > 0 {
		// The window count comes with the rows; past the end, count on its own.
		if err := p.db.GetContext(ctx, &page.Total, `SELECT count(*) FROM plugins
			WHERE (workspace_id IS NULL OR workspace_id = $1) AND search LIKE $2 ESCAPE '\'`, q.WorkspaceID, pattern); err != nil {
			return PluginPage{}, pgWrap(ctx, "plugins", err)
		}
	}
	return page, nil
}

// DeletePlugin deletes a plugin with its enablements and assignments. See PluginStore.
func (p *Postgres) DeletePlugin(ctx context.Context, slug string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s, err := normPluginSlug(slug)
	if err != nil {
		return err
	}
	res, err := p.db.ExecContext(ctx, `DELETE FROM plugins WHERE slug = $1`, s)
	return pgAffected(ctx, "delete plugin", res, err, fmt.Errorf("cache: plugin %q: %w", s, ErrNotFound))
}

// pgAffected returns notFound when a statement changed no row, and the store's error when
// it failed.
func pgAffected(ctx context.Context, op string, res sql.Result, err, notFound error) error {
	if err != nil {
		return pgWrap(ctx, op, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return pgWrap(ctx, op, err)
	}
	if n == 0 {
		return notFound
	}
	return nil
}

type pgEnableScan struct {
	WorkspaceID string       `db:"workspace_id"`
	Plugin      string       `db:"plugin"`
	EnabledBy   string       `db:"enabled_by"`
	EnabledAt   sql.NullTime `db:"enabled_at"`
}

func (r pgEnableScan) enablement() PluginEnablement {
	return PluginEnablement{WorkspaceID: r.WorkspaceID, Plugin: r.Plugin, EnabledBy: r.EnabledBy, EnabledAt: pgTime(r.EnabledAt)}
}

// EnablePlugin enables a plugin for a workspace. See PluginStore.
func (p *Postgres) EnablePlugin(ctx context.Context, workspaceID, slug, enabledBy string) (PluginEnablement, error) {
	if err := ctx.Err(); err != nil {
		return PluginEnablement{}, err
	}
	s, err := normEnableArgs(workspaceID, slug, enabledBy)
	if err != nil {
		return PluginEnablement{}, err
	}
	var out PluginEnablement
	err = p.inTx(ctx, func(tx *sqlx.Tx) error {
		// FOR SHARE: the plugin cannot change scope or go away until this commits.
		var visible []bool
		if err := tx.SelectContext(ctx, &visible, `SELECT workspace_id IS NULL OR workspace_id = $2 FROM plugins
			WHERE slug = $1 FOR SHARE`, s, workspaceID); err != nil {
			return err
		}
		if len(visible) == 0 || !visible[0] {
			return fmt.Errorf("cache: plugin %q for workspace %q: %w", s, workspaceID, ErrNotFound)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO workspace_plugins (workspace_id, plugin, enabled_by, enabled_at)
			VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, workspaceID, s, enabledBy, pgNow()); err != nil {
			return err
		}
		var r pgEnableScan
		if err := tx.GetContext(ctx, &r, `SELECT workspace_id, plugin, enabled_by, enabled_at FROM workspace_plugins
			WHERE workspace_id = $1 AND plugin = $2`, workspaceID, s); err != nil {
			return err
		}
		out = r.enablement()
		return nil
	})
	if err != nil {
		return PluginEnablement{}, pgWrap(ctx, "enable plugin", err)
	}
	return out, nil
}

// DisablePlugin disables a plugin for a workspace; the foreign key removes its assignments
// there. See PluginStore.
func (p *Postgres) DisablePlugin(ctx context.Context, workspaceID, slug string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s, err := normEnableArgs(workspaceID, slug, "")
	if err != nil {
		return err
	}
	res, err := p.db.ExecContext(ctx, `DELETE FROM workspace_plugins WHERE workspace_id = $1 AND plugin = $2`, workspaceID, s)
	return pgAffected(ctx, "disable plugin", res, err,
		fmt.Errorf("cache: plugin %q is not enabled in workspace %q: %w", s, workspaceID, ErrNotFound))
}

// EnabledPlugins lists a workspace's enabled plugins ordered by slug.
func (p *Postgres) EnabledPlugins(ctx context.Context, workspaceID string) ([]PluginEnablement, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkWorkspace(workspaceID); err != nil {
		return nil, err
	}
	var rows []pgEnableScan
	if err := p.db.SelectContext(ctx, &rows, `SELECT workspace_id, plugin, enabled_by, enabled_at FROM workspace_plugins
		WHERE workspace_id = $1 ORDER BY plugin`, workspaceID); err != nil {
		return nil, pgWrap(ctx, "enabled plugins", err)
	}
	out := make([]PluginEnablement, len(rows))
	for i, r := range rows {
		out[i] = r.enablement()
	}
	return out, nil
}

// SetAgentPlugins replaces an agent's plugin assignments in one transaction. See
// PluginStore.
func (p *Postgres) SetAgentPlugins(ctx context.Context, workspaceID string, agentID int64, slugs []string) ([]PluginAssignment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	list, err := normAssignArgs(workspaceID, agentID, slugs)
	if err != nil {
		return nil, err
	}
	var out []PluginAssignment
	err = p.inTx(ctx, func(tx *sqlx.Tx) error {
		// One writer per agent at a time (in this schema): the delete-then-insert below
		// would otherwise collide with a concurrent replacement on the primary key.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || ':agent_plugins:' || $1::text, 0))`, agentID); err != nil {
			return err
		}
		if len(list) > 0 {
			// Name the first plugin that is missing, then the first that is not enabled; the
			// enablements found are locked until commit, so none is disabled under us.
			var missing []string
			if err := tx.SelectContext(ctx, &missing, `SELECT x FROM unnest($1::text[]) WITH ORDINALITY AS u(x, i)
				WHERE NOT EXISTS (SELECT 1 FROM plugins WHERE slug = x) ORDER BY i LIMIT 1`, pq.StringArray(list)); err != nil {
				return err
			}
			if len(missing) > 0 {
				return fmt.Errorf("cache: plugin %q: %w", missing[0], ErrNotFound)
			}
			var enabled []string
			if err := tx.SelectContext(ctx, &enabled, `SELECT plugin FROM workspace_plugins
				WHERE workspace_id = $1 AND plugin = ANY($2) FOR SHARE`, workspaceID, pq.StringArray(list)); err != nil {
				return err
			}
			for _, s := range list {
				if !slices.Contains(enabled, s) {
					return fmt.Errorf("%w: plugin %q in workspace %q (agent %d)", ErrPluginNotEnabled, s, workspaceID, agentID)
				}
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM agent_plugins WHERE agent_id = $1`, agentID); err != nil {
			return err
		}
		at := pgNow()
		out = make([]PluginAssignment, len(list))
		for i, s := range list {
			out[i] = PluginAssignment{AgentID: agentID, WorkspaceID: workspaceID, Plugin: s, Priority: i, AssignedAt: at}
		}
		if len(list) == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO agent_plugins (agent_id, workspace_id, plugin, priority, assigned_at)
			SELECT $1, $2, x, i - 1, $4 FROM unnest($3::text[]) WITH ORDINALITY AS u(x, i)`,
			agentID, workspaceID, pq.StringArray(list), at)
		return err
	})
	if err != nil {
		var pe *pq.Error
		if errors.As(err, &pe) && pe.Code == pgForeignKeyViolation {
			// Disabled between the check and the insert by a writer that did not lock.
			return nil, fmt.Errorf("cache: set agent plugins: %w: %s", ErrPluginNotEnabled, pe.Message)
		}
		return nil, pgWrap(ctx, "set agent plugins", err)
	}
	return out, nil
}

// AgentPlugins lists an agent's plugin assignments by priority, numbered 0, 1, 2, … (a
// disabled plugin leaves no gap).
func (p *Postgres) AgentPlugins(ctx context.Context, agentID int64) ([]PluginAssignment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	}
	var rows []struct {
		AgentID     int64        `db:"agent_id"`
		WorkspaceID string       `db:"workspace_id"`
		Plugin      string       `db:"plugin"`
		AssignedAt  sql.NullTime `db:"assigned_at"`
	}
	if err := p.db.SelectContext(ctx, &rows, `SELECT agent_id, workspace_id, plugin, assigned_at FROM agent_plugins
		WHERE agent_id = $1 ORDER BY priority`, agentID); err != nil {
		return nil, pgWrap(ctx, "agent plugins", err)
	}
	out := make([]PluginAssignment, len(rows))
	for i, r := range rows {
		out[i] = PluginAssignment{AgentID: r.AgentID, WorkspaceID: r.WorkspaceID, Plugin: r.Plugin, Priority: i, AssignedAt: pgTime(r.AssignedAt)}
	}
	return out, nil
}
