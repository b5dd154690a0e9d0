package hint

import (
	"math/bits"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/internal/text"
)

// Features, the stage after recall. It takes, per clause, the touched actions with the terms
// each field holds (match.go) and their BM25F scores (recall.go), with what sources outside
// the lexical ranking say of them (signals, the workspace's priors and repeats), and keeps
// the clause's candidates: the actions that pass its gate (they hold what it acts on, one of
// its specific capabilities, or the fitting verb of an app it names), those BM25F ranks
// among its best, and those an outside source lifts. Permissions and the destructive rule
// are the only hard filters. Each candidate is described by a vector of features (weights.go
// names them): where its matched words are and where they come from, verb and capability
// agreement, the app the clause names, the app's objects and self-description, the signals.
//
// It hands each clause's candidates (ranking.lists) to order (order.go), which scores them
// with the weights. Nothing here depends on the weights.

const maxUnexplained = 5

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

// candidateLists sets each clause's candidates, r.lists. When none passes the gate and the
// request is not in recipe mode, they are the best guesses among the actions that share any
// word with the prompt, which the hint will not be sure of (r.relaxed).
func (b *Builder) candidateLists(r *ranking, sc *scratch, idf [maxTerms]float64) {
	r.lists = make([][]cand, len(r.clauses))
	shares := make([]map[string]float32, len(r.clauses))
	for ci := range r.clauses {
		shares[ci] = b.appDescShares(r.table, &r.clauses[ci])
	}
	for {
		found := false
		for ci := range r.clauses {
			r.lists[ci] = b.candidates(r, ci, sc, idf, shares[ci])
			found = found || len(r.lists[ci]) > 0
		}
		r.homeRepeats()
		if found || r.recipe || r.relaxed {
			return
		}
		r.relaxed = true // a vague prompt: nothing passes the gate
	}
}

// candidates scores nothing: it finds the actions that may serve a clause and describes
// each by its features.
func (b *Builder) candidates(r *ranking, ci int, sc *scratch, idf [maxTerms]float64, descShare map[string]float32) []cand {
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
	if r.recipe || r.relaxed {
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
			if m.Destructive && !info.destructiveFits(aVerb, anyVerb) {
				return
			}
			capHit := info.specific && t.caps&wantCaps != 0 && capOverlap(m.Capabilities, info.caps)
			vf := info.verbFeature(aVerb, aFam, verbWord, anyVerb)
			// Gate (chatbot): the action must match what the clause acts on, or one of its
			// specific capabilities, or be an action of the app the clause names with a
			// fitting verb ("search my Gmail").
			objHit := (sm|nm)&info.gateMask != 0 || (dm&info.gateMask != 0 && sm|nm != 0)
			recallOnly := false
			if !r.recipe && !r.relaxed {
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
				c.f[featPromptApp] = rn.promptApp
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
			c.f[featParam] = info.weigh(pm&^info.expMask, &idf)
			if named < 1 {
				c.f[featAppWords] = info.weigh(rn.appMask&info.mask&^(all|pm|info.expMask), &idf)
			}
			if vf >= 0 {
				c.f[vf] = 1
			}
			if readClause && aFam == text.FamilyRead {
				// Plural objects want a list or a search; a named item wants a get.
				switch {
				case info.c.Plural && !info.c.HasID && (aVerb == text.VerbList || aVerb == text.VerbSearch || slices.Contains(m.SlugTerms, text.VerbList)):
					c.f[featPluralList] = 1
				case info.c.Plural && !info.c.HasID && t.byID:
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
			// The slug's verb is the verb features' to weigh, unless a word of the clause
			// already explained it ("how many" and COUNT).
			if aVerb != "" && sm&info.verbMask == 0 && !r.slugTermMatched(m, t.verbAt, sm) {
				unexplained--
			}
			// An ID the clause gives an item ("ticket 50112") explains the slug's "id".
			if info.c.ItemID && t.byID {
				unexplained--
			}
			// Nor is a number or a version in the slug a word the request leaves out.
			for nb := t.numbers; nb != 0; nb &= nb - 1 {
				if !r.slugTermMatched(m, bits.TrailingZeros64(nb), sm) {
					unexplained--
				}
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

// slugTermMatched reports whether the slug term at index k of m is among the matched
// terms sm.
func (r *ranking) slugTermMatched(m *cache.ActionMeta, k int, sm uint64) bool {
	if k < 0 || k >= len(m.SlugTerms) {
		return false
	}
	idx := slices.Index(r.table, m.SlugTerms[k])
	return idx >= 0 && sm&(1<<idx) != 0
}

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

// verbFeature returns the verb feature of an action for a clause, or -1 when the clause has
// no verb.
func (info *clauseInfo) verbFeature(aVerb, fa string, word, anyVerb bool) int {
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

// related reports verb families that partly overlap: adding to a thing is often an update of
// it, and posting is often creating a post.
func related(f1, f2 string) bool {
	pair := func(a, b string) bool { return (f1 == a && f2 == b) || (f1 == b && f2 == a) }
	return pair(text.FamilyCreate, text.FamilyUpdate) || pair(text.FamilySend, text.FamilyCreate)
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

// destructiveFits reports whether a destructive action may be listed for a clause: only when
// the clause asks for a destructive operation, and the action does that operation (same verb
// class, delete for remove, or the prompt's own verb word in its slug).
func (info *clauseInfo) destructiveFits(aVerb string, anyVerb bool) bool {
	if !info.c.Destructive {
		return false
	}
	cv := info.c.Verb
	// Deleting, removing and cancelling stand in for each other ("cancel the meeting"
	// deletes the event); archiving does not license a deletion.
	undo := func(v string) bool { return v == text.VerbDelete || v == text.VerbRemove || v == text.VerbCancel }
	return aVerb == cv || undo(aVerb) && undo(cv) || anyVerb
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

// weigh is the sum of the clause's terms in mask, each its weight in the clause times its
// IDF.
func (info *clauseInfo) weigh(mask uint64, idf *[maxTerms]float64) float32 {
	var s float32
	for mk := mask; mk != 0; mk &= mk - 1 {
		k := bits.TrailingZeros64(mk)
		s += float32(info.w[k] * idf[k])
	}
	return s
}
