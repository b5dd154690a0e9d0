package cache

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"
)

// This file wraps lib/pq so that a context that ends bounds every database call, whatever
// the server does. lib/pq answers a cancelled context by sending PostgreSQL a cancel
// request over a new connection and then waits for the server to give up the query: a
// frozen or unreachable server never does, and the call hangs past any deadline. Here each
// connection is dialled by the store's own dialer (connect and keep-alive timeouts), and a
// call whose context ends closes the connection's socket, which fails the call at once;
// the connection is then discarded and the server rolls back what it had open. lib/pq
// itself is only ever handed contexts that do not end, so it never sends cancel requests.

// Connection defaults of PostgresOptions.
const (
	defaultConnectTimeout = 10 * time.Second
	defaultKeepAlive      = 15 * time.Second
)

// NewPostgresConnector returns a database/sql connector for the PostgreSQL database named
// by dsn (as for OpenPostgres) that gives every connection opts.ConnectTimeout and
// opts.KeepAlive and closes a connection whose call's context ends, so that a frozen or
// unreachable server costs a call no more than its deadline. OpenPostgres uses it; a host
// that builds its own pool for NewPostgres can too:
//
//	c, err := cache.NewPostgresConnector(dsn, cache.PostgresOptions{})
//	db := sqlx.NewDb(sql.OpenDB(c), "postgres")
//
// Only the connection fields of opts apply. The connector is safe for concurrent use.
func NewPostgresConnector(dsn string, opts PostgresOptions) (driver.Connector, error) {
	c, err := newPgConnector(dsn, opts.withDefaults())
	if err != nil {
		return nil, fmt.Errorf("cache: postgres connector: %w", err)
	}
	return c, nil
}

func newPgConnector(dsn string, opts PostgresOptions) (*pgConnector, error) {
	c, err := pq.NewConnector(dsn)
	if err != nil {
		// A URL parse error quotes the whole DSN, password included: keep only its reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, fmt.Errorf("%w: malformed DSN URL: %v", ErrInvalid, ue.Err)
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	d := &pgDialer{timeout: opts.ConnectTimeout}
	d.net.Timeout = opts.ConnectTimeout
	if opts.KeepAlive > 0 {
		d.net.KeepAliveConfig = net.KeepAliveConfig{Enable: true, Idle: opts.KeepAlive,
			Interval: max(opts.KeepAlive/3, time.Second), Count: 3}
	} else {
		d.net.KeepAlive = -1
	}
	c.Dialer(d)
	return &pgConnector{pq: c}, nil
}

// pgSlotKey is the context key under which Connect passes a pgSlot to the dialer.
type pgSlotKey struct{}

// pgSlot receives the socket the dialer opens for one Connect call, so that Connect can
// close it when its context ends during the startup handshake, which lib/pq runs without
// looking at the context.
type pgSlot struct {
	mu     sync.Mutex
	conn   net.Conn
	closed bool
}

// set records c as the connection's socket; false when the slot is closed already.
func (s *pgSlot) set(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conn = c
	return true
}

func (s *pgSlot) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.conn != nil {
		_ = s.conn.Close()
	}
}

func (s *pgSlot) socket() net.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn
}

// pgDialer opens the sockets of a pgConnector: TCP (or Unix) connections with the connect
// timeout, keep-alives, and a deadline on the startup handshake that Connect lifts.
type pgDialer struct {
	net     net.Dialer
	timeout time.Duration
}

func (d *pgDialer) Dial(network, address string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, address)
}

func (d *pgDialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.DialContext(ctx, network, address)
}

func (d *pgDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	c, err := d.net.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	if err := c.SetDeadline(time.Now().Add(d.timeout)); err != nil {
		_ = c.Close()
		return nil, err
	}
	if s, ok := ctx.Value(pgSlotKey{}).(*pgSlot); ok && !s.set(c) {
		_ = c.Close()
		return nil, context.Cause(ctx)
	}
	return c, nil
}

// pgConnector opens lib/pq connections through a pgDialer and wraps them in pgConn.
type pgConnector struct {
	pq *pq.Connector
}

// Connect opens a connection, giving up when ctx ends (the socket is closed under the
// startup handshake) or when the connect timeout passes.
func (c *pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	slot := &pgSlot{}
	stop := context.AfterFunc(ctx, slot.close)
	dc, err := c.pq.Connect(context.WithValue(ctx, pgSlotKey{}, slot))
	if !stop() {
		if err == nil {
			_ = dc.Close()
		}
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	sock := slot.socket()
	if sock == nil { // cannot happen: lib/pq dials with the connector's dialer
		_ = dc.Close()
		return nil, errors.New("cache: postgres: connection opened without the store's dialer")
	}
	if err := sock.SetDeadline(time.Time{}); err != nil {
		_ = dc.Close()
		return nil, err
	}
	return &pgConn{inner: dc, sock: sock}, nil
}

// Driver returns lib/pq's driver.
func (c *pgConnector) Driver() driver.Driver { return c.pq.Driver() }

// pgConn is a lib/pq connection whose calls end when their context does: a watcher closes
// the socket, the call fails at once, and the connection reports itself bad so that
// database/sql discards it. lib/pq itself is handed context.Background(), which never
// ends, so that it never starts a cancel request of its own. It is used by one goroutine at a time, as database/sql uses a
// driver connection; only the watchers run beside it.
type pgConn struct {
	inner  driver.Conn
	sock   net.Conn
	broken atomic.Bool // the socket was closed under a call
}

// Interfaces database/sql looks for on a connection; lib/pq's conn implements them all.
var (
	_ driver.ConnBeginTx            = (*pgConn)(nil)
	_ driver.ConnPrepareContext     = (*pgConn)(nil)
	_ driver.QueryerContext         = (*pgConn)(nil)
	_ driver.ExecerContext          = (*pgConn)(nil)
	_ driver.Pinger                 = (*pgConn)(nil)
	_ driver.SessionResetter        = (*pgConn)(nil)
	_ driver.Validator              = (*pgConn)(nil)
	_ driver.NamedValueChecker      = (*pgConn)(nil)
	_ driver.StmtExecContext        = (*pgStmt)(nil)
	_ driver.StmtQueryContext       = (*pgStmt)(nil)
	_ driver.RowsNextResultSet      = (*pgRows)(nil)
	_ driver.RowsColumnTypeScanType = (*pgRows)(nil)
)

// kill closes the socket under whatever call is running on it.
func (c *pgConn) kill() {
	c.broken.Store(true)
	_ = c.sock.Close()
}

// watch starts a call under ctx: the socket is closed if ctx ends before the returned
// stop is called. stop reports false when that happened; the call's result is then
// replaced by ctx's error.
func (c *pgConn) watch(ctx context.Context) (stop func() bool, err error) {
	if c.broken.Load() {
		return nil, driver.ErrBadConn
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ctx.Done() == nil {
		return func() bool { return true }, nil
	}
	return context.AfterFunc(ctx, c.kill), nil
}

func (c *pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	stop, err := c.watch(ctx)
	if err != nil {
		return nil, err
	}
	st, err := c.inner.(driver.ConnPrepareContext).PrepareContext(context.Background(), query)
	if !stop() {
		if st != nil {
			_ = st.Close()
		}
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	return &pgStmt{inner: st, c: c}, nil
}

func (c *pgConn) Close() error { return c.inner.Close() }

func (c *pgConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *pgConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	stop, err := c.watch(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := c.inner.(driver.ConnBeginTx).BeginTx(context.Background(), opts)
	if !stop() {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	return &pgTx{inner: tx, c: c, ctx: ctx}, nil
}

func (c *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	stop, err := c.watch(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := c.inner.(driver.QueryerContext).QueryContext(context.Background(), query, args)
	if err != nil {
		if !stop() {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return &pgRows{inner: rows, c: c, ctx: ctx, stop: stop}, nil
}

func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	stop, err := c.watch(ctx)
	if err != nil {
		return nil, err
	}
	res, err := c.inner.(driver.ExecerContext).ExecContext(context.Background(), query, args)
	if !stop() {
		return nil, ctx.Err()
	}
	return res, err
}

func (c *pgConn) Ping(ctx context.Context) error {
	stop, err := c.watch(ctx)
	if err != nil {
		return err
	}
	err = c.inner.(driver.Pinger).Ping(context.Background())
	if !stop() {
		return ctx.Err()
	}
	return err
}

func (c *pgConn) ResetSession(ctx context.Context) error {
	if c.broken.Load() {
		return driver.ErrBadConn
	}
	return c.inner.(driver.SessionResetter).ResetSession(ctx)
}

func (c *pgConn) IsValid() bool {
	return !c.broken.Load() && c.inner.(driver.Validator).IsValid()
}

func (c *pgConn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.inner.(driver.NamedValueChecker).CheckNamedValue(nv)
}

// pgTx is a transaction on a pgConn. database/sql calls Commit and Rollback without a
// context, so the transaction keeps the one it began with: database/sql's own Tx does the
// same, and rolls back when it ends.
type pgTx struct {
	inner driver.Tx
	c     *pgConn
	ctx   context.Context
}

func (t *pgTx) Commit() error {
	stop, err := t.c.watch(t.ctx)
	if err != nil {
		return err
	}
	err = t.inner.Commit()
	if !stop() {
		return t.ctx.Err()
	}
	return err
}

// Rollback rolls back; when the transaction's context has ended (database/sql rolls back
// then on its own), it closes the connection instead of waiting on the server, which
// rolls back what a closed connection had open.
func (t *pgTx) Rollback() error {
	if t.ctx.Err() != nil {
		t.c.kill()
		return driver.ErrBadConn
	}
	stop, err := t.c.watch(t.ctx)
	if err != nil {
		return err
	}
	err = t.inner.Rollback()
	if !stop() {
		return t.ctx.Err()
	}
	return err
}

// pgStmt is a prepared statement on a pgConn (COPY ... FROM STDIN included).
type pgStmt struct {
	inner driver.Stmt
	c     *pgConn
}

func (s *pgStmt) Close() error  { return s.inner.Close() }
func (s *pgStmt) NumInput() int { return s.inner.NumInput() }

func (s *pgStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), pgNamed(args))
}

func (s *pgStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), pgNamed(args))
}

func (s *pgStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	stop, err := s.c.watch(ctx)
	if err != nil {
		return nil, err
	}
	var res driver.Result
	if ec, ok := s.inner.(driver.StmtExecContext); ok {
		res, err = ec.ExecContext(context.Background(), args)
	} else {
		//lint:ignore SA1019 lib/pq's COPY statement has only Exec
		res, err = s.inner.Exec(pgValues(args))
	}
	if !stop() {
		return nil, ctx.Err()
	}
	return res, err
}

func (s *pgStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	stop, err := s.c.watch(ctx)
	if err != nil {
		return nil, err
	}
	var rows driver.Rows
	if qc, ok := s.inner.(driver.StmtQueryContext); ok {
		rows, err = qc.QueryContext(context.Background(), args)
	} else {
		//lint:ignore SA1019 as Exec above
		rows, err = s.inner.Query(pgValues(args))
	}
	if err != nil {
		if !stop() {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return &pgRows{inner: rows, c: s.c, ctx: ctx, stop: stop}, nil
}

func pgNamed(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, v := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

func pgValues(args []driver.NamedValue) []driver.Value {
	out := make([]driver.Value, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}

// pgRows reads a result on a pgConn. The watcher of the query that opened it runs until
// it is closed: reading rows is part of the call. It keeps that query's context for the
// same reason pgTx does.
type pgRows struct {
	inner driver.Rows
	c     *pgConn
	ctx   context.Context
	stop  func() bool
}

func (r *pgRows) Columns() []string { return r.inner.Columns() }

func (r *pgRows) Close() error {
	err := r.inner.Close()
	if !r.stop() {
		return r.ctx.Err()
	}
	return err
}

func (r *pgRows) Next(dest []driver.Value) error {
	err := r.inner.Next(dest)
	if err != nil && err != io.EOF && r.c.broken.Load() && r.ctx.Err() != nil {
		return r.ctx.Err()
	}
	return err
}

func (r *pgRows) HasNextResultSet() bool {
	n, ok := r.inner.(driver.RowsNextResultSet)
	return ok && n.HasNextResultSet()
}

func (r *pgRows) NextResultSet() error {
	if n, ok := r.inner.(driver.RowsNextResultSet); ok {
		return n.NextResultSet()
	}
	return io.EOF
}

func (r *pgRows) ColumnTypeScanType(index int) reflect.Type {
	if t, ok := r.inner.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(index)
	}
	return reflect.TypeFor[any]()
}

func (r *pgRows) ColumnTypeDatabaseTypeName(index int) string {
	if t, ok := r.inner.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(index)
	}
	return ""
}
