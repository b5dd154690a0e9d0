package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Apply writes a batch all-or-nothing in one transaction, classifying every action written.
// Rows whose content is unchanged are not rewritten: they keep their UpdatedAt and count as
// unchanged. New and changed actions are streamed to the server with COPY.
func (p *Postgres) Apply(ctx context.Context, b Batch) (ApplyResult, error) {
	if err := ctx.Err(); err != nil {
		return ApplyResult{}, err
	}
	nb, err := normBatch(b)
	if err != nil {
		return ApplyResult{}, err
	}
	if len(nb.Apps)+len(nb.Actions)+len(nb.DeleteApps)+len(nb.DeleteActions) == 0 {
		return ApplyResult{}, nil
	}
	return p.writeTx(ctx, func(w *pgWriter) error { return w.write(nb) })
}

// Postgres implements batchApplier.
var _ batchApplier = (*Postgres)(nil)

// applyBatches writes the batches produce hands over in one transaction, one batch at a
// time, so that only the batch being written is held in memory. See batchApplier.
func (p *Postgres) applyBatches(ctx context.Context, produce func(apply func(Batch) error) error) (ApplyResult, error) {
	if err := ctx.Err(); err != nil {
		return ApplyResult{}, err
	}
	return p.writeTx(ctx, func(w *pgWriter) error {
		var seq batchSeq
		return produce(func(b Batch) error {
			nb, err := seq.norm(b)
			if err != nil {
				return err
			}
			return w.write(nb)
		})
	})
}

// pgWriter is one catalogue write transaction: the batches written so far and what they
// changed.
type pgWriter struct {
	ctx        context.Context
	tx         *sqlx.Tx
	classifier Classifier
	now        time.Time
	res        ApplyResult
}

// writeTx runs fn with a pgWriter in a transaction holding the catalogue write lock, and
// when anything changed bumps the catalogue version and stores the catalogue's knowledge.
func (p *Postgres) writeTx(ctx context.Context, fn func(w *pgWriter) error) (ApplyResult, error) {
	classifier := p.currentClassifier()
	var res ApplyResult
	err := p.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := pgLockWrites(ctx, tx); err != nil {
			return err
		}
		w := &pgWriter{ctx: ctx, tx: tx, classifier: classifier, now: pgNow()}
		if err := fn(w); err != nil {
			return err
		}
		res = w.res
		if res.AppsWritten+res.ActionsWritten+res.AppsDeleted+res.ActionsDeleted == 0 {
			return nil // nothing changed: cached metadata stays valid
		}
		if err := pgPutKnowledge(ctx, tx); err != nil {
			return fmt.Errorf("catalog knowledge: %w", err)
		}
		return pgBumpCatalogVersion(ctx, tx)
	})
	if err != nil {
		return ApplyResult{}, pgWrap(ctx, "apply", err)
	}
	return res, nil
}

// write applies one normalised batch and adds what it changed to w.res.
func (w *pgWriter) write(nb Batch) error {
	ctx, tx := w.ctx, w.tx
	var found []string
	if need := batchActionApps(nb); len(need) > 0 {
		if err := tx.SelectContext(ctx, &found, `SELECT slug FROM apps WHERE slug = ANY($1)`, pq.StringArray(need)); err != nil {
			return err
		}
	}
	stored := make(map[string]bool, len(found))
	for _, s := range found {
		stored[s] = true
	}
	// Checked before sorting, so that a refused action's index is its index in the batch.
	if err := checkActionApps(nb, func(app string) bool { return stored[app] }); err != nil {
		return err
	}
	// Sorted by slug: concurrent writers lock rows in one order.
	slices.SortFunc(nb.Apps, func(x, y App) int { return strings.Compare(x.Slug, y.Slug) })
	slices.SortFunc(nb.Actions, func(x, y Action) int { return strings.Compare(x.Slug, y.Slug) })
	touched := map[string]bool{} // apps whose action count may have changed
	if err := pgApplyDeletes(ctx, tx, nb, &w.res, touched); err != nil {
		return err
	}
	if err := pgApplyApps(ctx, tx, nb.Apps, w.now, &w.res); err != nil {
		return err
	}
	if err := pgApplyActions(ctx, tx, nb.Actions, w.classifier, w.now, &w.res, touched); err != nil {
		return err
	}
	if len(touched) > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE apps SET action_count =
			(SELECT count(*) FROM actions WHERE actions.app = apps.slug) WHERE slug = ANY($1)`,
			pq.StringArray(slices.Sorted(maps.Keys(touched)))); err != nil {
			return err
		}
	}
	return nil
}

func pgApplyDeletes(ctx context.Context, tx *sqlx.Tx, b Batch, res *ApplyResult, touched map[string]bool) error {
	if len(b.DeleteApps) > 0 {
		var n int
		// The app's actions and their metadata go by ON DELETE CASCADE; they are counted
		// first so ActionsDeleted includes them.
		if err := tx.GetContext(ctx, &n, `WITH d AS (DELETE FROM actions WHERE app = ANY($1) RETURNING 1)
			SELECT count(*) FROM d`, pq.StringArray(b.DeleteApps)); err != nil {
			return err
		}
		res.ActionsDeleted += n
		if err := tx.GetContext(ctx, &n, `WITH d AS (DELETE FROM apps WHERE slug = ANY($1) RETURNING 1)
			SELECT count(*) FROM d`, pq.StringArray(b.DeleteApps)); err != nil {
			return err
		}
		res.AppsDeleted += n
	}
	if len(b.DeleteActions) > 0 {
		var apps []string
		if err := tx.SelectContext(ctx, &apps, `DELETE FROM actions WHERE slug = ANY($1) RETURNING app`,
			pq.StringArray(b.DeleteActions)); err != nil {
			return err
		}
		res.ActionsDeleted += len(apps)
		for _, a := range apps {
			touched[a] = true
		}
	}
	return nil
}

// pgStored is what Apply needs to know of a stored row: its content hash and, for an action,
// its app.
type pgStored struct {
	hash []byte
	app  string
}

// pgExistingHashes returns the stored rows of table whose slug is in slugs. appCol is the
// column holding the row's app ("slug" for apps).
func pgExistingHashes(ctx context.Context, tx *sqlx.Tx, table, appCol string, slugs []string) (map[string]pgStored, error) {
	out := make(map[string]pgStored, len(slugs))
	if len(slugs) == 0 {
		return out, nil
	}
	// table and appCol are constants, never input.
	rows, err := tx.QueryContext(ctx, `SELECT slug, `+appCol+`, content_hash FROM `+table+` WHERE slug = ANY($1)`, pq.StringArray(slugs))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var slug string
		var st pgStored
		if err := rows.Scan(&slug, &st.app, &st.hash); err != nil {
			return nil, err
		}
		out[slug] = st
	}
	return out, rows.Err()
}

// pgAppRow is one app as json_to_recordset reads it.
type pgAppRow struct {
	Slug                       string   `json:"slug"`
	DisplayName                string   `json:"display_name"`
	Description                string   `json:"description"`
	Logo                       string   `json:"logo"`
	Categories                 []string `json:"categories"`
	CategoriesLower            []string `json:"categories_lower"`
	AuthSchemes                []string `json:"auth_schemes"`
	ComposioManagedAuthSchemes []string `json:"composio_managed_auth_schemes"`
	NoAuth                     bool     `json:"no_auth"`
	ActionCount                int      `json:"action_count"`
	TriggerCount               int      `json:"trigger_count"`
	Status                     string   `json:"status"`
	LatestVersion              string   `json:"latest_version"`
	Triggers                   *string  `json:"triggers"` // JSON text, kept byte-exact
	Search                     string   `json:"search"`
	ContentHash                string   `json:"content_hash"`
	UpdatedAt                  string   `json:"updated_at"`
}

func pgApplyApps(ctx context.Context, tx *sqlx.Tx, apps []App, now time.Time, res *ApplyResult) error {
	if len(apps) == 0 {
		return nil
	}
	slugs := make([]string, len(apps))
	for i, a := range apps {
		slugs[i] = a.Slug
	}
	old, err := pgExistingHashes(ctx, tx, "apps", "slug", slugs)
	if err != nil {
		return err
	}
	var rows []pgAppRow
	for _, a := range apps {
		h := pgHashApp(a)
		if prev, ok := old[a.Slug]; ok && bytes.Equal(prev.hash, h) {
			res.AppsUnchanged++
			continue
		}
		rows = append(rows, pgAppRow{
			Slug:                       a.Slug,
			DisplayName:                a.DisplayName,
			Description:                a.Description,
			Logo:                       a.Logo,
			Categories:                 a.Categories,
			CategoriesLower:            pgLowerAll(a.Categories),
			AuthSchemes:                a.AuthSchemes,
			ComposioManagedAuthSchemes: a.ComposioManagedAuthSchemes,
			NoAuth:                     a.NoAuth,
			ActionCount:                a.ActionCount,
			TriggerCount:               a.TriggerCount,
			Status:                     a.Status,
			LatestVersion:              a.LatestVersion,
			Triggers:                   pgEncodeTriggers(a.Triggers),
			Search:                     pgSearchText(a.Slug, a.DisplayName, a.Description),
			ContentHash:                hex.EncodeToString(h),
			UpdatedAt:                  now.Format(time.RFC3339Nano),
		})
	}
	res.AppsWritten += len(rows)
	if len(rows) == 0 {
		return nil
	}
	doc, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO apps (slug, display_name, description, logo, categories,
			categories_lower, auth_schemes, composio_managed_auth_schemes, no_auth, action_count,
			trigger_count, status, latest_version, triggers, search, content_hash, updated_at)
		SELECT x.slug, x.display_name, x.description, x.logo, x.categories,
			coalesce(x.categories_lower, '{}'), x.auth_schemes, x.composio_managed_auth_schemes, x.no_auth,
			x.action_count, x.trigger_count, x.status, x.latest_version, x.triggers::json, x.search,
			decode(x.content_hash, 'hex'), x.updated_at
		FROM json_to_recordset($1::json) AS x(slug text, display_name text, description text, logo text,
			categories text[], categories_lower text[], auth_schemes text[],
			composio_managed_auth_schemes text[], no_auth boolean, action_count integer,
			trigger_count integer, status text, latest_version text, triggers text,
			search text, content_hash text, updated_at timestamptz)
		ON CONFLICT (slug) DO UPDATE SET
			display_name = EXCLUDED.display_name,
			description = EXCLUDED.description,
			logo = EXCLUDED.logo,
			categories = EXCLUDED.categories,
			categories_lower = EXCLUDED.categories_lower,
			auth_schemes = EXCLUDED.auth_schemes,
			composio_managed_auth_schemes = EXCLUDED.composio_managed_auth_schemes,
			no_auth = EXCLUDED.no_auth,
			trigger_count = EXCLUDED.trigger_count,
			status = EXCLUDED.status,
			latest_version = EXCLUDED.latest_version,
			triggers = EXCLUDED.triggers,
			search = EXCLUDED.search,
			content_hash = EXCLUDED.content_hash,
			updated_at = EXCLUDED.updated_at`, string(doc))
	return err
}

func pgApplyActions(ctx context.Context, tx *sqlx.Tx, actions []Action, c Classifier, now time.Time, res *ApplyResult, touched map[string]bool) error {
	if len(actions) == 0 {
		return nil
	}
	slugs := make([]string, len(actions))
	for i, a := range actions {
		slugs[i] = a.Slug
	}
	old, err := pgExistingHashes(ctx, tx, "actions", "app", slugs)
	if err != nil {
		return err
	}
	var changed []Action
	var hashes [][]byte
	var replaced []string
	for _, a := range actions {
		h := pgHashAction(a)
		prev, ok := old[a.Slug]
		if ok && bytes.Equal(prev.hash, h) {
			res.ActionsUnchanged++
			continue
		}
		if ok {
			replaced = append(replaced, a.Slug)
			touched[prev.app] = true
		}
		touched[a.App] = true
		changed = append(changed, a)
		hashes = append(hashes, h)
	}
	res.ActionsWritten += len(changed)
	if len(changed) == 0 {
		return nil
	}
	// A changed action is replaced whole: deleting it (and, by cascade, its metadata) and
	// copying it in again is one bulk statement each way instead of a row-by-row update.
	if len(replaced) > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM actions WHERE slug = ANY($1)`, pq.StringArray(replaced)); err != nil {
			return err
		}
	}
	err = pgCopy(ctx, tx, `COPY actions (slug, app, display_name, display_name_derived, description,
		parameters, response, tags, version, deprecated, no_auth, destructive, read_only, fidelity,
		source, search, content_hash, updated_at) FROM STDIN`, len(changed), func(i int) []any {
		a := changed[i]
		return []any{a.Slug, a.App, a.DisplayName, a.DisplayNameDerived, a.Description,
			pgJSONText(a.Parameters), pgJSONText(a.Response), pq.StringArray(a.Tags), a.Version,
			a.Deprecated, a.NoAuth, pgBoolPtr(a.Destructive), pgBoolPtr(a.ReadOnly), a.Fidelity,
			a.Source, pgSearchText(a.Slug, a.DisplayName, a.Description), hashes[i], now}
	})
	if err != nil {
		return err
	}
	return pgCopyMeta(ctx, tx, changed, c)
}

// pgCopyMeta classifies actions with c (see classifyAll) and copies their metadata in. The
// caller has removed any metadata the actions had.
func pgCopyMeta(ctx context.Context, tx *sqlx.Tx, actions []Action, c Classifier) error {
	metas, err := classifyAll(ctx, c, actions)
	if err != nil {
		return err
	}
	for _, m := range metas {
		// pgUnpackMeta would not read a NaN back; infinities are refused with it.
		if math.IsNaN(m.Confidence) || math.IsInf(m.Confidence, 0) {
			return fmt.Errorf("%w: classifier gave %s a confidence of %v", ErrInvalid, m.Action, m.Confidence)
		}
	}
	return pgCopy(ctx, tx, `COPY action_meta (action, app, capabilities, keywords, destructive,
		read_only, confidence, slug_terms, name_terms, desc_terms, params, packed) FROM STDIN`, len(metas), func(i int) []any {
		m := metas[i]
		return []any{m.Action, m.App, pq.StringArray(m.Capabilities), pq.StringArray(m.Keywords),
			m.Destructive, m.ReadOnly, m.Confidence, pq.StringArray(m.SlugTerms),
			pq.StringArray(m.NameTerms), pq.StringArray(m.DescTerms), pgParamsJSON(m.Params), pgPackMeta(m)}
	})
}

// pgCopy streams n rows into the server with a COPY ... FROM STDIN statement.
func pgCopy(ctx context.Context, tx *sqlx.Tx, query string, n int, row func(i int) []any) error {
	stmt, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	for i := range n {
		if _, err := stmt.ExecContext(ctx, row(i)...); err != nil {
			_ = stmt.Close()
			return err
		}
	}
	if _, err := stmt.ExecContext(ctx); err != nil {
		_ = stmt.Close()
		return err
	}
	return stmt.Close()
}

// Reclassify recomputes every action's metadata with c, in one transaction, and returns how
// many actions it classified. A nil c means the store's classifier.
func (p *Postgres) Reclassify(ctx context.Context, c Classifier) (int, error) {
	if c == nil {
		c = p.currentClassifier()
	}
	var n int
	err := p.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := pgLockWrites(ctx, tx); err != nil {
			return err
		}
		actions, err := pgSelectActions(ctx, tx, `ORDER BY slug`)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM action_meta`); err != nil {
			return err
		}
		if err := pgBumpCatalogVersion(ctx, tx); err != nil {
			return err
		}
		n = len(actions)
		if n == 0 {
			return nil
		}
		return pgCopyMeta(ctx, tx, actions, c)
	})
	if err != nil {
		return 0, pgWrap(ctx, "reclassify", err)
	}
	return n, nil
}

// pgJSONText passes raw JSON as text (a []byte would be sent as bytea); nil is NULL.
func pgJSONText(raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	return string(raw)
}

func pgBoolPtr(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

func pgParamsJSON(ps []Param) any {
	if ps == nil {
		return nil
	}
	b, err := json.Marshal(ps)
	if err != nil {
		return nil // cannot happen: Param holds only strings and a bool
	}
	return string(b)
}

func pgLowerAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

// pgSearchText is what text search matches: the lower-cased slug, display name and
// description, separated by a character that search input is unlikely to hold (PostgreSQL
// text cannot hold the NUL the memory store uses).
func pgSearchText(slug, name, desc string) string {
	return strings.ToLower(slug + "\x1f" + name + "\x1f" + desc)
}

// pgTrigger is how a trigger is kept in the apps.triggers column. Config is held as a JSON
// string of its bytes, not as a nested value: encoding/json would compact a nested
// json.RawMessage and drop whitespace around it, and the store keeps it byte-exact.
type pgTrigger struct {
	Slug        string  `json:"slug"`
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	Config      *string `json:"config,omitempty"`
}

// pgEncodeTriggers returns the JSON text stored for ts; nil gives nil (NULL).
func pgEncodeTriggers(ts []Trigger) *string {
	if ts == nil {
		return nil
	}
	rows := make([]pgTrigger, len(ts))
	for i, t := range ts {
		rows[i] = pgTrigger{Slug: t.Slug, Name: t.Name, Description: t.Description}
		if t.Config != nil {
			c := string(t.Config)
			rows[i].Config = &c
		}
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return nil // cannot happen: pgTrigger holds only strings
	}
	s := string(b)
	return &s
}

// pgDecodeTriggers reads what pgEncodeTriggers wrote.
func pgDecodeTriggers(raw sql.NullString) ([]Trigger, error) {
	if !raw.Valid {
		return nil, nil
	}
	var rows []pgTrigger
	if err := json.Unmarshal([]byte(raw.String), &rows); err != nil {
		return nil, fmt.Errorf("cache: stored triggers: %w", err)
	}
	ts := make([]Trigger, len(rows))
	for i, r := range rows {
		ts[i] = Trigger{Slug: r.Slug, Name: r.Name, Description: r.Description}
		if r.Config != nil {
			ts[i].Config = json.RawMessage(*r.Config)
		}
	}
	return ts, nil
}

// pgHasher hashes content field by field. Each field is length-prefixed and nil slices are
// told from empty ones, so different contents cannot collide by concatenation.
type pgHasher struct{ buf []byte }

func (h *pgHasher) str(s string) {
	h.buf = binary.AppendUvarint(h.buf, uint64(len(s)))
	h.buf = append(h.buf, s...)
}

func (h *pgHasher) raw(b []byte) {
	if b == nil {
		h.buf = append(h.buf, 0)
		return
	}
	h.buf = append(h.buf, 1)
	h.buf = binary.AppendUvarint(h.buf, uint64(len(b)))
	h.buf = append(h.buf, b...)
}

func (h *pgHasher) strs(ss []string) {
	if ss == nil {
		h.buf = append(h.buf, 0)
		return
	}
	h.buf = append(h.buf, 1)
	h.buf = binary.AppendUvarint(h.buf, uint64(len(ss)))
	for _, s := range ss {
		h.str(s)
	}
}

func (h *pgHasher) boolean(b bool) {
	if b {
		h.buf = append(h.buf, 1)
	} else {
		h.buf = append(h.buf, 0)
	}
}

func (h *pgHasher) boolPtr(b *bool) {
	switch {
	case b == nil:
		h.buf = append(h.buf, 2)
	default:
		h.boolean(*b)
	}
}

func (h *pgHasher) int(n int) { h.buf = binary.AppendVarint(h.buf, int64(n)) }

func (h *pgHasher) sum() []byte {
	s := sha256.Sum256(h.buf)
	return s[:]
}

// pgHashApp hashes everything about an app but its UpdatedAt.
func pgHashApp(a App) []byte {
	var h pgHasher
	h.str("app/1")
	h.str(a.Slug)
	h.str(a.DisplayName)
	h.str(a.Description)
	h.str(a.Logo)
	h.strs(a.Categories)
	h.strs(a.AuthSchemes)
	h.strs(a.ComposioManagedAuthSchemes)
	h.boolean(a.NoAuth)
	h.int(a.ActionCount)
	h.int(a.TriggerCount)
	h.str(a.Status)
	h.str(a.LatestVersion)
	if a.Triggers == nil {
		h.buf = append(h.buf, 0)
	} else {
		h.buf = append(h.buf, 1)
		h.int(len(a.Triggers))
		for _, t := range a.Triggers {
			h.str(t.Slug)
			h.str(t.Name)
			h.str(t.Description)
			h.raw(t.Config)
		}
	}
	return h.sum()
}

// pgHashAction hashes everything about an action but its UpdatedAt.
func pgHashAction(a Action) []byte {
	h := pgHasher{buf: make([]byte, 0, 256+len(a.Description)+len(a.Parameters)+len(a.Response))}
	h.str("action/1")
	h.str(a.App)
	h.str(a.Slug)
	h.str(a.DisplayName)
	h.boolean(a.DisplayNameDerived)
	h.str(a.Description)
	h.raw(a.Parameters)
	h.raw(a.Response)
	h.strs(a.Tags)
	h.str(a.Version)
	h.boolean(a.Deprecated)
	h.boolean(a.NoAuth)
	h.boolPtr(a.Destructive)
	h.boolPtr(a.ReadOnly)
	h.str(a.Fidelity)
	h.str(a.Source)
	return h.sum()
}
