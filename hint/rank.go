package hint

import (
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/internal/text"
)

// Scoring weights. An action's score for one prompt clause is the sum of:
//   - term matches: each prompt term's weight × its IDF over the candidate actions × the
//     field it matched in (slug words above display name above description);
//   - the verb: the clause's intent verb class against the action's main verb (same class,
//     same family, or a conflict);
//   - capability: an action capability equal to one the clause asks for;
//   - the app the clause names, and a small share of the classifier's confidence;
//   - minus a little for each slug word the prompt does not explain, which prefers the
//     canonical action over a specialised sibling.
//
// Each clause keeps its best actions; the clauses' lists are interleaved. Steps a prompt
// implies come last: a clause that acts on something existing it names by kind, not by ID
// ("send out the draft I wrote"), also lists the best actions that find it.
const (
	fieldSlug       = 1.0
	fieldName       = 0.8
	fieldNameRecipe = 1.0
	fieldDesc       = 0.3
	fieldDescRecipe = 0.25

	verbSame      = 1.5
	verbFamily    = 0.6
	verbConflict  = -1.0
	verbNone      = -0.2
	verbTermW     = 0.35
	verbAddCreate = 1.2 // "add a comment" and "create a comment" are one thing

	capBonus       = 1.2
	pluralBonus    = 0.4
	appNamedBonus  = 1.5
	appOtherMalus  = -0.6
	confidenceW    = 0.3
	unexplainedW   = -0.6
	maxUnexplained = 5

	keepRatio   = 0.4 // listed actions score at least this share of the clause's best
	minScore    = 0.3 // and at least this much
	maxClauses  = 4
	maxTerms    = 64
	confidentAt = 3.0 // top score from which the hint carries the strong directive
	lookupTake  = 2   // actions listed for a step the prompt implies (finding what it acts on)
)

// scratch is per-call working memory, pooled by the Builder.
type scratch struct {
	slugM, nameM, descM []uint64
	runs                []run
	cands               []cand
}

// run is one app's stretch of the metadata, with its term index when it has one.
type run struct {
	start, end int
	ix         *appIndex
}

type cand struct {
	i      int32
	score  float64
	mask   uint64
	capHit bool
}

type clauseInfo struct {
	c        text.Clause
	verbs    []string          // the clause's verb stems: its class and the word used
	w        [maxTerms]float64 // weight of each table term in this clause (0: absent)
	mask     uint64            // table terms present in this clause
	verbMask uint64            // the clause's verb terms
	synMask  uint64            // the clause's synonym terms
	gateMask uint64            // object-like terms: matching one of them passes the gate
	caps     []string
	objStems []string // stems of what the clause acts on, in order of importance
	specific bool
	// appStrength is the strength of the clause's surest app mention (1 or more when the
	// clause names an app directly).
	appStrength float64
	byName      bool // the clause names an item by a quoted title or a proper name
}

// rank runs the capability / token tiers (or recipe matching) and fills res.
func (b *Builder) rank(req Request, prompt string, apps []string, metas []cache.ActionMeta, res *Result) {
	p := b.an.Prompt(prompt, apps)
	if len(p.Clauses) == 0 || len(metas) == 0 {
		return
	}
	if len(p.Clauses) > maxClauses {
		p.Clauses = p.Clauses[:maxClauses]
	}
	lim := b.limits

	// The term table: every clause's terms, deduplicated.
	var table []string
	clauses := make([]clauseInfo, len(p.Clauses))
	for ci, c := range p.Clauses {
		ts := topTerms(c.Terms, lim.MaxQueryTokens)
		info := &clauses[ci]
		info.c = c
		var objStems []string
		for _, t := range ts {
			idx := slices.Index(table, t.Stem)
			if idx < 0 {
				if len(table) == maxTerms {
					continue
				}
				table = append(table, t.Stem)
				idx = len(table) - 1
			}
			w := t.Weight
			if t.Role == text.RoleVerb {
				w *= verbTermW // the verb is scored by class below; its word counts little
			}
			if w > info.w[idx] {
				info.w[idx] = w
			}
			info.mask |= 1 << idx
			switch t.Role {
			case text.RoleObject, text.RoleWord, text.RoleEntity, text.RolePhrase, text.RoleSynonym:
				info.gateMask |= 1 << idx
			case text.RoleVerb:
				info.verbMask |= 1 << idx
			}
			if t.Role == text.RoleSynonym {
				info.synMask |= 1 << idx
			}
		}
		// What the verb acts on first, then other words, entities, and phrases.
		for _, role := range []text.Role{text.RoleObject, text.RoleWord, text.RoleEntity, text.RolePhrase} {
			for _, t := range ts {
				if t.Role == role {
					objStems = append(objStems, t.Stem)
				}
			}
		}
		info.objStems = objStems
		info.caps = b.tax.ClauseCapabilities(nil, c.Verb, objStems, c.Text)
		// "Trigger an incident" runs nothing: when the objects cannot be run but can be
		// created, the clause creates them.
		if b.an.Family(c.Verb) == text.FamilyExecute && allGeneric(b.tax, info.caps) {
			if caps := b.tax.ClauseCapabilities(nil, text.VerbCreate, objStems, c.Text); !allGeneric(b.tax, caps) {
				info.caps, info.c.Verb = caps, text.VerbCreate
				// The word that said "run" no longer counts.
				if k := slices.Index(table, info.c.VerbWord); k >= 0 {
					info.w[k], info.mask = 0, info.mask&^(1<<k)
				}
				info.c.VerbWord = ""
			}
		}
		for _, id := range info.caps {
			if b.tax.IsGeneric(id) {
				continue
			}
			info.specific = true
			// The capability's object joins the clause's terms (and its gate), so that a
			// concept ("the API is down" -> incident.create) reaches actions by name too.
			cp, _ := b.tax.Capability(id)
			obj := cp.Object
			if i := strings.LastIndexByte(obj, '.'); i >= 0 {
				obj = obj[i+1:]
			}
			for _, part := range strings.Split(obj, "_") {
				stem := b.an.Stem(part)
				idx := slices.Index(table, stem)
				if idx < 0 && len(table) < maxTerms {
					table = append(table, stem)
					idx = len(table) - 1
				}
				if idx >= 0 && info.mask&(1<<idx) == 0 {
					info.w[idx] = 0.5
					info.mask |= 1 << idx
					info.gateMask |= 1 << idx
				}
			}
			if info.c.Verb == "" {
				info.c.Verb, info.c.VerbImplied = verbClassOf(cp.Verb), true
			}
		}
		for _, t := range ts {
			if t.Role == text.RoleVerb {
				info.verbs = append(info.verbs, t.Stem)
			}
		}
		if w := info.c.VerbWord; w != "" && !slices.Contains(info.verbs, w) {
			info.verbs = append(info.verbs, w)
		}
		if info.c.Verb != "" && !slices.Contains(info.verbs, b.an.Stem(info.c.Verb)) {
			info.verbs = append(info.verbs, b.an.Stem(info.c.Verb))
		}
		// Asking to see several things ("show me the open tickets") is a list.
		if info.c.Verb == text.VerbGet && info.c.Plural && !info.c.HasID {
			info.c.Verb = text.VerbList
			info.verbs = slices.DeleteFunc(info.verbs, func(v string) bool { return v == text.VerbGet })
			info.verbs = append(info.verbs, text.VerbList)
			if k := slices.Index(table, text.VerbGet); k >= 0 && info.c.VerbWord != text.VerbGet {
				info.w[k], info.mask = 0, info.mask&^(1<<k)
			}
		}
		for _, m := range c.Apps {
			info.appStrength = max(info.appStrength, m.Strength)
		}
		info.byName = slices.ContainsFunc(c.Terms, func(t text.Term) bool { return t.Role == text.RoleContent })
		res.Capabilities = appendUniq(res.Capabilities, info.caps...)
	}
	lookups, lookupOf := b.lookups(req, clauses, &table)
	if len(table) == 0 {
		return
	}

	sc, _ := b.pool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	defer b.pool.Put(sc)
	n := len(metas)
	sc.slugM = grow(sc.slugM, n)
	sc.nameM = grow(sc.nameM, n)
	sc.descM = grow(sc.descM, n)

	// Match every action against the term table: through the app's term index when the
	// store's metadata is indexed, else term by term. Both give the same masks.
	// Indexes are looked up (and built) before the table is mapped to term IDs, so that a
	// term first seen in an index built now is known to the table.
	runs := sc.runs[:0]
	for start := 0; start < n; {
		end := start + 1
		for end < n && metas[end].App == metas[start].App {
			end++
		}
		runs = append(runs, run{start, end, b.index.forRun(metas[start:end])})
		start = end
	}
	sc.runs = runs
	ids := b.index.table(table)
	var lookup func(terms []string) uint64 // made for the first run without an index
	for _, r := range runs {
		start, end := r.start, r.end
		if ix := r.ix; ix != nil {
			ix.masks(&ids, sc.slugM[start:end], sc.nameM[start:end], sc.descM[start:end])
		} else {
			if lookup == nil {
				lookup = termMatcher(table)
			}
			for i := start; i < end; i++ {
				m := &metas[i]
				sc.slugM[i] = lookup(m.SlugTerms)
				sc.nameM[i] = lookup(m.NameTerms)
				sc.descM[i] = lookup(m.DescTerms)
			}
		}
	}
	var df [maxTerms]int
	for i := 0; i < n; i++ {
		for all := sc.slugM[i] | sc.nameM[i] | sc.descM[i]; all != 0; all &= all - 1 {
			df[bits.TrailingZeros64(all)]++
		}
	}
	var idf [maxTerms]float64
	for k := range table {
		idf[k] = math.Log(1 + (float64(n)-float64(df[k])+0.5)/(float64(df[k])+0.5))
	}

	fName, fDesc := fieldName, fieldDesc
	if req.RecipeMode {
		fName, fDesc = fieldNameRecipe, fieldDescRecipe
	}

	score := func(info *clauseInfo) []cand {
		cands := sc.cands[:0]
		readClause := b.an.Family(info.c.Verb) == text.FamilyRead
		for i := range metas {
			m := &metas[i]
			sm, nm, dm := sc.slugM[i]&info.mask, sc.nameM[i]&info.mask, sc.descM[i]&info.mask
			all := sm | nm | dm
			// The clause's capability objects are among its terms, so an action that shares
			// no term with it has no capability it asks for either.
			if all == 0 {
				continue
			}
			// An action that shares only the verb word ("get") with the clause is no
			// candidate, unless it belongs to an app the clause names: this keeps the
			// thousands of "get" actions of a large agent out of the scoring.
			if all&^info.verbMask == 0 && !info.namesApp(m.App) {
				continue
			}
			// Safety: destructive actions only for a destructive clause, and then only
			// when their verb is destructive too.
			aVerb, _ := b.an.MainVerb(m.SlugTerms)
			if m.Destructive && !b.destructiveFits(info, aVerb, m.SlugTerms) {
				continue
			}
			capHit := info.specific && capOverlap(m.Capabilities, info.caps)
			named := 0.0
			for _, a := range info.c.Apps {
				if strings.EqualFold(a.App, m.App) && a.Strength > named {
					named = a.Strength
				}
			}
			vs := b.verbScore(info, aVerb, m.SlugTerms)
			// Gate (chatbot): the action must match what the clause acts on, or one of its
			// specific capabilities, or be an action of the app the clause names with a
			// fitting verb ("search my Gmail").
			objHit := (sm|nm)&info.gateMask != 0 || (dm&info.gateMask != 0 && sm|nm != 0)
			if !req.RecipeMode {
				switch {
				case capHit, objHit:
				case info.c.Verb != "" && vs > 0 && (named >= 1 || info.gateMask == 0):
				default:
					continue
				}
			}

			score := 0.0
			for all != 0 {
				k := bits.TrailingZeros64(all)
				bit := uint64(1) << k
				f := fDesc
				switch {
				case sm&bit != 0:
					f = fieldSlug
				case nm&bit != 0:
					f = fName
				}
				score += info.w[k] * idf[k] * f
				all &= all - 1
			}
			score += vs
			if readClause && b.an.Family(aVerb) == text.FamilyRead {
				// Plural objects want a list or a search; a named item wants a get.
				byID := slices.Contains(m.SlugTerms, "id")
				switch {
				case info.c.Plural && !info.c.HasID && (aVerb == text.VerbList || aVerb == text.VerbSearch || slices.Contains(m.SlugTerms, text.VerbList)):
					score += pluralBonus
				case info.c.Plural && !info.c.HasID && byID:
					score -= pluralBonus
				case info.c.HasID && aVerb == text.VerbGet:
					score += pluralBonus
				case info.byName && !info.c.HasID && (aVerb == text.VerbSearch || slices.Contains(m.SlugTerms, text.VerbSearch)):
					// An item known by its name, not its ID, is searched for.
					score += pluralBonus
				}
			}
			if capHit {
				score += capBonus
			}
			if len(info.c.Apps) > 0 {
				switch {
				case named > 0:
					score += appNamedBonus * named
				case info.appStrength >= 1: // the clause names another app
					score += appOtherMalus
				case info.appStrength >= 0.5:
					// A step that stays in the app an earlier step names ("look up the
					// issue on GitHub and add a comment") leans away from other apps.
					score += appOtherMalus * info.appStrength
				}
			}
			score += confidenceW * m.Confidence
			// Slug words the clause explains: matched by one of its words (a synonym counts
			// half), and the verb.
			unexplained := float64(len(m.SlugTerms)) - float64(bits.OnesCount64(sm&^info.synMask)) -
				0.5*float64(bits.OnesCount64(sm&info.synMask))
			if aVerb != "" && sm&info.verbMask == 0 {
				unexplained--
			}
			if unexplained > maxUnexplained {
				unexplained = maxUnexplained
			}
			if unexplained > 0 {
				score += unexplainedW * unexplained
			}
			cands = append(cands, cand{i: int32(i), score: score, mask: sm | nm | dm, capHit: capHit})
		}
		sc.cands = cands
		slices.SortFunc(cands, func(x, y cand) int {
			switch {
			case x.score > y.score:
				return -1
			case x.score < y.score:
				return 1
			}
			// Ties go to the plainer action (fewer slug words), then by name.
			if lx, ly := len(metas[x.i].SlugTerms), len(metas[y.i].SlugTerms); lx != ly {
				return lx - ly
			}
			return strings.Compare(metas[x.i].Action, metas[y.i].Action)
		})
		// Keep the clause's best: within keepRatio of its top, MaxDBRowsPerApp per app.
		var kept []cand
		perApp := map[string]int{}
		for _, c := range cands {
			if c.score < minScore || (len(kept) > 0 && c.score < keepRatio*kept[0].score) {
				break
			}
			app := metas[c.i].App
			if perApp[app] >= lim.MaxDBRowsPerApp {
				continue
			}
			perApp[app]++
			kept = append(kept, c)
			if len(kept) >= lim.MaxActions {
				break
			}
		}
		return kept
	}
	lists := make([][]cand, len(clauses))
	for ci := range clauses {
		lists[ci] = score(&clauses[ci])
	}

	perApp := map[string]int{}
	var appsUsed []string
	seen := map[int32]bool{}
	// emit lists an action for clause ci, unless it is listed already or a limit is reached.
	emit := func(c cand, ci int, info *clauseInfo) {
		m := &metas[c.i]
		if seen[c.i] || perApp[m.App] >= lim.MaxActionsPerApp {
			return
		}
		if !slices.Contains(appsUsed, m.App) {
			if len(appsUsed) >= lim.MaxAppsSearch {
				return
			}
			appsUsed = append(appsUsed, m.App)
		}
		seen[c.i] = true
		perApp[m.App]++
		tier := StrategyTokenFiltered
		switch {
		case req.RecipeMode:
			tier = StrategyRecipeToken
		case c.capHit:
			tier = StrategyCapability
		}
		match := Match{Action: m.Action, App: m.App, Tier: tier, Score: round3(c.score), Step: ci}
		for mk := c.mask; mk != 0; mk &= mk - 1 {
			match.Terms = append(match.Terms, table[bits.TrailingZeros64(mk)])
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
		}
		res.Matches = append(res.Matches, match)
		res.MatchedActions = append(res.MatchedActions, m.Action)
	}

	// Interleave the clauses' rankings so each step surfaces its best actions first.
	for rank := 0; len(res.MatchedActions) < lim.MaxActions; rank++ {
		more := false
		for ci, l := range lists {
			if rank >= len(l) {
				continue
			}
			more = true
			emit(l[rank], ci, &clauses[ci])
			if len(res.MatchedActions) >= lim.MaxActions {
				break
			}
		}
		if !more {
			break
		}
	}
	// Then the implied steps that find what a clause acts on: their best few, after every
	// stated step, so they never push a stated step's actions down.
	for k := range lookups {
		l := score(&lookups[k])
		for j := 0; j < len(l) && j < lookupTake && len(res.MatchedActions) < lim.MaxActions; j++ {
			emit(l[j], lookupOf[k], &lookups[k])
		}
	}
	if len(res.Matches) == 0 {
		return
	}
	res.Strategy = res.Matches[0].Tier
	res.Confident = res.Matches[0].Score >= confidentAt
}

// termMatcher returns a function that gives the mask of table terms among terms: bit k is
// set when table[k] is one of them.
func termMatcher(table []string) func(terms []string) uint64 {
	// A cheap pre-filter: first byte -> bitmask of term lengths present.
	// Lengths are checked first: that reads only the string header, not its bytes.
	var quick [256]uint64
	var lens uint64
	for _, s := range table {
		if len(s) < 64 {
			quick[s[0]] |= 1 << len(s)
			lens |= 1 << len(s)
		}
	}
	return func(terms []string) (mask uint64) {
		for _, s := range terms {
			if len(s) >= 64 || lens&(1<<len(s)) == 0 || quick[s[0]]&(1<<len(s)) == 0 {
				continue
			}
			for i, q := range table {
				if q == s {
					mask |= 1 << i
					break
				}
			}
		}
		return mask
	}
}

// lookups returns the steps a prompt implies but does not state: a clause that sends,
// changes, removes or copies something that exists, named by what it is rather than by an
// ID ("send out the draft I wrote", "copy everything in /reports to Drive"), first has to
// find it. Each lookup is the clause turned into a list (or a search, when the clause
// quotes a name), with the index of the clause it serves. A prompt that states a read step
// already has its lookup. New verb terms are added to the table.
func (b *Builder) lookups(req Request, clauses []clauseInfo, table *[]string) ([]clauseInfo, []int) {
	if req.RecipeMode {
		return nil, nil
	}
	var out []clauseInfo
	var of []int
	for ci := range clauses {
		info := &clauses[ci]
		fam := b.an.Family(info.c.Verb)
		if fam == text.FamilyRead {
			return out, of // an explicit read step: later clauses act on what it found
		}
		acts := fam == text.FamilySend || fam == text.FamilyUpdate || fam == text.FamilyDelete || info.c.Verb == text.VerbCopy
		if !acts || !info.c.Existing || info.c.HasID || len(info.objStems) == 0 {
			continue
		}
		lk := *info
		verb := text.VerbList
		for _, t := range info.c.Terms {
			if t.Role == text.RoleContent {
				verb = text.VerbSearch // a quoted name is searched for
				break
			}
		}
		lk.c.Verb, lk.c.VerbWord, lk.c.VerbImplied = verb, "", true
		lk.c.Destructive, lk.c.Plural = false, verb == text.VerbList
		for m := info.verbMask; m != 0; m &= m - 1 {
			lk.w[bits.TrailingZeros64(m)] = 0
		}
		lk.mask &^= info.verbMask
		lk.gateMask &^= info.verbMask
		lk.verbMask = 0
		idx := slices.Index(*table, verb)
		if idx < 0 {
			if len(*table) == maxTerms {
				continue
			}
			*table = append(*table, verb)
			idx = len(*table) - 1
		}
		lk.w[idx] = verbTermW
		lk.mask |= 1 << idx
		lk.verbMask = 1 << idx
		lk.verbs = []string{verb}
		lk.caps = b.tax.ClauseCapabilities(nil, text.VerbGet, info.objStems, info.c.Text)
		lk.specific = !allGeneric(b.tax, lk.caps)
		out = append(out, lk)
		of = append(of, ci)
	}
	return out, of
}

func allGeneric(t *cache.Taxonomy, caps []string) bool {
	for _, id := range caps {
		if !t.IsGeneric(id) {
			return false
		}
	}
	return true
}

// namesApp reports whether the clause names app directly.
func (info *clauseInfo) namesApp(app string) bool {
	for _, a := range info.c.Apps {
		if a.Strength >= 1 && a.App == app {
			return true
		}
	}
	return false
}

// verbClassOf maps a capability verb to the verb class that stands for it.
func verbClassOf(capVerb string) string {
	switch capVerb {
	case cache.CapRead:
		return text.VerbGet
	case cache.CapSend:
		return text.VerbSend
	case cache.CapCreate:
		return text.VerbCreate
	case cache.CapUpdate:
		return text.VerbUpdate
	case cache.CapDelete:
		return text.VerbDelete
	case cache.CapUpload:
		return text.VerbUpload
	case cache.CapDownload:
		return text.VerbDownload
	case cache.CapRun:
		return text.VerbRun
	}
	return ""
}

// related reports verb families that partly overlap: adding to a thing is often an update of
// it, and posting is often creating a post.
func related(f1, f2 string) bool {
	pair := func(a, b string) bool { return (f1 == a && f2 == b) || (f1 == b && f2 == a) }
	return pair(text.FamilyCreate, text.FamilyUpdate) || pair(text.FamilySend, text.FamilyCreate)
}

// verbScore scores an action's main verb against the clause's intent verb.
func (b *Builder) verbScore(info *clauseInfo, aVerb string, slugTerms []string) float64 {
	cv := info.c.Verb
	switch {
	case cv == "":
		return 0
	case aVerb == cv:
		return verbSame
	}
	fa, fc := b.an.Family(aVerb), b.an.Family(cv)
	// The slug uses the prompt's own verb word somewhere ("FETCH_INCIDENT_LIST" for "list",
	// "ADD_FILE_SHARING_PREFERENCE" for "share"): as good as the same verb.
	if info.slugUsesVerb(slugTerms) {
		if fa == fc || aVerb == "" {
			return verbSame
		}
		return verbFamily
	}
	switch {
	case aVerb == "":
		return verbNone
	case (aVerb == text.VerbAdd || aVerb == text.VerbCreate) && (cv == text.VerbAdd || cv == text.VerbCreate):
		return verbAddCreate
	case fa == fc:
		return verbFamily
	case related(fa, fc):
		return 0
	}
	return verbConflict
}

// destructiveFits reports whether a destructive action may be listed for a clause: only when
// the clause asks for a destructive operation, and the action does that operation (same verb
// class, delete for remove, or the prompt's own verb word in its slug).
func (b *Builder) destructiveFits(info *clauseInfo, aVerb string, slugTerms []string) bool {
	if !info.c.Destructive {
		return false
	}
	cv := info.c.Verb
	// Deleting, removing and cancelling stand in for each other ("cancel the meeting"
	// deletes the event); archiving does not license a deletion.
	undo := func(v string) bool { return v == text.VerbDelete || v == text.VerbRemove || v == text.VerbCancel }
	return aVerb == cv || undo(aVerb) && undo(cv) || info.slugUsesVerb(slugTerms)
}

// slugUsesVerb reports whether an action's slug holds one of the clause's verb words.
func (info *clauseInfo) slugUsesVerb(slugTerms []string) bool {
	for _, v := range info.verbs {
		if slices.Contains(slugTerms, v) {
			return true
		}
	}
	return false
}

// fallback lists up to MaxFallbackRows safe actions per app for at most MaxAppsFallback
// apps, in name order.
func (b *Builder) fallback(metas []cache.ActionMeta, res *Result) {
	lim := b.limits
	var apps []string
	perApp := 0
	for i := range metas {
		m := &metas[i]
		if m.Destructive {
			continue
		}
		if len(apps) == 0 || apps[len(apps)-1] != m.App {
			if len(apps) == lim.MaxAppsFallback {
				break
			}
			apps = append(apps, m.App)
			perApp = 0
		}
		if perApp >= lim.MaxFallbackRows {
			continue
		}
		perApp++
		res.Matches = append(res.Matches, Match{Action: m.Action, App: m.App, Tier: StrategyFallback})
		res.MatchedActions = append(res.MatchedActions, m.Action)
	}
	if len(res.Matches) > 0 {
		res.Strategy = StrategyFallback
	}
}

// topTerms keeps a clause's strongest terms: at most max primary terms, plus the synonyms
// of those kept.
func topTerms(ts []text.Term, max int) []text.Term {
	var primary, syn []text.Term
	for _, t := range ts {
		if t.Role == text.RoleSynonym {
			syn = append(syn, t)
		} else {
			primary = append(primary, t)
		}
	}
	if len(primary) > max {
		slices.SortStableFunc(primary, func(a, b text.Term) int {
			switch {
			case a.Weight > b.Weight:
				return -1
			case a.Weight < b.Weight:
				return 1
			}
			return 0
		})
		primary = primary[:max]
	}
	if len(syn) > max {
		syn = syn[:max]
	}
	return append(primary, syn...)
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

func grow(s []uint64, n int) []uint64 {
	if cap(s) < n {
		return make([]uint64, n)
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
