package text

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Analyzer holds the lexicon: the closed word classes written by hand (stop words, time
// words, prepositions, verb classes, a few idioms) and the open-class knowledge generated from
// WordNet and the catalogue (synonyms, derivations, hypernyms, abbreviations,
// inflections, app aliases). Build one with New and share it: it is immutable and safe for
// concurrent use.
type Analyzer struct {
	stop        map[string]bool
	verbs       map[string]string // stem -> verb class (strict verbs)
	verbWord    map[string]bool   // raw word of a verb class ("search", not "toggl")
	nounVerbs   map[string]string // stem -> verb class, only at the start of an instruction
	family      map[string]string // verb class -> family
	destructive map[string]bool   // verb class -> destructive
	destroyWord map[string]bool   // stem -> destructive wherever it appears in a slug
	timeWord    map[string]bool   // stem
	helpVerb    map[string]bool   // stem of a verb that asks for help, not for an action
	prep        map[string]bool   // raw word
	rewrites    []rewrite
	phraseVerb  map[string]string // WordNet phrase (stems) -> the verb class it stands for
	kb          *knowledge
}

// New builds the analyzer with the built-in lexicon and the generated tables (parsed once
// per process, on first use).
func New() *Analyzer { return newAnalyzer(loadKnowledge()) }

// NewWithCatalog builds an analyzer over the knowledge of catalogue c (ComputeCatalog):
// its vocabulary, with WordNet's relations narrowed to it, its app aliases and the words its
// apps describe themselves with, instead of the compiled table's. WordNet, the hand-written
// classes and how words fold (inflections, and the compiled table's abbreviations, which
// the stores' analysed action terms were made with) stay as New's. An app c gives no alias
// and no self-description for keeps the compiled table's. Each call builds anew (a few
// tenths of a second); share the result.
func NewWithCatalog(c *Catalog) *Analyzer {
	b := loadBase()
	return newAnalyzer(b.knowledge(c, b.compiled))
}

func newAnalyzer(kb *knowledge) *Analyzer {
	a := &Analyzer{
		stop:        map[string]bool{},
		verbs:       map[string]string{},
		verbWord:    map[string]bool{},
		nounVerbs:   map[string]string{},
		family:      map[string]string{},
		destructive: destructiveClasses(),
		destroyWord: map[string]bool{},
		timeWord:    map[string]bool{},
		helpVerb:    map[string]bool{},
		prep:        map[string]bool{},
		rewrites:    rewrites(),
		phraseVerb:  map[string]string{},
		kb:          kb,
	}
	for _, w := range stopWords() {
		a.stop[w] = true
	}
	for _, vc := range verbClasses() {
		a.family[vc.class] = vc.family
		for _, w := range vc.words {
			a.verbWord[w] = true
			s := a.Stem(w)
			if _, dup := a.verbs[s]; !dup {
				a.verbs[s] = vc.class
			}
			delete(a.stop, w)
		}
	}
	for w, c := range nounVerbs() {
		a.nounVerbs[a.Stem(w)] = c
	}
	for _, w := range destructiveWords() {
		a.destroyWord[a.Stem(w)] = true
	}
	for _, w := range timeWords() {
		a.timeWord[a.Stem(w)] = true
	}
	for _, w := range helpVerbs() {
		a.helpVerb[a.Stem(w)] = true
	}
	for _, w := range prepositions() {
		a.prep[w] = true
	}
	// A WordNet phrase whose synonyms and hypernyms are mostly words of one verb class
	// stands for that class ("set up" -> create, "shut down" -> stop), when WordNet lists
	// it as a verb: a noun phrase is no verb whatever it is a kind of ("picture book" is a
	// book, not a booking).
	for _, ps := range a.kb.phrases {
		for _, p := range ps {
			if !a.kb.verbs[p] {
				continue
			}
			var rs []Relation
			a.kb.relations(p, func(r Relation) { rs = append(rs, r) })
			if c := a.voteVerb(rs); c != "" {
				a.phraseVerb[p] = c
			}
		}
	}
	return a
}

// voteVerb returns the verb class most of a phrase's synonyms and hypernyms belong to, or ""
// when none wins clearly.
func (a *Analyzer) voteVerb(rs []Relation) string {
	var best, second float64
	class := ""
	score := map[string]float64{}
	for _, r := range rs {
		c, ok := a.verbs[r.Stem]
		if !ok {
			continue
		}
		switch r.Source {
		case SourceSynonym:
			score[c] += r.Weight
		case SourceHypernym:
			score[c] += r.Weight / 2
		}
	}
	for c, v := range score {
		switch {
		case v > best || v == best && c < class:
			best, second, class = v, best, c
		case v > second:
			second = v
		}
	}
	if best < 0.5 || best <= second {
		return ""
	}
	return class
}

// Stem folds a lower-case word to its stem, after its base form (irregular inflections) and
// the full word of an abbreviation ("repos" -> "repository"). Words that stand for several
// words return the stem of the first; use Fold for all.
func (a *Analyzer) Stem(w string) string { return canonStem(a.kb.canon, w) }

// fold appends the stems of a lower-case word, expanding abbreviations that stand for two
// words ("pr" -> "pull", "request").
func (a *Analyzer) fold(dst []string, w string) []string {
	if c, ok := a.kb.canon[w]; ok && len(c) > 1 {
		for _, x := range c {
			dst = append(dst, Stem(x))
		}
		return dst
	}
	return append(dst, a.Stem(w))
}

// IsStop reports whether a lower-case word carries no intent.
func (a *Analyzer) IsStop(w string) bool { return a.stop[w] }

// IsTime reports whether a stem is a time word ("tomorrow", "week").
func (a *Analyzer) IsTime(stem string) bool { return a.timeWord[stem] }

// VerbClass returns the verb class of a stem that is always a verb ("fetch" -> "get").
func (a *Analyzer) VerbClass(stem string) (string, bool) {
	c, ok := a.verbs[stem]
	return c, ok
}

// LeadVerbClass returns the verb class of a stem that opens an instruction, including nouns
// used as verbs there ("email", "dm", "tweet").
func (a *Analyzer) LeadVerbClass(stem string) (string, bool) {
	if c, ok := a.verbs[stem]; ok {
		return c, true
	}
	c, ok := a.nounVerbs[stem]
	return c, ok
}

// Family returns the family of a verb class ("search" -> "read"); "" for an unknown class.
func (a *Analyzer) Family(class string) string { return a.family[class] }

// DestructiveClass reports whether a verb class destroys, hides or stops something.
func (a *Analyzer) DestructiveClass(class string) bool { return a.destructive[class] }

// DestructiveWord reports whether a stem marks a slug as destructive wherever it appears.
func (a *Analyzer) DestructiveWord(stem string) bool { return a.destroyWord[stem] }

// MainVerb returns the verb class of the first verb among slug terms, and its index; "" and
// -1 when the slug has no verb. Only the first four terms are looked at: a verb further on
// is part of an object ("..._FOR_DELETED_ITEMS"). A first verb that is also a noun ("post",
// "comment") gives way to a later verb that is not ("POST_DELETE_BY_ID" deletes,
// "CALENDAR_LIST_INSERT" inserts), except a reading verb that opens the slug
// ("LIST_DELETED_ITEMS" lists).
func (a *Analyzer) MainVerb(slugTerms []string) (string, int) {
	first, at := "", -1
	for i, t := range slugTerms {
		if i >= 4 {
			break
		}
		c, ok := a.verbs[t]
		if !ok {
			continue
		}
		if first == "" {
			first, at = c, i
			if _, noun := a.nounVerbs[t]; !noun || (i == 0 && a.family[c] == FamilyRead) {
				return c, i
			}
			continue
		}
		if _, noun := a.nounVerbs[t]; !noun {
			return c, i
		}
	}
	return first, at
}

// IsNounVerb reports whether a verb stem is also a noun ("post", "email", "comment").
func (a *Analyzer) IsNounVerb(stem string) bool {
	_, ok := a.nounVerbs[stem]
	return ok
}

// Words splits s into lower-case words of letters and digits. Apostrophes inside a word are
// dropped ("what's" -> "whats"); camelCase is split ("listEvents" -> "list", "events").
func Words(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	prevLower := false
	skip := 0
	for i, r := range s {
		if i < skip {
			continue
		}
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && prevLower {
				flush()
			}
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
			b.WriteRune(unicode.ToLower(r))
		case (r == '\'' || r == '’') && b.Len() > 0 && i+1 < len(s) && nextIsLetter(s[i+utf8.RuneLen(r):]):
			// A contracted verb ends the word and stands for itself ("I'd" -> "i would",
			// "we're" -> "we are"); otherwise the apostrophe is inside a word: skip it.
			if full, n := contraction(s[i+utf8.RuneLen(r):]); n > 0 && pronoun(b.String()) {
				flush()
				out = append(out, full)
				skip = i + utf8.RuneLen(r) + n
				prevLower = false
			}
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return out
}

// contraction returns the verb a contracted ending at the start of s stands for and its
// length; n is 0 when s opens no such ending ("d" in "I'd", not "dn't").
func contraction(s string) (full string, n int) {
	for _, c := range [...]struct{ tail, full string }{
		{"d", "would"}, {"m", "am"}, {"ll", "will"}, {"ve", "have"}, {"re", "are"},
	} {
		if len(s) >= len(c.tail) && strings.EqualFold(s[:len(c.tail)], c.tail) && !nextIsLetter(s[len(c.tail):]) {
			return c.full, len(c.tail)
		}
	}
	return "", 0
}

// pronoun reports whether a lower-case word is a personal pronoun or one that a verb is
// contracted onto ("we're", "that'll", "who'd").
func pronoun(w string) bool {
	switch w {
	case "i", "you", "we", "they", "he", "she", "it", "that", "there", "who", "what":
		return true
	}
	return false
}

func nextIsLetter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

// Terms analyses free text (a display name, a description) into stems: words split, stop
// words and numbers dropped, stemmed and folded, each stem once, in order of first use. At
// most max stems are returned (0: no limit). Words in drop (lower case) are left out.
func (a *Analyzer) Terms(s string, max int, drop ...string) []string {
	var out []string
	for _, w := range Words(s) {
		if a.stop[w] || isNumber(w) || slices.Contains(drop, w) {
			continue
		}
		before := len(out)
		out = a.fold(out, w)
		out = dedupTail(out, before)
		if max > 0 && len(out) >= max {
			return out[:max]
		}
	}
	return out
}

// SlugTerms analyses an action slug into stems, dropping the app prefix and any later word
// that repeats the app ("ZENDESK_GET_ZENDESK_TICKET" -> "get", "ticket").
func (a *Analyzer) SlugTerms(slug, app string) []string {
	s := strings.ToLower(slug)
	app = strings.ToLower(app)
	if app != "" && strings.HasPrefix(s, app+"_") {
		s = s[len(app)+1:]
	}
	appWords := strings.Split(app, "_")
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' || r == ' ' }) {
		if w == app || (len(appWords) > 1 && slices.Contains(appWords, w)) || strings.ReplaceAll(app, "_", "") == w {
			continue
		}
		if a.stop[w] {
			continue
		}
		before := len(out)
		out = a.fold(out, w)
		out = dedupTail(out, before)
	}
	if len(out) == 0 && app != "" && s != "" {
		// The slug only repeats its app's name (an app of one action, named for what it
		// does: GET_WEATHER of app get_weather): those words are what it does.
		return a.SlugTerms(s, "")
	}
	return out
}

func dedupTail(out []string, from int) []string {
	n := from
	for i := from; i < len(out); i++ {
		if !slices.Contains(out[:n], out[i]) {
			out[n] = out[i]
			n++
		}
	}
	return out[:n]
}

func isNumber(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return w != ""
}
