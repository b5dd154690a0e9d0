package cache

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Postgres implements KnowledgeStore.
var _ KnowledgeStore = (*Postgres)(nil)

// pgKnowledge is the decoded catalogue knowledge a Postgres read last.
type pgKnowledge struct {
	cur atomic.Pointer[CatalogKnowledge] // read without the lock: the version matches on most calls
	mu  sync.Mutex                       // held only while a new version is read
}

// pgPutKnowledge computes the knowledge of the catalogue as tx leaves it and replaces the
// stored row with it (see migration 007). It is called by every catalogue write that
// changed apps or actions, before the write commits. The version is computed first: a
// write that left the names and descriptions as they were (a changed schema, say) keeps the
// row without computing the statistics.
func pgPutKnowledge(ctx context.Context, tx *sqlx.Tx) error {
	digest := newKnowledgeDigest()
	if err := pgKnowledgeInput(ctx, tx, digest); err != nil {
		return err
	}
	version := digest.version()
	var stored string
	switch err := tx.GetContext(ctx, &stored, `SELECT version FROM catalog_knowledge`); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	case stored == version:
		return nil // what the knowledge is made from did not change
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM catalog_knowledge`); err != nil {
		return err
	}
	if version == "" {
		return nil // an empty catalogue knows nothing
	}
	kb := newKnowledgeBuilder()
	if err := pgKnowledgeInput(ctx, tx, kb); err != nil {
		return err
	}
	k := kb.finish()
	var body bytes.Buffer
	zw := gzip.NewWriter(&body)
	if _, err := zw.Write(k.Table); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO catalog_knowledge (version, actions, apps, body, computed_at)
		VALUES ($1, $2, $3, $4, $5)`, k.Version, k.Actions, k.Apps, body.Bytes(), pgNow())
	return err
}

// pgKnowledgeInput adds to kb the catalogue as tx sees it: its actions, then its apps, in
// the order the version digest reads them.
func pgKnowledgeInput(ctx context.Context, tx *sqlx.Tx, kb *knowledgeBuilder) error {
	err := pgEachRow(ctx, tx, `SELECT app, slug, display_name, description FROM actions ORDER BY app, slug`, func(rows *sql.Rows) error {
		var app, slug, name, desc string
		if err := rows.Scan(&app, &slug, &name, &desc); err != nil {
			return err
		}
		kb.action(app, slug, name, desc)
		return nil
	})
	if err != nil {
		return err
	}
	return pgEachRow(ctx, tx, `SELECT slug, display_name, description, categories FROM apps ORDER BY slug`, func(rows *sql.Rows) error {
		var slug, name, desc string
		var cats pq.StringArray
		if err := rows.Scan(&slug, &name, &desc, &cats); err != nil {
			return err
		}
		kb.app(slug, name, desc, cats)
		return nil
	})
}

// pgEachRow runs query in tx and calls row for each row it returns.
func pgEachRow(ctx context.Context, tx *sqlx.Tx, query string, row func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	for rows.Next() {
		if err := row(rows); err != nil {
			rows.Close()
			return err
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	return rows.Err()
}

// CatalogKnowledge returns the knowledge stored with the catalogue (see migration 007):
// one small query for its version, and the knowledge itself only when the version differs
// from the one this store read last. It is empty when no catalogue write has stored any.
func (p *Postgres) CatalogKnowledge(ctx context.Context) (CatalogKnowledge, error) {
	var version string
	switch err := p.db.GetContext(ctx, &version, `SELECT version FROM catalog_knowledge`); {
	case errors.Is(err, sql.ErrNoRows):
		return CatalogKnowledge{}, nil
	case err != nil:
		return CatalogKnowledge{}, pgWrap(ctx, "catalog knowledge", err)
	}
	if k := p.know.cur.Load(); k != nil && k.Version == version {
		return *k, nil
	}
	p.know.mu.Lock()
	defer p.know.mu.Unlock()
	if k := p.know.cur.Load(); k != nil && k.Version == version {
		return *k, nil // read by another call meanwhile
	}
	var row struct {
		Version string `db:"version"`
		Actions int    `db:"actions"`
		Apps    int    `db:"apps"`
		Body    []byte `db:"body"`
	}
	switch err := p.db.GetContext(ctx, &row, `SELECT version, actions, apps, body FROM catalog_knowledge`); {
	case errors.Is(err, sql.ErrNoRows):
		return CatalogKnowledge{}, nil
	case err != nil:
		return CatalogKnowledge{}, pgWrap(ctx, "catalog knowledge", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(row.Body))
	if err != nil {
		return CatalogKnowledge{}, pgWrap(ctx, "catalog knowledge", err)
	}
	table, err := io.ReadAll(zr)
	if err != nil {
		return CatalogKnowledge{}, pgWrap(ctx, "catalog knowledge", err)
	}
	k := &CatalogKnowledge{Version: row.Version, Actions: row.Actions, Apps: row.Apps, Table: table}
	p.know.cur.Store(k)
	return *k, nil
}
