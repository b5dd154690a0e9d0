package cache

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// pgVectors keeps the decoded vectors of one model at one (catalogue, vector) version, so
// that a Build reads two counters, not every vector, while nothing changes.
type pgVectors struct {
	mu  sync.Mutex // held while loading, so that one caller loads and the others wait
	cur atomic.Pointer[pgVecSet]
}

type pgVecSet struct {
	model          string
	catalog, store int64
	byApp          map[string][]ActionVector // each ordered by action
	apps           []string                  // sorted
	joins          vecJoins                  // Vectors results for sets of apps
}

// PutVectors implements VectorStore.
func (p *Postgres) PutVectors(ctx context.Context, model string, vs []ActionVector) (int, error) {
	slugs, units, err := checkVectors(model, vs)
	if err != nil {
		return 0, err
	}
	if len(vs) == 0 {
		return 0, ctx.Err()
	}
	versions := make([]string, len(vs))
	blobs := make([][]byte, len(vs))
	for i, v := range vs {
		versions[i] = v.Version.UTC().Format(time.RFC3339Nano)
		blobs[i] = encodeVector(units[i])
	}
	n := 0
	err = p.inTx(ctx, func(tx *sqlx.Tx) error {
		// Only vectors of actions that still have the version they were computed from.
		res, err := tx.ExecContext(ctx, `
			INSERT INTO action_vectors (action, model, version, dims, vector)
			SELECT x.action, $1, x.version, $2, x.vector
			FROM unnest($3::text[], $4::timestamptz[], $5::bytea[]) AS x(action, version, vector)
			JOIN actions a ON a.slug = x.action AND a.updated_at = x.version
			ON CONFLICT (action) DO UPDATE SET model = EXCLUDED.model, version = EXCLUDED.version,
				dims = EXCLUDED.dims, vector = EXCLUDED.vector`,
			model, len(vs[0].Vector), pq.Array(slugs), pq.Array(versions), pq.ByteaArray(blobs))
		if err != nil {
			return err
		}
		k, err := res.RowsAffected()
		if err != nil {
			return err
		}
		n = int(k)
		_, err = tx.ExecContext(ctx, `UPDATE vector_version SET version = version + 1`)
		return err
	})
	if err != nil {
		return 0, pgWrap(ctx, "put vectors", err)
	}
	return n, nil
}

// Vectors implements VectorStore.
func (p *Postgres) Vectors(ctx context.Context, model string, apps []string) ([]ActionVector, error) {
	var list []string
	if len(apps) > 0 {
		var err error
		if list, err = normAppList(apps); err != nil { // sorted, without repeats
			return nil, err
		}
	}
	var cv, vv int64
	if err := p.db.QueryRowContext(ctx, `SELECT c.version, v.version FROM catalog_version c, vector_version v`).Scan(&cv, &vv); err != nil {
		return nil, pgWrap(ctx, "vectors", err)
	}
	set := p.vecs.get(model, cv, vv)
	if set == nil {
		var err error
		if set, err = p.loadVectors(ctx, model, cv, vv); err != nil {
			return nil, err
		}
	}
	if list == nil {
		list = set.apps
	}
	return set.joins.join(set.byApp, list, len(apps) == 0), nil
}

func (v *pgVectors) get(model string, cv, vv int64) *pgVecSet {
	if s := v.cur.Load(); s != nil && s.model == model && s.catalog == cv && s.store == vv {
		return s
	}
	return nil
}

// loadVectors reads every current vector of model, at the versions read in the same
// transaction, and keeps them when they are the versions asked for.
func (p *Postgres) loadVectors(ctx context.Context, model string, cv, vv int64) (*pgVecSet, error) {
	p.vecs.mu.Lock()
	defer p.vecs.mu.Unlock()
	if s := p.vecs.get(model, cv, vv); s != nil {
		return s, nil // another caller loaded it meanwhile
	}
	set := &pgVecSet{model: model, byApp: map[string][]ActionVector{}}
	// One read-only snapshot for the versions and the rows.
	snapshot := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	err := pgInTxOpts(ctx, p.db, snapshot, func(tx *sqlx.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT c.version, v.version FROM catalog_version c, vector_version v`).Scan(&set.catalog, &set.store); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `
			SELECT a.app, v.action, v.version, v.vector
			FROM action_vectors v JOIN actions a ON a.slug = v.action AND a.updated_at = v.version
			WHERE v.model = $1 ORDER BY a.app, v.action`, model)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var av ActionVector
			var blob []byte
			if err := rows.Scan(&av.App, &av.Action, &av.Version, &blob); err != nil {
				return err
			}
			av.Version = av.Version.UTC()
			if av.Vector, err = decodeVector(blob); err != nil {
				return fmt.Errorf("cache: vector of %s: %w", av.Action, err)
			}
			if _, ok := set.byApp[av.App]; !ok {
				set.apps = append(set.apps, av.App)
			}
			set.byApp[av.App] = append(set.byApp[av.App], av)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, pgWrap(ctx, "vectors", err)
	}
	if set.catalog == cv && set.store == vv {
		p.vecs.cur.Store(set)
	}
	return set, nil
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) ([]float32, error) {
	if len(b) == 0 || len(b)%4 != 0 {
		return nil, fmt.Errorf("%w: %d bytes is not a vector", ErrInvalid, len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}
