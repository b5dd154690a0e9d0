package hint

import (
	"slices"
	"strings"
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
	// post maps a term ID to its postings, postings[p.off:p.off+p.n]: action index << 2 |
	// field (0 slug, 1 name, 2 description, 3 parameter names), each (action, field) pair
	// once. Matching a prompt then touches only the postings of its own terms, not every
	// term of every action.
	post     map[uint32]span
	postings []uint32
	// has is a 4096-bit filter of the term IDs in post (ID mod 4096): a term whose bit is
	// clear has no postings here, so the map need not be consulted. Most of a prompt's
	// terms are absent from most apps.
	has [64]uint64
	// objects are the app's main objects (see Builder.appObjects).
	objects []string
	// traits are the actions' traits (see traits).
	traits []traits
	// appTerms are the stems of the app's own name, a field of each of its actions.
	appTerms []string
	// lens are the sums of the actions' key, description and parameter field lengths.
	lens fieldLens
}

// span is a stretch of an appIndex's postings.
type span struct{ off, n uint32 }

func newTermIndex() *termIndex {
	return &termIndex{dict: map[string]uint32{}, apps: map[string]*appIndex{}, seen: map[string]*string{}}
}

func identity(m *cache.ActionMeta) *string {
	if len(m.SlugTerms) == 0 {
		return nil
	}
	return &m.SlugTerms[0]
}

// runAt returns the end of the run of metas that starts at start (the actions of its app,
// which the store lists together) and the run's index when it has a valid one. A valid
// index, the same metadata as the run it was built from, gives the end without comparing
// every action's app.
func (x *termIndex) runAt(metas []cache.ActionMeta, start int, b *Builder) (*appIndex, int) {
	app := metas[start].App
	x.mu.RLock()
	ix := x.apps[app]
	x.mu.RUnlock()
	if ix != nil {
		end := start + ix.n
		if end <= len(metas) && ix.first == identity(&metas[start]) && ix.last == identity(&metas[end-1]) &&
			(end == len(metas) || metas[end].App != app) {
			return ix, end
		}
	}
	end := start + 1
	for end < len(metas) && metas[end].App == app {
		end++
	}
	return x.forRun(metas[start:end], b), end
}

// forRun returns the index of one app's run of metadata when it is valid, building it
// (with b's analyser and taxonomy) when the same metadata has been seen before.
func (x *termIndex) forRun(run []cache.ActionMeta, b *Builder) *appIndex {
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
	an := b.an
	ix = &appIndex{n: len(run), first: first, last: last, objects: b.appObjects(run), traits: make([]traits, len(run))}
	for i := range run {
		ix.traits[i] = b.traitsOf(&run[i])
	}
	ix.appTerms = an.SlugTerms(app, "")
	ix.lens = sumFieldLens(run)
	var params []string
	post := map[uint32][]uint32{}
	total := 0
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
				if l := post[id]; len(l) == 0 || l[len(l)-1] != p {
					post[id] = append(l, p)
					total++
				}
				ix.has[id>>6&63] |= 1 << (id & 63)
			}
		}
	}
	// One array for all the postings: a term's are read in one stretch of memory.
	ix.post = make(map[uint32]span, len(post))
	ix.postings = make([]uint32, 0, total)
	for id, l := range post {
		ix.post[id] = span{off: uint32(len(ix.postings)), n: uint32(len(l))}
		ix.postings = append(ix.postings, l...)
	}
	x.apps[app] = ix
	delete(x.seen, app)
	return ix
}

// traits are what the ranking reads of an action besides its terms, the same for every
// clause: its main verb class and that class's family, and of its capabilities a filter
// and whether all are generic.
type traits struct {
	verb, family string
	verbAt       int // the slug term that gives verb, -1 without one
	// caps has the capBit of each capability: an action whose caps share no bit with a
	// clause's has none of its capabilities.
	caps    uint64
	generic bool // every capability is generic (or there is none)
	byID    bool // the slug holds "id": the action takes one item by its ID
	// numbers has bit k set when slug term k is a number or a version ("v2", "3"): the
	// path or the revision an API's action came from, nothing a request asks for.
	numbers uint64
}

func (b *Builder) traitsOf(m *cache.ActionMeta) traits {
	t := traits{generic: allGeneric(b.tax, m.Capabilities)}
	t.verb, t.verbAt = b.an.MainVerb(m.SlugTerms)
	t.family = b.an.Family(t.verb)
	for _, id := range m.Capabilities {
		t.caps |= capBit(id)
	}
	t.byID = slices.Contains(m.SlugTerms, "id")
	for k, term := range m.SlugTerms[:min(len(m.SlugTerms), 64)] {
		if numberOrVersion(term) {
			t.numbers |= 1 << k
		}
	}
	return t
}

// numberOrVersion reports whether a slug term is all digits, or a "v" and digits.
func numberOrVersion(term string) bool {
	digits := strings.TrimPrefix(term, "v")
	if digits == "" {
		return false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// capBit is a capability's bit in a 64-bit filter of capabilities.
func capBit(id string) uint64 { return 1 << (slugHash(id) & 63) }

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
		sp := ix.post[id]
		for _, p := range ix.postings[sp.off : sp.off+sp.n] {
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
