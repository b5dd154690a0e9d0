package cache

import (
	"context"
	"slices"
	"sync"
	"time"
)

// memVectors are a Memory's action vectors.
type memVectors struct {
	mu sync.RWMutex
	m  map[string]memVector // by action slug
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
	slugs, err := checkVectors(model, vs)
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
	for s := range mv.m {
		if _, ok := c.actions[s]; !ok {
			delete(mv.m, s)
		}
	}
	n := 0
	for i, v := range vs {
		a, ok := c.actions[slugs[i]]
		if !ok || !a.a.UpdatedAt.Equal(v.Version) {
			continue
		}
		mv.m[slugs[i]] = memVector{model: model, version: a.a.UpdatedAt, vec: slices.Clone(v.Vector)}
		n++
	}
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
		if list, err = normAppList(apps); err != nil {
			return nil, err
		}
		slices.Sort(list)
		list = slices.Compact(list)
	}
	mv := &m.vectors
	mv.mu.RLock()
	defer mv.mu.RUnlock()
	out := []ActionVector{}
	if len(mv.m) == 0 {
		return out, nil
	}
	for _, s := range list {
		e, ok := c.apps[s]
		if !ok {
			continue
		}
		for _, a := range e.actions {
			v, ok := mv.m[a.a.Slug]
			if ok && v.model == model && v.version.Equal(a.a.UpdatedAt) {
				out = append(out, ActionVector{Action: a.a.Slug, App: s, Version: v.version, Vector: v.vec})
			}
		}
	}
	return out, nil
}
