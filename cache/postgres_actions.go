package cache

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/lib/pq"
)

// Limits of the decoded actions a Postgres keeps in memory for AppActions (see
// pgActionsCache).
const (
	// pgMaxCachedActionBytes bounds the estimated size of the actions cached for one
	// catalogue version. The shared catalogue (about 16,000 actions, most of it parameter
	// schemas) fits whole; an app that would take the total past the budget is read from
	// the database on every call instead.
	pgMaxCachedActionBytes = 64 << 20
	// pgActionOverhead estimates one cached action's size beyond its strings and JSON:
	// the Action struct, its slice headers and the map and slice entries around it.
	pgActionOverhead = 400
)

// pgAppActions is one app's actions as AppActions serves them. It is immutable once
// built: AppActions copies what it returns out of it.
type pgAppActions struct {
	actions []Action // ordered by slug, byte-wise
	search  []string // search[i] is the lower-cased slug, display name and description of actions[i]
	size    int      // estimated bytes, for pgMaxCachedActionBytes
}

// pgActionsCache holds the decoded actions of the apps AppActions has read, for the
// catalogue version of the pgMetaCache that holds it. It is guarded by Postgres.metaMu
// and dropped with that pgMetaCache when the version changes; its zero value is empty.
type pgActionsCache struct {
	apps map[string]*pgAppActions
	size int
}

// get returns app's cached actions, or nil. The caller holds metaMu for reading.
func (c *pgActionsCache) get(app string) *pgAppActions {
	return c.apps[app]
}

// add caches e as app's actions unless that would exceed pgMaxCachedActionBytes. The
// caller holds metaMu for writing.
func (c *pgActionsCache) add(app string, e *pgAppActions) {
	if _, ok := c.apps[app]; ok || c.size+e.size > pgMaxCachedActionBytes {
		return
	}
	if c.apps == nil {
		c.apps = map[string]*pgAppActions{}
	}
	c.apps[app] = e
	c.size += e.size
}

// AppActions returns one page of an app's actions, ordered by slug, each with its enabled
// state in q.WorkspaceID: an action is enabled when the workspace saved no list for the
// app (or saved nil) or when the saved list names it. ErrNotFound when the app is not
// stored.
//
// The store keeps each app's decoded actions in memory for the current catalogue version
// (see ActionMeta), so a call costs one small query, reading the version and the
// workspace's tool config together, plus the app's actions when they are not cached for
// that version. Searching and paging happen in memory. The returned actions are copies
// the caller may modify.
func (p *Postgres) AppActions(ctx context.Context, q AppActionsQuery) (ActionPage, error) {
	app, err := normAppSlug(q.App)
	if err != nil {
		return ActionPage{}, err
	}
	limit, offset, err := pageBounds(q.Limit, q.Offset)
	if err != nil {
		return ActionPage{}, err
	}
	if err := checkActionsQuery(q); err != nil {
		return ActionPage{}, err
	}
	var (
		e       *pgAppActions
		enabled map[string]bool // nil: every action is enabled
	)
	for range pgMetaAttempts {
		var v int64
		if v, enabled, err = p.readActionConfig(ctx, q.WorkspaceID, app); err != nil {
			return ActionPage{}, err
		}
		c := p.metaCacheFor(v)
		p.metaMu.RLock()
		e = c.actions.get(app)
		p.metaMu.RUnlock()
		if e != nil {
			break
		}
		fv, f, err := p.fetchAppActions(ctx, app)
		if err != nil {
			return ActionPage{}, err
		}
		e = f
		if fv == v {
			if e != nil {
				p.metaMu.Lock()
				c.actions.add(app, e)
				p.metaMu.Unlock()
			}
			break
		}
		// The catalogue changed between the two reads: read the config again so that it
		// and the actions are read close together. After the last attempt the actions
		// fetched (of a later version than the config) are served uncached.
	}
	if e == nil {
		return ActionPage{}, fmt.Errorf("cache: app %q actions: %w", app, ErrNotFound)
	}
	return e.page(strings.ToLower(q.Search), limit, offset, enabled), nil
}

// page selects the actions of e whose search text contains search (all when empty),
// skipping offset and keeping limit, and copies them with their enabled state.
func (e *pgAppActions) page(search string, limit, offset int, enabled map[string]bool) ActionPage {
	var sel []int
	total := 0
	for i := range e.actions {
		if search != "" && !strings.Contains(e.search[i], search) {
			continue
		}
		if total >= offset && len(sel) < limit {
			sel = append(sel, i)
		}
		total++
	}
	// One buffer each for the JSON, tags and flags of the page, as the memory store copies.
	cp := newActionCopier(len(sel), func(k int) *Action { return &e.actions[sel[k]] })
	out := ActionPage{Actions: make([]ActionState, len(sel)), Total: total}
	for k, i := range sel {
		a := e.actions[i]
		out.Actions[k] = ActionState{Action: cp.copy(a), Enabled: enabled == nil || enabled[a.Slug]}
	}
	return out
}

// readActionConfig reads, in one statement, the catalogue version and the actions
// workspaceID enabled for app: nil when it saved no list (or no config), meaning all.
func (p *Postgres) readActionConfig(ctx context.Context, workspaceID, app string) (int64, map[string]bool, error) {
	var (
		v          int64
		restricted bool
		list       pq.StringArray
	)
	err := p.db.QueryRowContext(ctx, `SELECT v.version, c.enabled_actions IS NOT NULL, c.enabled_actions
		FROM catalog_version v LEFT JOIN tool_configs c ON c.workspace_id = $1 AND c.app = $2`,
		workspaceID, app).Scan(&v, &restricted, &list)
	if err != nil {
		return 0, nil, fmt.Errorf("cache: app %q actions: %w", app, pgErr(ctx, err))
	}
	if !restricted {
		return v, nil, nil
	}
	enabled := make(map[string]bool, len(list))
	for _, s := range list {
		enabled[s] = true
	}
	return v, enabled, nil
}

// fetchAppActions reads and decodes every action of app with the catalogue version they
// belong to, in one statement. The actions are nil when the app is not stored.
func (p *Postgres) fetchAppActions(ctx context.Context, app string) (int64, *pgAppActions, error) {
	// The rows come unordered (sorting here is cheaper than on the server); the version
	// and the app's existence are joined in so that all is read in one snapshot.
	rows, err := p.db.QueryContext(ctx, `SELECT v.version, a.slug IS NOT NULL,
			m.slug, m.app, m.display_name, m.display_name_derived, m.description, m.parameters,
			m.response, m.tags, m.version, m.deprecated, m.no_auth, m.destructive, m.read_only,
			m.fidelity, m.source, m.updated_at, m.search
		FROM catalog_version v LEFT JOIN apps a ON a.slug = $1 LEFT JOIN actions m ON m.app = a.slug`, app)
	if err != nil {
		return 0, nil, fmt.Errorf("cache: app %q actions: %w", app, pgErr(ctx, err))
	}
	defer rows.Close()
	var (
		version int64
		found   bool
		fetched []pgFetchedAction
	)
	for rows.Next() {
		var (
			r                                                pgActionScan
			slug, appSlug, name, desc, ver, fidelity, source sql.NullString
			derived, deprecated, noAuth                      sql.NullBool
			search                                           sql.NullString
		)
		if err := rows.Scan(&version, &found, &slug, &appSlug, &name, &derived, &desc, &r.Parameters,
			&r.Response, &r.Tags, &ver, &deprecated, &noAuth, &r.Destructive, &r.ReadOnly,
			&fidelity, &source, &r.UpdatedAt, &search); err != nil {
			return 0, nil, fmt.Errorf("cache: app %q actions: %w", app, pgErr(ctx, err))
		}
		if !slug.Valid { // the app is missing or has no actions: the row carries the rest
			continue
		}
		r.Slug, r.App, r.DisplayName, r.DisplayNameDerived = slug.String, appSlug.String, name.String, derived.Bool
		r.Description, r.Version, r.Deprecated, r.NoAuth = desc.String, ver.String, deprecated.Bool, noAuth.Bool
		r.Fidelity, r.Source = fidelity.String, source.String
		fetched = append(fetched, pgFetchedAction{a: r.action(), search: search.String})
	}
	if err := rows.Err(); err != nil {
		return 0, nil, fmt.Errorf("cache: app %q actions: %w", app, pgErr(ctx, err))
	}
	if !found {
		return version, nil, nil
	}
	// Byte-wise order, as the "C" collation of the slug column sorts.
	slices.SortFunc(fetched, func(x, y pgFetchedAction) int { return strings.Compare(x.a.Slug, y.a.Slug) })
	e := &pgAppActions{actions: make([]Action, len(fetched)), search: make([]string, len(fetched))}
	for i, f := range fetched {
		e.actions[i], e.search[i] = f.a, f.search
		a := &f.a
		e.size += pgActionOverhead + len(a.Slug) + len(a.App) + len(a.DisplayName) + len(a.Description) +
			len(a.Parameters) + len(a.Response) + len(a.Version) + len(a.Fidelity) + len(a.Source) + len(f.search)
		for _, tag := range a.Tags {
			e.size += 16 + len(tag)
		}
	}
	return version, e, nil
}

// pgFetchedAction is one action read by fetchAppActions with its search text.
type pgFetchedAction struct {
	a      Action
	search string
}
