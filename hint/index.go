package hint

import (
	"slices"
	"sync"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/internal/text"
)

// termIndex keeps, per app, postings lists from term IDs to the actions (and fields) that
// hold the term, so that matching a prompt against thousands of actions touches only the
// postings of the prompt's own terms.
//
// It only helps a store that hands out the same metadata slices on every call (the memory
// store does, and the PostgreSQL store between catalogue writes). An app's index is built
// the second time the same slices are seen, and is used only while they stay the same (the
// first and last action's SlugTerms arrays, and the action count). Metadata built fresh per
// call never gets an index and is matched term by term; results are identical either way.
type termIndex struct {
	mu   sync.RWMutex
	dict map[string]uint32
	apps map[string]*appIndex
	seen map[string]*string // app -> identity seen last time, not yet indexed
}

type appIndex struct {
	n           int
	first, last *string
	// post maps a term ID to its postings: action index << 2 | field (0 slug, 1 name,
	// 2 description, 3 parameter names), each (action, field) pair once. Matching a prompt then touches only
	// the postings of its own terms, not every term of every action.
	post map[uint32][]uint32
	// has is a 4096-bit filter of the term IDs in post (ID mod 4096): a term whose bit is
	// clear has no postings here, so the map need not be consulted. Most of a prompt's
	// terms are absent from most apps.
	has [64]uint64
	// objects are the app's main objects (see Builder.appObjects).
	objects []string
	// verbs are the actions' main verb classes.
	verbs []string
	// appTerms are the stems of the app's own name, a field of each of its actions.
	appTerms []string
	// lens are the sums of the actions' key, description and parameter field lengths.
	lens fieldLens
}

func newTermIndex() *termIndex {
	return &termIndex{dict: map[string]uint32{}, apps: map[string]*appIndex{}, seen: map[string]*string{}}
}

func identity(m *cache.ActionMeta) *string {
	if len(m.SlugTerms) == 0 {
		return nil
	}
	return &m.SlugTerms[0]
}

// forRun returns the index of one app's run of metadata when it is valid, building it
// when the same metadata has been seen before.
func (x *termIndex) forRun(run []cache.ActionMeta, objects func([]cache.ActionMeta) []string, an *text.Analyzer) *appIndex {
	app := run[0].App
	first, last := identity(&run[0]), identity(&run[len(run)-1])
	if first == nil || last == nil {
		return nil
	}
	x.mu.RLock()
	ix := x.apps[app]
	prev := x.seen[app]
	x.mu.RUnlock()
	if ix != nil && ix.n == len(run) && ix.first == first && ix.last == last {
		return ix
	}
	if prev != first {
		x.mu.Lock()
		x.seen[app] = first
		x.mu.Unlock()
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	ix = &appIndex{n: len(run), first: first, last: last, post: map[uint32][]uint32{}, objects: objects(run), verbs: make([]string, len(run))}
	for i := range run {
		ix.verbs[i], _ = an.MainVerb(run[i].SlugTerms)
	}
	ix.appTerms = an.SlugTerms(app, "")
	ix.lens = sumFieldLens(run)
	var params []string
	for i := range run {
		params = paramTerms(an, run[i].Params, params[:0])
		for f, terms := range [4][]string{run[i].SlugTerms, run[i].NameTerms, run[i].DescTerms, params} {
			p := uint32(i)<<2 | uint32(f)
			for _, s := range terms {
				id, ok := x.dict[s]
				if !ok {
					id = uint32(len(x.dict))
					x.dict[s] = id
				}
				if l := ix.post[id]; len(l) == 0 || l[len(l)-1] != p {
					ix.post[id] = append(l, p)
				}
				ix.has[id>>6&63] |= 1 << (id & 63)
			}
		}
	}
	x.apps[app] = ix
	delete(x.seen, app)
	return ix
}

// idTable maps the prompt's term table to dictionary IDs for the indexed path.
type idTable struct {
	ids [maxTerms]uint32
	has [maxTerms]bool
	n   int
}

func (x *termIndex) table(table []string) idTable {
	x.mu.RLock()
	defer x.mu.RUnlock()
	t := idTable{n: len(table)}
	for k, s := range table {
		if id, ok := x.dict[s]; ok {
			t.ids[k], t.has[k] = id, true
		}
	}
	return t
}

// masks fills the match masks of an indexed run whose first action is at base in the
// masks: bit k of an action's field mask is set when the field holds the table's term k. It
// appends to touched the indexes of the actions that match any term, in no particular
// order (the ranking's order is total), and returns it.
func (ix *appIndex) masks(t *idTable, slugM, nameM, descM, paramM []uint64, base int, touched []int32) []int32 {
	slugM, nameM, descM, paramM = slugM[base:base+ix.n], nameM[base:base+ix.n], descM[base:base+ix.n], paramM[base:base+ix.n]
	fields := [4][]uint64{slugM, nameM, descM, paramM}
	for k := 0; k < t.n; k++ {
		id := t.ids[k]
		if !t.has[k] || ix.has[id>>6&63]&(1<<(id&63)) == 0 {
			continue
		}
		bit := uint64(1) << k
		for _, p := range ix.post[id] {
			a := p >> 2
			if slugM[a]|nameM[a]|descM[a]|paramM[a] == 0 {
				touched = append(touched, int32(base)+int32(a))
			}
			fields[p&3][a] |= bit
		}
	}
	return touched
}

// paramTerms appends the stems of an action's parameter names ("channel_id", "dueDate" ->
// channel, id, due, date).
func paramTerms(an *text.Analyzer, params []cache.Param, dst []string) []string {
	for _, p := range params {
		for _, w := range text.Words(p.Name) {
			if s := an.Stem(w); !an.IsStop(w) && !slices.Contains(dst, s) {
				dst = append(dst, s)
			}
		}
	}
	return dst
}
