package cache

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

//go:embed migrations/*.sql
var pgMigrations embed.FS

// Advisory lock keys. PostgreSQL keeps the two-int4 key space apart from the one-bigint key
// space, and the second half of every key is hashtext(current_schema()), so stores in
// different schemas of one database never wait on each other.
const (
	pgLockMigrate int32 = 0x74680001 // held while migrations are applied
	pgLockWrite   int32 = 0x74680002 // held by catalogue writes (Apply, Reclassify)
)

// Postgres is a Store kept in PostgreSQL, for catalogues shared by several processes.
// It is safe for concurrent use by multiple goroutines and by several processes sharing
// one database: catalogue writes (Apply, Reclassify) are serialised by a transaction-level
// advisory lock, and every write runs in one transaction, so it is applied whole or not
// at all.
//
// ActionMeta keeps decoded metadata in memory, checked against a catalogue version counter
// that every catalogue write increments in its transaction, so writes through any store on
// the same schema are seen on the next call; the metadata it returns is shared and
// read-only, as Store says.
//
// A Postgres owns a connection pool; call Close when done with it.
type Postgres struct {
	db *sqlx.DB

	mu         sync.RWMutex
	classifier Classifier

	// metaMu guards meta, the decoded action metadata of the latest catalogue version
	// seen (see ActionMeta), and the maps inside it.
	metaMu sync.RWMutex
	meta   *pgMetaCache
}

// Postgres implements Store.
var _ Store = (*Postgres)(nil)

// OpenPostgres connects to the PostgreSQL database named by dsn (a lib/pq URL or key=value
// connection string), applies the embedded migrations the database lacks, and returns the
// store. Several processes may open the same database at once: migrations are applied by
// one of them while the others wait.
//
// The store's tables live in the connection's current schema. To keep a store in its own
// schema, name an existing schema in the DSN's search_path parameter, e.g.
// "postgres://host/db?sslmode=disable&search_path=toolhint"; lib/pq passes it to the
// server as a run-time parameter of every connection.
//
// The caller must Close the store. The store classifies actions with NewClassifier(nil)
// until SetClassifier says otherwise.
func OpenPostgres(ctx context.Context, dsn string) (*Postgres, error) {
	connector, err := pq.NewConnector(dsn)
	if err != nil {
		// A URL parse error quotes the whole DSN, password included: keep only its reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, fmt.Errorf("cache: open postgres: %w: malformed DSN URL: %v", ErrInvalid, ue.Err)
		}
		return nil, fmt.Errorf("cache: open postgres: %w: %v", ErrInvalid, err)
	}
	db := sqlx.NewDb(sql.OpenDB(connector), "postgres")
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("cache: open postgres: %w", pgErr(ctx, err))
	}
	// hint.Build reads the store from many goroutines; keep enough idle connections that
	// they are reused rather than re-established.
	db.SetMaxIdleConns(8)
	p := &Postgres{db: db, classifier: NewClassifier(nil)}
	if err := p.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return p, nil
}

// Close closes the store's connection pool. Calls after the first return nil.
func (p *Postgres) Close() error {
	if err := p.db.Close(); err != nil {
		return fmt.Errorf("cache: close postgres: %w", err)
	}
	return nil
}

// SetClassifier sets the classifier run on every action written from now on; nil means
// NewClassifier(nil). Metadata already stored is left alone; Reclassify recomputes it.
func (p *Postgres) SetClassifier(c Classifier) {
	if c == nil {
		c = NewClassifier(nil)
	}
	p.mu.Lock()
	p.classifier = c
	p.mu.Unlock()
}

func (p *Postgres) currentClassifier() Classifier {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.classifier
}

// pgMigration is one embedded migration file, "NNN_name.sql".
type pgMigration struct {
	version int
	name    string
	sql     string
}

func pgLoadMigrations() ([]pgMigration, error) {
	names, err := fs.Glob(pgMigrations, "migrations/*.sql")
	if err != nil {
		return nil, fmt.Errorf("cache: migrations: %w", err)
	}
	var ms []pgMigration
	seen := map[int]string{}
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("cache: migration %q: name must start with a positive version number", base)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("cache: migrations %q and %q share version %d", prev, base, v)
		}
		seen[v] = base
		body, err := pgMigrations.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("cache: migration %q: %w", base, err)
		}
		ms = append(ms, pgMigration{version: v, name: base, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// migrate applies the migrations the schema lacks, all in one transaction under an advisory
// lock, so concurrent openers apply each migration exactly once.
func (p *Postgres) migrate(ctx context.Context) error {
	ms, err := pgLoadMigrations()
	if err != nil {
		return err
	}
	err = p.inTx(ctx, func(tx *sqlx.Tx) error {
		var schema sql.NullString
		if err := tx.GetContext(ctx, &schema, `SELECT current_schema()`); err != nil {
			return err
		}
		if !schema.Valid {
			return fmt.Errorf("no current schema: the search_path names no existing schema")
		}
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))`, pgLockMigrate); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    integer PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
			return err
		}
		var applied []int
		if err := tx.SelectContext(ctx, &applied, `SELECT version FROM schema_migrations`); err != nil {
			return err
		}
		done := map[int]bool{}
		for _, v := range applied {
			done[v] = true
		}
		for _, m := range ms {
			if done[m.version] {
				continue
			}
			// No arguments: lib/pq sends the file with the simple query protocol, which runs
			// several statements.
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("cache: migrate: %w", pgErr(ctx, err))
	}
	return nil
}

// inTx runs fn in a transaction, committing when it returns nil and rolling back otherwise.
// A lost connection or a cancelled ctx makes the commit fail and the server roll back.
func (p *Postgres) inTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	tx, err := p.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// pgLockWrites takes the catalogue write lock for the rest of tx.
func pgLockWrites(ctx context.Context, tx *sqlx.Tx) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))`, pgLockWrite)
	return err
}

// PostgreSQL error codes the store maps to sentinels.
const (
	pgUniqueViolation     = "23505"
	pgForeignKeyViolation = "23503"
	pgCheckViolation      = "23514"
	pgNotNullViolation    = "23502"
	pgLimitExceeded       = "54000" // e.g. a value too large for an index entry
)

// pgErr turns a database error into the error the store returns: a cancelled or expired ctx
// wins (so errors.Is(err, context.Canceled) holds), unique violations become ErrConflict,
// data the server refuses (bad encoding such as a NUL byte, foreign keys, checks, values too
// large for an index) ErrInvalid; anything else is returned as it is.
func pgErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w (%v)", cerr, err)
	}
	var pe *pq.Error
	if errors.As(err, &pe) {
		switch {
		case pe.Code == pgUniqueViolation:
			return fmt.Errorf("%w: %s", ErrConflict, pe.Message)
		case pe.Code == pgForeignKeyViolation, pe.Code == pgCheckViolation, pe.Code == pgNotNullViolation,
			pe.Code == pgLimitExceeded, strings.HasPrefix(string(pe.Code), "22"): // data exceptions: bad encoding, bad JSON, overflow
			return fmt.Errorf("%w: %s", ErrInvalid, pe.Message)
		}
	}
	return err
}

// pgNow is the time stored for a write, cut to PostgreSQL's microsecond precision so the
// value returned by a write equals the value read back.
func pgNow() time.Time {
	return time.Now().UTC().Truncate(time.Microsecond)
}

// pgWrap returns err as the store's error for operation op: mapped by pgErr and prefixed
// "cache: op: ", unless it is already one of the package's own errors.
func pgWrap(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if strings.HasPrefix(err.Error(), "cache: ") && ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("cache: %s: %w", op, pgErr(ctx, err))
}

// pgTime converts a time read from the database to UTC; the zero time stays zero.
func pgTime(t sql.NullTime) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}
