package text

import (
	"bufio"
	"compress/gzip"
	"embed"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The tables the analyser's open-class knowledge comes from. Both are generated, never
// edited by hand:
//   - data/wordnet.txt.gz by cmd/wordnetgen from WordNet 3.0 (licence: data/WORDNET-LICENSE):
//     synonyms, derivations, attributes, entailments, hypernyms, irregular inflections;
//   - data/catalog.txt.gz by cmd/cataloggen from a Composio catalogue snapshot: its vocabulary,
//     abbreviations, app aliases and the words apps describe themselves with.
//
//go:embed data/wordnet.txt.gz data/catalog.txt.gz
var dataFS embed.FS

// Source says where a prompt term comes from. The ranking weighs each source on its own, so
// that what a general source adds is learnt, not assumed.
type Source uint8

// Sources of prompt terms.
const (
	SourceWord     Source = iota // the prompt's own word (stemmed, repaired, abbreviation expanded)
	SourceSynonym                // a WordNet synonym of a prompt word
	SourceDerived                // a WordNet derivation, attribute or entailment of a prompt word
	SourceHypernym               // a WordNet hypernym of a prompt word
	SourceContext                // implied by the context: an earlier step, the app named, the verb
	NumSources
)

// Relation is one expansion of a stem: the related stem, its weight in (0, 1], and its
// source.
type Relation struct {
	Stem   string
	Weight float64
	Source Source
	id     uint32 // Stem's index in base.relStems
}

// AppAlias is a name people use for an app, as words.
type AppAlias struct {
	Words    []string // lower-case words, e.g. ["google", "sheets"]
	App      string   // the app slug, lower case
	Strength float64  // 1 for a name; 0.5 for a name that is also a common word
}

// knowledge is what an analyser knows of words: the parts every analyser shares (canon,
// phrases) and the parts one catalogue gives (the rest). It is built once and never changed.
type knowledge struct {
	canon    map[string][]string   // raw word -> the words it stands for (inflections, abbreviations)
	wnAll    map[string][]Relation // stem (phrase: stems joined by spaces) -> WordNet relations, shared (see relations)
	phrases  map[string][]string   // first stem -> phrase keys of WordNet opening with it, longest first
	known    map[string]int        // stem -> catalogue document frequency
	english  map[string]bool       // stems of WordNet's one-word lemmas, shared
	aliases  map[string][]AppAlias // first word -> aliases opening with it
	appTerms map[string][]string   // app -> stems of its self-description
	describe map[string][]string   // stem -> apps whose self-description holds it
	verbs    map[string]bool       // stems of the lemmas (and phrases) WordNet lists as verbs, shared
	// relKnown has bit id set when base.relStems[id] is a catalogue word (known > 0): the
	// test relations makes of every relation, without a lookup by string.
	relKnown []uint64
}

// base is what every analyser shares, parsed once per process: WordNet's relations (before
// they are narrowed to one catalogue's words), its lemmas and phrases, and how words fold
// (WordNet's irregular forms and the compiled table's abbreviations). How words fold stays
// the compiled one whatever catalogue an analyser is built over: the stores analyse their
// actions' slugs, names and descriptions with it, and a prompt must fold the same way to
// meet them.
type base struct {
	canon    map[string][]string
	wnAll    map[string][]Relation // every relation to a word other than the key's own, in capRelations' order
	relStems []string              // the stems relations lead to, by Relation.id
	phrases  map[string][]string
	lemmas   map[string]bool // stems of WordNet's one-word lemmas
	verbs    map[string]bool // stems of the lemmas (and phrases) WordNet lists as verbs
	compiled *Catalog        // data/catalog.txt.gz
}

// maxPerWord bounds the expansions kept per prompt word and source.
const maxPerWord = 6

var loadBase = sync.OnceValue(func() *base {
	b := &base{canon: map[string][]string{}, wnAll: map[string][]Relation{}, phrases: map[string][]string{}, lemmas: map[string]bool{}, verbs: map[string]bool{}}
	// The tables are part of the binary and checked by the package tests; a read error here
	// would be a build defect, and an empty knowledge base still analyses prompts.
	cat, _ := readLines("data/catalog.txt.gz")
	wn, _ := readLines("data/wordnet.txt.gz")
	b.compiled, _ = catalogOf(cat)
	if b.compiled == nil {
		b.compiled = &Catalog{}
	}
	// Inflections and abbreviations first: they decide how every other word is stemmed.
	lemmas := map[string]bool{}
	for _, l := range wn {
		if l[0] == "x" {
			b.canon[l[1]] = []string{l[2]}
		} else if !strings.Contains(l[0], " ") {
			lemmas[l[0]] = true
		}
	}
	// Two kinds of WordNet's irregular forms would misread common words: a form that is a
	// word of its own whose base is a function word ("offer" as a comparative of "off",
	// "outer" of "out"), and a form the suffix rules also make of another word ("rang",
	// of ring, is how "range" and "ranges" stem). Neither is followed.
	stop := map[string]bool{}
	for _, w := range stopWords() {
		stop[w] = true
	}
	stemOf := map[string]bool{}
	for l := range lemmas {
		if s := Stem(l); s != l {
			stemOf[s] = true
		}
	}
	for form, base := range b.canon {
		if lemmas[form] && stop[base[0]] || stemOf[form] && !lemmas[form] {
			delete(b.canon, form)
		}
	}
	// A noun ending in -ie makes its plural with -s ("movies", "cookies"): the suffix rules
	// read -ies as the plural of a -y word, so these plurals are told their singular.
	for l := range lemmas {
		if len(l) > 3 && strings.HasSuffix(l, "ie") && b.canon[l+"s"] == nil {
			b.canon[l+"s"] = []string{l}
		}
	}
	for _, x := range b.compiled.Abbreviations {
		// An abbreviation counts only when it is no English word of its own ("can", "end").
		if !lemmas[x.Short] && b.canon[x.Short] == nil {
			b.canon[x.Short] = strings.Fields(x.Long)
		}
	}
	stem := func(w string) string { return canonStem(b.canon, w) }
	stems := func(phrase string) string {
		ws := strings.Fields(phrase)
		for i, w := range ws {
			ws[i] = stem(w)
		}
		return strings.Join(ws, " ")
	}
	for l := range lemmas {
		b.lemmas[stem(l)] = true
	}
	ids := map[string]uint32{} // one copy of each stem's bytes across the relations, and its id
	for _, l := range wn {
		if l[0] == "x" || len(l) < 3 {
			continue
		}
		key := stems(l[0])
		if l[1] == "v" {
			b.verbs[key] = true
		}
		for _, part := range strings.Split(l[2], ";") {
			if len(part) < 3 || part[1] != ':' {
				continue
			}
			src := SourceSynonym
			switch part[0] {
			case 'd', 'a', 'e':
				src = SourceDerived
			case 'h':
				src = SourceHypernym
			}
			for _, t := range strings.Split(part[2:], ",") {
				w := 1.0
				if i := strings.LastIndexByte(t, '/'); i > 0 {
					w, _ = strconv.ParseFloat(t[i+1:], 64)
					t = t[:i]
				}
				if strings.Contains(t, " ") {
					continue // a phrase matches no single action word
				}
				if ts := stem(t); ts != key {
					id, ok := ids[ts]
					if ok {
						ts = b.relStems[id]
					} else {
						id = uint32(len(b.relStems))
						ids[ts] = id
						b.relStems = append(b.relStems, ts)
					}
					b.wnAll[key] = addRelation(b.wnAll[key], Relation{Stem: ts, Weight: w, Source: src, id: id})
				}
			}
		}
		if first, _, ok := strings.Cut(key, " "); ok && !slices.Contains(b.phrases[first], key) {
			b.phrases[first] = append(b.phrases[first], key)
		}
	}
	for first, ps := range b.phrases {
		slices.SortFunc(ps, func(a, b string) int { return strings.Count(b, " ") - strings.Count(a, " ") })
		b.phrases[first] = ps
	}
	for key, rs := range b.wnAll {
		sortRelations(rs)
		b.wnAll[key] = slices.Clone(rs) // without the room append left
	}
	return b
})

// loadKnowledge is the knowledge of the compiled tables.
var loadKnowledge = sync.OnceValue(func() *knowledge {
	b := loadBase()
	return b.knowledge(b.compiled, nil)
})

// knowledge builds the knowledge of catalogue c: its vocabulary, WordNet narrowed to it, its
// aliases and self-descriptions. An app c gives neither aliases nor a self-description
// (one a catalogue knows by its slug alone) takes them from fallback, when not nil.
func (b *base) knowledge(c, fallback *Catalog) *knowledge {
	k := &knowledge{
		canon: b.canon, wnAll: b.wnAll, phrases: b.phrases, english: b.lemmas, verbs: b.verbs,
		known: map[string]int{}, aliases: map[string][]AppAlias{},
		appTerms: map[string][]string{}, describe: map[string][]string{},
	}
	stem := func(w string) string { return canonStem(k.canon, w) }
	for _, x := range c.Words {
		s := stem(x.Word)
		k.known[s] = max(k.known[s], x.DF)
	}
	k.relKnown = make([]uint64, (len(b.relStems)+63)/64)
	for id, s := range b.relStems {
		if k.known[s] > 0 {
			k.relKnown[id/64] |= 1 << (id % 64)
		}
	}
	own := map[string]bool{}
	for _, al := range c.Aliases {
		own[al.App] = true
	}
	for _, d := range c.AppWords {
		own[d.App] = true
	}
	addAlias := func(al AppAlias) {
		k.aliases[al.Words[0]] = append(k.aliases[al.Words[0]], al)
	}
	addWords := func(d AppWords) {
		var ss []string
		for _, w := range d.Words {
			if s := stem(w); !slices.Contains(ss, s) {
				ss = append(ss, s)
			}
		}
		k.appTerms[d.App] = ss
		for _, x := range ss {
			k.describe[x] = append(k.describe[x], d.App)
		}
	}
	for _, al := range c.Aliases {
		addAlias(al)
	}
	for _, d := range c.AppWords {
		addWords(d)
	}
	if fallback != nil {
		for _, al := range fallback.Aliases {
			if !own[al.App] {
				addAlias(al)
			}
		}
		for _, d := range fallback.AppWords {
			if !own[d.App] {
				addWords(d)
			}
		}
	}
	return k
}

// readLines reads a gzipped table: one record per line, fields separated by tabs, comment
// lines (#) skipped.
func readLines(name string) ([][]string, error) {
	f, err := dataFS.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return scanLines(zr)
}

// scanLines reads a table's records: one a line, fields separated by tabs, empty and
// comment lines (#) skipped.
func scanLines(r io.Reader) ([][]string, error) {
	var out [][]string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		out = append(out, strings.Split(line, "\t"))
	}
	if err := sc.Err(); err != nil && err != io.EOF {
		return out, err
	}
	return out, nil
}

// canonStem stems a word after folding it to the word it stands for, when that is one word.
func canonStem(canon map[string][]string, w string) string {
	if c, ok := canon[w]; ok && len(c) == 1 {
		return Stem(c[0])
	}
	s := Stem(w)
	if c, ok := canon[s]; ok && len(c) == 1 {
		return Stem(c[0])
	}
	return s
}

func addRelation(rs []Relation, r Relation) []Relation {
	for i := range rs {
		if rs[i].Stem == r.Stem {
			// A stem reached two ways keeps the closer source and the larger weight.
			if r.Source < rs[i].Source {
				rs[i].Source = r.Source
			}
			rs[i].Weight = max(rs[i].Weight, r.Weight)
			return rs
		}
	}
	return append(rs, r)
}

// df returns a stem's catalogue document frequency (0 for a word WordNet knows and the
// catalogue does not) and whether either knows it.
func (k *knowledge) df(stem string) (int, bool) {
	if df, ok := k.known[stem]; ok {
		return df, true
	}
	return 0, k.english[stem]
}

// sortRelations orders a stem's relations by source, strongest first, then by stem.
func sortRelations(rs []Relation) {
	slices.SortStableFunc(rs, func(a, b Relation) int {
		switch {
		case a.Source != b.Source:
			return int(a.Source) - int(b.Source)
		case a.Weight > b.Weight:
			return -1
		case a.Weight < b.Weight:
			return 1
		}
		return strings.Compare(a.Stem, b.Stem)
	})
}

// relations calls f for the WordNet relations of a stem (or a phrase of stems joined by
// spaces) that lead to words of the catalogue, the strongest maxPerWord of each source,
// in sortRelations' order: a prompt word expanded to a word no action uses finds nothing.
// The relations are narrowed here, not copied per catalogue, so that every analyser
// shares WordNet.
func (k *knowledge) relations(key string, f func(Relation)) {
	n, src := 0, Source(NumSources)
	for _, r := range k.wnAll[key] {
		if k.relKnown[r.id/64]&(1<<(r.id%64)) == 0 {
			continue
		}
		if r.Source != src {
			src, n = r.Source, 0
		}
		if n == maxPerWord {
			continue
		}
		n++
		f(r)
	}
}

// Expansions calls f for each WordNet relation of a stem (or a phrase of stems joined by
// spaces), strongest first within each source.
func (a *Analyzer) Expansions(stem string, f func(Relation)) { a.kb.relations(stem, f) }

// AppTerms returns the stems an app describes itself with (its catalogue description and
// categories); nil for an app the tables do not know.
func (a *Analyzer) AppTerms(app string) []string { return a.kb.appTerms[app] }

// AppsDescribedBy returns the apps whose self-description holds a stem.
func (a *Analyzer) AppsDescribedBy(stem string) []string { return a.kb.describe[stem] }

// KnownStem reports whether a stem is a word of the catalogue or of WordNet, and its
// catalogue document frequency (0 for a word WordNet knows and the catalogue does not).
func (a *Analyzer) KnownStem(stem string) (df int, ok bool) {
	return a.kb.df(stem)
}

// repair returns the known word a lower-case word is most likely a typo of: the word one
// edit away (a letter dropped, added, changed, or two swapped) that keeps its first letter
// and whose stem the catalogue uses most; "" when the word is known (to the tables or to
// the analyser's lexicon), too short or too long, no such word exists, or the prompt's
// repair budget (maxRepairCandidates) cannot pay for trying the word.
func (a *Analyzer) repair(w string, wk *work) string {
	if len(w) < 5 || len(w) > maxRepairLen || !isLetters(w) {
		return ""
	}
	if _, ok := a.kb.df(a.Stem(w)); ok || a.lexical(w) {
		return ""
	}
	if wk.candidates+repairCandidates(len(w)) > maxRepairCandidates {
		return "" // tried in full or not at all, so a repair never depends on where the budget ran out
	}
	wk.repairs++
	best, bestDF := "", 0
	try := func(c string) {
		wk.candidates++
		df, ok := a.kb.df(a.Stem(c))
		if !ok {
			return
		}
		df++
		if df > bestDF || df == bestDF && c < best {
			best, bestDF = c, df
		}
	}
	b := []byte(w)
	buf := make([]byte, 0, len(b)+1)
	// A typo keeps the word's first letter, but may swap it with the second ("hte"): a
	// word spelt right that the tables lack ("during", "solar") is not the known word that
	// differs in its first letter ("curing", "molar").
	for i := 0; i <= len(b); i++ {
		if i < len(b) {
			if i > 0 {
				try(string(append(append(buf[:0], b[:i]...), b[i+1:]...))) // deletion
			}
			if i+1 < len(b) {
				buf = append(append(buf[:0], b...), 0)[:len(b)]
				buf[i], buf[i+1] = buf[i+1], buf[i]
				try(string(buf)) // transposition
			}
		}
		if i == 0 {
			continue
		}
		for c := byte('a'); c <= 'z'; c++ {
			try(string(append(append(append(buf[:0], b[:i]...), c), b[i:]...))) // insertion
			if i < len(b) && c != b[i] {
				buf = append(buf[:0], b...)
				buf[i] = c
				try(string(buf)) // substitution
			}
		}
	}
	return best
}

// lexical reports whether the analyser's own lexicon knows w: a function word ("wheres"),
// a preposition ("during", "against"), a verb of a class or a word of time. WordNet lists
// none of the first two, and the catalogue need not use them.
func (a *Analyzer) lexical(w string) bool {
	s := a.Stem(w)
	return a.stop[w] || a.prep[w] || a.verbs[s] != "" || a.nounVerbs[s] != "" || a.timeWord[s]
}

func isLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// Synonyms returns the stems WordNet gives as synonyms of a stem; nil when none.
func (a *Analyzer) Synonyms(stem string) []string {
	var out []string
	a.kb.relations(stem, func(r Relation) {
		if r.Source == SourceSynonym {
			out = append(out, r.Stem)
		}
	})
	return out
}

// AppAliases returns the apps a single lower-case word names ("gsheets" -> googlesheets),
// from the apps' display names.
func (a *Analyzer) AppAliases(word string) []string {
	var out []string
	for _, al := range a.kb.aliases[word] {
		if len(al.Words) == 1 && !slices.Contains(out, al.App) {
			out = append(out, al.App)
		}
	}
	return out
}
