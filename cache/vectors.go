package cache

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Limits on stored vectors. Larger input is refused with ErrInvalid.
const (
	MaxModelLen   = 256
	MaxVectorDims = 1 << 14
)

// ActionVector is an embedding of one action by one model, for the optional semantic tier
// of hint.Build.
type ActionVector struct {
	Action string // the action's slug (Action.Slug)
	App    string // its app; set by the store on reads, ignored on writes
	// Version is the action's UpdatedAt when the text that was embedded was read. The store
	// changes an action's UpdatedAt exactly when its content changes, so a vector is
	// current while the two are equal; stores return only current vectors.
	Version time.Time
	Vector  []float32
}

// VectorStore keeps action vectors: one per action, of the model that computed it.
// *Memory and *Postgres implement it. Implementations are safe for concurrent use.
type VectorStore interface {
	// PutVectors stores vectors computed by model, scaled to length one (so that readers
	// compare them by their dot product), replacing each action's vector (of any model). A
	// vector whose action no longer exists or has changed since Version is dropped, not
	// stored: it returns how many were stored. The vectors must be non-zero, finite and of
	// one length; otherwise nothing is stored and the error wraps ErrInvalid. vs is not
	// modified.
	PutVectors(ctx context.Context, model string, vs []ActionVector) (int, error)
	// Vectors returns the current vectors of model for the actions of apps (all apps when
	// empty), ordered by app then action. The vectors may share memory with the store:
	// callers must not modify them.
	Vectors(ctx context.Context, model string, apps []string) ([]ActionVector, error)
}

var (
	_ VectorStore = (*Memory)(nil)
	_ VectorStore = (*Postgres)(nil)
)

// maxViewVectors bounds the vectors memoised in one vecJoins (about 80 bytes each, the
// vectors themselves being shared), as maxViewMetas does for ActionMeta.
const maxViewVectors = 1 << 16

// vecJoins memoises the Vectors results for sets of apps of one immutable per-app view of
// the vectors (memVecView, pgVecSet), so that repeated reads for the same apps (one per
// hint.Build) share one read-only slice instead of copying. Key: the sorted slugs joined
// by "\x00", "" for all apps. It lives and dies with its view, which is replaced whenever
// the vectors or the catalogue change; size bounds what it holds. Safe for concurrent use.
type vecJoins struct {
	m    sync.Map
	size atomic.Int64
}

// join returns the vectors of byApp of the apps of list (sorted, without repeats; all
// says it is every app), in that order. The result shares memory with byApp.
func (j *vecJoins) join(byApp map[string][]ActionVector, list []string, all bool) []ActionVector {
	if len(list) == 1 {
		v := byApp[list[0]]
		if v == nil {
			return []ActionVector{}
		}
		return v[:len(v):len(v)]
	}
	key := ""
	if !all {
		key = strings.Join(list, "\x00")
	}
	if v, ok := j.m.Load(key); ok {
		return v.([]ActionVector)
	}
	n := 0
	for _, s := range list {
		n += len(byApp[s])
	}
	out := make([]ActionVector, 0, n)
	for _, s := range list {
		out = append(out, byApp[s]...)
	}
	if j.size.Add(int64(n)) <= maxViewVectors {
		if v, loaded := j.m.LoadOrStore(key, out); loaded { // another reader joined them first
			j.size.Add(-int64(n))
			return v.([]ActionVector)
		}
	} else {
		j.size.Add(-int64(n))
	}
	return out
}

// checkVectors validates a PutVectors call and returns the action slugs in stored form and
// the vectors scaled to length one.
func checkVectors(model string, vs []ActionVector) ([]string, [][]float32, error) {
	if model == "" || len(model) > MaxModelLen {
		return nil, nil, fmt.Errorf("%w: model name must have 1 to %d bytes", ErrInvalid, MaxModelLen)
	}
	slugs := make([]string, len(vs))
	units := make([][]float32, len(vs))
	for i, v := range vs {
		s, err := normActionSlug(v.Action)
		if err != nil {
			return nil, nil, err
		}
		slugs[i] = s
		if len(v.Vector) == 0 || len(v.Vector) > MaxVectorDims {
			return nil, nil, fmt.Errorf("%w: vector of %s has %d dimensions, want 1 to %d", ErrInvalid, s, len(v.Vector), MaxVectorDims)
		}
		if len(v.Vector) != len(vs[0].Vector) {
			return nil, nil, fmt.Errorf("%w: vectors of %d and %d dimensions in one write", ErrInvalid, len(vs[0].Vector), len(v.Vector))
		}
		sum := 0.0
		for _, x := range v.Vector {
			sum += float64(x) * float64(x)
		}
		n := math.Sqrt(sum)
		if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, nil, fmt.Errorf("%w: vector of %s is zero or not finite", ErrInvalid, s)
		}
		u := make([]float32, len(v.Vector))
		for k, x := range v.Vector {
			u[k] = float32(float64(x) / n)
		}
		units[i] = u
	}
	return slugs, units, nil
}
