package cache

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// memVectors are a Memory's action vectors.
type memVectors struct {
	mu  sync.RWMutex
	m   map[string]memVector // by action slug
	gen atomic.Uint64        // incremented by every write, under mu
	// view is the current vectors of one model per app, at one catalogue snapshot and
	// generation, so that repeated reads (one per Build) neither look up nor allocate per
	// action. viewMu lets one reader build it while the others wait.
	view   atomic.Pointer[memVecView]
	viewMu sync.Mutex
	// swept is the catalogue snapshot the vectors of deleted actions were last dropped
	// for; vectors are stored only for actions of the current snapshot, so with the same
	// snapshot there is nothing new to drop.
	swept *memCatalog
}

type memVecView struct {
	cat   *memCatalog
	gen   uint64
	model string
	byApp map[string][]ActionVector
	joins vecJoins // Vectors results for sets of apps
}

type memVector struct {
	model   string
	version time.Time
	vec     []float32 // immutable once stored
}

// PutVectors implements VectorStore.
func (m *Memory) PutVectors(ctx context.Context, model string, vs []ActionVector) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	slugs, units, err := checkVectors(model, vs)
	if err != nil {
		return 0, err
	}
	c := m.catalog.Load()
	mv := &m.vectors
	mv.mu.Lock()
	defer mv.mu.Unlock()
	if mv.m == nil {
		mv.m = map[string]memVector{}
	}
	// Vectors of actions deleted since go too: nothing else removes them.
	if mv.swept != c {
		for s := range mv.m {
			if _, ok := c.actions[s]; !ok {
				delete(mv.m, s)
			}
		}
		mv.swept = c
	}
	n := 0
	for i, v := range vs {
		a, ok := c.actions[slugs[i]]
		if !ok || !a.a.UpdatedAt.Equal(v.Version) {
			continue
		}
		mv.m[slugs[i]] = memVector{model: model, version: a.a.UpdatedAt, vec: units[i]}
		n++
	}
	mv.gen.Add(1)
	return n, nil
}

// Vectors implements VectorStore.
func (m *Memory) Vectors(ctx context.Context, model string, apps []string) ([]ActionVector, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := m.catalog.Load()
	list := c.appSlugs
	if len(apps) > 0 {
		var err error
		if list, err = normAppList(apps); err != nil { // sorted, without repeats
			return nil, err
		}
	}
	view := m.vectors.viewOf(c, model)
	return view.joins.join(view.byApp, list, len(apps) == 0), nil
}

// viewOf returns the current vectors of model per app in catalogue snapshot c.
func (mv *memVectors) viewOf(c *memCatalog, model string) *memVecView {
	if v := mv.view.Load(); v != nil && v.cat == c && v.gen == mv.gen.Load() && v.model == model {
		return v
	}
	mv.viewMu.Lock() // one builder at a time; the others wait for its view
	defer mv.viewMu.Unlock()
	mv.mu.RLock()
	defer mv.mu.RUnlock()
	gen := mv.gen.Load() // stable while mu is held
	if v := mv.view.Load(); v != nil && v.cat == c && v.gen == gen && v.model == model {
		return v
	}
	v := &memVecView{cat: c, gen: gen, model: model, byApp: map[string][]ActionVector{}}
	for _, s := range c.appSlugs {
		for _, a := range c.apps[s].actions {
			e, ok := mv.m[a.a.Slug]
			if ok && e.model == model && e.version.Equal(a.a.UpdatedAt) {
				v.byApp[s] = append(v.byApp[s], ActionVector{Action: a.a.Slug, App: s, Version: e.version, Vector: e.vec})
			}
		}
	}
	mv.view.Store(v)
	return v
}
