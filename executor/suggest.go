package executor

import (
	"context"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/internal/text"
	"github.com/toolhint/toolhint/schema"
)

// fromFunctionName finds the action whose schema.FunctionName is name among the actions the
// scope may see.
func (e *Executor) fromFunctionName(ctx context.Context, name string) (string, bool) {
	for _, c := range e.candidates(ctx) {
		if len(c) > schema.MaxNameLength && schema.FunctionName(c) == name {
			return c, true
		}
	}
	return "", false
}

// candidates lists the real names the scope may call: active platform tools and the
// actions of the allowed apps (every app when no access checker or app list is set).
func (e *Executor) candidates(ctx context.Context) []string {
	var cands []string
	if e.cfg.Registry != nil {
		for _, t := range e.cfg.Registry.All(true) {
			cands = append(cands, t.Name)
		}
	}
	if e.cfg.Catalog != nil {
		if apps, ok := e.suggestApps(ctx); ok {
			if metas, err := e.cfg.Catalog.ActionMeta(ctx, apps); err == nil {
				for _, m := range metas {
					cands = append(cands, m.Action)
				}
			}
		}
	}
	return cands
}

// suggestApps returns the apps whose actions the scope may see: nil for every app, and ok
// false when it may see none.
func (e *Executor) suggestApps(ctx context.Context) (apps []string, ok bool) {
	if e.cfg.Access == nil && e.cfg.Scope.AgentID != 0 {
		return nil, false
	}
	acc := e.access()
	a, err := acc.AllowedApps(ctx, e.cfg.Scope.Identity)
	if err != nil {
		return nil, false // suggest no action the agent may not be allowed
	}
	if acc.AllowsAll() {
		return a, true // nil: every app
	}
	return a, len(a) > 0
}

// allowedNames keeps the names the scope may call, at most n of them, in order: a
// suggestion never names a tool the agent would be refused.
func (e *Executor) allowedNames(ctx context.Context, names []string, n int) []string {
	var out []string
	for _, name := range names {
		if len(out) == n {
			break
		}
		if e.mayCall(ctx, name) {
			out = append(out, name)
		}
	}
	return out
}

// mayCall reports whether the scope may call the platform tool or action name.
func (e *Executor) mayCall(ctx context.Context, name string) bool {
	if e.cfg.Access == nil && e.cfg.Scope.AgentID != 0 {
		return false
	}
	sub := e.cfg.Scope.Identity
	if e.cfg.Registry != nil {
		if spec, ok := e.cfg.Registry.Get(name); ok {
			d, err := e.access().CheckPlatform(ctx, sub, spec)
			return err == nil && d.Allowed
		}
	}
	if e.cfg.Catalog == nil {
		return false
	}
	act, err := e.cfg.Catalog.Action(ctx, name)
	if err != nil {
		return false
	}
	d, err := e.access().CheckAction(ctx, sub, act)
	return err == nil && d.Allowed
}

// Suggestion limits. A hallucinated name is untrusted input: its length and word count are
// bounded before any work.
const (
	suggestMaxName  = 200 // bytes of a called name that are analysed
	suggestMaxWords = 10  // words of a called name that are analysed
	suggestMaxTerms = 16  // terms of a candidate that are compared
	suggestMaxWord  = 32  // longer words only match exactly
	suggestMaxProbe = 8   // app-prefix look-ups per call
)

// Scoring weights. A term match counts 1 when equal, less for a typo, an abbreviation, a
// compound split differently or a verb of the same class; the verb weighs twice a word.
const (
	qualTypo1      = 0.85
	qualTypo2      = 0.7
	qualCompound   = 0.9
	qualPrefix     = 0.6
	qualVerbSyn    = 0.5
	qualVerbFamily = 0.4
	qualSynonym    = 0.5
	weightVerb     = 2.0
	weightGuess    = 0.5 // an unknown first word that may be a wrong app prefix
	extraPenalty   = 0.05
	maxExtra       = 6
	appBonus       = 0.3
	minCoverage    = 0.25
	goodCoverage   = 0.5 // below this in the named app, the other apps are searched too
)

// suggest returns up to n real tool names closest to name, best first: active platform
// tools and the actions of the apps the scope may use. The name is split into words, its
// app prefix recognised and dropped, the rest folded to stems; candidates are scored by how
// much of the name their words cover (the verb counts most, typos and inflections are
// tolerated), with a small penalty for words the name does not explain and a strong
// preference for the app the name starts with.
func (e *Executor) suggest(ctx context.Context, name string, n int) []string {
	if name == "" || n <= 0 {
		return nil
	}
	an := e.sh.analyzer()
	ws := text.Words(truncateUTF8(name, suggestMaxName))
	if len(ws) > 0 && ws[0] == "composio" {
		ws = ws[1:]
	}
	if len(ws) > suggestMaxWords {
		ws = ws[:suggestMaxWords]
	}
	if len(ws) == 0 {
		return nil
	}
	top := newTopN(n)
	q0 := newQuery(an, ws, "")
	if e.cfg.Registry != nil {
		for _, t := range e.cfg.Registry.All(true) {
			top.add(t.Name, q0, an, an.SlugTerms(t.Name, ""), "")
		}
	}
	if e.cfg.Catalog == nil {
		return top.names()
	}
	apps, ok := e.suggestApps(ctx)
	if !ok {
		return top.names()
	}
	app, rest, pool, inner := e.appPrefix(ctx, an, ws, apps)
	if app != "" {
		q := newQuery(an, rest, app)
		in := top.clone()
		in.addMetas(pool, q, an, "")
		if in.bestCoverage >= goodCoverage {
			return in.names()
		}
		if !inner {
			// A weak match in the named app: the other apps compete, without its bonus.
			all, err := e.cfg.Catalog.ActionMeta(ctx, apps)
			if err != nil {
				return in.names()
			}
			others := top.clone()
			others.addMetas(all, q, an, app)
			return others.keep(in, app)
		}
	}
	all, err := e.cfg.Catalog.ActionMeta(ctx, apps)
	if err != nil {
		return top.names()
	}
	top.addMetas(all, q0, an, "")
	return top.names()
}

// appPrefix recognises the app a called name names: the longest run of its first words
// (joined with or without "_") that names an app the scope may use, a known alias of one, a
// misspelling of one, or else a later word that names one ("SEND_SLACK_MESSAGE"; inner is
// then true). It returns the app, the other words and the app's actions; "" when none.
func (e *Executor) appPrefix(ctx context.Context, an *text.Analyzer, ws []string, apps []string) (app string, rest []string, pool []cache.ActionMeta, inner bool) {
	probes := 0
	try := func(slug string) []cache.ActionMeta {
		if slug == "" || probes >= suggestMaxProbe {
			return nil
		}
		if apps != nil && !containsFold(apps, slug) {
			return nil
		}
		probes++
		metas, err := e.cfg.Catalog.ActionMeta(ctx, []string{slug})
		if err != nil {
			return nil
		}
		return metas
	}
	for k := min(3, len(ws)-1); k >= 1; k-- {
		under := strings.Join(ws[:k], "_")
		if metas := try(under); len(metas) > 0 {
			return under, ws[k:], metas, false
		}
		if k > 1 {
			if joined := strings.Join(ws[:k], ""); joined != under {
				if metas := try(joined); len(metas) > 0 {
					return joined, ws[k:], metas, false
				}
			}
		}
	}
	if len(ws) < 2 {
		return "", ws, nil, false
	}
	// A known alias ("gcal") that names exactly one app the scope may use.
	var hit string
	var hitMetas []cache.ActionMeta
	for _, a := range an.AppAliases(ws[0]) {
		if metas := try(a); len(metas) > 0 {
			if hit != "" {
				return "", ws, nil, false
			}
			hit, hitMetas = a, metas
		}
	}
	if hit != "" {
		return hit, ws[1:], hitMetas, false
	}
	// A misspelt app ("SLAK_") among a known list of apps; a verb opening the name is no app.
	if _, verb := an.VerbClass(an.Stem(ws[0])); apps != nil && !verb {
		for _, a := range apps {
			la := strings.ToLower(a)
			for k := 1; k <= min(2, len(ws)-1); k++ {
				if w := strings.Join(ws[:k], "_"); closeWord(w, la) || closeWord(strings.Join(ws[:k], ""), strings.ReplaceAll(la, "_", "")) {
					if metas := try(la); len(metas) > 0 {
						return la, ws[k:], metas, false
					}
				}
			}
		}
	}
	for i := 1; i < len(ws); i++ {
		if len(ws[i]) < 3 {
			continue
		}
		if metas := try(ws[i]); len(metas) > 0 {
			return ws[i], slices.Concat(ws[:i], ws[i+1:]), metas, true
		}
	}
	return "", ws, nil, false
}

// qterm is one analysed word of a called name.
type qterm struct {
	s      string
	mask   uint32
	weight float64
	pair   string // s joined with the next term, to meet a candidate's compound word
	ascii  bool   // the letter-mask filter only holds for ASCII words
	syn    []string
}

// query is a called name analysed for scoring.
type query struct {
	terms      []qterm
	total      float64 // sum of weights
	verb       int     // index of the verb term
	verbClass  string
	verbFamily string
	app        string // the app prefix recognised, lower case; "" when none
	guess      bool   // no app recognised: the first term may be a wrong app prefix
}

func newQuery(an *text.Analyzer, ws []string, app string) *query {
	terms := slices.DeleteFunc(an.SlugTerms(strings.Join(ws, "_"), app), func(t string) bool { return t == "" })
	if len(terms) > suggestMaxWords {
		terms = terms[:suggestMaxWords]
	}
	q := &query{terms: make([]qterm, len(terms)), app: strings.ToLower(app)}
	class, at := an.MainVerb(terms)
	if at < 0 {
		at = 0
		class, _ = an.VerbClass(firstOr(terms, ""))
	}
	q.verb, q.verbClass, q.verbFamily = at, class, an.Family(class)
	q.guess = app == "" && len(terms) >= 3 && at > 0
	for i, t := range terms {
		w := 1.0
		switch {
		case i == at:
			w = weightVerb
		case i == 0 && q.guess:
			w = weightGuess
		}
		q.terms[i] = qterm{s: t, mask: letterMask(t), weight: w, ascii: isASCII(t), syn: an.Synonyms(t)}
		if i+1 < len(terms) {
			q.terms[i].pair = t + terms[i+1]
		}
		q.total += w
	}
	return q
}

func firstOr(ss []string, def string) string {
	if len(ss) > 0 {
		return ss[0]
	}
	return def
}

// cand is one scored candidate.
type cand struct {
	name     string
	app      string
	score    float64
	coverage float64
	edits    int
	extra    int
}

// better orders candidates: higher score, then fewer edits, fewer extra words, shorter
// and alphabetically first name.
func (c cand) better(d cand) bool {
	switch {
	case c.score != d.score:
		return c.score > d.score
	case c.edits != d.edits:
		return c.edits < d.edits
	case c.extra != d.extra:
		return c.extra < d.extra
	case len(c.name) != len(d.name):
		return len(c.name) < len(d.name)
	}
	return c.name < d.name
}

// topN keeps the best n candidates seen, and the scratch space scoring reuses.
type topN struct {
	n            int
	best         []cand
	bestCoverage float64
	// which query terms name the last candidate app seen
	lastQ    *query
	lastApp  string
	appTerms uint64
	masks    [suggestMaxTerms]uint32
	quals    [suggestMaxWords]float64
}

func newTopN(n int) *topN { return &topN{n: n, best: make([]cand, 0, n+1)} }

// keep returns t's names with the best of app's actions kept among them: a weak match in
// the app the name asked for still beats dropping the app altogether. app's candidates in
// pref scored with the app bonus, so they merge by score.
func (t *topN) keep(pref *topN, app string) []string {
	for _, c := range pref.best {
		if strings.EqualFold(c.app, app) {
			if len(t.best) == t.n && t.n > 1 {
				t.best = t.best[:t.n-1]
			}
			t.insert(c)
			break
		}
	}
	return t.names()
}

// clone returns a copy of t to add more candidates to.
func (t *topN) clone() *topN {
	c := newTopN(t.n)
	c.best = append(c.best, t.best...)
	c.bestCoverage = t.bestCoverage
	return c
}

func (t *topN) names() []string {
	if len(t.best) == 0 {
		return nil
	}
	out := make([]string, len(t.best))
	for i, c := range t.best {
		out[i] = c.name
	}
	return out
}

// addMetas scores catalogue actions, leaving out those of skipApp (scored already). metas
// may be shared with the store: it is only read.
func (t *topN) addMetas(metas []cache.ActionMeta, q *query, an *text.Analyzer, skipApp string) {
	for i := range metas {
		m := &metas[i]
		if skipApp != "" && strings.EqualFold(m.App, skipApp) {
			continue
		}
		terms := m.SlugTerms
		if len(terms) == 0 {
			terms = an.SlugTerms(m.Action, m.App)
		}
		t.add(m.Action, q, an, terms, m.App)
	}
}

// add scores one candidate and keeps it when it is among the best n.
func (t *topN) add(name string, q *query, an *text.Analyzer, terms []string, app string) {
	c, ok := t.score(q, an, terms, app)
	if !ok {
		return
	}
	c.name, c.app = name, app
	t.insert(c)
}

// insert keeps c when it is among the best n.
func (t *topN) insert(c cand) {
	if len(t.best) == t.n && !c.better(t.best[len(t.best)-1]) {
		return
	}
	for _, b := range t.best {
		if b.name == c.name {
			return
		}
	}
	i := len(t.best)
	for i > 0 && c.better(t.best[i-1]) {
		i--
	}
	t.best = append(t.best, cand{})
	copy(t.best[i+1:], t.best[i:])
	t.best[i] = c
	if len(t.best) > t.n {
		t.best = t.best[:t.n]
	}
	t.bestCoverage = max(t.bestCoverage, c.coverage)
}

// score rates a candidate's terms against the query. ok is false when too little of the
// query is covered.
func (t *topN) score(q *query, an *text.Analyzer, terms []string, app string) (cand, bool) {
	if len(q.terms) == 0 {
		return cand{}, false
	}
	if len(terms) > suggestMaxTerms {
		terms = terms[:suggestMaxTerms]
	}
	var masked uint32  // which t.masks are computed: most terms never need one
	var appBits uint64 // query terms that name the candidate's app
	if q.app == "" && app != "" {
		appBits = t.namesApp(q, app)
	}
	var matched uint64 // candidate terms explained by the query
	var got, bestQual float64
	edits := 0
	quals := t.quals[:len(q.terms)]
	clear(quals)
	for i := range q.terms {
		qt := &q.terms[i]
		if quals[i] > 0 { // covered with the previous term as one compound word
			continue
		}
		qual, at, at2, ed, pair := 0.0, -1, -1, 0, false
		for j, ct := range terms {
			if len(ct) == 0 {
				continue
			}
			same := ct[0] == qt.s[0] // all but a typo need the same first letter
			if same {
				if ct == qt.s {
					qual, at, at2, ed, pair = 1, j, -1, 0, false
					break
				}
				if ct == qt.pair {
					qual, at, at2, ed, pair = qualCompound, j, -1, 0, true
					continue
				}
			}
			if qual >= qualCompound {
				continue
			}
			if same && j+1 < len(terms) && len(ct)+len(terms[j+1]) == len(qt.s) && strings.HasPrefix(qt.s, ct) && strings.HasSuffix(qt.s, terms[j+1]) {
				qual, at, at2, ed = qualCompound, j, j+1, 0
				continue
			}
			if tol := tolerance(min(len(ct), len(qt.s))); tol > 0 && (!qt.ascii || absDiff(len(ct), len(qt.s)) <= tol &&
				bits.OnesCount32(t.mask(&masked, j, ct)^qt.mask) <= 2*tol) {
				if d, ok := editsWithin(qt.s, ct, tol); ok {
					v := qualTypo1
					if d > 1 {
						v = qualTypo2
					}
					if v > qual {
						qual, at, at2, ed, pair = v, j, -1, d, false
					}
					continue
				}
			}
			// An abbreviation ("desc" for "description") or a word run into the next one
			// ("pullrequest" for "pull").
			if same && qual < qualPrefix && min(len(qt.s), len(ct)) >= 4 && absDiff(len(ct), len(qt.s)) >= 2 &&
				(strings.HasPrefix(ct, qt.s) || strings.HasPrefix(qt.s, ct)) {
				qual, at, at2, ed, pair = qualPrefix, j, -1, absDiff(len(ct), len(qt.s)), false
			}
		}
		if qual == 0 && appBits&(1<<i) != 0 {
			qual = 1 // the name mentions the candidate's app ("SEND_SLACK_MESSAGE")
		}
		if pair {
			quals[i+1] = qualCompound
		}
		if at >= 0 {
			matched |= 1 << at
		}
		if at2 >= 0 {
			matched |= 1 << at2
		}
		quals[i] = qual
		edits += ed
		bestQual = max(bestQual, qual)
	}
	if bestQual < qualPrefix {
		return cand{}, false
	}
	// The verb in another form of the same class ("POST" for "SEND") counts for a little.
	if v := q.verb; v < len(quals) && quals[v] == 0 && q.verbClass != "" {
		if c, j := an.MainVerb(terms); j >= 0 && c == q.verbClass {
			quals[v] = qualVerbSyn
			matched |= 1 << j
			edits++
		} else if j >= 0 && q.verbFamily != "" && an.Family(c) == q.verbFamily {
			// A verb of the same family ("FETCH" for "SEARCH") counts for less.
			quals[v] = qualVerbFamily
			matched |= 1 << j
			edits += 2
		}
	}
	// A synonym ("MESSAGE" for "EMAIL") counts for half.
	for i := range quals {
		if quals[i] > 0 {
			continue
		}
	syn:
		for _, w := range q.terms[i].syn {
			for j, ct := range terms {
				if ct == w {
					quals[i] = qualSynonym
					matched |= 1 << j
					edits += 2
					break syn
				}
			}
		}
	}
	for i := range quals {
		got += quals[i] * q.terms[i].weight
	}
	coverage := got / q.total
	if coverage < minCoverage {
		return cand{}, false
	}
	extra := len(terms) - bits.OnesCount64(matched)
	s := coverage - extraPenalty*float64(min(extra, maxExtra))
	if app != "" && (q.app != "" && strings.EqualFold(app, q.app) || appBits != 0) {
		s += appBonus
	}
	return cand{score: s, coverage: coverage, edits: edits, extra: extra}, true
}

// mask returns the letter mask of candidate term j, computing it once per candidate.
func (t *topN) mask(masked *uint32, j int, ct string) uint32 {
	if *masked&(1<<j) == 0 {
		t.masks[j] = letterMask(ct)
		*masked |= 1 << j
	}
	return t.masks[j]
}

// namesApp returns which query terms name app (one bit per term), remembering the answer
// for the last app: catalogue actions arrive grouped by app.
func (t *topN) namesApp(q *query, app string) uint64 {
	if q == t.lastQ && app == t.lastApp {
		return t.appTerms
	}
	t.lastQ, t.lastApp, t.appTerms = q, app, 0
	la := strings.ToLower(strings.ReplaceAll(app, "_", ""))
	for i := range q.terms {
		qt := &q.terms[i]
		switch {
		case closeWord(qt.s, la) || closeWord(qt.s, text.Stem(la)):
			t.appTerms |= 1 << i
		case qt.pair != "" && qt.pair == la:
			t.appTerms |= 3 << i
		}
	}
	return t.appTerms
}

// tolerance is the number of typos forgiven in a word of n bytes.
func tolerance(n int) int {
	switch {
	case n >= 8:
		return 2
	case n >= 4:
		return 1
	}
	return 0
}

// closeWord reports whether a and b are equal or within the typo tolerance of each other.
func closeWord(a, b string) bool {
	if a == b {
		return true
	}
	tol := tolerance(min(len(a), len(b)))
	if tol == 0 {
		return false
	}
	_, ok := editsWithin(a, b, tol)
	return ok
}

// letterMask has a bit per letter a word contains (digits and other bytes share bits). Each
// edit changes at most two bits, so words whose masks differ in more than 2k bits are more
// than k edits apart.
func letterMask(s string) uint32 {
	var m uint32
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z':
			m |= 1 << (c - 'a')
		case c >= '0' && c <= '9':
			m |= 1 << 26
		default:
			m |= 1 << (27 + c%5)
		}
	}
	return m
}

func absDiff(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// editsWithin returns the edit distance between a and b (insertions, deletions,
// substitutions and swaps of adjacent characters) when it is at most k.
func editsWithin(a, b string, k int) (int, bool) {
	if len(a) > 4*suggestMaxWord || len(b) > 4*suggestMaxWord {
		return 0, false
	}
	var ra, rb [suggestMaxWord]rune
	na, oka := toRunes(ra[:], a)
	nb, okb := toRunes(rb[:], b)
	if !oka || !okb {
		return 0, false
	}
	return editsWithinSeq(ra[:na], rb[:nb], k)
}

// toRunes decodes s into buf; false when it does not fit.
func toRunes(buf []rune, s string) (int, bool) {
	n := 0
	for _, r := range s {
		if n == len(buf) {
			return 0, false
		}
		buf[n] = r
		n++
	}
	return n, true
}

// editsWithinSeq is editsWithin over decoded words.
func editsWithinSeq(a, b []rune, k int) (int, bool) {
	la, lb := len(a), len(b)
	if la > suggestMaxWord || lb > suggestMaxWord || absDiff(la, lb) > k {
		return 0, false
	}
	var buf [3][suggestMaxWord + 1]int
	pp, p, c := buf[0][:lb+1], buf[1][:lb+1], buf[2][:lb+1]
	for j := range p {
		p[j] = j
	}
	for i := 1; i <= la; i++ {
		c[0] = i
		rowMin := i
		for j := 1; j <= lb; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(p[j]+1, c[j-1]+1, p[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, pp[j-2]+1)
			}
			c[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > k {
			return 0, false
		}
		pp, p, c = p, c, pp
	}
	return p[lb], p[lb] <= k
}

// containsFold reports whether ss holds s, ignoring case.
func containsFold(ss []string, s string) bool {
	for _, x := range ss {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
