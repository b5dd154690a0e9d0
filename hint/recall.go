package hint

import (
	"math"
	"math/bits"

	"github.com/toolhint/toolhint/cache"
)

// The recall stage: a field-weighted BM25 (BM25F) over the fields of every action the
// prompt shares a term with. The ranking's candidate gate (what the clause acts on, its
// capabilities, the named app's verbs) is knowledge, and knowledge misses things no rule
// foresaw: "retrieve information about postmodern theory" matches GET_POSTMODERN_THEORY on
// words alone. So the actions BM25F ranks highest for a clause are candidates whether or not
// they pass the gate, and every candidate's BM25F score is a feature of the ordering. The
// destructive rule and permissions stay hard filters: recall never lists what the gate
// keeps out for safety.
//
// The fields are the action's key words (slug words without the app prefix, and the display
// name), its description, and its parameter names. Metadata holds each field's terms once,
// so a term's frequency in a field is 0 or 1; BM25F's saturation then acts across fields (a
// term in both the name and the description counts more than in one, less than twice).
//
// It takes the touched actions, with the terms each of their fields holds (match.go), and
// hands features (features.go) each touched action's BM25F score for each clause, the
// clause's best scores, the whole prompt's, and each app's focus and share of its name the
// prompt says; the whole prompt's best actions (ranking.recall) are what order (order.go)
// fuses the clauses' list with and fills a hint with.

const (
	recallDepth = 40 // actions a clause admits on BM25F alone, best first
	recallFill  = 12 // a hint is filled up to this many actions from the whole prompt's BM25F ranking
	// smallApp is the most actions an app may have for all of them to be matched when its
	// name shares a term with the prompt.
	smallApp = 16

	bm25K1 = 1.2
	// Field weights and length normalisation: the key words say what an action does and are
	// short (no normalisation beyond a little); descriptions vary in length.
	bm25KeyW, bm25KeyB     = 2.0, 0.3
	bm25DescW, bm25DescB   = 1.0, 0.75
	bm25ParamW, bm25ParamB = 0.3, 0.0
	bm25AppW               = 1.5 // the app's name, the same for each of its actions
	// An expansion of a prompt word (a synonym, a derivation, context) counts for this share
	// of its weight: it may add a little, never decide.
	bm25ExpansionShare = 0.3
)

// fieldLens holds the average field lengths of the actions in scope.
type fieldLens struct{ key, desc, param float64 }

// sumFieldLens returns the sums of the key, description and parameter field lengths of metas.
func sumFieldLens(metas []cache.ActionMeta) fieldLens {
	var l fieldLens
	for i := range metas {
		k, d, p := actionFieldLens(&metas[i])
		l.key += k
		l.desc += d
		l.param += p
	}
	return l
}

// avgFieldLens returns the average key, description and parameter field lengths of the
// actions of runs (from their indexes' sums where they have one).
func avgFieldLens(runs []run, metas []cache.ActionMeta) fieldLens {
	var l fieldLens
	n := 0
	for ri := range runs {
		rn := &runs[ri]
		s := fieldLens{}
		if rn.ix != nil {
			s = rn.ix.lens
		} else {
			s = sumFieldLens(metas[rn.start:rn.end])
		}
		l.key, l.desc, l.param = l.key+s.key, l.desc+s.desc, l.param+s.param
		n += rn.end - rn.start
	}
	nf := float64(max(1, n))
	return fieldLens{key: max(1, l.key/nf), desc: max(1, l.desc/nf), param: max(1, l.param/nf)}
}

func actionFieldLens(m *cache.ActionMeta) (key, desc, param float64) {
	return float64(max(len(m.SlugTerms), len(m.NameTerms))), float64(len(m.DescTerms)), float64(len(m.Params))
}

// bm25Doc is a touched action as BM25F reads it: the table terms of its fields, each in
// the first field that holds it (key, description, parameter names), and each field's
// weight after length normalisation. It is the same for every clause of a call.
type bm25Doc struct {
	key, desc, param uint64
	nk, nd, np       float64
}

// bm25Docs fills sc.docs with the touched actions' BM25F view (in the order of sc.touched),
// their fields' lengths normalised by avg.
func (sc *scratch) bm25Docs(metas []cache.ActionMeta, avg fieldLens) {
	sc.docs = grow(sc.docs, len(sc.touched))
	for j, i := range sc.touched {
		kl, dl, pl := actionFieldLens(&metas[i])
		key := sc.slugM[i] | sc.nameM[i]
		sc.docs[j] = bm25Doc{
			key: key, desc: sc.descM[i] &^ key, param: sc.paramM[i] &^ key &^ sc.descM[i],
			nk: bm25KeyW / (1 - bm25KeyB + bm25KeyB*kl/avg.key),
			nd: bm25DescW / (1 - bm25DescB + bm25DescB*dl/avg.desc),
			np: bm25ParamW / (1 - bm25ParamB + bm25ParamB*pl/avg.param),
		}
	}
}

// bm25Query returns, per table term, a clause's weight of it (an expansion's at its share)
// times its IDF: what a match of the term contributes before saturation.
func bm25Query(info *clauseInfo, idf *[maxTerms]float64) *[maxTerms]float64 {
	var q [maxTerms]float64
	for mk := info.mask; mk != 0; mk &= mk - 1 {
		k := bits.TrailingZeros64(mk)
		w := info.w[k]
		if info.expMask&(1<<k) != 0 {
			w *= bm25ExpansionShare
		}
		q[k] = w * idf[k]
	}
	return &q
}

// bm25f scores one action, d, for a clause's terms mask weighted by q (see bm25Query); app
// holds the table terms of the action's app's name.
func bm25f(q *[maxTerms]float64, mask uint64, d *bm25Doc, app uint64) float64 {
	s := 0.0
	for mk := (d.key | d.desc | d.param | app) & mask; mk != 0; mk &= mk - 1 {
		k := bits.TrailingZeros64(mk)
		bit := uint64(1) << k
		tf := 0.0
		if d.key&bit != 0 {
			tf += d.nk
		}
		if d.desc&bit != 0 {
			tf += d.nd
		}
		if d.param&bit != 0 {
			tf += d.np
		}
		if app&bit != 0 {
			tf += bm25AppW
		}
		s += q[k] * tf * (bm25K1 + 1) / (tf + bm25K1)
	}
	return s
}

// idfOf returns the IDF of each of the table's terms terms over n actions, df[k] of which
// hold term k, divided by the IDF of a term only one action holds, so that scores mean the
// same for two apps and for two hundred.
func idfOf(df [maxTerms]int, terms, n int) (idf [maxTerms]float64) {
	top := bm25IDF(float64(n), 0)
	for k := range terms {
		idf[k] = bm25IDF(float64(n), float64(df[k])) / top
	}
	return idf
}

// bm25IDF is BM25's IDF of a term df of n documents hold.
func bm25IDF(n, df float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// recallScores fills sc.bm with the BM25F score of each touched action for clause info (in
// the order of sc.touched) and returns the least score that admits an action on recall
// alone (the recallDepth-th best, above zero) and the best score.
func (sc *scratch) recallScores(info *clauseInfo, idf *[maxTerms]float64) (floor, best float64) {
	sc.bm = grow(sc.bm, len(sc.touched))
	q := bm25Query(info, idf)
	for ri := range sc.runs {
		rn := &sc.runs[ri]
		for j := rn.tStart; j < rn.tEnd; j++ {
			sc.bm[j] = bm25f(q, info.mask, &sc.docs[j], rn.appMask)
		}
	}
	// The recallDepth best scores, high to low: a bounded insertion keeps this linear in the
	// number of touched actions.
	top := sc.bmTop[:0]
	for _, v := range sc.bm {
		if v <= 0 || len(top) == recallDepth && v <= top[len(top)-1] {
			continue
		}
		if len(top) < recallDepth {
			top = append(top, v)
		} else {
			top[len(top)-1] = v
		}
		for k := len(top) - 1; k > 0 && top[k] > top[k-1]; k-- {
			top[k], top[k-1] = top[k-1], top[k]
		}
	}
	sc.bmTop = top
	if len(top) == 0 {
		return 1, 0 // nothing scores: no action is admitted on recall
	}
	best, floor = top[0], top[len(top)-1]
	return floor, best
}

// promptRecall ranks the actions by BM25F against the whole prompt and returns the best (at
// most recallFill); each touched action's score is left in sc.promptBM (by touched
// position) and the best in sc.promptBest, for the ordering's feature, and each app's
// focus and share of its name the prompt says (featPromptApp) in its run.
//
// The query is the prompt's own words (r.said), each weighing the same, as a plain lexical
// ranking reads a request: not the clauses' terms, which the analysis weighs by their role
// and where splitting the prompt into clauses is itself a guess (a sentence that describes
// may read as context or as a step, a word may be cut). The list ranks destructive actions
// too, as it is also the whole prompt's vote in the list's final order (see list); a hint is
// never filled with one.
func (b *Builder) promptRecall(r *ranking, sc *scratch, idf *[maxTerms]float64) []int32 {
	sc.promptBM = grow(sc.promptBM, len(sc.touched))
	clear(sc.promptBM)
	sc.promptBest = 0
	var all clauseInfo
	for ci := range r.clauses[:len(r.clauses)-r.lookups] {
		info := &r.clauses[ci]
		for mk := info.mask &^ info.expMask; mk != 0; mk &= mk - 1 {
			k := bits.TrailingZeros64(mk)
			all.w[k] = max(all.w[k], info.w[k])
			all.mask |= 1 << k
		}
	}
	if all.mask == 0 {
		return nil
	}
	appFocus(sc.runs, sc, &all)
	var top []hit
	for ri := range sc.runs {
		rn := &sc.runs[ri]
		rn.promptApp = promptAppShare(rn, r.saidNames, idf)
		for j := rn.tStart; j < rn.tEnd; j++ {
			i := sc.touched[j]
			// Each of the prompt's words weighs one: its query weight is its IDF.
			s := bm25f(idf, r.said, &sc.docs[j], rn.appMask)
			sc.promptBM[j] = s
			sc.promptBest = max(sc.promptBest, s)
			h := hit{i, s}
			if s <= 0 || len(top) == recallFill && !h.before(top[len(top)-1]) {
				continue
			}
			if len(top) < recallFill {
				top = append(top, h)
			} else {
				top[len(top)-1] = h
			}
			for k := len(top) - 1; k > 0 && top[k].before(top[k-1]); k-- {
				top[k], top[k-1] = top[k-1], top[k]
			}
		}
	}
	if r.recipe || len(r.explicit) > 0 {
		return nil
	}
	out := make([]int32, len(top))
	for k, h := range top {
		out[k] = h.i
	}
	return out
}

// hit is an action of the whole prompt's ranking with its score.
type hit struct {
	i     int32
	score float64
}

// before orders hits by score, then by action: the order must not depend on the order in
// which the actions were touched (the indexed and the plain match differ in it), or an
// index built between two requests would change a hint.
func (h hit) before(o hit) bool {
	return h.score > o.score || h.score == o.score && h.i < o.i
}

// promptAppShare is the share of an app's name words, weighted by IDF, that the prompt
// says (said): a word of the name not in the table is taken as the rarest, of weight one.
func promptAppShare(rn *run, said uint64, idf *[maxTerms]float64) float32 {
	in := rn.appMask & said
	if in == 0 {
		return 0
	}
	w := 0.0
	for mk := in; mk != 0; mk &= mk - 1 {
		w += idf[bits.TrailingZeros64(mk)]
	}
	return float32(w / (w + float64(max(0, len(rn.appTerms)-bits.OnesCount64(in)))))
}

// appFocus sets each run's focus: the share of the prompt's words (all's terms, each
// weighted by its IDF over the apps in scope) that the app's touched actions and its name
// hold, relative to the app holding the largest share.
func appFocus(runs []run, sc *scratch, all *clauseInfo) {
	var df [maxTerms]int
	for ri := range runs {
		rn := &runs[ri]
		u := rn.appMask
		for _, i := range sc.touched[rn.tStart:rn.tEnd] {
			u |= sc.slugM[i] | sc.nameM[i] | sc.descM[i] | sc.paramM[i]
		}
		u &= all.mask
		rn.union = u
		for mk := u; mk != 0; mk &= mk - 1 {
			df[bits.TrailingZeros64(mk)]++
		}
	}
	n := float64(len(runs))
	var q [maxTerms]float64
	for mk := all.mask; mk != 0; mk &= mk - 1 {
		k := bits.TrailingZeros64(mk)
		q[k] = all.w[k] * bm25IDF(n, float64(df[k]))
	}
	best := 0.0
	for ri := range runs {
		rn := &runs[ri]
		cov := 0.0
		for mk := rn.union; mk != 0; mk &= mk - 1 {
			cov += q[bits.TrailingZeros64(mk)]
		}
		rn.focus = float32(cov)
		best = max(best, cov)
	}
	if best <= 0 {
		return
	}
	for ri := range runs {
		runs[ri].focus = float32(min(1, focusShare*float64(runs[ri].focus)/best))
	}
}

// focusShare: an app that covers at least 1/focusShare of what the app covering most of
// the prompt covers has the full focus. A request that spans two apps (create the contact
// in one, e-mail it with the other) gives both their share; the apps that hold a word or
// two of it by chance get little.
const focusShare = 2
