package hint

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/internal/text"
)

// A store that keeps its catalogue's knowledge (cache.KnowledgeStore: vocabulary, app
// aliases, the words apps describe themselves with) is read on every Build for its version
// only; when the version differs from the one the Builder analyses with, the Builder swaps
// in an analyser built over that knowledge, with its own term index. A store without
// knowledge, or one whose read fails, is analysed with the compiled table.

// knowState is a Builder's record of the knowledge it analyses with. Builds read view
// without a lock; a swap takes mu, so that one Build builds a new view and the others wait
// for it.
type knowState struct {
	mu   sync.Mutex
	view atomic.Pointer[knowView]
}

// knowView is a Builder over one version of a store's knowledge: the root Builder's
// configuration with its own analyser and term index.
type knowView struct {
	version string
	b       *Builder
}

// analyzers caches the analysers built over store knowledge, by version, for every Builder
// of the process: building one takes a few tenths of a second, and Builders are cheap to
// make. At most maxAnalyzers are kept, the oldest dropped first.
var analyzers struct {
	mu    sync.Mutex
	byVer map[string]*text.Analyzer
	order []string
}

const maxAnalyzers = 8

// analyzerFor returns the analyser over knowledge k, building it when no Builder has.
func analyzerFor(k cache.CatalogKnowledge) (*text.Analyzer, error) {
	analyzers.mu.Lock()
	defer analyzers.mu.Unlock()
	if an := analyzers.byVer[k.Version]; an != nil {
		return an, nil
	}
	c, err := text.ParseCatalog(bytes.NewReader(k.Table))
	if err != nil {
		return nil, err
	}
	an := text.NewWithCatalog(c)
	if analyzers.byVer == nil {
		analyzers.byVer = map[string]*text.Analyzer{}
	}
	if len(analyzers.order) == maxAnalyzers {
		delete(analyzers.byVer, analyzers.order[0])
		analyzers.order = analyzers.order[1:]
	}
	analyzers.byVer[k.Version] = an
	analyzers.order = append(analyzers.order, k.Version)
	return an, nil
}

// over returns the Builder that analyses st's requests: b itself for a store without
// knowledge, otherwise a view of b over the store's current knowledge.
func (b *Builder) over(ctx context.Context, st Store) *Builder {
	ks, ok := st.(cache.KnowledgeStore)
	if !ok || b.know == nil {
		return b
	}
	k, err := storeRead(func() (cache.CatalogKnowledge, error) { return ks.CatalogKnowledge(ctx) })
	if err != nil {
		if ctx.Err() == nil {
			b.warnKnowledge(ctx, err)
		}
		return b
	}
	if k.Version == "" {
		return b
	}
	if v := b.know.view.Load(); v != nil && v.version == k.Version {
		return v.b
	}
	b.know.mu.Lock()
	defer b.know.mu.Unlock()
	if v := b.know.view.Load(); v != nil && v.version == k.Version {
		return v.b
	}
	an, err := analyzerFor(k)
	if err != nil {
		b.warnKnowledge(ctx, err)
		return b
	}
	vb := *b
	vb.an, vb.index, vb.know = an, newTermIndex(), nil
	b.know.view.Store(&knowView{version: k.Version, b: &vb})
	return &vb
}

func (b *Builder) warnKnowledge(ctx context.Context, err error) {
	b.warn(ctx, Request{}, "catalogue knowledge read (the compiled table serves)", err)
}
