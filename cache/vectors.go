package cache

import (
	"context"
	"fmt"
	"math"
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
	Action string // the action's slug
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
	// PutVectors stores vectors computed by model, replacing each action's vector (of any
	// model). A vector whose action no longer exists or has changed since Version is
	// dropped, not stored: it returns how many were stored. The vectors must be non-empty,
	// finite and of one length; otherwise nothing is stored and the error wraps ErrInvalid.
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

// checkVectors validates a PutVectors call and returns the action slugs in stored form.
func checkVectors(model string, vs []ActionVector) ([]string, error) {
	if model == "" || len(model) > MaxModelLen {
		return nil, fmt.Errorf("%w: model name must have 1 to %d bytes", ErrInvalid, MaxModelLen)
	}
	slugs := make([]string, len(vs))
	for i, v := range vs {
		s, err := normActionSlug(v.Action)
		if err != nil {
			return nil, err
		}
		slugs[i] = s
		if len(v.Vector) == 0 || len(v.Vector) > MaxVectorDims {
			return nil, fmt.Errorf("%w: vector of %s has %d dimensions, want 1 to %d", ErrInvalid, s, len(v.Vector), MaxVectorDims)
		}
		if len(v.Vector) != len(vs[0].Vector) {
			return nil, fmt.Errorf("%w: vectors of %d and %d dimensions in one write", ErrInvalid, len(vs[0].Vector), len(v.Vector))
		}
		for _, x := range v.Vector {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("%w: vector of %s is not finite", ErrInvalid, s)
			}
		}
	}
	return slugs, nil
}
