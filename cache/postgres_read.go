package cache

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

const pgAppColumns = `slug, display_name, description, logo, categories, auth_schemes,
	composio_managed_auth_schemes, no_auth, action_count, trigger_count, status, latest_version,
	triggers, updated_at`

type pgAppScan struct {
	Slug                       string         `db:"slug"`
	DisplayName                string         `db:"display_name"`
	Description                string         `db:"description"`
	Logo                       string         `db:"logo"`
	Categories                 pq.StringArray `db:"categories"`
	AuthSchemes                pq.StringArray `db:"auth_schemes"`
	ComposioManagedAuthSchemes pq.StringArray `db:"composio_managed_auth_schemes"`
	NoAuth                     bool           `db:"no_auth"`
	ActionCount                int            `db:"action_count"`
	TriggerCount               int            `db:"trigger_count"`
	Status                     string         `db:"status"`
	LatestVersion              string         `db:"latest_version"`
	Triggers                   sql.NullString `db:"triggers"`
	UpdatedAt                  sql.NullTime   `db:"updated_at"`
	Total                      int            `db:"total"`
}

func (r pgAppScan) app() (App, error) {
	ts, err := pgDecodeTriggers(r.Triggers)
	if err != nil {
		return App{}, err
	}
	return App{
		Slug:                       r.Slug,
		DisplayName:                r.DisplayName,
		Description:                r.Description,
		Logo:                       r.Logo,
		Categories:                 r.Categories,
		AuthSchemes:                r.AuthSchemes,
		ComposioManagedAuthSchemes: r.ComposioManagedAuthSchemes,
		NoAuth:                     r.NoAuth,
		ActionCount:                r.ActionCount,
		TriggerCount:               r.TriggerCount,
		Status:                     r.Status,
		LatestVersion:              r.LatestVersion,
		Triggers:                   ts,
		UpdatedAt:                  pgTime(r.UpdatedAt),
	}, nil
}

// App returns the app with the given slug, or ErrNotFound.
func (p *Postgres) App(ctx context.Context, slug string) (App, error) {
	slug, err := normAppSlug(slug)
	if err != nil {
		return App{}, err
	}
	var r pgAppScan
	err = p.db.GetContext(ctx, &r, `SELECT `+pgAppColumns+` FROM apps WHERE slug = $1`, slug)
	if errors.Is(err, sql.ErrNoRows) {
		return App{}, fmt.Errorf("cache: app %q: %w", slug, ErrNotFound)
	}
	if err != nil {
		return App{}, fmt.Errorf("cache: app %q: %w", slug, pgErr(ctx, err))
	}
	return r.app()
}

// ListApps returns one page of apps ordered by slug, with the number of apps matching q.
func (p *Postgres) ListApps(ctx context.Context, q AppQuery) (AppPage, error) {
	limit, offset, err := pageBounds(q.Limit, q.Offset)
	if err != nil {
		return AppPage{}, err
	}
	if err := checkAppQuery(q); err != nil {
		return AppPage{}, err
	}
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if cat := strings.TrimSpace(q.Category); cat != "" {
		where = append(where, `categories_lower @> ARRAY[`+arg(strings.ToLower(cat))+`]::text[]`)
	}
	if q.Search != "" {
		where = append(where, `search LIKE `+arg(pgContains(strings.ToLower(q.Search)))+` ESCAPE '\'`)
	}
	if len(q.Hidden) > 0 {
		hidden := make([]string, len(q.Hidden))
		for i, h := range q.Hidden {
			hidden[i] = strings.ToLower(strings.TrimSpace(h))
		}
		where = append(where, `slug <> ALL(`+arg(pq.StringArray(hidden))+`)`)
	}
	cond := ""
	if len(where) > 0 {
		cond = ` WHERE ` + strings.Join(where, ` AND `)
	}
	var rows []pgAppScan
	query := `SELECT ` + pgAppColumns + `, count(*) OVER () AS total FROM apps` + cond +
		` ORDER BY slug LIMIT ` + arg(limit) + ` OFFSET ` + arg(offset)
	if err := p.db.SelectContext(ctx, &rows, query, args...); err != nil {
		return AppPage{}, fmt.Errorf("cache: list apps: %w", pgErr(ctx, err))
	}
	page := AppPage{Apps: make([]App, 0, len(rows))}
	for _, r := range rows {
		a, err := r.app()
		if err != nil {
			return AppPage{}, err
		}
		page.Apps = append(page.Apps, a)
		page.Total = r.Total
	}
	if len(rows) == 0 && offset > 0 {
		// The page is past the end; count the matches on their own (the last two
		// arguments are the limit and offset).
		if err := p.db.GetContext(ctx, &page.Total, `SELECT count(*) FROM apps`+cond, args[:len(args)-2]...); err != nil {
			return AppPage{}, fmt.Errorf("cache: list apps: %w", pgErr(ctx, err))
		}
	}
	return page, nil
}

// AppTriggers returns an app's triggers; ErrNotFound when the app is not stored.
func (p *Postgres) AppTriggers(ctx context.Context, app string) ([]Trigger, error) {
	app, err := normAppSlug(app)
	if err != nil {
		return nil, err
	}
	var raw sql.NullString
	err = p.db.GetContext(ctx, &raw, `SELECT triggers FROM apps WHERE slug = $1`, app)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("cache: app %q triggers: %w", app, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("cache: app %q triggers: %w", app, pgErr(ctx, err))
	}
	ts, err := pgDecodeTriggers(raw)
	if ts == nil && err == nil {
		ts = []Trigger{}
	}
	return ts, err
}

const pgActionColumns = `slug, app, display_name, display_name_derived, description, parameters,
	response, tags, version, deprecated, no_auth, destructive, read_only, fidelity, source, updated_at`

type pgActionScan struct {
	Slug               string         `db:"slug"`
	App                string         `db:"app"`
	DisplayName        string         `db:"display_name"`
	DisplayNameDerived bool           `db:"display_name_derived"`
	Description        string         `db:"description"`
	Parameters         sql.NullString `db:"parameters"`
	Response           sql.NullString `db:"response"`
	Tags               pq.StringArray `db:"tags"`
	Version            string         `db:"version"`
	Deprecated         bool           `db:"deprecated"`
	NoAuth             bool           `db:"no_auth"`
	Destructive        sql.NullBool   `db:"destructive"`
	ReadOnly           sql.NullBool   `db:"read_only"`
	Fidelity           string         `db:"fidelity"`
	Source             string         `db:"source"`
	UpdatedAt          sql.NullTime   `db:"updated_at"`
}

func (r pgActionScan) action() Action {
	return Action{
		App:                r.App,
		Slug:               r.Slug,
		DisplayName:        r.DisplayName,
		DisplayNameDerived: r.DisplayNameDerived,
		Description:        r.Description,
		Parameters:         pgRaw(r.Parameters),
		Response:           pgRaw(r.Response),
		Tags:               r.Tags,
		Version:            r.Version,
		Deprecated:         r.Deprecated,
		NoAuth:             r.NoAuth,
		Destructive:        pgNullBool(r.Destructive),
		ReadOnly:           pgNullBool(r.ReadOnly),
		Fidelity:           r.Fidelity,
		Source:             r.Source,
		UpdatedAt:          pgTime(r.UpdatedAt),
	}
}

func pgRaw(s sql.NullString) json.RawMessage {
	if !s.Valid {
		return nil
	}
	return json.RawMessage(s.String)
}

func pgNullBool(b sql.NullBool) *bool {
	if !b.Valid {
		return nil
	}
	v := b.Bool
	return &v
}

// pgSelectActions runs SELECT <action columns> FROM actions <tail>.
func pgSelectActions(ctx context.Context, q sqlx.QueryerContext, tail string, args ...any) ([]Action, error) {
	var rows []pgActionScan
	if err := sqlx.SelectContext(ctx, q, &rows, `SELECT `+pgActionColumns+` FROM actions `+tail, args...); err != nil {
		return nil, err
	}
	out := make([]Action, len(rows))
	for i, r := range rows {
		out[i] = r.action()
	}
	return out, nil
}

// Action returns the action with the given slug, or ErrNotFound.
func (p *Postgres) Action(ctx context.Context, slug string) (Action, error) {
	slug, err := normActionSlug(slug)
	if err != nil {
		return Action{}, err
	}
	var r pgActionScan
	err = p.db.GetContext(ctx, &r, `SELECT `+pgActionColumns+` FROM actions WHERE slug = $1`, slug)
	if errors.Is(err, sql.ErrNoRows) {
		return Action{}, fmt.Errorf("cache: action %q: %w", slug, ErrNotFound)
	}
	if err != nil {
		return Action{}, fmt.Errorf("cache: action %q: %w", slug, pgErr(ctx, err))
	}
	return r.action(), nil
}

// Actions lists actions ordered by app then slug.
func (p *Postgres) Actions(ctx context.Context, f ActionFilter) ([]Action, error) {
	if f.Limit < 0 || f.Offset < 0 {
		return nil, fmt.Errorf("cache: actions: %w: negative limit or offset", ErrInvalid)
	}
	limit := sql.NullInt64{Int64: int64(f.Limit), Valid: f.Limit > 0} // NULL: no limit
	var (
		out []Action
		err error
	)
	if len(f.Apps) > 0 {
		apps, nerr := normAppList(f.Apps)
		if nerr != nil {
			return nil, nerr
		}
		out, err = pgSelectActions(ctx, p.db, `WHERE app = ANY($1) ORDER BY app, slug LIMIT $2 OFFSET $3`,
			pq.StringArray(apps), limit, f.Offset)
	} else {
		out, err = pgSelectActions(ctx, p.db, `ORDER BY app, slug LIMIT $1 OFFSET $2`, limit, f.Offset)
	}
	if err != nil {
		return nil, fmt.Errorf("cache: actions: %w", pgErr(ctx, err))
	}
	return out, nil
}

// pgContains is a LIKE pattern matching s anywhere, with the pattern characters escaped by
// likeEscape (queries say ESCAPE '\').
func pgContains(s string) string {
	return "%" + likeEscape(s) + "%"
}
