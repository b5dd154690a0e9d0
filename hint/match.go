package hint

import (
	"math/bits"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/cache"
)

// Match, where recall begins. It takes the analysed clauses and their term table
// (analyse.go) and the actions in scope, one run of metadata per app, and finds which
// actions hold which of the table's terms: per action, a mask of the terms each field holds
// (slug words, display name, description, parameter names), read from the app's term index
// (index.go) when it has one. The actions that share a term with the prompt are touched;
// those an outside source lifts (a semantic search, the workspace's record of use) are
// touched too though they share none.
//
// rankPrepare, the part of a Build that does not depend on the weights, runs this stage and
// the ones around it in order, one function each; its body reads as their list.

const genericDF = 1500 // catalogue actions from which a word is too common to be an app's object

// rankPrepare runs the stages up to features for the analysed prompt pa over metas, the
// actions in scope, one function a stage, and returns the ranking order reads; nil when
// the prompt has no clause or no term, or there is no action. src and use, either may be
// nil, are what sources outside the lexical ranking say: per clause, and the workspace's
// record of use (its priors by action, and the earlier calls the request repeats), for
// every clause.
// sc is working memory the ranking may point into: it must outlive the ranking's use.
func (b *Builder) rankPrepare(req Request, pa *analysis, metas []cache.ActionMeta, sc *scratch, src signalSource, use *usageModel) *ranking {
	p := pa.get(b.an)
	if len(p.Clauses) == 0 || len(metas) == 0 {
		return nil
	}
	r := &ranking{metas: metas, recipe: req.RecipeMode, explicit: explicitSlugs(pa.prompt, metas)}
	if use != nil {
		r.priors = use.priors
	}
	// The apps' runs are set up first, though matching is what walks them: analysing a
	// clause that names an app but not what it acts on looks up the app's main objects,
	// which the app's run gives.
	sc.reset(len(metas))
	runs := b.appRuns(metas, sc)
	r.objectsOf = b.objectsOf(runs, metas)
	// Analyse: the clauses and their term table; then what outside sources say of them.
	b.analyseClauses(req, p, r)
	r.listen(src)
	if len(r.table) == 0 {
		return nil
	}
	// Match: the actions that hold the table's terms, field by field, and those lifted.
	b.match(r, sc)
	df := sc.termFrequencies(len(r.table))
	r.lift(sc, use)
	// Recall: BM25F over the touched actions, for the whole prompt here and for each
	// clause as its candidates are kept.
	idf := idfOf(df, len(r.table), len(metas))
	sc.bm25Docs(metas, avgFieldLens(runs, metas))
	r.recall = b.promptRecall(r, sc, &idf)
	// Features: each clause's candidates.
	b.candidateLists(r, sc, idf)
	return r
}

// match sets the mask of the table's terms each field of each action holds (sc.slugM,
// nameM, descM, paramM) and each run's touched actions, sc.touched[rn.tStart:rn.tEnd]: those
// that hold a term, and all the actions of a small app whose name holds one or that a
// clause names. Each run keeps its app's name terms and the table terms they hold.
func (b *Builder) match(r *ranking, sc *scratch) {
	ids := b.index.table(r.table)
	lookup := newTermMatcher(r.table)
	var params []string
	touched := sc.touched[:0]
	for ri := range sc.runs {
		rn := &sc.runs[ri]
		start, end := rn.start, rn.end
		rn.tStart = len(touched)
		if ix := rn.ix; ix != nil {
			touched = ix.masks(&ids, sc.slugM, sc.nameM, sc.descM, sc.paramM, start, touched)
		} else {
			for i := start; i < end; i++ {
				m := &r.metas[i]
				sc.slugM[i] = lookup.mask(m.SlugTerms)
				sc.nameM[i] = lookup.mask(m.NameTerms)
				sc.descM[i] = lookup.mask(m.DescTerms)
				params = paramTerms(b.an, m.Params, params[:0])
				sc.paramM[i] = lookup.mask(params)
				if sc.slugM[i]|sc.nameM[i]|sc.descM[i]|sc.paramM[i] != 0 {
					touched = append(touched, int32(i))
				}
			}
		}
		// The app's name is a field of each of its actions; a small app is about what its
		// name says, so all its actions are matched when the name shares a term, or when a
		// clause names the app.
		if rn.ix != nil {
			rn.appTerms = rn.ix.appTerms
		} else {
			rn.appTerms = b.an.SlugTerms(r.metas[start].App, "")
		}
		rn.appMask = lookup.mask(rn.appTerms)
		if end-start <= smallApp && (rn.appMask != 0 || r.named(r.metas[start].App)) {
			for i := start; i < end; i++ {
				if sc.slugM[i]|sc.nameM[i]|sc.descM[i]|sc.paramM[i] == 0 {
					touched = append(touched, int32(i))
				}
			}
		}
		rn.tEnd = len(touched)
	}
	sc.touched = touched
}

// termFrequencies returns, for each of the table's terms terms, how many touched actions
// hold it (the app's name counting as a field of each); recall's IDF reads it. It also
// sets the share of each run whose actions were touched (see run.share).
func (sc *scratch) termFrequencies(terms int) (df [maxTerms]int) {
	var maxShare [maxTerms]float32
	shares := sc.shares[:0]
	for ri := range sc.runs {
		rn := &sc.runs[ri]
		if rn.tEnd == rn.tStart {
			continue
		}
		var slugDF [maxTerms]int
		for _, i := range sc.touched[rn.tStart:rn.tEnd] {
			for all := sc.slugM[i] | sc.nameM[i] | sc.descM[i] | sc.paramM[i] | rn.appMask; all != 0; all &= all - 1 {
				df[bits.TrailingZeros64(all)]++
			}
			for s := sc.slugM[i]; s != 0; s &= s - 1 {
				slugDF[bits.TrailingZeros64(s)]++
			}
		}
		shares = append(shares, [maxTerms]float32{})
		for k := range terms {
			v := float32(slugDF[k]) / float32(rn.end-rn.start)
			shares[len(shares)-1][k] = v
			maxShare[k] = max(maxShare[k], v)
		}
	}
	sc.shares = shares
	// An object's share of an app's actions, relative to the app where it is most central:
	// e-mails are 1 for the mail app and a small fraction for a CRM that also has some.
	for si := range shares {
		for k := range terms {
			if maxShare[k] > 0 {
				shares[si][k] /= maxShare[k]
			}
		}
	}
	for ri, si := 0, 0; ri < len(sc.runs); ri++ {
		if sc.runs[ri].tEnd > sc.runs[ri].tStart {
			sc.runs[ri].share = &shares[si]
			si++
		}
	}
	return df
}

// lift adds to the touched actions those an outside source lifts, though they match no
// term: the signals' lifts, and the earlier successful calls the request repeats (use may
// be nil).
func (r *ranking) lift(sc *scratch, use *usageModel) {
	if r.priors != nil && len(use.keys) > 0 {
		r.liftRepeats(use, sc.runs)
	}
	if lifted := r.lifted(); len(lifted) > 0 {
		sc.touched = liftInto(sc.runs, sc.touched, lifted, sc, r.metas)
	}
}

// scratch is per-call working memory, pooled by the Builder.
type scratch struct {
	slugM, nameM, descM, paramM []uint64
	runs                        []run
	touched                     []int32
	shares                      [][maxTerms]float32
	cands                       []cand // the candidates of all clauses
	// traits memoises the traits of actions of apps without an index; traitSet says which
	// are known.
	traits   []traits
	traitSet []bool
	// docs are the touched actions as BM25F reads them (in the order of touched).
	docs []bm25Doc
	// bm is the BM25F score of each touched action for the clause being matched (in the
	// order of touched); bmTop the clause's best scores (see recallScores).
	bm, bmTop []float64
	// promptBM is each touched action's BM25F score for the whole prompt, promptBest the
	// best (see promptRecall).
	promptBM   []float64
	promptBest float64
}

// reset readies sc for a call over n actions: it clears the masks the previous call set,
// so that every mask starts at zero (only the actions it touched can have bits), and sizes
// them for n.
func (sc *scratch) reset(n int) {
	for _, i := range sc.touched {
		sc.slugM[i], sc.nameM[i], sc.descM[i], sc.paramM[i] = 0, 0, 0, 0
	}
	sc.touched = sc.touched[:0]
	sc.cands = sc.cands[:0]
	sc.slugM = grow(sc.slugM, n)
	sc.nameM = grow(sc.nameM, n)
	sc.descM = grow(sc.descM, n)
	sc.paramM = grow(sc.paramM, n)
}

// appRuns splits metas, the actions in scope, into one run per app, in sc.runs. Each run's
// term index is looked up (and built) here, before the table is mapped to term IDs, so
// that a term first seen in an index built now is known to the table. The actions of apps
// without an index get room in sc for their traits.
func (b *Builder) appRuns(metas []cache.ActionMeta, sc *scratch) []run {
	n := len(metas)
	runs := sc.runs[:0]
	for start := 0; start < n; {
		ix, end := b.index.runAt(metas, start, b)
		if ix == nil {
			if cap(sc.traits) < n {
				sc.traits, sc.traitSet = make([]traits, n), make([]bool, n)
			}
			sc.traits, sc.traitSet = sc.traits[:n], sc.traitSet[:n]
			clear(sc.traitSet[start:end])
		}
		runs = append(runs, run{start: start, end: end, ix: ix})
		start = end
	}
	sc.runs = runs
	return runs
}

// objectsOf returns the lookup of an app's main objects among runs (nil for an app
// without a run).
func (b *Builder) objectsOf(runs []run, metas []cache.ActionMeta) func(app string) []string {
	return func(app string) []string {
		for ri := range runs {
			if metas[runs[ri].start].App == app {
				return runs[ri].objects(b, metas)
			}
		}
		return nil
	}
}

// listen asks src, when not nil, what it says of each clause's actions (r.signals), and
// notes the actions each clause's signals lift (r.lifts); r.outside gathers every action
// the signals or the priors speak of.
func (r *ranking) listen(src signalSource) {
	if src != nil {
		r.signals = make([]map[string]signal, len(r.clauses))
		for ci := range r.clauses {
			info := &r.clauses[ci]
			r.signals[ci] = src(info.c.Text, usageTerms(info.c, nil))
		}
		r.lifts = make([][]string, len(r.clauses))
		r.outside = new(slugSet)
		for ci, sigs := range r.signals {
			for a, s := range sigs {
				r.outside.add(a)
				if s.Lift {
					r.lifts[ci] = append(r.lifts[ci], a)
				}
			}
		}
	}
	if r.priors != nil {
		if r.outside == nil {
			r.outside = new(slugSet)
		}
		for k, v := range r.priors.set {
			r.outside[k] |= v
		}
	}
}

// run is one app's stretch of the metadata, with its term index when it has one.
type run struct {
	objs       []string // main objects of an app without an index, once computed
	start, end int
	ix         *appIndex
	// touched[tStart:tEnd] (of the scratch) are the run's actions that share a term with
	// the prompt, in order.
	tStart, tEnd int
	// appTerms are the terms of the app's name; appMask holds the table terms among them
	// (see recall.go).
	appTerms []string
	appMask  uint64
	// share is, per table term, the share of the app's actions whose slug holds it,
	// relative to the largest such share among the candidate apps; nil when no action of
	// the app was touched.
	share *[maxTerms]float32
	// focus is the app's featAppFocus; union the prompt's terms the app holds.
	focus float32
	union uint64
	// promptApp is the app's featPromptApp.
	promptApp float32
}

// objects returns the run's app's main objects, from its index when it has one.
func (rn *run) objects(b *Builder, metas []cache.ActionMeta) []string {
	if rn.ix != nil {
		return rn.ix.objects
	}
	if rn.objs == nil {
		rn.objs = b.appObjects(metas[rn.start:rn.end])
	}
	return rn.objs
}

// traits returns the traits of metas[i], an action of the run: from the app's index when it
// has one, else computed once per call.
func (rn *run) traits(b *Builder, sc *scratch, metas []cache.ActionMeta, i int) *traits {
	if rn.ix != nil {
		return &rn.ix.traits[i-rn.start]
	}
	if !sc.traitSet[i] {
		sc.traits[i] = b.traitsOf(&metas[i])
		sc.traitSet[i] = true
	}
	return &sc.traits[i]
}

// appObjects returns an app's main objects: the two words its actions' slugs hold most
// often, verbs and words common to most apps' slugs aside.
func (b *Builder) appObjects(run []cache.ActionMeta) []string {
	count := map[string]int{}
	for i := range run {
		for _, t := range run[i].SlugTerms {
			if _, verb := b.an.VerbClass(t); verb || len(t) < 3 {
				continue
			}
			if df, _ := b.an.KnownStem(t); df > genericDF {
				continue
			}
			count[t]++
		}
	}
	var out []string
	for len(out) < 2 {
		best, n := "", 0
		for t, c := range count {
			if c > n || c == n && t < best {
				best, n = t, c
			}
		}
		if n < 2 && len(out) > 0 || n == 0 {
			break
		}
		out = append(out, best)
		delete(count, best)
	}
	return out
}

// termMatcher gives the mask of a term table's terms among a field's terms.
type termMatcher struct {
	table []string
	// A cheap pre-filter: first byte -> bitmask of term lengths present.
	// Lengths are checked first: that reads only the string header, not its bytes.
	quick [256]uint64
	lens  uint64
}

func newTermMatcher(table []string) *termMatcher {
	m := &termMatcher{table: table}
	for _, s := range table {
		if len(s) < 64 {
			m.quick[s[0]] |= 1 << len(s)
			m.lens |= 1 << len(s)
		}
	}
	return m
}

// mask returns the mask of table terms among terms: bit k is set when table[k] is one of
// them.
func (m *termMatcher) mask(terms []string) (mask uint64) {
	for _, s := range terms {
		if len(s) >= 64 || m.lens&(1<<len(s)) == 0 || m.quick[s[0]]&(1<<len(s)) == 0 {
			continue
		}
		for i, q := range m.table {
			if q == s {
				mask |= 1 << i
				break
			}
		}
	}
	return mask
}

// liftRepeats finds the earlier successful calls the request repeats (near or exact) in
// the workspace's model, and lifts their actions into every stated clause: homeRepeats
// keeps each in one. The words of the apps' names (those of runs) count on neither side: a
// record of use keeps the terms of a prompt read without its apps (PromptTerms), the
// ranking reads it with them, and the two differ most in those words.
func (r *ranking) liftRepeats(use *usageModel, runs []run) {
	var appWords []string
	for ri := range runs {
		appWords = append(appWords, runs[ri].appTerms...)
	}
	nStated := len(r.clauses) - r.lookups
	var terms []string
	for ci := range r.clauses[:nStated] {
		terms = usageTerms(r.clauses[ci].c, terms)
	}
	terms = slices.DeleteFunc(terms, func(t string) bool { return slices.Contains(appWords, t) })
	r.repeats = use.repeats(terms[:min(len(terms), cache.MaxUsageTerms)], appWords)
	if len(r.repeats) == 0 {
		return
	}
	if r.lifts == nil {
		r.lifts = make([][]string, len(r.clauses))
	}
	for a, v := range r.repeats {
		if v < nearAt {
			continue
		}
		for ci := range nStated {
			if !slices.Contains(r.lifts[ci], a) {
				r.lifts[ci] = append(r.lifts[ci], a)
			}
		}
	}
}

// lifted returns the slugs any clause's signals lift into the candidates.
func (r *ranking) lifted() []string {
	var out []string
	for _, l := range r.lifts {
		for _, a := range l {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// liftInto adds to each run's touched actions those lifted that it does not hold yet, and
// fixes the runs' ranges in touched (which it rebuilds). A lifted action is looked for in
// the runs of the apps its slug starts with, as catalogue slugs do; one that starts with
// no run's app is looked for in every run.
func liftInto(runs []run, touched []int32, lifted []string, sc *scratch, metas []cache.ActionMeta) []int32 {
	everywhere := false
	for _, a := range lifted {
		everywhere = everywhere || !slices.ContainsFunc(runs, func(rn run) bool { return slugOfApp(a, metas[rn.start].App) })
	}
	out := make([]int32, 0, len(touched)+len(lifted))
	for ri := range runs {
		rn := &runs[ri]
		start := len(out)
		out = append(out, touched[rn.tStart:rn.tEnd]...)
		app := metas[rn.start].App
		if !everywhere && !slices.ContainsFunc(lifted, func(a string) bool { return slugOfApp(a, app) }) {
			rn.tStart, rn.tEnd = start, len(out)
			continue
		}
		for i := rn.start; i < rn.end; i++ {
			if sc.slugM[i]|sc.nameM[i]|sc.descM[i]|sc.paramM[i] == 0 && slices.Contains(lifted, metas[i].Action) {
				out = append(out, int32(i))
			}
		}
		rn.tStart, rn.tEnd = start, len(out)
		if rn.share == nil && rn.tEnd > rn.tStart {
			rn.share = new([maxTerms]float32)
		}
	}
	return out
}

// slugOfApp reports whether an action slug starts with the app's slug and an underscore,
// in any case.
func slugOfApp(slug, app string) bool {
	return len(slug) > len(app) && slug[len(app)] == '_' && strings.EqualFold(slug[:len(app)], app)
}

func appendUniq(ss []string, add ...string) []string {
	for _, s := range add {
		if !slices.Contains(ss, s) {
			ss = append(ss, s)
		}
	}
	return ss
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
