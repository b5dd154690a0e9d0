package cache

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
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
// Every call runs under its context: opened by OpenPostgres (or on a pool built with
// NewPostgresConnector), a call whose context ends returns its error within moments even
// when the server is frozen or unreachable, its connection closed and discarded.
//
// ActionMeta keeps decoded metadata in memory, checked against a catalogue version counter
// that every catalogue write increments in its transaction, so writes through any store on
// the same schema are seen on the next call; the metadata it returns is shared and
// read-only, as Store says.
//
// A Postgres opened by OpenPostgres owns its connection pool; call Close when done with
// it. One made by NewPostgres uses the caller's pool, which Close leaves open.
type Postgres struct {
	db     *sqlx.DB
	ownsDB bool

	mu         sync.RWMutex
	classifier Classifier

	// metaMu guards meta, the decoded action metadata of the latest catalogue version
	// seen (see ActionMeta), and the maps inside it.
	metaMu sync.RWMutex
	meta   *pgMetaCache

	vecs pgVectors // decoded action vectors (vectors_postgres.go)

	know pgKnowledge // the catalogue knowledge read last (knowledge_postgres.go)
}

// Postgres implements Store.
var _ Store = (*Postgres)(nil)

// PostgresOptions configure OpenPostgres, NewPostgres and NewPostgresConnector. The zero
// value is the defaults. Which fields apply to which constructor is said per field.
type PostgresOptions struct {
	// ConnectTimeout bounds opening one connection: TCP connect, TLS and the startup
	// handshake. A connect_timeout in the DSN applies too. Optional. Defaults to 10s.
	// OpenPostgres and NewPostgresConnector only.
	ConnectTimeout time.Duration
	// KeepAlive is how long a connection may be idle before TCP keep-alive probes start;
	// probes then go every KeepAlive/3 (at least a second), and the connection is closed
	// after three unanswered ones, so a server that vanished from the network is noticed.
	// Optional. Defaults to 15s; negative turns keep-alives off. OpenPostgres and
	// NewPostgresConnector only.
	KeepAlive time.Duration
	// MaxOpenConns bounds the connections of the pool OpenPostgres opens; callers past
	// the bound wait for a free connection (within their context). Keep it well under the
	// server's max_connections divided by the processes sharing it. Sync needs two at once
	// (the sync lock holds one). Optional. Defaults to 4 × GOMAXPROCS, at least 4.
	// OpenPostgres only; NewPostgres leaves the caller's pool as it is.
	MaxOpenConns int
	// MaxIdleConns bounds the idle connections kept for reuse. Optional. Defaults to
	// MaxOpenConns. OpenPostgres only.
	MaxIdleConns int
	// SkipMigrations makes opening apply no migration: the store reads the schema's
	// migration version (SELECT only) and fails with an error wrapping ErrMigrationNeeded
	// when the schema lacks one. For deployments where a privileged step runs Migrate and
	// the application's role may not create tables. Without it, opening applies the
	// migrations the schema lacks, which needs CREATE only when one is due.
	SkipMigrations bool
}

func (o PostgresOptions) withDefaults() PostgresOptions {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = defaultConnectTimeout
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = defaultKeepAlive
	}
	if o.MaxOpenConns == 0 {
		o.MaxOpenConns = max(4, 4*runtime.GOMAXPROCS(0))
	}
	if o.MaxIdleConns == 0 {
		o.MaxIdleConns = o.MaxOpenConns
	}
	return o
}

// OpenPostgres connects to the PostgreSQL database named by dsn (a lib/pq URL or key=value
// connection string), applies the embedded migrations the database lacks (see
// PostgresOptions.SkipMigrations), and returns the store. Several processes may open the
// same database at once: migrations are applied by one of them while the others wait.
// opts, at most one, configures the connections and the pool; none means the defaults.
//
// The store's tables live in the connection's current schema. To keep a store in its own
// schema, name an existing schema in the DSN's search_path parameter, e.g.
// "postgres://host/db?sslmode=disable&search_path=toolhint"; lib/pq passes it to the
// server as a run-time parameter of every connection.
//
// OpenPostgres returns within ctx: when it ends, the error wraps ctx's error. A role that
// lacks a privilege the opening needs gets an error wrapping ErrPermission.
//
// The caller must Close the store. The store classifies actions with NewClassifier(nil)
// until SetClassifier says otherwise.
func OpenPostgres(ctx context.Context, dsn string, opts ...PostgresOptions) (*Postgres, error) {
	if len(opts) > 1 {
		return nil, fmt.Errorf("cache: open postgres: %w: %d PostgresOptions, want at most one", ErrInvalid, len(opts))
	}
	var o PostgresOptions
	if len(opts) == 1 {
		o = opts[0]
	}
	if o.MaxOpenConns < 0 || o.MaxIdleConns < 0 {
		return nil, fmt.Errorf("cache: open postgres: %w: negative pool size", ErrInvalid)
	}
	o = o.withDefaults()
	connector, err := newPgConnector(dsn, o)
	if err != nil {
		return nil, fmt.Errorf("cache: open postgres: %w", err)
	}
	db := sqlx.NewDb(sql.OpenDB(connector), "postgres")
	db.SetMaxOpenConns(o.MaxOpenConns)
	db.SetMaxIdleConns(min(o.MaxIdleConns, o.MaxOpenConns))
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("cache: open postgres: %w", pgErr(ctx, err))
	}
	p, err := newPostgres(ctx, db, o)
	if err != nil {
		db.Close()
		return nil, err
	}
	p.ownsDB = true
	return p, nil
}

// NewPostgres returns a store on the caller's pool db, which must reach PostgreSQL through
// lib/pq (sqlx.NewDb(sql.OpenDB(connector), "postgres"), or sqlx.Open("postgres", dsn)).
// Like OpenPostgres it applies the migrations the schema lacks unless opts.SkipMigrations
// is set; the pool fields of opts do not apply: the pool is the caller's, and so are its
// limits. Calls keep to their contexts only as far as db's driver does: build db on
// NewPostgresConnector for the deadlines OpenPostgres gives.
//
// The store does not own db: Close leaves it open, and the caller closes it after the
// store's last use.
func NewPostgres(ctx context.Context, db *sqlx.DB, opts PostgresOptions) (*Postgres, error) {
	if db == nil {
		return nil, fmt.Errorf("cache: new postgres: %w: nil db", ErrInvalid)
	}
	return newPostgres(ctx, db, opts)
}

func newPostgres(ctx context.Context, db *sqlx.DB, opts PostgresOptions) (*Postgres, error) {
	if err := ensureMigrated(ctx, db, opts.SkipMigrations); err != nil {
		return nil, err
	}
	return &Postgres{db: db, classifier: NewClassifier(nil)}, nil
}

// Close closes the store's connection pool when the store owns it (OpenPostgres). Calls
// after the first return nil.
func (p *Postgres) Close() error {
	if !p.ownsDB {
		return nil
	}
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

// Migrate applies to db the embedded migrations its current schema lacks, all in one
// transaction under an advisory lock, so that concurrent callers (and opening stores)
// apply each migration exactly once. It is for deploy pipelines that migrate with a
// privileged role and run the application with SkipMigrations; OpenPostgres and
// NewPostgres call it themselves otherwise. A role without the privileges a migration
// needs gets an error wrapping ErrPermission.
func Migrate(ctx context.Context, db *sqlx.DB) error {
	if db == nil {
		return fmt.Errorf("cache: migrate: %w: nil db", ErrInvalid)
	}
	ms, err := pgLoadMigrations()
	if err != nil {
		return err
	}
	err = pgInTx(ctx, db, func(tx *sqlx.Tx) error {
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
		for _, m := range pgDue(ms, applied) {
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

// pgDue returns the migrations of ms whose version is not in applied, in order.
func pgDue(ms []pgMigration, applied []int) []pgMigration {
	var due []pgMigration
	for _, m := range ms {
		if !slices.Contains(applied, m.version) {
			due = append(due, m)
		}
	}
	return due
}

// pgUndefinedTable is the SQLSTATE of a query on a table that does not exist.
const pgUndefinedTable = "42P01"

// ensureMigrated reads the schema's migration version, which needs only SELECT, and runs
// Migrate when a migration is due, unless skip is set: then it reports the migrations due
// with ErrMigrationNeeded.
func ensureMigrated(ctx context.Context, db *sqlx.DB, skip bool) error {
	ms, err := pgLoadMigrations()
	if err != nil {
		return err
	}
	var applied []int
	err = db.SelectContext(ctx, &applied, `SELECT version FROM schema_migrations`)
	var pe *pq.Error
	switch {
	case errors.As(err, &pe) && pe.Code == pgUndefinedTable && ctx.Err() == nil:
		applied = nil // a new schema
	case err != nil:
		return fmt.Errorf("cache: read migration version: %w", pgErr(ctx, err))
	}
	due := pgDue(ms, applied)
	if len(due) == 0 {
		return nil
	}
	if skip {
		names := make([]string, len(due))
		for i, m := range due {
			names[i] = m.name
		}
		return fmt.Errorf("cache: open postgres: %w: %s not applied (run cache.Migrate, or open without SkipMigrations)", ErrMigrationNeeded, strings.Join(names, ", "))
	}
	return Migrate(ctx, db)
}

// inTx runs fn in a transaction, committing when it returns nil and rolling back otherwise.
// A lost connection or a cancelled ctx makes the commit fail and the server roll back.
func (p *Postgres) inTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	return pgInTx(ctx, p.db, fn)
}

func pgInTx(ctx context.Context, db *sqlx.DB, fn func(tx *sqlx.Tx) error) error {
	return pgInTxOpts(ctx, db, nil, fn)
}

// pgInTxOpts is pgInTx with transaction options (nil: the defaults).
func pgInTxOpts(ctx context.Context, db *sqlx.DB, opts *sql.TxOptions, fn func(tx *sqlx.Tx) error) error {
	tx, err := db.BeginTxx(ctx, opts)
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
	pgInsufficientPriv    = "42501"
)

// pgErr turns a database error into the error the store returns: a cancelled or expired ctx
// wins (so errors.Is(err, context.Canceled) holds), a missing privilege becomes
// ErrPermission, unique violations ErrConflict,
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
		case pe.Code == pgInsufficientPriv:
			return fmt.Errorf("%w: %s", ErrPermission, pe.Message)
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
