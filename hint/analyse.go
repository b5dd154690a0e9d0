package hint

import (
	"math/bits"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/internal/text"
)

// Analyse, the first stage of a ranking. It takes the prompt and the apps in scope and
// analyses the prompt once (package text) into clauses, one per step it asks for, at most
// maxClauses. Each clause becomes the ranking's view of it, a clauseInfo: its terms (its own
// words, then their strongest expansions), each with a weight, a role and a source, as bits
// of a table of at most maxTerms terms that all clauses share; its verb and verb family, the
// capabilities it asks for and what it acts on. The steps a clause implies but does not
// state (finding the draft it asks to send) join as lookups, and the actions the prompt
// names by their exact slug are found here too.
//
// It hands the clauses and the term table to matching (match.go), which finds the actions
// that hold the table's terms. Nothing here depends on the weights.

const (
	maxClauses    = 10
	maxExpansions = 24 // expansion terms kept per clause, strongest first
	// maxExplicitWords bounds the distinct slug-like words of a prompt looked up as action
	// slugs: a request names a handful of actions, not thousands.
	maxExplicitWords = 32
	verbTermW        = 0.35
)

// analysis is a request's prompt, analysed for its apps the first time a part of the
// Build asks (the semantic tier, the ranking), its clauses capped at maxClauses. It is one
// Build's: not safe for concurrent use.
type analysis struct {
	prompt string
	apps   []string
	done   bool
	p      text.Prompt
}

func newAnalysis(prompt string, apps []string) *analysis {
	return &analysis{prompt: prompt, apps: apps}
}

// get returns the analysis, made by an on the first call. A call that panics leaves it
// to be made again.
func (a *analysis) get(an *text.Analyzer) text.Prompt {
	if !a.done {
		p := an.Prompt(a.prompt, a.apps)
		if len(p.Clauses) > maxClauses {
			p.Clauses = p.Clauses[:maxClauses]
		}
		a.p, a.done = p, true
	}
	return a.p
}

// clauseInfo is one clause (or implied lookup step) as the ranking sees it.
type clauseInfo struct {
	c        text.Clause
	verbs    []string          // the clause's verb stems: its class and the word used
	w        [maxTerms]float64 // weight of each table term in this clause (0: absent)
	src      [maxTerms]text.Source
	mask     uint64 // table terms present in this clause
	verbMask uint64 // the clause's verb terms
	// genericVerbMask is verbMask without the clause's own verb word when that word is more
	// specific than its class ("trash" for archive): matching it says something.
	genericVerbMask uint64
	expMask         uint64 // terms that expand a word rather than being one
	gateMask        uint64 // object-like terms: matching one of them passes the gate
	objMask         uint64 // the clause's own object words (for app affinity)
	caps            []string
	objStems        []string // stems of what the clause acts on, in order of importance
	specific        bool
	// appStrength is the strength of the clause's surest app mention (1 or more when the
	// clause names an app directly).
	appStrength float64
	byName      bool   // the clause names an item by a quoted title or a proper name
	family      string // the verb's family
	// verbBits and verbWordBit are the table bits of the clause's verb words and of its own
	// verb word; verbBitsComplete says the table holds them all.
	verbBits, verbWordBit uint64
	verbBitsComplete      bool
	// progressive says the clause's verb is said in its -ing form.
	progressive bool
}

// analyseClauses makes the analysed prompt p the ranking's: r's term table, its clauses
// (each stated clause, then the steps they imply: r.lookups and r.of) and the capabilities
// they ask for. It reads r.objectsOf: a clause that names an app but not what it acts on is
// about the app's main objects.
func (b *Builder) analyseClauses(req Request, p text.Prompt, r *ranking) {
	// Every clause's own words have a place in the table before any expansion takes one:
	// a long first clause's synonyms must not crowd out what a later clause asks for.
	// Then the prompt's other words: a sentence read as context, a word the clauses weigh
	// little, still counts for the whole prompt's ranking.
	addWord := func(stem string) int {
		k := slices.Index(r.table, stem)
		if k < 0 && len(r.table) < maxTerms {
			r.table = append(r.table, stem)
			k = len(r.table) - 1
		}
		return k
	}
	for _, c := range p.Clauses {
		for _, t := range topTerms(c.Terms, b.limits.MaxQueryTokens) {
			if t.Source == text.SourceWord {
				addWord(t.Stem)
			}
		}
	}
	for _, w := range p.Words {
		if k := addWord(w); k >= 0 {
			r.said |= 1 << k
			if _, verb := b.an.VerbClass(w); !verb && !b.an.IsTime(w) {
				r.saidNames |= 1 << k
			}
		}
	}
	clauses := make([]clauseInfo, len(p.Clauses))
	for ci, c := range p.Clauses {
		var prev *clauseInfo
		if ci > 0 {
			prev = &clauses[ci-1]
		}
		b.prepareClause(&clauses[ci], c, prev, &r.table, r.objectsOf)
		r.caps = appendUniq(r.caps, clauses[ci].caps...)
	}
	lookups, of := b.lookups(req, clauses, &r.table)
	r.clauses = append(clauses, lookups...)
	r.lookups, r.of = len(lookups), of
	for ci := range r.clauses {
		r.clauses[ci].setVerbBits(r.table)
		r.clauses[ci].family = b.an.Family(r.clauses[ci].c.Verb)
	}
}

// prepareClause turns an analysed clause into the ranking's view of it, adding its terms to
// the table.
// prev is the clause before, nil for the first.
func (b *Builder) prepareClause(info *clauseInfo, c text.Clause, prev *clauseInfo, table *[]string, objectsOf func(app string) []string) {
	info.c = c
	info.progressive = c.VerbWord != "" && progressive(b.an, c.Text, c.VerbWord)
	ts := topTerms(c.Terms, b.limits.MaxQueryTokens)
	// A clause that names an app but not what it acts on ("search my Gmail for the
	// booking", "find Jane Whitfield in HubSpot") is about the app's main objects.
	if !hasObject(ts, c.VerbWord) {
		for _, m := range c.Apps {
			if m.Strength < 1 {
				continue
			}
			for _, o := range objectsOf(m.App) {
				ts = append(ts, text.Term{Stem: o, Weight: 0.5, Role: text.RoleSynonym, Source: text.SourceContext})
			}
		}
	}
	slot := func(stem string) int {
		idx := slices.Index(*table, stem)
		if idx < 0 {
			if len(*table) == maxTerms {
				return -1
			}
			*table = append(*table, stem)
			idx = len(*table) - 1
		}
		return idx
	}
	for _, t := range ts {
		idx := slot(t.Stem)
		if idx < 0 {
			continue
		}
		w := t.Weight
		if t.Role == text.RoleVerb {
			w *= verbTermW // the verb is scored by class below; its word counts little
		}
		bit := uint64(1) << idx
		if info.mask&bit != 0 && (info.src[idx] < t.Source || info.src[idx] == t.Source && info.w[idx] >= w) {
			continue
		}
		info.w[idx], info.src[idx] = w, t.Source
		info.mask |= bit
		switch t.Role {
		case text.RoleObject, text.RoleWord, text.RoleEntity, text.RolePhrase, text.RoleSynonym:
			info.gateMask |= bit
		case text.RoleVerb:
			info.verbMask |= bit
		}
		if t.Source != text.SourceWord {
			info.expMask |= bit
		} else {
			info.expMask &^= bit
		}
		if t.Source == text.SourceWord && (t.Role == text.RoleObject || t.Role == text.RoleWord || t.Role == text.RoleEntity) {
			info.objMask |= bit
		}
	}
	// What the verb acts on first, then other words, entities, and phrases.
	for _, role := range []text.Role{text.RoleObject, text.RoleWord, text.RoleEntity, text.RolePhrase} {
		for _, t := range ts {
			if t.Role == role && t.Source == text.SourceWord {
				info.objStems = append(info.objStems, t.Stem)
			}
		}
	}
	info.caps = b.tax.ClauseCapabilities(nil, c.Verb, b.capObjects(c, info.objStems), c.Text)
	// A step that acts on what the step before named ("find the ticket … and delete it")
	// acts on the same kind of thing.
	if len(info.objStems) == 0 && prev != nil && c.Verb != "" {
		info.caps = b.tax.ClauseCapabilities(nil, c.Verb, prev.objStems, c.Text)
	}
	// "Trigger an incident" runs nothing: when the objects cannot be run but can be
	// created, the clause creates them.
	if b.an.Family(c.Verb) == text.FamilyExecute && allGeneric(b.tax, info.caps) {
		if caps := b.tax.ClauseCapabilities(nil, text.VerbCreate, info.objStems, c.Text); !allGeneric(b.tax, caps) {
			info.caps, info.c.Verb = caps, text.VerbCreate
			// The word that said "run" no longer counts.
			if k := slices.Index(*table, info.c.VerbWord); k >= 0 {
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
		// capability reaches actions by name too.
		cp, _ := b.tax.Capability(id)
		obj := cp.Object
		if i := strings.LastIndexByte(obj, '.'); i >= 0 {
			obj = obj[i+1:]
		}
		for _, part := range strings.Split(obj, "_") {
			if idx := slot(b.an.Stem(part)); idx >= 0 && info.mask&(1<<idx) == 0 {
				info.w[idx], info.src[idx] = 0.5, text.SourceContext
				info.mask |= 1 << idx
				info.gateMask |= 1 << idx
				info.expMask |= 1 << idx
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
	info.genericVerbMask = info.verbMask
	if w := info.c.VerbWord; w != "" && w != b.an.Stem(info.c.Verb) {
		if k := slices.Index(*table, w); k >= 0 {
			info.genericVerbMask &^= 1 << k
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
		if k := slices.Index(*table, text.VerbGet); k >= 0 && info.c.VerbWord != text.VerbGet {
			info.w[k], info.mask = 0, info.mask&^(1<<k)
		}
	}
	// Every verb word has a table slot (weightless when the clause does not count it), so
	// that whether a slug holds it is read off the slug's mask.
	for _, v := range info.verbs {
		slot(v)
	}
	for _, m := range c.Apps {
		info.appStrength = max(info.appStrength, m.Strength)
	}
	// An item known by a quoted title, a proper name, or an address or handle rather than
	// an ID is searched for.
	email, user := b.an.Stem("email"), b.an.Stem("user")
	info.byName = slices.ContainsFunc(c.Terms, func(t text.Term) bool {
		return t.Role == text.RoleContent || t.Role == text.RoleEntity && (t.Stem == email || t.Stem == user)
	})
}

// topTerms keeps a clause's strongest terms: at most max of the prompt's own terms, plus its
// strongest expansions (at most maxExpansions).
func topTerms(ts []text.Term, max int) []text.Term {
	// The prompt's own terms, then the expansions, in one array: each part is cut to its
	// strongest, and the expansions moved up to follow the kept terms.
	out := make([]text.Term, len(ts))
	np := 0
	for _, t := range ts {
		if t.Role != text.RoleSynonym {
			out[np] = t
			np++
		}
	}
	ne := np
	for _, t := range ts {
		if t.Role == text.RoleSynonym {
			out[ne] = t
			ne++
		}
	}
	byWeight := func(a, b text.Term) int {
		switch {
		case a.Weight > b.Weight:
			return -1
		case a.Weight < b.Weight:
			return 1
		}
		return 0
	}
	primary, exp := out[:np], out[np:]
	if len(primary) > max {
		slices.SortStableFunc(primary, byWeight)
		primary = primary[:max]
	}
	if len(exp) > maxExpansions {
		slices.SortStableFunc(exp, byWeight)
		exp = exp[:maxExpansions]
	}
	n := len(primary) + copy(out[len(primary):], exp)
	return out[:n:n]
}

// progressive reports whether the clause's text says its verb (of stem verbWord) in the
// -ing form.
func progressive(an *text.Analyzer, clause, verbWord string) bool {
	for _, w := range strings.Fields(clause) {
		if !strings.HasSuffix(w, "ing") || !strings.HasPrefix(w, verbWord[:min(len(verbWord), 3)]) {
			continue
		}
		if an.Stem(w) == verbWord {
			return true
		}
	}
	return false
}

// hasObject reports whether terms name something the clause acts on, other than the verb
// word itself ("list" in "list my Todoist" names no object).
func hasObject(ts []text.Term, verbWord string) bool {
	for _, t := range ts {
		switch t.Role {
		case text.RoleObject, text.RoleWord, text.RoleEntity:
			if t.Stem != verbWord {
				return true
			}
		}
	}
	return false
}

// capObjects returns the words that say what a clause acts on, for its capabilities: its
// object words, after the verb word when that names the medium of a send ("email the link
// to Ana" sends an email that holds a link).
func (b *Builder) capObjects(c text.Clause, objStems []string) []string {
	if c.Verb != text.VerbSend || c.VerbWord == "" || !b.an.IsNounVerb(c.VerbWord) || slices.Contains(objStems, c.VerbWord) {
		return objStems
	}
	return append([]string{c.VerbWord}, objStems...)
}

func allGeneric(t *cache.Taxonomy, caps []string) bool {
	for _, id := range caps {
		if !t.IsGeneric(id) {
			return false
		}
	}
	return true
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
		lk.w[idx], lk.src[idx] = verbTermW, text.SourceWord
		lk.mask |= 1 << idx
		lk.verbMask = 1 << idx
		lk.genericVerbMask = lk.verbMask
		lk.verbs = []string{verb}
		lk.caps = b.tax.ClauseCapabilities(nil, text.VerbGet, info.objStems, info.c.Text)
		lk.specific = !allGeneric(b.tax, lk.caps)
		out = append(out, lk)
		of = append(of, ci)
	}
	return out, of
}

// setVerbBits records the table bits of the clause's verb words.
func (info *clauseInfo) setVerbBits(table []string) {
	info.verbBits, info.verbWordBit, info.verbBitsComplete = 0, 0, true
	for _, v := range info.verbs {
		k := slices.Index(table, v)
		if k < 0 {
			info.verbBitsComplete = false
			return
		}
		info.verbBits |= 1 << k
	}
	if w := info.c.VerbWord; w != "" {
		k := slices.Index(table, w)
		if k < 0 {
			info.verbBitsComplete = false
			return
		}
		info.verbWordBit = 1 << k
	}
}

// explicitSlugs returns the indexes of the actions whose exact slug the prompt holds
// ("use GMAIL_SEND_EMAIL to ..."), in the prompt's order.
func explicitSlugs(prompt string, metas []cache.ActionMeta) []int32 {
	var out []int32
	var index map[string]int32 // slug -> metadata index, made for the first slug-like word
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(prompt, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r >= 'a' && r <= 'z')
	}) {
		if !strings.Contains(f, "_") || strings.ToUpper(f) != f || seen[f] {
			continue
		}
		// Words that could be slugs are looked up once each, and only the first few: the
		// cost stays linear in the prompt and the catalogue whatever the prompt holds.
		if len(seen) == maxExplicitWords {
			break
		}
		seen[f] = true
		if index == nil {
			index = make(map[string]int32, len(metas))
			for i := range metas {
				if _, dup := index[metas[i].Action]; !dup {
					index[metas[i].Action] = int32(i)
				}
			}
		}
		if i, ok := index[f]; ok {
			out = append(out, i)
		}
	}
	return out
}

// step returns the index of the stated clause that clause (or implied lookup) ci serves.
func (r *ranking) step(ci int) int {
	if k := ci - (len(r.clauses) - r.lookups); k >= 0 {
		return r.of[k]
	}
	return ci
}

// named reports whether a stated clause names app directly (a mention of strength 1 or
// more): its words are the app's name, not terms, so they match none of its actions.
func (r *ranking) named(app string) bool {
	for ci := range r.clauses[:len(r.clauses)-r.lookups] {
		for _, m := range r.clauses[ci].c.Apps {
			if m.Strength >= 1 && strings.EqualFold(m.App, app) {
				return true
			}
		}
	}
	return false
}

// namesOtherApp reports whether the first clause names an app directly and app is not one
// of those it names.
func (r *ranking) namesOtherApp(app string) bool {
	c := &r.clauses[0].c
	named := false
	for _, m := range c.Apps {
		if m.Strength >= 1 {
			if m.App == app {
				return false
			}
			named = true
		}
	}
	return named
}

// namedApps returns the apps the stated clauses name (a mention of strength one or more),
// in order.
func (r *ranking) namedApps() []string {
	var out []string
	for ci := range r.clauses[:len(r.clauses)-r.lookups] {
		for _, m := range r.clauses[ci].c.Apps {
			if m.Strength >= 1 {
				out = appendUniq(out, m.App)
			}
		}
	}
	return out
}

// promptStems returns the stems of the prompt's own words, every clause's, each once: the
// analysis the ranking already made, for what needs only the words.
func (r *ranking) promptStems() []string {
	var out []string
	for ci := range r.clauses {
		for _, t := range r.clauses[ci].c.Terms {
			if t.Source == text.SourceWord && !slices.Contains(out, t.Stem) {
				out = append(out, t.Stem)
			}
		}
	}
	return out
}
