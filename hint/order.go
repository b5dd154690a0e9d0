package hint

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/cache"
)

// Order, the stage where the weights come in. It takes each clause's candidates
// (features.go), scores each as the dot product of its features with the weights, and
// keeps the clause's best (keep): the actions of an app the clause names first, then by
// score, within keep_ratio of the best and above min_score. The clauses' lists are
// interleaved (rankSelect): in each round the clauses whose best scores near the best
// clause's take their turns first, the weaker ones after them, and a clause whose best is
// very weak joins late (schedule); the steps the prompt implies follow with their best few.
// fuse weighs that list against the whole prompt's BM25F ranking (recall.go). list puts the
// actions the prompt names by slug first, holds the hint to its limits, and fills it from
// the whole prompt's ranking, the apps the request names first: a hint that is not sure up
// to twelve actions, one that is sure up to three (sureFill); whether it is sure is
// calibration's to say.
//
// fill writes the listed actions into the Result, each with its Match, and hands the lead
// of the list to calibration (calibrate.go) for the hint's probability and confidence; the
// Result then goes to render (render.go).

const (
	lookupTake = 2 // actions listed for a step the prompt implies (finding what it acts on)
	minKeep    = 3 // a clause's best actions listed however low they score
	sureFill   = 3 // a confident hint for one step is filled up to this many actions
)

// scored is a candidate with its score for the weights in use.
type scored struct {
	cand  *cand
	score float64
	// earned is the evidence of the action's words, which the list's cut reads (see
	// earned).
	earned float64
}

// keep scores a clause's candidates and keeps its best: the actions of an app the clause
// names first, then by score; within keep_ratio of the top and above min_score.
func (r *ranking) keep(cands []cand, w *Weights, lim Limits) []scored {
	out := make([]scored, 0, len(cands))
	best, bestNamed := math.Inf(-1), math.Inf(-1)
	for i := range cands {
		c := &cands[i]
		s := 0.0
		for k, v := range c.f {
			if v != 0 {
				s += float64(v) * w.v[k]
			}
		}
		e := earned(c, w, s)
		out = append(out, scored{cand: c, score: s, earned: e})
		if c.named {
			bestNamed = max(bestNamed, e)
		} else {
			best = max(best, e)
		}
	}
	// Actions the workspace's history clearly leads to are never cut, and an exact repeat
	// of a successful call leads its clause, after the actions of an app the clause names.
	clearly := func(c *cand) bool { return c.f[featRepeat] > 0 || c.f[featCover] >= liftAt && c.f[featPrior] > 0 }
	exact := func(c *cand) bool { return c.f[featRepeat] >= exactAt }
	// Actions that cannot be kept need no sorting: the cut below keeps, of the other apps'
	// actions, only those within keep_ratio of the clause's first action (the named app's
	// best when it has any) once that scores above min_score.
	if bestNamed > math.Inf(-1) {
		best = bestNamed
	}
	keepRatio, minScore := w.v[paramKeepRatio], w.v[paramMinScore]
	if best >= minScore && len(out) > 4*minKeep {
		floor := keepRatio * best
		kept := out[:0]
		for _, c := range out {
			if c.cand.named || c.earned >= floor || clearly(c.cand) {
				kept = append(kept, c)
			}
		}
		if len(kept) >= minKeep {
			out = kept
		}
	}
	metas := r.metas
	slices.SortFunc(out, func(x, y scored) int {
		switch {
		case x.cand.named != y.cand.named:
			if x.cand.named {
				return -1
			}
			return 1
		case exact(x.cand) != exact(y.cand):
			if exact(x.cand) {
				return -1
			}
			return 1
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		// Ties go to the plainer action (fewer slug words), then by name.
		mx, my := &metas[x.cand.i], &metas[y.cand.i]
		if lx, ly := len(mx.SlugTerms), len(my.SlugTerms); lx != ly {
			return lx - ly
		}
		return strings.Compare(mx.Action, my.Action)
	})
	n := 0
	perApp := map[string]int{}
	first := best
	for _, c := range out {
		// Listed: within keep_ratio of the clause's best and above min_score. When even the
		// best is below it, the best few are listed all the same: a weak guess, which the
		// hint does not claim to be sure of, beats no answer. The cut reads earned scores,
		// so that similarity and usage, which reorder, never shorten a list.
		cut := c.earned < minScore || n > 0 && c.earned < keepRatio*first
		if cut && !(first < minScore && n < minKeep) && !clearly(c.cand) {
			continue
		}
		app := metas[c.cand.i].App
		if perApp[app] >= lim.MaxDBRowsPerApp {
			continue
		}
		perApp[app]++
		out[n] = c
		n++
		if n >= lim.MaxActions {
			break
		}
	}
	return out[:n]
}

// earned is the part of a candidate's score that the list's cut and the hint's confidence
// read: all of it but what semantic similarity, the app's focus and the workspace's record
// of use add. Similarity orders and lifts actions, but only lexical evidence earns the
// strong directive, since the semantic weight is set by hand rather than fitted on a real
// model's vectors. The app's focus is the same for all its actions: it orders them against
// other apps' but says nothing of which of them the request wants. Usage reorders; its
// own say is the floor of an exact repeat (see lead.probability).
func earned(c *cand, w *Weights, score float64) float64 {
	return score - float64(c.f[featSemantic])*w.v[featSemantic] - float64(c.f[featAppFocus])*w.v[featAppFocus] - usageScore(c, w)
}

// usageScore is the part of c's score with w that the workspace's record of use gives.
func usageScore(c *cand, w *Weights) float64 {
	s := 0.0
	for _, k := range [...]int{featPrior, featLearnt, featCover, featRepeat} {
		s += float64(c.f[k]) * w.v[k]
	}
	return s
}

// repeatLead returns the stated clause whose first kept action is the surest exact repeat
// (see usageModel.repeats), -1 when none is, or when the request names an app first and
// the action is not of it.
func (r *ranking) repeatLead(kept [][]scored) int {
	lead, best := -1, float32(0)
	for ci, k := range kept {
		if len(k) > 0 && k[0].cand.f[featRepeat] >= exactAt && k[0].cand.f[featRepeat] > best {
			lead, best = ci, k[0].cand.f[featRepeat]
		}
	}
	if lead >= 0 && r.namesOtherApp(r.metas[kept[lead][0].cand.i].App) {
		return -1
	}
	return lead
}

// schedule says when each clause takes its turns in the interleave. delay is, per stated
// clause, the rounds it joins late: one for a clause of several whose best action scores
// below defer_ratio of the best clause's best, every round for one where nothing earns a
// place. order is the order of the turns in each round: the stated clauses whose best
// scores at least lead_ratio of the best clause's best, then the other stated clauses,
// each in the prompt's order, then the implied steps.
func (r *ranking) schedule(kept [][]scored, nStated int, w *Weights) (delay, order []int) {
	delay = make([]int, nStated)
	order = make([]int, 0, len(kept))
	top, last := math.Inf(-1), 0
	for _, k := range kept[:nStated] {
		if len(k) > 0 {
			top = max(top, k[0].score)
		}
		last = max(last, len(k))
	}
	lead := func(ci int) bool {
		return nStated < 2 || top <= 0 || len(kept[ci]) > 0 && kept[ci][0].score >= w.v[paramLeadRatio]*top
	}
	var after []int
	for ci := range nStated {
		if lead(ci) {
			order = append(order, ci)
		} else {
			after = append(after, ci)
		}
	}
	order = append(order, after...)
	for ci := nStated; ci < len(kept); ci++ {
		order = append(order, ci)
	}
	if nStated < 2 || top <= 0 {
		return delay, order
	}
	for ci, k := range kept[:nStated] {
		switch {
		case len(k) == 0:
		case k[0].score <= 0:
			// Nothing in it earns a place (a sentence that only says what the request is
			// for): it comes after every other clause's list.
			delay[ci] = last
		case k[0].score < w.v[paramDeferRatio]*top:
			delay[ci] = 1
		}
	}
	return delay, order
}

// rankSelect scores and cuts each clause's candidates with w, and interleaves the clauses'
// lists; emit is called for each action listed, in order, with the clause it serves.
func (r *ranking) rankSelect(w *Weights, lim Limits, emit func(c *cand, score float64, ci int) bool) {
	nStated := len(r.clauses) - r.lookups
	kept := make([][]scored, len(r.clauses))
	for ci := range r.clauses {
		kept[ci] = r.keep(r.lists[ci], w, lim)
	}
	// An exact repeat of successful calls that leads its clause leads the hint, unless the
	// request names another app first.
	if ci := r.repeatLead(kept[:nStated]); ci >= 0 {
		if !emit(kept[ci][0].cand, kept[ci][0].score, ci) {
			return
		}
	}
	// Interleave the clauses' rankings so each step surfaces its best actions first; the
	// implied steps that find what a clause acts on take part with their best few, after
	// the stated steps of each round.
	delay, order := r.schedule(kept, nStated, w)
	for round := 0; ; round++ {
		more := false
		for _, ci := range order {
			rank := round
			if ci < nStated {
				rank -= delay[ci]
			}
			if rank < 0 {
				more = true
				continue
			}
			if rank >= len(kept[ci]) || ci >= nStated && rank >= lookupTake {
				continue
			}
			more = true
			if !emit(kept[ci][rank].cand, kept[ci][rank].score, ci) {
				return
			}
		}
		if !more {
			return
		}
	}
}

// listed is an action in the clauses' interleaved list (rankSelect), before list's cut.
type listed struct {
	cand  *cand
	score float64
	ci    int
}

// fuseDepth bounds the interleaved list that fuse reorders: past it nothing is listed.
const fuseDepth = 40

// rrfK is the reciprocal-rank fusion constant: the n-th place of a ranking counts
// 1/(rrfK+n), so the first places of two rankings weigh alike and a long tail adds little.
const rrfK = 10

// fuse puts the clauses' interleaved list in its final order: each action's place there
// and, weighted by fuse_single (a request of one stated step), fuse_multi (two) or
// fuse_many times half the steps after the first (three or more: each boundary between
// steps is one more guess), its place in the whole prompt's BM25F ranking (r.recall), by
// reciprocal-rank fusion. The more steps a split finds, the likelier one is wrong. The
// steps' own lists know verbs and apps; the whole prompt's ranking knows which actions
// the request's words, all together, point to, which is what a split into clauses misses
// when a sentence that only sets the scene reads as a step, or one sentence asks for two.
// The first action of a clause that names its app keeps its place: there the clause's
// knowledge is surest.
func (r *ranking) fuse(seq []listed, w *Weights) []listed {
	var lam float64
	switch n := len(r.clauses) - r.lookups; {
	case n == 1:
		lam = w.v[paramFuseSingle]
	case n == 2:
		lam = w.v[paramFuseMulti]
	default:
		lam = w.v[paramFuseMany] * float64(n-1) / 2
	}
	if lam <= 0 || len(r.recall) == 0 {
		return seq
	}
	place := make(map[int32]int, len(r.recall))
	for k, i := range r.recall {
		place[i] = k
	}
	score := make(map[int32]float64, len(seq)+len(r.recall))
	pinned := make([]bool, len(seq))
	firstOf := make([]bool, len(r.clauses))
	for k, it := range seq {
		score[it.cand.i] = 1 / float64(rrfK+k)
		if p, ok := place[it.cand.i]; ok {
			score[it.cand.i] += lam / float64(rrfK+p)
		}
		if it.ci < len(r.clauses)-r.lookups && !firstOf[it.ci] {
			firstOf[it.ci] = true
			pinned[k] = r.clauses[it.ci].appStrength >= 1
		}
	}
	for k, i := range r.recall {
		if _, ok := score[i]; !ok && !r.metas[i].Destructive {
			score[i] = lam / float64(rrfK+k)
			seq = append(seq, listed{cand: &cand{i: i, recallOnly: true}})
			pinned = append(pinned, false)
		}
	}
	var free []listed
	for k, it := range seq {
		if !pinned[k] {
			free = append(free, it)
		}
	}
	slices.SortStableFunc(free, func(a, b listed) int { return cmp.Compare(score[b.cand.i], score[a.cand.i]) })
	out := make([]listed, 0, len(seq))
	for k := range seq {
		if pinned[k] {
			out = append(out, seq[k])
		} else {
			out, free = append(out, free[0]), free[1:]
		}
	}
	return out
}

// namedFirst returns xs with the actions (action gives each x's index in metas) of the
// named apps first, each part in its order; xs itself when named is empty.
func namedFirst[T any](metas []cache.ActionMeta, named []string, xs []T, action func(T) int32) []T {
	if len(named) == 0 {
		return xs
	}
	out := make([]T, 0, len(xs))
	for pass := range 2 {
		for _, x := range xs {
			if slices.Contains(named, metas[action(x)].App) == (pass == 0) {
				out = append(out, x)
			}
		}
	}
	return out
}

// list calls emit for each action r lists with weights w, in order, within the limits: at
// most MaxActions in all, MaxActionsPerApp per app and MaxAppsSearch apps, each action once.
func (b *Builder) list(r *ranking, w *Weights, emit func(c *cand, score float64, ci int)) {
	lim := b.limits
	perApp := map[string]int{}
	var appsUsed []string
	seen := map[int32]bool{}
	n := 0
	// blocked: listed already, or its app has its MaxActionsPerApp; appsFull: its app would
	// be one past MaxAppsSearch; record: count it as listed.
	blocked := func(i int32) bool { return seen[i] || perApp[r.metas[i].App] >= lim.MaxActionsPerApp }
	appsFull := func(app string) bool {
		return !slices.Contains(appsUsed, app) && len(appsUsed) >= lim.MaxAppsSearch
	}
	record := func(i int32) {
		app := r.metas[i].App
		if !slices.Contains(appsUsed, app) {
			appsUsed = append(appsUsed, app)
		}
		seen[i] = true
		perApp[app]++
		n++
	}
	for _, i := range r.explicit {
		record(i)
		emit(&cand{i: i, named: true}, 0, 0)
	}
	var seq []listed
	r.rankSelect(w, lim, func(c *cand, score float64, ci int) bool {
		if !slices.ContainsFunc(seq, func(l listed) bool { return l.cand.i == c.i }) {
			seq = append(seq, listed{c, score, ci})
		}
		return len(seq) < fuseDepth
	})
	ld := newLead()
	single := len(r.clauses)-r.lookups == 1
	named := r.namedApps()
	fused := r.fuse(seq, w)
	if single && len(named) > 0 {
		// One step: the actions of the app it names stay first, whatever the whole
		// prompt's ranking says of the others, and those of them the whole prompt's
		// ranking holds come before any other app's action.
		for _, i := range r.recall {
			if !r.metas[i].Destructive && slices.Contains(named, r.metas[i].App) &&
				!slices.ContainsFunc(fused, func(l listed) bool { return l.cand.i == i }) {
				fused = append(fused, listed{cand: &cand{i: i, recallOnly: true}})
			}
		}
		fused = namedFirst(r.metas, named, fused, func(l listed) int32 { return l.cand.i })
	}
	for _, it := range fused {
		c := it.cand
		if blocked(c.i) || c.recallOnly && single && ld.confident(r, w) {
			continue
		}
		ld.see(r, w, c, it.score, it.ci)
		if appsFull(r.metas[c.i].App) {
			continue
		}
		record(c.i)
		emit(c, it.score, it.ci)
		if n >= lim.MaxActions {
			break
		}
	}
	// Room left in a hint that is not sure: the whole prompt's BM25F ranking fills it, after
	// everything the clauses ranked. A confident hint for one step stays short, filled up
	// to sureFill: the action it is sure of, and what the request may need before it
	// (finding the available cars before reserving one).
	fillTo := recallFill
	if single && ld.confident(r, w) {
		fillTo = sureFill
	}
	// The apps the request names fill first: a hint never lists another app's action
	// before one of the app asked for.
	for _, i := range namedFirst(r.metas, named, r.recall, func(i int32) int32 { return i }) {
		if n >= min(fillTo, lim.MaxActions) {
			break
		}
		if r.metas[i].Destructive || blocked(i) || appsFull(r.metas[i].App) {
			continue
		}
		record(i)
		emit(&cand{i: i, recallOnly: true}, 0, 0)
	}
}

// fill lists the actions of r ranked with w into res. It returns, for the matches that
// carry parameter hints, their index in r.metas (in the order of res.Matches).
func (b *Builder) fill(r *ranking, w *Weights, res *Result) (hinted []int32) {
	lim := b.limits
	ld := newLead()
	b.list(r, w, func(c *cand, score float64, ci int) {
		ld.see(r, w, c, score, ci)
		m := &r.metas[c.i]
		info := &r.clauses[ci]
		tier := StrategyTokenFiltered
		switch {
		case r.recipe:
			tier = StrategyRecipeToken
		case c.capHit:
			tier = StrategyCapability
		}
		step := r.step(ci)
		match := Match{Action: m.Action, App: m.App, Tier: tier, Score: round3(score), Step: step,
			Usage: round3(usageScore(c, w))}
		if n := bits.OnesCount64(c.mask); n > 0 {
			match.Terms = make([]string, 0, n)
		}
		for mk := c.mask; mk != 0; mk &= mk - 1 {
			match.Terms = append(match.Terms, r.table[bits.TrailingZeros64(mk)])
		}
		if c.capHit {
			for _, id := range m.Capabilities {
				if slices.Contains(info.caps, id) {
					match.Capabilities = append(match.Capabilities, id)
				}
			}
		}
		if len(res.Matches) < lim.MaxParamHintActions && len(m.Params) > 0 {
			match.Params = m.Params[:min(len(m.Params), lim.MaxParamsPerAction)]
			hinted = append(hinted, c.i)
		}
		res.Matches = append(res.Matches, match)
		res.MatchedActions = append(res.MatchedActions, m.Action)
	})
	if len(res.Matches) == 0 {
		return nil
	}
	res.Strategy = res.Matches[0].Tier
	res.Confident = ld.confident(r, w)
	res.Probability = round3(ld.probability(r, w))
	switch {
	case len(r.explicit) > 0:
		res.Reason = "the request names the action"
	case r.relaxed:
		res.Reason = "no action matched what the request acts on; these share some of its words"
	case res.Confident:
		res.Reason = "the top action matched the request closely"
	case r.namesOtherApp(res.Matches[0].App):
		res.Reason = "no action of the app the request names matched it"
	default:
		res.Reason = "the best match is not close enough to be sure"
	}
	return hinted
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
