package cache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Limits of the decoded metadata a Postgres keeps in memory (see pgMetaCache). Metadata
// entries are about 170 bytes each plus their strings.
const (
	// pgMaxCachedMetas bounds the per-app metadata entries kept for one catalogue version
	// (an app known to have no metadata counts one). The shared catalogue holds about
	// 16,000 actions, so it fits whole.
	pgMaxCachedMetas = 1 << 18
	// pgMaxViewMetas bounds the entries of the memoised concatenations for sets of apps,
	// as maxViewMetas does for the memory store.
	pgMaxViewMetas = 1 << 16
	// pgMetaAttempts is how many times ActionMeta tries to fill the cache when the
	// catalogue keeps changing under it before reading without the cache.
	pgMetaAttempts = 3
)

// pgMetaCache is the decoded action metadata of one catalogue version (catalog_version in
// the database). The slices it holds are shared read-only with ActionMeta callers, as the
// memory store's are, so that hint reuses its per-app term index across calls. Its maps
// are guarded by Postgres.metaMu; a cache is dropped, never emptied, when the version
// changes.
type pgMetaCache struct {
	version int64
	// apps holds each cached app's metadata ordered by action; an empty slice for an app
	// known to have none.
	apps map[string][]ActionMeta
	size int // entries in apps, an empty app counting one
	// complete says apps holds every app that has metadata: an app not in it has none.
	// all then lists those apps in order.
	complete bool
	all      []string
	// views memoises the result for a set of apps (key: sorted slugs joined by ","; ""
	// for all apps), bounded by pgMaxViewMetas entries in total.
	views    map[string][]ActionMeta
	viewSize int
	// actions holds the decoded actions AppActions serves, for the same version.
	actions pgActionsCache
}

func newPgMetaCache(version int64) *pgMetaCache {
	return &pgMetaCache{version: version, apps: map[string][]ActionMeta{}, views: map[string][]ActionMeta{}}
}

// pgMetaKey is the views key of a request: "" for all apps.
func pgMetaKey(list []string, all bool) string {
	if all {
		return ""
	}
	return strings.Join(list, ",")
}

// lookup returns the cached result for list (every app when all is set). Single apps get
// their own shared slice, sets of apps a memoised concatenation; ok is false when some app
// is not cached. The caller holds metaMu for writing when memo is set, else for reading.
func (c *pgMetaCache) lookup(list []string, all, memo bool) (out []ActionMeta, ok bool) {
	if all {
		if !c.complete {
			return nil, false
		}
		list = c.all
	}
	if len(list) == 1 && !all {
		ms, ok := c.get(list[0])
		if !ok {
			return nil, false
		}
		return ms[:len(ms):len(ms)], true
	}
	key := pgMetaKey(list, all)
	if v, ok := c.views[key]; ok {
		return v, true
	}
	n := 0
	for _, s := range list {
		ms, ok := c.get(s)
		if !ok {
			return nil, false
		}
		n += len(ms)
	}
	if !memo {
		return nil, false
	}
	out = make([]ActionMeta, 0, n)
	for _, s := range list {
		ms, _ := c.get(s)
		out = append(out, ms...)
	}
	if c.viewSize+n <= pgMaxViewMetas {
		c.views[key] = out
		c.viewSize += n
	}
	return out, true
}

// get returns one app's cached metadata; ok is false when the cache does not know it.
func (c *pgMetaCache) get(app string) ([]ActionMeta, bool) {
	if ms, ok := c.apps[app]; ok {
		return ms, true
	}
	if c.complete {
		return []ActionMeta{}, true
	}
	return nil, false
}

// missing returns the apps of list the cache does not know.
func (c *pgMetaCache) missing(list []string) []string {
	var out []string
	for _, s := range list {
		if _, ok := c.get(s); !ok {
			out = append(out, s)
		}
	}
	return out
}

// add stores the fetched metadata of apps (every app when all is set), within
// pgMaxCachedMetas. fetched maps each app with metadata to it, ordered by action. The
// caller holds metaMu for writing.
func (c *pgMetaCache) add(apps []string, all bool, fetched map[string][]ActionMeta) {
	if all {
		apps = slices.Sorted(maps.Keys(fetched))
	}
	stored := true
	for _, s := range apps {
		if _, ok := c.apps[s]; ok {
			continue
		}
		ms := fetched[s]
		if ms == nil {
			ms = []ActionMeta{}
		}
		if c.size+max(len(ms), 1) > pgMaxCachedMetas {
			stored = false
			continue
		}
		c.apps[s] = ms
		c.size += max(len(ms), 1)
	}
	if all && stored {
		c.complete = true
		c.all = make([]string, 0, len(fetched))
		for _, s := range apps {
			if len(fetched[s]) > 0 {
				c.all = append(c.all, s)
			}
		}
	}
}

// ActionMeta returns the metadata of every action of the given apps (all apps when apps is
// empty), ordered by app then action. Unknown apps contribute nothing.
//
// The store keeps decoded metadata in memory, per app, for the current catalogue version,
// a counter in the database that every catalogue write increments in its transaction; each
// call reads the counter (one small query) and fetches only apps not yet cached for it, so
// writes by other processes are seen on the next call. The result, and the slices inside
// each ActionMeta, are shared with the store and with other callers and must not be
// modified.
func (p *Postgres) ActionMeta(ctx context.Context, apps []string) ([]ActionMeta, error) {
	all := len(apps) == 0
	var list []string
	if !all {
		var err error
		if list, err = normAppList(apps); err != nil {
			return nil, err
		}
	}
	for range pgMetaAttempts {
		var v int64
		if err := p.db.QueryRowContext(ctx, `SELECT version FROM catalog_version`).Scan(&v); err != nil {
			return nil, pgWrap(ctx, "action meta", err)
		}
		c := p.metaCacheFor(v)
		p.metaMu.RLock()
		out, ok := c.lookup(list, all, false)
		need, fetchAll := c.missing(list), all && !c.complete
		p.metaMu.RUnlock()
		if ok {
			return out, nil
		}
		var fetched map[string][]ActionMeta
		if len(need) > 0 || fetchAll {
			fv, f, err := p.fetchMeta(ctx, need, fetchAll)
			if err != nil {
				return nil, err
			}
			if fv != v {
				continue // the catalogue changed in between: start again at its new version
			}
			fetched = f
		}
		p.metaMu.Lock()
		c.add(need, fetchAll, fetched)
		out, ok = c.lookup(list, all, true)
		if !ok && !all {
			// The cache is full: answer from what it holds and what was fetched.
			out = []ActionMeta{}
			for _, s := range list {
				ms, known := c.get(s)
				if !known {
					ms = fetched[s]
				}
				out = append(out, ms...)
			}
			ok = true
		}
		p.metaMu.Unlock()
		if ok {
			return out, nil
		}
		break
	}
	// The catalogue kept changing, or it does not fit the cache: read it uncached.
	_, fetched, err := p.fetchMeta(ctx, list, all)
	if err != nil {
		return nil, err
	}
	if all {
		list = slices.Sorted(maps.Keys(fetched))
	}
	out := []ActionMeta{}
	for _, s := range list {
		out = append(out, fetched[s]...)
	}
	return out, nil
}

// metaCacheFor returns the metadata cache of catalogue version v, replacing the store's
// cache when v is newer. A v older than the cache's (a concurrent call already saw a later
// version) gets a cache of its own that is not kept.
func (p *Postgres) metaCacheFor(v int64) *pgMetaCache {
	p.metaMu.RLock()
	c := p.meta
	p.metaMu.RUnlock()
	if c != nil && c.version == v {
		return c
	}
	p.metaMu.Lock()
	defer p.metaMu.Unlock()
	switch {
	case p.meta == nil || p.meta.version < v:
		p.meta = newPgMetaCache(v)
		return p.meta
	case p.meta.version == v:
		return p.meta
	default:
		return newPgMetaCache(v)
	}
}

// fetchMeta reads and decodes the metadata of apps (every app when all is set) together
// with the catalogue version it belongs to, in one statement. The result maps each app
// with metadata to its entries ordered by action; the slices are capped, so appending to
// one never writes into another.
func (p *Postgres) fetchMeta(ctx context.Context, apps []string, all bool) (int64, map[string][]ActionMeta, error) {
	// The rows come unordered (a server-side sort costs more than sorting here); the
	// version is joined in so that it and the rows are read in one snapshot.
	var (
		rows *sql.Rows
		err  error
	)
	const cols = `SELECT v.version, m.action, m.app, m.packed FROM catalog_version v `
	if all {
		rows, err = p.db.QueryContext(ctx, cols+`LEFT JOIN action_meta m ON true`)
	} else {
		rows, err = p.db.QueryContext(ctx, cols+`LEFT JOIN action_meta m ON m.app = ANY($1)`, pq.StringArray(apps))
	}
	if err != nil {
		return 0, nil, pgWrap(ctx, "action meta", err)
	}
	defer rows.Close()
	var (
		version int64
		metas   []ActionMeta
	)
	for rows.Next() {
		var action, app, packed sql.NullString
		if err := rows.Scan(&version, &action, &app, &packed); err != nil {
			return 0, nil, pgWrap(ctx, "action meta", err)
		}
		if !action.Valid { // no metadata matched: the row carries only the version
			continue
		}
		m := ActionMeta{Action: action.String, App: app.String}
		if err := pgUnpackMeta(packed.String, &m); err != nil {
			return 0, nil, fmt.Errorf("cache: action meta %s: %w", m.Action, err)
		}
		metas = append(metas, m)
	}
	if err := rows.Err(); err != nil {
		return 0, nil, pgWrap(ctx, "action meta", err)
	}
	// Byte-wise order, as the "C" collation of the slug columns sorts.
	slices.SortFunc(metas, func(x, y ActionMeta) int {
		if c := strings.Compare(x.App, y.App); c != 0 {
			return c
		}
		return strings.Compare(x.Action, y.Action)
	})
	out := map[string][]ActionMeta{}
	for i := 0; i < len(metas); {
		j := i + 1
		for j < len(metas) && metas[j].App == metas[i].App {
			j++
		}
		out[metas[i].App] = metas[i:j:j]
		i = j
	}
	return version, out, nil
}

// pgBumpCatalogVersion records in tx that the catalogue changed, so that every store's
// cached metadata is dropped once tx commits.
func pgBumpCatalogVersion(ctx context.Context, tx *sqlx.Tx) error {
	res, err := tx.ExecContext(ctx, `UPDATE catalog_version SET version = version + 1`)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n != 1 {
		return errors.New("catalog_version does not hold exactly one row")
	}
	return nil
}
