package hint

import (
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/internal/text"
)

// Ranking happens in two parts. The first analyses the prompt into clauses, matches every
// candidate action against each clause's terms, keeps the actions that pass the clause's
// gate, and describes each by a vector of features (see weights.go); none of this depends
// on the weights. The second scores each kept action as the dot product of its features
// with the weights, orders and cuts each clause's list, and interleaves the clauses' lists.
// A Trace holds the first part, so that weights can be fitted without analysing again.
//
// Steps a prompt implies come last: a clause that acts on something existing it names by
// kind, not by ID ("send out the draft I wrote"), also lists the best actions that find it.

const (
	maxTerms       = 64
	maxUnexplained = 5
	lookupTake     = 2 // actions listed for a step the prompt implies (finding what it acts on)
	minKeep        = 3 // a clause's best actions listed however low they score
)

// cand is one action kept for a clause, with its features.
type cand struct {
	i      int32 // index into the metadata
	named  bool  // the clause names the action's app directly
	capHit bool
	// recallOnly says the action failed the clause's gate and is a candidate because BM25F
	// ranks it among the clause's best.
	recallOnly bool
	// liftOnly says the action is a candidate only because an outside source lifts it: it
	// shares no word with the clause and BM25F does not recall it.
	liftOnly bool
	mask     uint64 // table terms the action matched
	f        [numFeatures]float32
}

// ranking is the weight-independent part of ranking one request.
type ranking struct {
	metas   []cache.ActionMeta
	table   []string
	clauses []clauseInfo
	lists   [][]cand // per clause, then per lookup
	lookups int      // the last lookups entries of clauses are implied lookup steps
	of      []int    // per lookup: the clause it serves
	recipe  bool
	relaxed bool // no action passed the gate: the lists are guesses
	// recall is the whole prompt's BM25F ranking (see promptRecall): what fills a hint
	// after the clauses' lists.
	recall []int32
	caps   []string
	// objectsOf returns an app's main objects.
	objectsOf func(app string) []string
	// explicit are the actions the prompt names by their exact slug, in order: they are
	// listed first, and make the hint confident.
	explicit []int32
	// signals are, per clause (then per implied step), what sources outside the lexical
	// ranking say about actions; nil when there is no source. lifts are, per clause, the
	// actions its signals lift: a short list that spares most candidates a map lookup.
	signals []map[string]signal
	lifts   [][]string
	// priors are, by action, the workspace's decayed record with it (successes count for,
	// failures against; in (-1, 1)), the same for every clause; nil without a record of use.
	priors *priorTable
	// repeats are, by action, how surely the request repeats earlier successful calls of
	// it (see usageModel.repeats); nil without a record of use or when it repeats none.
	repeats map[string]float32
	// outside holds every action any clause's signals or the priors speak of; nil with
	// neither.
	outside *slugSet
}

// signal is what sources outside the lexical ranking (a workspace's record of use, a
// semantic search) say about one action for one clause. Each value feeds a feature of its
// own, so that with no source every score is what the lexical ranking alone gives.
type signal struct {
	Learnt   float32 // how strongly the clause's terms have led to the action before; in [0, 1]
	Cover    float32 // the share of the clause's term weight that has led to the action; in [0, 1]
	Semantic float32 // similarity of the clause to the action's description; in [0, 1]
	// Lift lets the action be a candidate although it shares no word with the clause.
	Lift bool
}

// signalSource gives, for one clause (its words and its analysed terms, expansions aside),
// the signals of the actions it has something to say about, by slug. It is called once per
// clause, before matching.
type signalSource func(words string, terms []string) map[string]signal

// appDescShares returns, per app, the share of a clause's own words (by weight) that the
// app's self-description holds; nil when no app's does.
func (b *Builder) appDescShares(table []string, info *clauseInfo) map[string]float32 {
	total := 0.0
	var per map[string]float32
	for m := info.objMask; m != 0; m &= m - 1 {
		total += info.w[bits.TrailingZeros64(m)]
	}
	for m := info.objMask; m != 0; m &= m - 1 {
		k := bits.TrailingZeros64(m)
		for _, app := range b.an.AppsDescribedBy(table[k]) {
			if per == nil {
				per = map[string]float32{}
			}
			per[app] += float32(info.w[k] / total)
		}
	}
	return per
}

// candidates scores nothing: it finds the actions that may serve a clause and describes
// each by its features.
func (b *Builder) candidates(r *ranking, ci int, sc *scratch, idf [maxTerms]float64, descShare map[string]float32, relaxed bool) []cand {
	metas, info := r.metas, &r.clauses[ci]
	// The candidates go to the scratch's arena; earlier clauses' lists keep pointing at
	// the array they were appended to, which a growing arena leaves untouched.
	from := len(sc.cands)
	out := sc.cands
	readClause := info.family == text.FamilyRead
	var lifts []string // the actions outside sources lift for this clause
	var sigs map[string]signal
	// The actions BM25F ranks highest for the clause are candidates on recall alone.
	floor, bmBest := sc.recallScores(info, &idf)
	var wantCaps uint64 // the capBits of the clause's capabilities
	for _, id := range info.caps {
		wantCaps |= capBit(id)
	}
	if r.recipe || relaxed {
		floor = 0 // everything that shares a word is a candidate already
	}
	if r.signals != nil {
		lifts, sigs = r.lifts[ci], r.signals[ci]
	}
	for ri := range sc.runs {
		rn := &sc.runs[ri]
		if rn.tEnd == rn.tStart {
			continue
		}
		app := metas[rn.start].App
		named := 0.0
		for _, a := range info.c.Apps {
			if strings.EqualFold(a.App, app) && a.Strength > named {
				named = a.Strength
			}
		}
		// The app's features, computed for its first candidate: how central the clause's
		// own object words are to it, and whether it asks for one of its main objects.
		known := false
		var appObj, mainObj, appDesc float32
		appFeatures := func() {
			known = true
			appDesc = descShare[app]
			if info.objMask == 0 {
				return
			}
			objs := rn.objects(b, metas)
			for m := info.objMask; m != 0; m &= m - 1 {
				k := bits.TrailingZeros64(m)
				appObj = max(appObj, float32(info.w[k])*rn.share[k])
				if slices.Contains(objs, r.table[k]) {
					mainObj = 1
				}
			}
		}
		// consider makes the touched action j a candidate of the clause when it is one; force
		// admits it past the gate.
		consider := func(j int, force bool) {
			i := int(sc.touched[j])
			m := &metas[i]
			bm := sc.bm[j]
			recalled := floor > 0 && bm >= floor
			sm, nm, dm := sc.slugM[i]&info.mask, sc.nameM[i]&info.mask, sc.descM[i]&info.mask
			all := sm | nm | dm
			pm := sc.paramM[i] & info.mask &^ all // matched only in a parameter name
			// The clause's capability objects are among its terms, so an action that shares
			// no term with it has no capability it asks for either.
			lift := len(lifts) > 0 && slices.Contains(lifts, m.Action)
			namedSmall := force && !m.Destructive
			if all == 0 && !lift && !recalled && !namedSmall {
				return
			}
			// An action that shares only the verb word ("get") with the clause is no
			// candidate, unless it belongs to an app the clause names: this keeps the
			// thousands of "get" actions of a large agent out of the scoring.
			if all&^info.genericVerbMask == 0 && named < 1 && !lift && !recalled {
				return
			}
			// Safety: destructive actions only for a destructive clause, and then only
			// when their verb is destructive too.
			t := rn.traits(b, sc, metas, i)
			aVerb, aFam := t.verb, t.family
			verbWord, anyVerb := info.verbsInSlug(sc.slugM[i], m.SlugTerms)
			if m.Destructive && !b.destructiveFits(info, aVerb, anyVerb) {
				return
			}
			capHit := info.specific && t.caps&wantCaps != 0 && capOverlap(m.Capabilities, info.caps)
			vf := b.verbFeature(info, aVerb, aFam, verbWord, anyVerb)
			// Gate (chatbot): the action must match what the clause acts on, or one of its
			// specific capabilities, or be an action of the app the clause names with a
			// fitting verb ("search my Gmail").
			objHit := (sm|nm)&info.gateMask != 0 || (dm&info.gateMask != 0 && sm|nm != 0)
			recallOnly := false
			if !r.recipe && !relaxed {
				fits := vf == featVerbSame || vf == featVerbFamily || vf == featVerbAddCreate
				switch {
				case capHit, objHit, lift:
				case verbWord:
					// The slug names the very operation asked for ("trash" -> MOVE_TO_TRASH).
				case info.c.Verb != "" && fits && (named >= 1 || info.gateMask == 0):
				case namedSmall:
				case recalled && !m.Destructive:
					// Recall alone never admits a destructive action: it must match what
					// the clause acts on, as the gate asks.
					recallOnly = true
				default:
					return
				}
			}
			if !known {
				appFeatures()
			}
			c := cand{i: int32(i), named: named >= 1, capHit: capHit, mask: all | rn.appMask&info.mask, recallOnly: recallOnly,
				liftOnly: lift && all == 0 && !recalled}
			if bmBest > 0 {
				c.f[featBM25F] = float32(bm / bmBest)
				if bm == bmBest {
					c.f[featBM25FTop] = 1
				}
			}
			if recallOnly {
				c.f[featRecallOnly] = 1
			}
			if sc.promptBest > 0 {
				c.f[featPromptBM25F] = float32(sc.promptBM[j] / sc.promptBest)
			}
			if info.appStrength == 0 {
				// A clause that names an app, or stays in the one an earlier step names,
				// says where it acts; the whole prompt's app is a guess for the others.
				c.f[featAppFocus] = rn.focus
			}
			if ci == 0 && len(r.clauses)-r.lookups > 1 {
				c.f[featFirstOfSeveral] = 1
			}
			if info.progressive {
				c.f[featProgressive] = 1
			}
			for mk := all; mk != 0; mk &= mk - 1 {
				k := bits.TrailingZeros64(mk)
				bit := uint64(1) << k
				v := float32(info.w[k] * idf[k])
				key := sm&bit != 0 || nm&bit != 0
				if info.expMask&bit == 0 {
					switch {
					case sm&bit != 0:
						c.f[featSlug] += v
					case nm&bit != 0:
						c.f[featName] += v
					default:
						c.f[featDesc] += v
					}
					continue
				}
				fk, fd := featContextKey, featContextDesc
				switch info.src[k] {
				case text.SourceSynonym:
					fk, fd = featSynKey, featSynDesc
				case text.SourceDerived:
					fk, fd = featDerivKey, featDerivDesc
				case text.SourceHypernym:
					fk, fd = featHyperKey, featHyperDesc
				}
				if key {
					c.f[fk] += v
				} else {
					c.f[fd] += v
				}
			}
			for mk := pm &^ info.expMask; mk != 0; mk &= mk - 1 {
				k := bits.TrailingZeros64(mk)
				c.f[featParam] += float32(info.w[k] * idf[k])
			}
			if vf >= 0 {
				c.f[vf] = 1
			}
			if readClause && aFam == text.FamilyRead {
				// Plural objects want a list or a search; a named item wants a get.
				byID := slices.Contains(m.SlugTerms, "id")
				switch {
				case info.c.Plural && !info.c.HasID && (aVerb == text.VerbList || aVerb == text.VerbSearch || slices.Contains(m.SlugTerms, text.VerbList)):
					c.f[featPluralList] = 1
				case info.c.Plural && !info.c.HasID && byID:
					c.f[featPluralByID] = 1
				case info.c.HasID && aVerb == text.VerbGet:
					c.f[featIDGet] = 1
				case info.byName && !info.c.HasID && (aVerb == text.VerbSearch || slices.Contains(m.SlugTerms, text.VerbSearch)):
					// An item known by its name, not its ID, is searched for.
					c.f[featNameSearch] = 1
				}
			}
			switch {
			case capHit:
				c.f[featCapability] = 1
			case info.specific && !t.generic:
				c.f[featCapabilityOther] = 1
			}
			switch {
			case named > 0:
				c.f[featAppNamed] = float32(named)
			case info.appStrength > 0:
				// Another app is named (a step that stays in the app an earlier step
				// names counts half).
				c.f[featAppOther] = float32(info.appStrength)
			}
			// Whether an outside source may speak of the action, from its slug's hash: most
			// candidates are spared the lookups.
			if r.outside != nil && r.outside.mayHaveHash(slugHash(m.Action)) {
				sig, ok := sigs[m.Action]
				if ok {
					c.f[featLearnt], c.f[featCover], c.f[featSemantic] = sig.Learnt, sig.Cover, sig.Semantic
				}
				if r.priors != nil {
					if ci < len(r.clauses)-r.lookups {
						c.f[featRepeat] = r.repeats[m.Action]
					}
					// The record with the action speaks for it only where much of the
					// clause's terms led to it before: the use of a sibling for other
					// requests leaves this one alone. Failures always count against it.
					if p := r.priors.m[m.Action]; p < 0 || sig.Cover >= liftAt || c.f[featRepeat] > 0 {
						c.f[featPrior] = p
					}
				}
			}
			c.f[featAppObject] = appObj
			c.f[featMainObject] = mainObj
			c.f[featAppDesc] = appDesc
			c.f[featConfidence] = float32(m.Confidence)
			// Slug words the clause explains: matched by one of its words (an expansion
			// counts half), and the verb.
			unexplained := float64(len(m.SlugTerms)) - float64(bits.OnesCount64(sm&^info.expMask)) -
				0.5*float64(bits.OnesCount64(sm&info.expMask))
			if aVerb != "" && sm&info.verbMask == 0 {
				unexplained--
			}
			c.f[featUnexplained] = float32(min(max(unexplained, 0), maxUnexplained))
			out = append(out, c)
		}
		before := len(out)
		for j := rn.tStart; j < rn.tEnd; j++ {
			consider(j, false)
		}
		// A small app the clause names whose actions none of the clause's words reach (they
		// may be described in other words, or another language) has them all as
		// candidates: the request says where to look.
		if len(out) == before && named >= 1 && rn.end-rn.start <= smallApp {
			for j := rn.tStart; j < rn.tEnd; j++ {
				consider(j, true)
			}
		}
	}
	sc.cands = out
	return out[from:len(out):len(out)]
}

// verbFeature returns the verb feature of an action for a clause, or -1 when the clause has
// no verb.
func (b *Builder) verbFeature(info *clauseInfo, aVerb, fa string, word, anyVerb bool) int {
	cv := info.c.Verb
	switch {
	case cv == "":
		return -1
	case aVerb == cv:
		return featVerbSame
	}
	fc := info.family
	// The slug uses the prompt's own verb word somewhere ("FETCH_INCIDENT_LIST" for "list",
	// "ADD_FILE_SHARING_PREFERENCE" for "share", "MOVE_TO_TRASH" for "trash"): as good as
	// the same verb.
	if word {
		return featVerbSame
	}
	if cv == text.VerbOther {
		return featVerbNone // a verb of no class: nothing to agree or disagree with
	}
	if anyVerb {
		if fa == fc || aVerb == "" {
			return featVerbSame
		}
		return featVerbFamily
	}
	switch {
	case aVerb == "":
		return featVerbNone
	case (aVerb == text.VerbAdd || aVerb == text.VerbCreate) && (cv == text.VerbAdd || cv == text.VerbCreate):
		return featVerbAddCreate
	case fa == fc:
		return featVerbFamily
	case related(fa, fc):
		return featVerbRelated
	}
	return featVerbConflict
}

// scored is a candidate with its score for the weights in use.
type scored struct {
	cand  *cand
	score float64
	// earned is the evidence of the action's words, which the list's cut reads (see
	// earned).
	earned float64
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
	delay := r.deferred(kept[:nStated], w)
	for round := 0; ; round++ {
		more := false
		for ci := range r.clauses {
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

// deferred returns, per stated clause, the rounds it joins the interleave late: one for a
// clause of several whose best action scores below defer_ratio of the best clause's best.
func (r *ranking) deferred(kept [][]scored, w *Weights) []int {
	delay := make([]int, len(kept))
	if len(kept) < 2 {
		return delay
	}
	top := math.Inf(-1)
	for _, k := range kept {
		if len(k) > 0 {
			top = max(top, k[0].score)
		}
	}
	last := 0
	for _, k := range kept {
		last = max(last, len(k))
	}
	for ci, k := range kept {
		switch {
		case len(k) == 0 || top <= 0:
		case k[0].score <= 0:
			// Nothing in it earns a place (a sentence that only says what the request is
			// for): it comes after every other clause's list.
			delay[ci] = last
		case k[0].score < w.v[paramDeferRatio]*top:
			delay[ci] = 1
		}
	}
	return delay
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

// rank runs the capability / token tiers (or recipe matching) and fills res.
// src and use, when not nil, are what sources outside the lexical ranking say (see
// rankPrepare).
func (b *Builder) rank(req Request, pa *analysis, metas []cache.ActionMeta, src signalSource, use *usageModel, res *Result) {
	sc, _ := b.pool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	defer b.pool.Put(sc)
	r := b.rankPrepare(req, pa, metas, sc, src, use)
	if r == nil {
		return
	}
	res.Capabilities = r.caps
	hinted := b.fill(r, &b.weights, res)
	b.paramHints(r.promptStems(), metas, hinted, res)
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

// list calls emit for each action r lists with weights w, in order, within the limits: at
// most MaxActions in all, MaxActionsPerApp per app and MaxAppsSearch apps, each action once.
func (b *Builder) list(r *ranking, w *Weights, emit func(c *cand, score float64, ci int)) {
	lim := b.limits
	perApp := map[string]int{}
	var appsUsed []string
	seen := map[int32]bool{}
	n := 0
	for _, i := range r.explicit {
		seen[i] = true
		perApp[r.metas[i].App]++
		if !slices.Contains(appsUsed, r.metas[i].App) {
			appsUsed = append(appsUsed, r.metas[i].App)
		}
		emit(&cand{i: i, named: true}, 0, 0)
		n++
	}
	ld := newLead()
	r.rankSelect(w, lim, func(c *cand, score float64, ci int) bool {
		m := &r.metas[c.i]
		if seen[c.i] || perApp[m.App] >= lim.MaxActionsPerApp {
			return true
		}
		ld.see(r, w, c, score, ci)
		if !slices.Contains(appsUsed, m.App) {
			if len(appsUsed) >= lim.MaxAppsSearch {
				return true
			}
			appsUsed = append(appsUsed, m.App)
		}
		seen[c.i] = true
		perApp[m.App]++
		emit(c, score, ci)
		n++
		return n < lim.MaxActions
	})
	// Room left in a hint that is not sure: the whole prompt's BM25F ranking fills it, after
	// everything the clauses ranked. A confident hint for one step stays short.
	if len(r.clauses)-r.lookups == 1 && ld.confident(r, w) {
		return
	}
	for _, i := range r.recall {
		if n >= min(recallFill, lim.MaxActions) {
			break
		}
		m := &r.metas[i]
		if seen[i] || perApp[m.App] >= lim.MaxActionsPerApp {
			continue
		}
		if !slices.Contains(appsUsed, m.App) {
			if len(appsUsed) >= lim.MaxAppsSearch {
				continue
			}
			appsUsed = append(appsUsed, m.App)
		}
		seen[i] = true
		perApp[m.App]++
		emit(&cand{i: i, recallOnly: true}, 0, 0)
		n++
	}
}

// lead follows, as actions are listed, what the first one says of the hint's confidence:
// its earned score, step, app and evidence, and the earned score of the next action of its
// step.
type lead struct {
	first, second            float64
	step, n                  int
	app                      string
	named, recallOnly, agree bool
	capHit, verb             bool
	// The first action's unexplained slug words, whole-prompt BM25F and app focus.
	unexplained, prompt, focus float64
	// repeat is how surely the request repeats earlier successful calls of the first
	// action (usage_repeat's feature).
	repeat float64
}

func newLead() lead { return lead{second: math.Inf(-1), step: -1} }

// see takes the next listed action.
func (l *lead) see(r *ranking, w *Weights, c *cand, score float64, ci int) {
	// The evidence is lexical: the calibration was fitted without usage, whose own say is
	// the floor of an exact repeat (see probability).
	lex := earned(c, w, score)
	switch {
	case l.n == 0:
		l.first, l.step, l.app = lex, r.step(ci), r.metas[c.i].App
		l.named, l.recallOnly, l.agree = c.named, c.recallOnly, c.f[featBM25FTop] == 1
		l.capHit, l.verb = c.capHit, c.f[featVerbSame] == 1
		l.unexplained, l.prompt, l.focus = float64(c.f[featUnexplained]), float64(c.f[featPromptBM25F]), float64(c.f[featAppFocus])
		l.repeat = float64(c.f[featRepeat])
	case l.second == math.Inf(-1) && r.step(ci) == l.step:
		l.second = lex
	}
	l.n++
}

// probability returns the calibrated probability that the first listed action is right:
// 1 when the request names it by slug, 0 when nothing was listed.
func (l *lead) probability(r *ranking, w *Weights) float64 {
	switch {
	case l.n == 0:
		return 0
	case len(r.explicit) > 0:
		return 1
	}
	p := probability(w, l.evidence(r))
	if l.repeat >= exactAt {
		p = max(p, repeatP*l.repeat)
	}
	return p
}

// confident reports whether the listed actions earn the strong directive: the request names
// the action by slug, or the probability that the first is right reaches confident_p, no
// action passed the gate only as a guess, and the first action's app is one the prompt
// names when it names any.
func (l *lead) confident(r *ranking, w *Weights) bool {
	switch {
	case l.n == 0:
		return false
	case len(r.explicit) > 0:
		return true
	}
	return !r.relaxed && l.probability(r, w) >= w.v[paramConfidentP] && !r.namesOtherApp(l.app)
}

// related reports verb families that partly overlap: adding to a thing is often an update of
// it, and posting is often creating a post.
func related(f1, f2 string) bool {
	pair := func(a, b string) bool { return (f1 == a && f2 == b) || (f1 == b && f2 == a) }
	return pair(text.FamilyCreate, text.FamilyUpdate) || pair(text.FamilySend, text.FamilyCreate)
}

// destructiveFits reports whether a destructive action may be listed for a clause: only when
// the clause asks for a destructive operation, and the action does that operation (same verb
// class, delete for remove, or the prompt's own verb word in its slug).
func (b *Builder) destructiveFits(info *clauseInfo, aVerb string, anyVerb bool) bool {
	if !info.c.Destructive {
		return false
	}
	cv := info.c.Verb
	// Deleting, removing and cancelling stand in for each other ("cancel the meeting"
	// deletes the event); archiving does not license a deletion.
	undo := func(v string) bool { return v == text.VerbDelete || v == text.VerbRemove || v == text.VerbCancel }
	return aVerb == cv || undo(aVerb) && undo(cv) || anyVerb
}

// verbsInSlug reports whether an action's slug holds the clause's own verb word, and whether
// it holds any of the clause's verb words: from the slug's term mask when the table holds
// them, else by looking.
func (info *clauseInfo) verbsInSlug(slugMask uint64, slugTerms []string) (word, anyVerb bool) {
	if info.verbBitsComplete {
		return slugMask&info.verbWordBit != 0, slugMask&info.verbBits != 0
	}
	if w := info.c.VerbWord; w != "" {
		word = slices.Contains(slugTerms, w)
	}
	for _, v := range info.verbs {
		if slices.Contains(slugTerms, v) {
			return word, true
		}
	}
	return word, false
}

func capOverlap(have, want []string) bool {
	for _, h := range have {
		for _, w := range want {
			if h == w {
				return true
			}
		}
	}
	return false
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func appendUniq(ss []string, add ...string) []string {
	for _, s := range add {
		if !slices.Contains(ss, s) {
			ss = append(ss, s)
		}
	}
	return ss
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// homeRepeats gives each action the request repeats to one stated clause: the one whose
// words BM25F finds it best for (the first clause when none does). The other clauses drop
// it when they hold it only as lifted, and read no repeat of it otherwise, so that one
// earlier call does not lead every step.
func (r *ranking) homeRepeats() {
	nStated := len(r.clauses) - r.lookups
	for a := range r.repeats {
		home, best := 0, float32(-1)
		for ci := range nStated {
			for k := range r.lists[ci] {
				c := &r.lists[ci][k]
				if r.metas[c.i].Action == a && !c.liftOnly && c.f[featBM25F] > best {
					home, best = ci, c.f[featBM25F]
				}
			}
		}
		for ci := range nStated {
			if ci == home {
				continue
			}
			r.lists[ci] = slices.DeleteFunc(r.lists[ci], func(c cand) bool { return c.liftOnly && r.metas[c.i].Action == a })
			for k := range r.lists[ci] {
				if c := &r.lists[ci][k]; r.metas[c.i].Action == a {
					c.f[featRepeat] = 0
				}
			}
		}
	}
}

// usageScore is the part of c's score with w that the workspace's record of use gives.
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

func usageScore(c *cand, w *Weights) float64 {
	s := 0.0
	for _, k := range [...]int{featPrior, featLearnt, featCover, featRepeat} {
		s += float64(c.f[k]) * w.v[k]
	}
	return s
}
