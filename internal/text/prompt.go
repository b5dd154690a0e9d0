package text

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Role says what a prompt term does in its clause; the ranking weighs terms by role.
type Role uint8

// Roles of prompt terms.
const (
	RoleVerb    Role = iota // the intent verb (its class, and the word itself)
	RoleObject              // the words right after the verb: what is acted on
	RoleWord                // other words of the instruction
	RolePhrase              // words in a prepositional phrase ("to the marketing channel")
	RoleContent             // quoted text, a message body, text after a colon
	RoleTime                // when ("tomorrow", "next week")
	RoleEntity              // the type of an entity ("#general" -> channel)
	RoleSynonym             // a synonym of another term
)

// Term is one analysed prompt term.
type Term struct {
	Stem   string
	Weight float64
	Role   Role
	// Source says where the term comes from: the prompt's own word, or an expansion of one
	// (RoleSynonym terms).
	Source Source
}

// AppMention is an app the prompt names, directly ("slack", "google calendar") or through an
// alias ("gcal"). Strength is 1 for a direct name and less for a loose alias ("calendar").
type AppMention struct {
	App      string
	Strength float64
}

// Clause is one thing a prompt asks for.
type Clause struct {
	Text        string // the clause's words, lower case
	Verb        string // the intent verb class; "" when none was found
	VerbWord    string // the stem of the word that gave the verb ("trash" for class archive)
	VerbImplied bool   // the verb was inferred from a question ("what's on my calendar")
	Destructive bool   // the verb deletes, removes, archives or cancels
	HasID       bool   // the clause names a specific item by number or key
	// ItemID says the number or key follows the name of what it identifies ("ticket
	// 50112", "page 98765"), not a time or a count ("tonight 10-11pm", "top 10").
	ItemID bool
	Plural bool // the clause's object is plural ("list incidents")
	// Existing says the verb acts on something that exists already and is named by what
	// it is, not by an ID ("send the draft I wrote", "copy everything in /reports"): a
	// step that finds it is implied.
	Existing bool
	Terms    []Term
	Apps     []AppMention
}

// Prompt is an analysed prompt: one clause per step it asks for.
type Prompt struct {
	Clauses []Clause
	// Words are the stems of the prompt's own words as Terms reads free text, each once, in
	// order: every word that carries meaning, whatever clause (or none) it ends up in and
	// however the clauses weigh it. A plain lexical ranking of the whole prompt reads these.
	Words []string
}

type tokKind uint8

const (
	tokWord tokKind = iota
	tokContent
	tokEntity
	tokHard // end of sentence
	tokSoft // comma
	tokID   // a number or key
)

type token struct {
	kind   tokKind
	word   string // lower-case word, or entity type stem
	weight float64
	proper bool // capitalised inside a sentence: likely a name ("Jane", "Finance")
}

// Prompt analyses a prompt. apps are the app slugs the agent may use (lower case): only they
// can be named. Prompt never fails; an empty prompt has no clauses.
func (a *Analyzer) Prompt(prompt string, apps []string) Prompt {
	return a.prompt(prompt, apps, &work{})
}

// prompt is Prompt, counting what it does in wk.
func (a *Analyzer) prompt(prompt string, apps []string, wk *work) Prompt {
	toks := a.tokens(prompt, apps, wk)
	toks, joined := a.compounds(toks)
	toks = a.rewrite(toks)
	groups := a.split(toks, apps, wk)
	var p Prompt
	for _, g := range groups {
		c := a.clause(g, apps, wk)
		if len(c.Terms) == 0 && c.Verb == "" && len(c.Apps) == 0 {
			continue // nothing said ("thanks!"); a bare app name ("in Jira,") still counts
		}
		p.Clauses = append(p.Clauses, c)
	}
	p.Clauses = mergeClauses(p.Clauses, wk)
	if len(p.Clauses) > 0 {
		p.Words = a.Terms(prompt, 0)
		for _, w := range joined {
			if !slices.Contains(p.Words, w) {
				p.Words = append(p.Words, w)
			}
		}
	}
	return p
}

// compounds returns toks with, after each two words in a row that the catalogue writes as
// one ("web hook", "time zone", "user name"), that word; and the stems of those words. The
// two words stay, each may mean something alone. A phrasal verb WordNet lists ("look up",
// "set up", "log in") is not joined: it asks for an act, and the joined word would match
// the thing the catalogue names with it (a lookup table, a setup).
func (a *Analyzer) compounds(toks []token) ([]token, []string) {
	var out []token
	var joined []string
	for i, t := range toks {
		if out != nil {
			out = append(out, t)
		}
		if i == 0 || t.kind != toks[i-1].kind || t.kind != tokWord && t.kind != tokContent {
			continue
		}
		// Two function words make no compound ("for me" is no "forme"), nor does an
		// article open one ("a page").
		w := toks[i-1].word + t.word
		if len(w) < minCompound || a.stop[w] || a.stop[toks[i-1].word] && a.stop[t.word] || isArticle(toks[i-1].word) {
			continue
		}
		stem := a.Stem(w)
		if a.kb.known[stem] == 0 || a.stop[t.word] && a.isPhrase(toks[i-1].word, t.word) {
			continue // not a catalogue word, or a phrasal verb ("look up"): an act, not a thing
		}
		if out == nil {
			out = append(make([]token, 0, len(toks)+1), toks[:i+1]...)
		}
		out = append(out, token{kind: t.kind, word: w, weight: t.weight, proper: t.proper})
		joined = append(joined, stem)
	}
	if out == nil {
		return toks, nil
	}
	return out, joined
}

// isPhrase reports whether WordNet lists the two words, stemmed, as a phrase.
func (a *Analyzer) isPhrase(w1, w2 string) bool {
	s1 := a.Stem(w1)
	return slices.Contains(a.kb.phrases[s1], s1+" "+a.Stem(w2))
}

// minSingular is the least length of one word that names an app whose slug is that word
// and an s ("googledoc", "googledocs").
const minSingular = 5

// minCompound is the least length of a word that compounds finds written as two: shorter
// joins ("a"+"nd", "to"+"do") are chance.
const minCompound = 5

// tokens scans the prompt into words, entities, content and boundaries.
func (a *Analyzer) tokens(s string, apps []string, wk *work) []token {
	var toks []token
	for _, seg := range segments(s, func(head string) bool { return a.onlyApps(head, apps, wk) }, wk) {
		if seg.content {
			if isSQL(Words(seg.text)) {
				toks = append(toks, token{kind: tokEntity, word: a.Stem("query"), weight: 0.8},
					token{kind: tokEntity, word: "sql", weight: 0.6})
			}
			for _, w := range Words(seg.text) {
				if !a.stop[w] && !isNumber(w) {
					toks = append(toks, token{kind: tokContent, word: w})
				}
			}
			continue
		}
		for _, f := range strings.Fields(seg.text) {
			core := strings.TrimRightFunc(f, func(r rune) bool { return strings.ContainsRune(".,;:!?)]}\"'’”", r) })
			tail := f[len(core):]
			core = strings.TrimLeft(core, "([{\"'‘“")
			if core != "" {
				n := len(toks)
				toks = a.field(toks, core, wk)
				if isCapitalised(core) && !sentenceStart(toks[:n]) {
					for k := n; k < len(toks); k++ {
						toks[k].proper = toks[k].kind == tokWord
					}
				}
			}
			switch {
			case strings.ContainsAny(tail, ".!?;"):
				toks = append(toks, token{kind: tokHard})
			case strings.ContainsAny(tail, ",:"):
				toks = append(toks, token{kind: tokSoft})
			}
		}
		toks = append(toks, token{kind: tokSoft})
	}
	return toks
}

// isCapitalised reports whether a word starts with a capital and goes on in lower case
// ("Jane", "Finance"; not "API" or "iOS").
func isCapitalised(f string) bool {
	r, n := utf8.DecodeRuneInString(f)
	if !unicode.IsUpper(r) {
		return false
	}
	for _, r := range f[n:] {
		if unicode.IsUpper(r) {
			return false
		}
	}
	return n < len(f)
}

// sentenceStart reports whether the next word opens a sentence.
func sentenceStart(toks []token) bool {
	for i := len(toks) - 1; i >= 0; i-- {
		switch toks[i].kind {
		case tokHard:
			return true
		case tokSoft:
			continue
		}
		return false
	}
	return true
}

// isName reports whether a capitalised word inside a sentence names something (a person,
// a team, a folder) rather than being a word the lexicon knows.
func (a *Analyzer) isName(w string) bool {
	s := a.Stem(w)
	return !a.stop[w] && a.verbs[s] == "" && a.nounVerbs[s] == "" && !a.timeWord[s] &&
		a.kb.canon[w] == nil && a.kb.aliases[w] == nil && !a.prep[w] && a.kb.known[s] < commonDF
}

// field types one whitespace-separated field of a prompt.
func (a *Analyzer) field(toks []token, f string, wk *work) []token {
	lower := strings.ToLower(f)
	ent := func(stem string, w float64) []token {
		return append(toks, token{kind: tokEntity, word: stem, weight: w})
	}
	switch {
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"), strings.HasPrefix(lower, "www."):
		return ent("url", 0.3)
	case strings.HasPrefix(f, "#") && len(f) > 1:
		if isNumber(f[1:]) {
			toks = append(toks, token{kind: tokID})
			return ent(a.Stem("issue"), 0.3)
		}
		return ent(a.Stem("channel"), 0.6)
	case strings.HasPrefix(f, "@") && len(f) > 1:
		return ent(a.Stem("user"), 0.25)
	case strings.Contains(f, "@") && strings.Contains(f[strings.Index(f, "@"):], "."):
		return ent(a.Stem("email"), 0.15)
	case isIssueKey(f):
		toks = append(toks, token{kind: tokID})
		return ent(a.Stem("issue"), 0.6)
	case strings.HasPrefix(f, "/") && len(f) > 1 && !strings.Contains(f[1:], " "):
		if hasFileExt(lower) {
			return ent("file", 0.6)
		}
		return ent(a.Stem("folder"), 0.5)
	case (strings.HasPrefix(lower, "r/") || strings.HasPrefix(lower, "u/")) && len(f) > 2:
		toks = append(toks, token{kind: tokWord, word: "subreddit"})
		return toks
	case strings.Count(f, "/") == 1 && isRepoRef(f):
		return ent(a.Stem("repository"), 0.5)
	case hasFileExt(lower) && !strings.Contains(lower, "/"):
		return ent("file", 0.6)
	case isMoney(f):
		toks = append(toks, token{kind: tokID})
		return ent(a.Stem("amount"), 0.3)
	}
	capital := isCapitalised(f)
	if isOpaqueID(f) {
		return append(toks, token{kind: tokID})
	}
	for _, w := range Words(f) {
		if isNumber(w) || (len(w) > 1 && isNumber(w[:len(w)-1])) {
			toks = append(toks, token{kind: tokID})
			continue
		}
		// A word no dictionary knows is most likely a typo, unless it is capitalised (a name).
		if !capital && !a.stop[w] {
			if r := a.repair(w, wk); r != "" {
				w = r
			}
		}
		toks = append(toks, token{kind: tokWord, word: w})
	}
	return toks
}

// stepReferences marks the words of a workflow step's references to data from other steps
// ("from the trigger", "created in step 2", "from the previous step"): they say where a value
// comes from, not what to do.
func (a *Analyzer) stepReferences(toks []token) map[int]bool {
	var skip map[int]bool
	for i := 0; i < len(toks); i++ {
		if toks[i].kind != tokWord || !a.prep[toks[i].word] {
			continue
		}
		j := i + 1
		for j < len(toks) && toks[j].kind == tokWord && (isArticle(toks[j].word) || toks[j].word == "previous" || toks[j].word == "prior" || toks[j].word == "last") {
			j++
		}
		if j >= len(toks) || toks[j].kind != tokWord || (toks[j].word != "step" && toks[j].word != "trigger") {
			continue
		}
		end := j + 1
		if end < len(toks) && toks[end].kind == tokID {
			end++
		}
		// A participle just before the phrase belongs to it ("created in step 2").
		start := i
		if i > 0 && toks[i-1].kind == tokWord && strings.HasSuffix(toks[i-1].word, "ed") {
			start = i - 1
		}
		if skip == nil {
			skip = map[int]bool{}
		}
		for k := start; k < end; k++ {
			skip[k] = true
		}
		i = end - 1
	}
	return skip
}

// isMoney reports whether f is an amount of money: a currency sign and a number ("$96",
// "€1,200.50", "£5k").
func isMoney(f string) bool {
	f = strings.TrimRight(f, ".,;:!?)")
	for _, sign := range []string{"$", "€", "£", "¥", "₹"} {
		if rest, ok := strings.CutPrefix(f, sign); ok {
			rest = strings.TrimRight(strings.ToLower(rest), "km")
			rest = strings.ReplaceAll(rest, ",", "")
			if rest == "" {
				return false
			}
			_, err := strconv.ParseFloat(rest, 64)
			return err == nil
		}
	}
	return false
}

// isOpaqueID matches identifiers made of letters and digits mixed ("dQw4w9WgXcQ",
// "abcd1234efgh", "Q1X2Y3Z4"): at least six characters, with letters and at least two digits.
func isOpaqueID(f string) bool {
	f = strings.TrimRight(f, ".,;:!?")
	if len(f) < 6 {
		return false
	}
	letters, digits := 0, 0
	for _, r := range f {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_', r == '-':
			letters++
		default:
			return false
		}
	}
	return letters > 0 && digits >= 2
}

// isIssueKey matches tracker keys such as ABC-123.
func isIssueKey(f string) bool {
	i := strings.IndexByte(f, '-')
	if i < 2 || i > 10 || i == len(f)-1 {
		return false
	}
	for _, r := range f[:i] {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return isNumber(f[i+1:])
}

// isRepoRef matches owner/name references such as acme/web-app.
func isRepoRef(f string) bool {
	i := strings.IndexByte(f, '/')
	if i < 1 || i == len(f)-1 {
		return false
	}
	ok := func(s string) bool {
		letters := 0
		for _, r := range s {
			switch {
			case unicode.IsLetter(r):
				letters++
			case unicode.IsDigit(r), r == '-', r == '_', r == '.':
			default:
				return false
			}
		}
		return letters > 0
	}
	l := strings.ToLower(f)
	return ok(f[:i]) && ok(f[i+1:]) && l != "and/or" && l != "w/o" && !strings.HasPrefix(l, "w/")
}

func hasFileExt(f string) bool {
	i := strings.LastIndexByte(f, '.')
	if i < 1 {
		return false
	}
	switch f[i+1:] {
	case "pdf", "csv", "png", "jpg", "jpeg", "gif", "doc", "docx", "xls", "xlsx", "ppt",
		"pptx", "txt", "md", "json", "zip", "mp4", "mov", "mp3", "wav", "svg", "html", "xml",
		"yaml", "yml", "log", "tar", "gz", "key", "numbers", "pages", "rtf", "odt", "webp":
		return true
	}
	return false
}

type segment struct {
	text    string
	content bool
}

// onlyApps reports whether text names one of apps and says nothing else ("jira", "in
// Google Sheets"): a colon after it addresses the app ("jira: close PAY-9") rather than
// introducing a message body.
func (a *Analyzer) onlyApps(text string, apps []string, wk *work) bool {
	wk.scanned += len(text)
	ws := Words(text)
	toks := make([]token, 0, len(ws))
	for _, w := range ws {
		toks = append(toks, token{kind: tokWord, word: w})
	}
	var c Clause
	named := a.namedApps(toks, apps, &c)
	if len(c.Apps) == 0 {
		return false
	}
	for i, w := range ws {
		if _, ok := named[i]; !ok && !a.stop[w] && !a.prep[w] {
			return false
		}
	}
	return true
}

// segments splits a prompt into instruction text and content: quoted strings, and what
// follows a colon that introduces a message body ("tweet: ..."), unless addressee says
// the text before the colon only names who is addressed.
func segments(s string, addressee func(head string) bool, wk *work) []segment {
	var out []segment
	last := 0
	// The opening quotes that found no close: none further on can find one either (the
	// rest of the prompt is searched already), so a run of "(" is read once, not once
	// per "(".
	var unclosed []rune
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if closeQ, ok := openQuote(s, i, r); ok && !slices.Contains(unclosed, r) {
			j := findClose(s, i+n, closeQ, r, wk)
			if j < 0 {
				unclosed = append(unclosed, r)
			}
			if j > 0 {
				if i > last {
					out = append(out, segment{text: s[last:i]})
				}
				out = append(out, segment{text: s[i+n : j], content: true})
				_, cn := utf8.DecodeRuneInString(s[j:])
				i = j + cn
				last = i
				continue
			}
		}
		if r == ':' && i > 0 && i+1 < len(s) && s[i+1] == ' ' && unicode.IsLetter(rune(s[i-1])) &&
			!listFollows(s[i+1:]) && (i-last > maxAddresseeLen || !addressee(s[last:i])) {
			out = append(out, segment{text: s[last:i]})
			// The body runs to the end, or to a sentence that opens the next step ("…
			// 90°C. Then, estimate the shrinkage"): a list of details after a colon does
			// not swallow the steps after it.
			end := nextStep(s, i+1, wk)
			out = append(out, segment{text: s[i+1 : end], content: true})
			if end == len(s) {
				return out
			}
			i, last = end, end
			continue
		}
		i += n
	}
	if last < len(s) {
		out = append(out, segment{text: s[last:]})
	}
	return out
}

// listFollows reports whether s (the text after a colon) opens with the marker of a
// numbered or bulleted item ("1.", "2)", "-", "•", "*"): a colon before a list introduces
// steps, not a message body.
func listFollows(s string) bool {
	s = strings.TrimLeft(s, " ")
	if s == "" {
		return false
	}
	switch s[0] {
	case '-', '*':
		return len(s) > 1 && s[1] == ' '
	}
	if strings.HasPrefix(s, "•") {
		return true
	}
	d := 0
	for d < len(s) && d < 3 && s[d] >= '0' && s[d] <= '9' {
		d++
	}
	return d > 0 && d+1 < len(s) && (s[d] == '.' || s[d] == ')') && s[d+1] == ' '
}

// nextStep returns the index, from from on, of the end of the sentence before the first one
// that opens with a joining word ("Then, …", "Finally …", "Also …"), or len(s) when none
// does.
func nextStep(s string, from int, wk *work) int {
	for j := from; j < len(s)-1; j++ {
		wk.scanned++
		if c := s[j]; (c != '.' && c != '!' && c != '?') || s[j+1] != ' ' {
			continue
		}
		k := j + 1
		for k < len(s) && s[k] == ' ' {
			k++
		}
		e := k
		for e < len(s) && e-k <= maxJoinerLen && unicode.IsLetter(rune(s[e])) {
			e++
		}
		if e > k && e-k <= maxJoinerLen && isJoiner(strings.ToLower(s[k:e])) {
			return j // the sentence's end stays with the instruction text: a hard boundary
		}
	}
	return len(s)
}

func openQuote(s string, i int, r rune) (rune, bool) {
	var closeQ rune
	switch r {
	case '"':
		closeQ = '"'
	case '“':
		closeQ = '”'
	case '‘':
		closeQ = '’'
	case '\'':
		closeQ = '\''
	case '`':
		closeQ = '`'
	case '(':
		closeQ = ')'
	default:
		return 0, false
	}
	if i > 0 {
		p, _ := utf8.DecodeLastRuneInString(s[:i])
		if unicode.IsLetter(p) || unicode.IsDigit(p) {
			return 0, false
		}
	}
	return closeQ, true
}

func findClose(s string, from int, closeQ, openQ rune, wk *work) int {
	for j := from; j < len(s); {
		wk.scanned++
		r, n := utf8.DecodeRuneInString(s[j:])
		if r == closeQ || (openQ == '‘' && r == '\'') {
			next, _ := utf8.DecodeRuneInString(s[j+n:])
			if openQ == '(' || j+n >= len(s) || !(unicode.IsLetter(next) || unicode.IsDigit(next)) {
				if j > from {
					return j
				}
			}
		}
		j += n
	}
	return -1
}

// commonDF is the catalogue document frequency from which a capitalised word is read as a
// word rather than a name ("the Finance folder").
const commonDF = 50

// rewrite replaces multi-word phrasings: WordNet's phrasal verbs by the verb class they
// stand for ("set up" -> "create"), and the idioms of rewrites ("let the team know").
func (a *Analyzer) rewrite(toks []token) []token {
	out := make([]token, 0, len(toks))
	var wild, skipped []token
	for i := 0; i < len(toks); {
		if toks[i].kind == tokWord {
			if class, n := a.matchPhraseVerb(toks[i:]); n > 0 {
				out = append(out, token{kind: tokWord, word: class})
				i += n
				continue
			}
			var rw rewrite
			var n int
			if rw, n, wild, skipped = a.matchRewrite(toks[i:], wild[:0], skipped[:0]); n > 0 {
				kept := false
				for _, w := range rw.to {
					if w != "*" {
						out = append(out, token{kind: tokWord, word: w})
						continue
					}
					// A "*" in the replacement keeps what the pattern's wildcards stood
					// for ("let the team know" -> "send message to the team").
					kept = true
					out = append(out, wild...)
				}
				// Otherwise entities a wildcard stood for ("let #launch know") keep their
				// meaning.
				for _, t := range wild {
					if !kept && t.kind == tokEntity {
						out = append(out, t)
					}
				}
				// Content inside the phrase ("give her (sofia@…) access") stays content.
				out = append(out, skipped...)
				i += n
				continue
			}
		}
		out = append(out, toks[i])
		i++
	}
	return out
}

// matchPhraseVerb finds the longest WordNet phrase that opens toks and stands for a verb
// class; it returns the class and the number of tokens the phrase spans (0 when none).
func (a *Analyzer) matchPhraseVerb(toks []token) (string, int) {
	for _, p := range a.kb.phrases[a.Stem(toks[0].word)] {
		class, ok := a.phraseVerb[p]
		if !ok {
			continue
		}
		// The phrase's stems after the first, read in place: this runs for every word.
		_, rest, _ := strings.Cut(p, " ")
		k, match := 1, true
		for rest != "" && match {
			var part string
			part, rest, _ = strings.Cut(rest, " ")
			match = k < len(toks) && toks[k].kind == tokWord && a.Stem(toks[k].word) == part
			k++
		}
		if match {
			return class, k
		}
	}
	return "", 0
}

// matchRewrite finds the first rewrite whose pattern opens toks. It returns the rewrite,
// the number of tokens matched, the tokens its wildcards stood for, and the content tokens
// skipped inside the phrase (appended to wild and skipped); n is 0 when none matches.
func (a *Analyzer) matchRewrite(toks []token, wild, skipped []token) (rewrite, int, []token, []token) {
	w0, s0 := len(wild), len(skipped)
	for _, rw := range a.rewrites {
		if len(rw.from) > len(toks) {
			continue
		}
		wild, skipped = wild[:w0], skipped[:s0]
		j, ok := 0, true
		for k, w := range rw.from {
			for k > 0 && j < len(toks) && (toks[j].kind == tokContent || toks[j].kind == tokSoft) {
				if toks[j].kind == tokContent {
					skipped = append(skipped, toks[j])
				}
				j++
			}
			if j >= len(toks) {
				ok = false
				break
			}
			t := toks[j]
			if w == "*" && (t.kind == tokWord || t.kind == tokEntity) {
				wild = append(wild, t)
				j++
				continue
			}
			if t.kind != tokWord || t.word != w {
				ok = false
				break
			}
			j++
		}
		if ok {
			return rw, j, wild, skipped
		}
	}
	return rewrite{}, 0, wild[:w0], skipped[:s0]
}

// split cuts the token stream into clauses: at sentence ends, and at a comma or a joining
// word ("and", "then", "also") followed by a verb.
func (a *Analyzer) split(toks []token, apps []string, wk *work) [][]token {
	// What follows a boundary is decided by the first token after it that is no comma,
	// joiner or stop word: ahead[i].next is that token for a boundary at i-1. Each such
	// token is judged once (verb, long), however many boundaries lead to it (", , , and
	// then send").
	type lookahead struct {
		next       int
		verb, long uint8 // unknown, no, yes
	}
	const unknown, no, yes = 0, 1, 2
	ahead := make([]lookahead, len(toks)+1)
	ahead[len(toks)].next = len(toks)
	for i := len(toks) - 1; i >= 0; i-- {
		ahead[i].next = i
		if t := toks[i]; t.kind == tokSoft || t.kind == tokWord && a.filler(t.word) {
			ahead[i].next = ahead[i+1].next
		}
	}
	judge := func(memo *uint8, k int, f func(int) bool) bool {
		if k == len(toks) {
			return false
		}
		if *memo == unknown {
			*memo = no
			if f(k) {
				*memo = yes
			}
		}
		return *memo == yes
	}
	verbAt := func(k int) bool { return a.verbAt(toks, k, apps, wk) }
	longAt := func(k int) bool { return a.substantialAt(toks, k, wk) }
	var groups [][]token
	var cur []token
	said := false // cur holds a word that is no stop word
	flush := func() {
		if len(cur) > 0 {
			groups = append(groups, cur)
			cur, said = nil, false
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tokHard:
			flush()
			continue
		case t.kind == tokSoft || (t.kind == tokWord && isJoiner(t.word)):
			k := ahead[i+1].next
			if judge(&ahead[k].verb, k, verbAt) && said && (t.kind != tokSoft || judge(&ahead[k].long, k, longAt)) {
				flush()
				continue
			}
			if t.kind == tokSoft {
				continue
			}
		}
		cur = append(cur, t)
		said = said || t.kind == tokWord && !a.stop[t.word]
	}
	flush()
	return groups
}

// filler reports whether a word is passed over when looking for what follows a boundary:
// a joiner or a stop word.
func (a *Analyzer) filler(w string) bool { return isJoiner(w) || a.stop[w] && w != "get" }

// substantialAt reports whether the words from toks[k] (the first after a boundary that is
// no filler) up to the next boundary say more than one thing: ", view only" qualifies the
// step before it; ", then email Bob" is a step of its own.
func (a *Analyzer) substantialAt(toks []token, k int, wk *work) bool {
	if toks[k].kind == tokHard {
		return false
	}
	for _, t := range toks[k+1:] {
		wk.scanned++
		switch {
		case t.kind == tokHard || t.kind == tokSoft:
			return false
		case t.kind != tokWord || !a.filler(t.word):
			return true
		}
	}
	return false
}

// maxJoinerLen is the length of the longest joining word.
const maxJoinerLen = len("afterwards")

func isJoiner(w string) bool {
	switch w {
	case "and", "then", "also", "plus", "afterwards", "after", "next", "finally", "before":
		return true
	}
	return false
}

// verbAt reports whether toks[k], the first word after a boundary that is no filler, is
// a strict verb, or a noun or app name used as one.
func (a *Analyzer) verbAt(toks []token, k int, apps []string, wk *work) bool {
	t := toks[k]
	wk.scanned++
	if t.kind != tokWord {
		return false
	}
	st := a.Stem(t.word)
	if _, ok := a.verbs[st]; ok {
		return true
	}
	// A noun used as a verb, followed by its object: "and email them the agenda"; an
	// app's name used so sends through the app: "then DocuSign them the contract".
	_, nounVerb := a.nounVerbs[st]
	if n := appNameAt(toks[k:], apps); nounVerb || n > 0 {
		return objectFollows(toks[k+max(n, 1):], wk) // "and comment 'LGTM'", "and ping @dana"
	}
	// A verb of no class, not after an article, followed by its object: "and translate
	// the text to Spanish".
	if a.kb.verbs[st] && !isArticle(prevWord(toks, k)) {
		return objectFollows(toks[k+1:], wk)
	}
	return false
}

// objectFollows reports whether the next token opens an object: a determiner or pronoun,
// quoted content, or an entity.
func objectFollows(toks []token, wk *work) bool {
	j := 0
	for j < len(toks) && toks[j].kind == tokSoft {
		j++
	}
	wk.scanned += j
	return j < len(toks) && (toks[j].kind == tokWord && isDeterminer(toks[j].word) || toks[j].kind == tokContent ||
		toks[j].kind == tokEntity || toks[j].kind == tokID)
}

// appNameAt returns how many words at the start of toks spell one of apps; 0 when none do.
func appNameAt(toks []token, apps []string) int {
	if len(toks) == 0 || toks[0].kind != tokWord {
		return 0
	}
	for _, app := range apps {
		if n := spells(app, toks); n > 0 {
			return n
		}
	}
	return 0
}

func isDeterminer(w string) bool {
	switch w {
	case "the", "a", "an", "them", "him", "her", "it", "me", "us", "everyone", "this", "that",
		"these", "those", "my", "our", "their", "his", "its", "all", "each":
		return true
	}
	return false
}

// isSQL reports whether words read like an SQL statement.
func isSQL(words []string) bool {
	has := map[string]bool{}
	for _, w := range words {
		switch w {
		case "select", "from", "where", "insert", "into", "update", "set", "values", "delete":
			has[w] = true
		}
	}
	return has["select"] && has["from"] || has["insert"] && has["into"] || has["update"] && has["set"] && has["where"] ||
		has["delete"] && has["from"] && has["where"]
}

// openVerbAt returns the index of the clause's first word when it opens the clause (after
// joiners and stop words, not after an article, not an app's name) and WordNet lists it as
// a verb; -1 otherwise.
func (a *Analyzer) openVerbAt(toks []token, named map[int]bool) int {
	for i, t := range toks {
		if t.kind != tokWord {
			if t.kind == tokSoft {
				continue
			}
			return -1
		}
		if isJoiner(t.word) || a.stop[t.word] {
			if isArticle(t.word) {
				return -1
			}
			continue
		}
		if named[i] || !a.kb.verbs[a.Stem(t.word)] {
			return -1
		}
		return i
	}
	return -1
}

func firstWord(toks []token) int {
	for i, t := range toks {
		if t.kind == tokWord {
			return i
		}
	}
	return -1
}

// isModal reports whether w is a modal or "do", which with "how" and a subject asks how to
// do what the next word says.
func isModal(w string) bool {
	switch w {
	case "can", "could", "do", "should", "would", "will", "might", "may":
		return true
	}
	return false
}

func isQuestionWord(w string) bool {
	switch w {
	case "what", "whats", "which", "who", "whos", "whom", "whose", "where", "wheres", "when", "whens",
		"how", "hows", "is", "are", "was", "were", "did", "does", "do", "has", "have", "any",
		"anything", "anyone", "anybody", "why", "whether", "count":
		return true
	}
	return false
}

// clause analyses one clause's tokens.
func (a *Analyzer) clause(toks []token, apps []string, wk *work) Clause {
	var c Clause
	var words []string
	for _, t := range toks {
		if t.kind == tokWord {
			words = append(words, t.word)
		}
	}
	c.Text = strings.Join(words, " ")
	named := a.namedApps(toks, apps, &c)

	// Find the intent verb: the word after "can you" or "please"; else the first content
	// word when it can be a verb; otherwise the first strict verb; a question asks to read.
	question := false
	verbAt := -1
	for i := 0; i < len(toks) && verbAt < 0; i++ {
		j := -1
		switch w := toks[i].word; {
		case toks[i].kind != tokWord:
		case (w == "can" || w == "could" || w == "would" || w == "will") && i+1 < len(toks) && toks[i+1].word == "you":
			j = i + 2
		case w == "please" || w == "kindly":
			j = i + 1
		case w == "how" && i+2 < len(toks) && isModal(toks[i+1].word) && (toks[i+2].word == "i" || toks[i+2].word == "we"):
			j = i + 3 // "how can I change the layout": asks for the change
		case (w == "how" || w == "way" || w == "possible") && i+1 < len(toks) && toks[i+1].word == "to":
			j = i + 2 // "how to", "is there a way to", "is it possible to"
		}
		for j >= 0 && j < len(toks) && toks[j].kind == tokWord && (toks[j].word == "please" || toks[j].word == "just" || toks[j].word == "also" || toks[j].word == "quickly") {
			j++
		}
		if j >= 0 && j < len(toks) && toks[j].kind == tokWord {
			if cl, ok := a.LeadVerbClass(a.Stem(toks[j].word)); ok {
				if !named[j] {
					c.Verb, verbAt = cl, j
				}
			}
		}
	}
	first := firstWord(toks)
	for i, t := range toks {
		if verbAt >= 0 {
			break
		}
		if t.kind != tokWord {
			continue
		}
		if t.word == "can" || t.word == "could" || t.word == "would" || t.word == "will" || t.word == "please" {
			break
		}
		if isQuestionWord(t.word) && i == first {
			question = true
		}
		if !a.stop[t.word] || a.verbs[a.Stem(t.word)] != "" {
			// After an article the word is a noun or an adjective ("the new designer").
			if !named[i] && !isArticle(prevWord(toks, i)) {
				if cl, ok := a.LeadVerbClass(a.Stem(t.word)); ok && !question {
					c.Verb, verbAt = cl, i
				}
			}
			break
		}
	}
	if c.Verb == "" && !question {
		for i, t := range toks {
			if t.kind != tokWord || a.stop[t.word] {
				continue
			}
			if named[i] {
				continue
			}
			// A third-person form ("the designer starts monday") states a fact, and a
			// plural ("the updates") is a noun: neither is what the prompt asks to do.
			if s := a.Stem(t.word); s != t.word && strings.HasSuffix(t.word, "s") && !strings.HasSuffix(t.word, "ss") {
				continue
			}
			if cl, ok := a.verbs[a.Stem(t.word)]; ok {
				c.Verb, verbAt = cl, i
				break
			}
		}
	}
	// An app's name where the verb should be, followed by whom or what, sends through the
	// app ("WhatsApp each invitee a reminder", "DocuSign them the contract").
	if f := first; c.Verb == "" && !question && f >= 0 {
		for f < len(toks) && toks[f].kind == tokWord && (isJoiner(toks[f].word) || a.stop[toks[f].word]) {
			f++
		}
		if n := appNameAt(toks[f:], apps); n > 0 && objectFollows(toks[f+n:], wk) {
			c.Verb = VerbSend
		}
	}
	// A word WordNet knows as a verb opening the clause asks for what it names, though it
	// is in none of the classes ("analyze the syntax of…", "translate the text…").
	if c.Verb == "" && !question {
		if i := a.openVerbAt(toks, named); i >= 0 {
			c.Verb, verbAt = VerbOther, i
		}
	}
	if c.Verb == "" && question {
		c.Verb, c.VerbImplied = VerbGet, true
	}
	c.Destructive = c.Verb != "" && !c.VerbImplied && a.destructive[c.Verb]
	if verbAt >= 0 {
		c.Existing = existingObject(toks[verbAt+1:])
	}
	// Reading what is said "about" a topic, with no item named by ID, is a search.
	if c.Verb == VerbGet && aboutTopic(toks[verbAt+1:]) {
		c.Verb = VerbSearch
	}

	// A word can be both the verb and something acted on ("list" the audiences, which are
	// lists): it keeps one term per side. A clause of many terms (a prompt of thousands
	// of words) finds them by index rather than by search.
	type side struct {
		stem string
		verb bool
	}
	var index map[side]int
	addFrom := func(stem string, w float64, r Role, src Source) {
		if !wk.spendTerm() {
			return
		}
		at := -1
		if index != nil {
			if i, ok := index[side{stem, r == RoleVerb}]; ok {
				at = i
			}
		} else {
			at = slices.IndexFunc(c.Terms, func(t Term) bool { return t.Stem == stem && (t.Role == RoleVerb) == (r == RoleVerb) })
		}
		if at >= 0 {
			// A word of the prompt's own outranks the same word reached by expansion.
			if t := &c.Terms[at]; src < t.Source || src == t.Source && w > t.Weight {
				t.Weight, t.Role, t.Source = w, r, src
			}
			return
		}
		c.Terms = append(c.Terms, Term{Stem: stem, Weight: w, Role: r, Source: src})
		switch {
		case index != nil:
			index[side{stem, r == RoleVerb}] = len(c.Terms) - 1
		case len(c.Terms) > maxSearchedTerms:
			index = make(map[side]int, 2*len(c.Terms))
			for i, t := range c.Terms {
				index[side{t.Stem, t.Role == RoleVerb}] = i
			}
		}
	}
	add := func(stem string, w float64, r Role) { addFrom(stem, w, r, SourceWord) }
	if c.Verb != "" && c.Verb != VerbOther {
		w := 1.0
		if c.VerbImplied {
			w = 0.5
		}
		add(a.Stem(c.Verb), w, RoleVerb) // the class as a word: "create" meets CREATE_ISSUE
	}
	skip := a.stepReferences(toks)
	inPhrase := false
	afterVerb := 0
	objAt := -1 // the token of the object's last word
	firstNoun := false
	nounVerb := "" // a verb that also names an object ("email", "post")
	contentN := 0
	var fold []string
	for i, t := range toks {
		if skip[i] {
			c.HasID = true // "the issue from the trigger" is one known item
			continue
		}
		switch t.kind {
		case tokID:
			c.HasID = true
			if p := prevWord(toks, i); p != "" && !a.stop[p] {
				if ps := a.Stem(p); !a.timeWord[ps] && a.verbs[ps] == "" {
					c.ItemID = true
				}
			}
			continue
		case tokEntity:
			add(t.word, t.weight, RoleEntity)
			continue
		case tokContent:
			if contentN < 6 {
				fold = a.fold(fold[:0], t.word)
				for _, s := range fold {
					add(s, 0.2, RoleContent)
				}
				contentN++
			}
			continue
		case tokWord:
		default:
			continue
		}
		w := t.word
		if a.prep[w] {
			inPhrase = true
		}
		if i == verbAt {
			s := a.Stem(w)
			c.VerbWord = s
			switch {
			case a.IsNounVerb(s) || a.nounVerbs[s] != "":
				add(s, 0.7, RoleWord) // "email Bob", "tweet this": the verb names the object
				nounVerb = s
			case c.Verb == VerbOther && a.helpVerb[s]:
				// "can you help me with …" asks for help, not for an action called help.
			case c.Verb == VerbOther:
				add(s, 1, RoleWord) // no class says what it does: the word itself does
			case s != c.Verb:
				add(s, 0.5, RoleVerb)
			}
			// What the verb makes or acts on, by derivation ("attach" -> attachment,
			// "remind" -> reminder).
			a.kb.relations(s, func(r Relation) {
				if r.Source == SourceDerived && a.verbs[r.Stem] == "" {
					addFrom(r.Stem, 0.5*r.Weight, RoleSynonym, SourceDerived)
				}
			})
			inPhrase = false
			continue
		}
		if m, ok := named[i]; ok && m {
			continue
		}
		if a.stop[w] || isJoiner(w) {
			continue
		}
		// "help me find", "assist us in": asking for help before the verb says what to do.
		if i < verbAt && a.helpVerb[a.Stem(w)] {
			continue
		}
		if t.proper && !named[i] && a.isName(w) {
			// A name says which item, not what kind: it counts like quoted content.
			add(a.Stem(w), 0.2, RoleContent)
			continue
		}
		fold = a.fold(fold[:0], w)
		for _, s := range fold {
			// The first thing named after the verb, even inside a phrase ("check Datadog
			// for any monitors"), says whether several things are asked for.
			if verbAt >= 0 && i > verbAt && !firstNoun && !a.timeWord[s] && a.verbs[s] == "" {
				firstNoun = true
				if s != w && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
					c.Plural = true
				}
			}
			var wt float64
			var role Role
			// A verb's word right after the object's noun is the head of the noun phrase
			// ("a fitness plan", "the release update"), not a second verb.
			noun := objAt == i-1
			switch {
			case a.timeWord[s]:
				wt, role = 0.15, RoleTime
			case a.verbs[s] != "" && verbAt >= 0 && i > verbAt && !noun:
				wt, role = 0.3, RoleWord
			case question:
				wt, role = 0.8, RoleWord
				if a.verbs[s] != "" {
					wt = 0.4
				} else if s != w && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
					c.Plural = true
				}
			case inPhrase:
				wt, role = 0.5, RolePhrase
			case verbAt >= 0 && i > verbAt && afterVerb < 2:
				wt, role = 1.0, RoleObject
				if afterVerb == 0 && s != w && (strings.HasSuffix(w, "s") || s == "person") && !strings.HasSuffix(w, "ss") {
					c.Plural = true
				}
				afterVerb++
			case verbAt >= 0 && i < verbAt:
				wt, role = 0.7, RoleWord
			default:
				wt, role = 0.8, RoleWord
			}
			if role == RoleObject {
				objAt = i
			}
			add(s, wt, role)
		}
	}
	// A verb that names an object counts as one only weakly when the clause names its
	// object itself ("post the list in #ops" posts a list, not a post).
	if nounVerb != "" && slices.ContainsFunc(c.Terms, func(t Term) bool { return t.Role == RoleObject }) {
		for i := range c.Terms {
			if t := &c.Terms[i]; t.Stem == nounVerb && t.Role == RoleWord {
				t.Weight, t.Role, t.Source = 0.35, RoleSynonym, SourceContext
			}
		}
	}
	// Adding or inviting a person (an address, a handle, a pronoun) into something makes
	// them a member of it.
	if c.Verb == VerbAdd || c.Verb == VerbInvite || c.Verb == VerbRemove {
		for _, t := range toks {
			person := (t.kind == tokEntity && (t.word == a.Stem("email") || t.word == a.Stem("user"))) ||
				(t.kind == tokWord && (t.word == "her" || t.word == "him" || t.word == "them"))
			if person {
				add(a.Stem("member"), 0.6, RoleObject)
				addFrom(a.Stem("collaborator"), 0.3, RoleSynonym, SourceContext)
				// A person added to a meeting is a guest: the event is updated.
				if c.Verb == VerbAdd && a.mentionsEvent(toks) {
					c.Verb = VerbUpdate
					add(a.Stem("attendee"), 0.6, RoleObject)
					addFrom(a.Stem("guest"), 0.3, RoleSynonym, SourceContext)
				}
				break
			}
		}
	}
	for i, t := range toks {
		if t.kind == tokWord && verbAt >= 0 && (t.word == "everyone" || t.word == "everybody" || t.word == "all" || t.word == "any" && i > verbAt) {
			c.Plural = true
		}
	}
	// Sharing, dropping or putting something in a chat channel is posting a message there.
	if c.Verb == VerbShare || c.VerbWord == "drop" || c.VerbWord == "put" || c.VerbWord == "paste" || c.VerbWord == "throw" {
		for _, t := range toks {
			if t.kind == tokEntity && t.word == a.Stem("channel") {
				c.Verb, c.Destructive = VerbSend, false
				add(VerbSend, 1, RoleVerb)
				add(a.Stem("message"), 0.6, RoleObject)
				break
			}
		}
	}
	// Expansions from WordNet and the catalogue, weighted by the word they stand in for
	// and by how close the relation is; the ranking weighs each source on its own.
	n := len(c.Terms)
	for i := 0; i < n; i++ {
		t := c.Terms[i]
		if t.Role == RoleVerb || t.Role == RoleContent || t.Role == RoleTime || t.Source != SourceWord || t.Stem == c.VerbWord {
			continue // the verb word's relatives are its verb class's business
		}
		a.Expansions(t.Stem, func(r Relation) {
			if a.verbs[r.Stem] == "" && !a.stop[r.Stem] { // a verb would state an intent the prompt did not
				addFrom(r.Stem, t.Weight*r.Weight, RoleSynonym, r.Source)
			}
		})
	}
	return c
}

// namedApps finds the apps a clause names. It returns the token indexes that name an app;
// true means the word is only an app name and is left out of the terms.
func (a *Analyzer) namedApps(toks []token, apps []string, c *Clause) map[int]bool {
	named := map[int]bool{}
	mention := func(app string, s float64) {
		for i := range c.Apps {
			if c.Apps[i].App == app {
				if s > c.Apps[i].Strength {
					c.Apps[i].Strength = s
				}
				return
			}
		}
		c.Apps = append(c.Apps, AppMention{App: app, Strength: s})
	}
	for i, t := range toks {
		if t.kind != tokWord {
			continue
		}
		w := t.word
		for _, app := range apps {
			if app == "" || (app[0] != w[0] && app[0] != '_') {
				continue
			}
			n := spells(app, toks[i:])
			if n == 0 {
				continue
			}
			// A slug that is a closed-class word, a time word or a verb of the classes, said in
			// lower case, names the app only after a preposition ("log the call in close"):
			// elsewhere it is the request's own word ("search for art", "right now").
			if n == 1 && !t.proper && (a.stop[w] || a.timeWord[a.Stem(w)] || a.verbWord[w]) &&
				!a.prep[prevWord(toks, i)] {
				continue
			}
			if a.saysWhatToDo(toks, i, n) || n == 1 && a.verbForm(toks, i) {
				continue
			}
			// A name is not made plural: "locations" is the word, not the app "location".
			if n == 1 && !t.proper && len(w) == len(app)+1 && w[len(w)-1] == 's' {
				continue
			}
			// A slug that is a common word of the catalogue, said in lower case, names the
			// app only as its loose alias does, below, unless after a preposition.
			if n == 1 && !t.proper && !a.prep[prevWord(toks, i)] && a.looseName(w, app) {
				continue
			}
			mention(app, 1)
			for k := i; k < i+n; k++ {
				named[k] = true
			}
		}
		for _, al := range a.kb.aliases[w] {
			if !slices.Contains(apps, al.App) || !spellsWords(al.Words, toks[i:]) {
				continue
			}
			if a.saysWhatToDo(toks, i, len(al.Words)) {
				continue
			}
			mention(al.App, al.Strength)
			for k := i; k < i+len(al.Words); k++ {
				if al.Strength >= 1 {
					named[k] = true
				} else if _, ok := named[k]; !ok {
					named[k] = false // a loose alias ("calendar") stays a search term too
				}
			}
		}
	}
	return named
}

// saysWhatToDo reports whether the n words at toks[i], which spell an app's name, are
// said in lower case as the request's own verb: after "can you" or "please" ("can you help
// me", whatever app is called help), or as a name of several words that opens with a verb
// of the classes, not after a preposition ("remove duplicates from the list" asks for what
// the app REMOVE_DUPLICATES is named after; "run it in remove duplicates" names it).
func (a *Analyzer) saysWhatToDo(toks []token, i, n int) bool {
	t := toks[i]
	if t.proper {
		return false
	}
	prev := prevWord(toks, i)
	if (prev == "you" || prev == "please") && a.kb.verbs[a.Stem(t.word)] {
		return true
	}
	return n > 1 && a.verbWord[t.word] && !a.prep[prev]
}

// verbForm reports whether toks[i] is a verb's -ing form ("interested in investing in
// stocks"), or its -ed form not after a preposition, said in lower case: a verb of the
// sentence, not an app's name.
func (a *Analyzer) verbForm(toks []token, i int) bool {
	w := toks[i].word
	if toks[i].proper || !a.kb.verbs[a.Stem(w)] {
		return false
	}
	return strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "ed") && !a.prep[prevWord(toks, i)]
}

// looseName reports whether word is a loose alias of app (strength below 1).
func (a *Analyzer) looseName(word, app string) bool {
	for _, al := range a.kb.aliases[word] {
		if al.App == app && len(al.Words) == 1 && al.Strength < 1 {
			return true
		}
	}
	return false
}

// spells reports how many consecutive words (1 to 3) spell an app slug, ignoring its
// underscores and a plural s ("google", "calendar" -> googlecalendar; "google", "doc" ->
// googledocs); 0 when they do not. It does not allocate.
func spells(app string, toks []token) int {
	j := 0 // position in app
	skip := func() {
		for j < len(app) && app[j] == '_' {
			j++
		}
	}
	for n := 0; n < 3 && n < len(toks) && toks[n].kind == tokWord; n++ {
		w := toks[n].word
		skip()
		k := 0
		for k < len(w) && j < len(app) {
			if app[j] == '_' {
				j++
				continue
			}
			if app[j] != w[k] {
				break
			}
			j++
			k++
		}
		skip()
		switch {
		case k == len(w) && j == len(app):
			return n + 1
		case k == len(w)-1 && w[k] == 's' && j == len(app):
			return n + 1 // "google sheet" vs "google sheets" both ways
		case k == len(w) && j == len(app)-1 && app[j] == 's' && (n > 0 || len(w) >= minSingular):
			return n + 1 // but a short word alone is not a plural name's singular: "new" names no "news"
		case k < len(w):
			return 0
		}
	}
	return 0
}

// spellsWords reports whether toks open with the words ws.
func spellsWords(ws []string, toks []token) bool {
	if len(ws) > len(toks) {
		return false
	}
	for k, w := range ws {
		if toks[k].kind != tokWord || toks[k].word != w {
			return false
		}
	}
	return true
}

// mentionsEvent reports whether the words name a calendar event.
func (a *Analyzer) mentionsEvent(toks []token) bool {
	for _, t := range toks {
		if t.kind != tokWord {
			continue
		}
		switch a.Stem(t.word) {
		case a.Stem("event"), a.Stem("meeting"), a.Stem("invite"), a.Stem("appointment"), a.Stem("call"):
			return true
		}
	}
	return false
}

// prevWord returns the word just before toks[i], or "" when a boundary, an entity or the
// start comes before it.
func prevWord(toks []token, i int) string {
	if i > 0 && toks[i-1].kind == tokWord {
		return toks[i-1].word
	}
	return ""
}

// isArticle reports whether a word is an article or a possessive that opens a noun phrase.
func isArticle(w string) bool {
	switch w {
	case "the", "a", "an", "my", "our", "your", "their", "his", "her", "its":
		return true
	}
	return false
}

// aboutTopic reports whether the words name a topic ("about the launch") and no item ID.
func aboutTopic(toks []token) bool {
	about := false
	for _, t := range toks {
		switch {
		case t.kind == tokID:
			return false
		case t.kind == tokWord && t.word == "about":
			about = true
		}
	}
	return about
}

// existingObject reports whether the words after a verb open with a determiner that points
// at things that exist ("the", "my", "everything"), after any particle ("send out the").
func existingObject(toks []token) bool {
	for _, t := range toks {
		if t.kind != tokWord {
			return false
		}
		switch t.word {
		case "out", "up", "over", "off", "back":
			continue
		case "the", "my", "our", "your", "his", "her", "their", "that", "this", "those", "these",
			"everything", "all", "each", "every":
			return true
		}
		return false
	}
	return false
}

// mergeClauses folds clauses that only point back at an earlier one ("find it and read it")
// into a full clause by lending them the earlier clause's objects, and folds clauses without
// a verb into their neighbour.
func mergeClauses(cs []Clause, wk *work) []Clause {
	if len(cs) < 2 {
		return cs
	}
	out := cs[:0:0]
	for k, c := range cs {
		if k > 0 && len(c.Apps) == 0 {
			// A step that names no app most likely stays in the previous step's app.
			for _, m := range cs[k-1].Apps {
				c.Apps = append(c.Apps, AppMention{App: m.App, Strength: m.Strength * 0.5})
			}
		}
		if len(out) > 0 && c.Verb == "" {
			prev := &out[len(out)-1]
			for _, t := range c.Terms {
				t.Weight *= 0.7
				prev.Terms = appendTerm(prev.Terms, t, wk)
			}
			prev.Apps = append(prev.Apps, c.Apps...)
			continue
		}
		if len(out) > 0 {
			// A later step usually acts on what an earlier one found ("find the issue and
			// add a comment"): it inherits the earlier objects, weakly unless it has none.
			f := 0.25
			if !hasObject(c) {
				f = 0.6
			}
			prev := out[len(out)-1]
			for _, t := range prev.Terms {
				if t.Role == RoleVerb || t.Role == RoleTime || t.Role == RoleContent {
					continue
				}
				t.Weight *= f
				t.Role, t.Source = RoleSynonym, SourceContext
				c.Terms = appendTerm(c.Terms, t, wk)
			}
			if len(c.Apps) == 0 {
				c.Apps = append(c.Apps, prev.Apps...)
			}
		}
		out = append(out, c)
	}
	if len(out) > 1 && out[0].Verb == "" {
		// A leading clause without a verb describes what the next one acts on.
		next := &out[1]
		for _, t := range out[0].Terms {
			t.Weight *= 0.7
			next.Terms = appendTerm(next.Terms, t, wk)
		}
		next.Apps = append(next.Apps, out[0].Apps...)
		out = out[1:]
	}
	return out
}

func hasObject(c Clause) bool {
	for _, t := range c.Terms {
		switch t.Role {
		case RoleObject, RoleWord, RoleEntity:
			return true
		}
	}
	return false
}

func appendTerm(ts []Term, t Term, wk *work) []Term {
	if !wk.spendTerm() {
		return ts
	}
	for i := range ts {
		if ts[i].Stem == t.Stem {
			if t.Weight > ts[i].Weight {
				ts[i] = t
			}
			return ts
		}
	}
	return append(ts, t)
}
