package text

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// Catalog is what the analyser knows of one catalogue's words: its vocabulary with each
// word's document frequency (for typo repair and for telling common words from rare ones),
// abbreviations, the names people use for its apps, and the words apps describe themselves
// with. ComputeCatalog derives it; WriteTable and ParseCatalog turn it into the table
// format of data/catalog.txt.gz and back; NewWithCatalog builds an analyser over it.
type Catalog struct {
	// Words is the vocabulary: spellings with the number of actions whose slug, name or
	// description hold their stem (1 for a word only an app's name holds).
	Words []CatalogWord
	// Abbreviations are short words with the words they stand for ("pr": "pull request").
	Abbreviations []Abbreviation
	// Aliases are names people use for apps, made from the apps' names.
	Aliases []AppAlias
	// AppWords are the words each app describes itself with (its description and
	// categories), in order of first use.
	AppWords []AppWords
}

// CatalogWord is one spelling of the vocabulary and its stem's document frequency.
type CatalogWord struct {
	Word string
	DF   int
}

// Abbreviation is a short word and the words (space separated) it stands for.
type Abbreviation struct {
	Short, Long string
}

// AppWords are the words an app (slug, lower case) describes itself with.
type AppWords struct {
	App   string
	Words []string
}

// CatalogApp is what ComputeCatalog reads of an app.
type CatalogApp struct {
	App         string // the slug, any case
	DisplayName string
	Description string
	Categories  []string
}

const (
	minVocabDF    = 2  // actions a word must appear in to join the vocabulary
	maxDescWords  = 80 // description words read per action
	minAbbrevSeen = 3  // actions in which an abbreviation must meet its long form
	maxAppTerms   = 24 // description words kept per app
	commonApps    = 8  // apps whose actions use a word, from which it is a common word
	// sharedSlugShare: an app's one-word slug that the actions of more than one app in
	// this many others use is a common word (see looseSlug).
	sharedSlugShare = 50
	vendorApps      = 3 // display names a first word must open to count as a vendor
	qualifierApps   = 3 // display names a last word must close to count as a qualifier
	// A last word that closes fewer names counts as a qualifier when at least
	// qualifierApps slugs end with it, each keeping minSlugStem letters before it, and it
	// closes at least minQualifierNames names.
	minSlugStem       = 4
	minQualifierNames = 2
	minJoinedAlias    = 6 // characters a multi-word name written as one needs to be an alias
	minFirstAlias     = 4 // characters the first word of a name needs to name its app alone
)

// baseAnalyzer is the analyser over the compiled tables, whose hand-written classes and
// WordNet tell the statistics which words carry meaning. Every catalogue is read with it, so
// that the knowledge of a catalogue depends on that catalogue alone.
var baseAnalyzer = sync.OnceValue(New)

// CatalogBuilder gathers a catalogue's statistics one action at a time; Catalog then
// derives the knowledge. The result depends only on the actions and apps given (and the
// order of the apps), never on the order of the actions. Not safe for concurrent use.
type CatalogBuilder struct {
	an     *Analyzer
	forms  map[string]int      // spelling -> count (a spelling's stem is Stem(spelling))
	df     map[string]int      // stem -> actions whose slug, name or description hold it
	abbrev map[[2]string]int   // (short, long) -> actions where both appear
	apps   map[string][]string // stem -> apps whose actions hold it, the first commonApps
	// wide holds, for a stem that commonApps apps use, every app whose actions hold it.
	wide map[string]map[string]bool
	// spelled is each stem's most frequent spelling, once vocab has run.
	spelled map[string]string
	// named holds the spellings of the words of action slugs: an action is named with
	// them, so they are words of the catalogue however few actions use them.
	named map[string]bool
	n     int
}

// NewCatalogBuilder returns an empty CatalogBuilder.
func NewCatalogBuilder() *CatalogBuilder {
	return &CatalogBuilder{an: baseAnalyzer(), forms: map[string]int{}, df: map[string]int{},
		abbrev: map[[2]string]int{}, apps: map[string][]string{}, wide: map[string]map[string]bool{},
		spelled: map[string]string{}, named: map[string]bool{}}
}

// Actions returns the number of actions added.
func (b *CatalogBuilder) Actions() int { return b.n }

// AddAction counts one action's words: its app's slug, its own slug, display name and
// description.
func (b *CatalogBuilder) AddAction(app, slug, displayName, description string) {
	b.n++
	app = strings.ToLower(app)
	sw := slugWords(slug, app)
	dw := Words(displayName + " " + description)
	if len(dw) > maxDescWords {
		dw = dw[:maxDescWords]
	}
	all := map[string]bool{}
	for s := range b.stems(sw) {
		all[s] = true
	}
	for _, w := range sw {
		if len(w) >= 2 && isLetters(w) && !b.an.IsStop(w) {
			b.named[w] = true
		}
	}
	for s := range b.stems(dw) {
		all[s] = true
	}
	for s := range all {
		b.df[s]++
		as := b.apps[s]
		switch {
		case slices.Contains(as, app):
		case len(as) < commonApps:
			b.apps[s] = append(as, app)
		default:
			ws := b.wide[s]
			if ws == nil {
				ws = make(map[string]bool, 2*commonApps)
				for _, a := range as {
					ws[a] = true
				}
				b.wide[s] = ws
			}
			ws[app] = true
		}
	}
	b.abbreviations(append(sw, dw...))
}

// Catalog derives the knowledge from the actions added and apps, in the order of apps.
func (b *CatalogBuilder) Catalog(apps []CatalogApp) *Catalog {
	c := &Catalog{}
	b.vocab(c)
	b.appWordsVocab(c, apps)
	b.abbrevs(c)
	b.aliases(c, apps)
	b.appTerms(c, apps)
	return c
}

// CatalogAction is what ComputeCatalog reads of an action.
type CatalogAction struct {
	App         string // the app's slug, any case
	Slug        string
	DisplayName string
	Description string
}

// ComputeCatalog derives the knowledge of a catalogue from its actions and apps, as a
// CatalogBuilder fed every action does.
func ComputeCatalog(actions []CatalogAction, apps []CatalogApp) *Catalog {
	b := NewCatalogBuilder()
	for _, a := range actions {
		b.AddAction(a.App, a.Slug, a.DisplayName, a.Description)
	}
	return b.Catalog(apps)
}

// slugWords splits a slug into lower-case words without the app prefix.
func slugWords(slug, app string) []string {
	s := strings.ToLower(slug)
	if app != "" && strings.HasPrefix(s, app+"_") {
		s = s[len(app)+1:]
	}
	return strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' || r == ' ' })
}

// stems returns the set of stems of words that can carry meaning, counting spellings.
func (b *CatalogBuilder) stems(words []string) map[string]bool {
	out := map[string]bool{}
	for _, w := range words {
		if len(w) < 2 || b.an.IsStop(w) || !isLetters(w) {
			continue
		}
		b.forms[w]++
		out[Stem(w)] = true
	}
	return out
}

func (b *CatalogBuilder) vocab(c *Catalog) {
	spellings := map[string][]string{} // stem of the vocabulary -> its spellings
	for w := range b.forms {
		if s := Stem(w); b.df[s] >= minVocabDF || b.named[w] {
			spellings[s] = append(spellings[s], w)
		}
	}
	for _, s := range slices.Sorted(maps.Keys(spellings)) {
		forms := spellings[s]
		sort.Strings(forms)
		// The most frequent spelling, and every spelling seen as often as a word of the
		// vocabulary must be: typo repair must not "correct" a real word.
		best, n := s, -1
		for _, w := range forms {
			if b.forms[w] > n {
				best, n = w, b.forms[w]
			}
		}
		b.spelled[s] = best
		for _, form := range forms {
			if b.forms[form] >= minVocabDF || form == best || b.named[form] {
				c.Words = append(c.Words, CatalogWord{form, b.df[s]})
			}
		}
	}
}

// abbreviations counts, within one action's words, short words that are the initials of
// two or three consecutive words ("pr": "pull request") or a clipping of a longer word
// ("repo": "repository").
func (b *CatalogBuilder) abbreviations(words []string) {
	seen := map[[2]string]bool{}
	set := map[string]bool{}
	for _, w := range words {
		set[w] = true
	}
	note := func(short, long string) {
		k := [2]string{short, long}
		if !seen[k] {
			seen[k] = true
			b.abbrev[k]++
		}
	}
	for i := range words {
		for n := 2; n <= 3 && i+n <= len(words); n++ {
			var init strings.Builder
			ok := true
			for _, x := range words[i : i+n] {
				if len(x) < 2 || !isLetters(x) {
					ok = false
					break
				}
				init.WriteByte(x[0])
			}
			if ok && set[init.String()] && !slices.Contains(words[i:i+n], init.String()) {
				note(init.String(), strings.Join(words[i:i+n], " "))
			}
		}
	}
	for short := range set {
		if len(short) < 2 || len(short) > 5 || !isLetters(short) {
			continue
		}
		for long := range set {
			if len(long) >= len(short)+3 && strings.HasPrefix(long, short) && isLetters(long) {
				note(short, long)
			}
		}
	}
}

func (b *CatalogBuilder) abbrevs(c *Catalog) {
	type cand struct {
		long string
		c    int
	}
	by := map[string][]cand{}
	for k, n := range b.abbrev {
		short, long := k[0], k[1]
		if n < minAbbrevSeen {
			continue
		}
		// The short form must be a word of its own, not only the start of longer ones:
		// most actions holding it hold the long form too.
		if sdf := b.df[Stem(short)]; sdf == 0 || float64(n) < 0.3*float64(sdf) {
			continue
		}
		by[short] = append(by[short], cand{long, n})
	}
	for _, s := range slices.Sorted(maps.Keys(by)) {
		cs := by[s]
		sort.Slice(cs, func(i, j int) bool {
			if cs[i].c != cs[j].c {
				return cs[i].c > cs[j].c
			}
			return cs[i].long < cs[j].long
		})
		c.Abbreviations = append(c.Abbreviations, Abbreviation{s, cs[0].long})
	}
}

// aliases derives the names people use for apps, from their display names: the whole
// name, the name without a vendor word that opens several apps' names ("Google Sheets" ->
// "sheets") or a qualifier that closes several ("Snowflake Basic" -> "snowflake"), and the
// vendor's initial joined to the rest ("gsheets"), and a first word the name has to itself,
// a brand ("Zentrix Scraper" -> "zentrix"). An alias that is also a common catalogue
// word ("sheets", "calendar") or an English word ("retell", "jump") names its app only
// loosely (strength 0.5); a part of a name that is a function word ("once") is no alias.
// So does a one-word slug that many other apps' actions use as a word (looseSlug): said
// in lower case it is the request's own word more often than the app's name.
func (b *CatalogBuilder) aliases(c *Catalog, apps []CatalogApp) {
	an := b.an
	firsts, lasts := map[string]int{}, map[string]int{}
	opens := map[string]int{} // names that open with a word, as written or in camel case
	// names are the apps' names in words, a one-word name split where it is written in
	// camel case ("CentralStationCRM"); several says the name is of several words as written.
	names := make([][]string, len(apps))
	several := make([]bool, len(apps))
	for i, a := range apps {
		ws := properName(a)
		names[i], several[i] = ws, len(ws) > 1
		if len(ws) > 1 {
			firsts[ws[0]]++
			lasts[ws[len(ws)-1]]++
			opens[ws[0]]++
		} else if len(ws) == 1 {
			opens[ws[0]]++
			if names[i] = camelName(a, ws); names[i][0] != ws[0] {
				opens[names[i][0]]++
			}
		}
	}
	// A word many apps' actions use ("calendar", "sheets") is a common word, not a name.
	common := func(words []string) bool {
		for _, x := range words {
			if len(b.apps[Stem(x)]) < commonApps {
				return false
			}
		}
		return true
	}
	// An app whose slug is another app's slug plus a suffix several such pairs share
	// ("discordbot", "slackbot") is also called by the shorter name.
	slugs := map[string]bool{}
	for _, a := range apps {
		slugs[strings.ReplaceAll(strings.ToLower(a.App), "_", "")] = true
	}
	suffixOf := map[string]string{}
	suffixes := map[string]int{}
	for s := range slugs {
		for l := len(s) - 2; l >= 3; l-- {
			if slugs[s[:l]] {
				suffixOf[s] = s[:l] // the longest app slug the slug extends
				break
			}
		}
	}
	for s, t := range suffixOf {
		suffixes[s[len(t):]]++
	}
	// A qualifier also counts when app slugs end with it as often ("capsule_crm",
	// "centralstationcrm", "espocrm").
	ends := map[string]int{}
	slugEnds := func(word string) int {
		if n, ok := ends[word]; ok {
			return n
		}
		n := 0
		for s := range slugs {
			if len(s) >= len(word)+minSlugStem && strings.HasSuffix(s, word) {
				n++
			}
		}
		ends[word] = n
		return n
	}
	qualifier := func(word string) bool {
		return lasts[word] >= qualifierApps || (lasts[word] >= minQualifierNames && slugEnds(word) >= qualifierApps)
	}
	for i, a := range apps {
		slug := strings.ToLower(a.App)
		ws := names[i]
		if len(ws) == 0 {
			continue
		}
		aliases := map[string]float64{}
		add := func(words []string, strength float64) {
			if len(words) == 0 {
				return
			}
			k := strings.Join(words, " ")
			if len(k) < 2 || k == slug {
				return
			}
			if len(words) == 1 && k != strings.Join(ws, "") {
				// Part of the name: a word of the language names the app only loosely.
				if an.IsStop(k) {
					return
				}
				if english(an, k) {
					strength = 0.5
				}
			}
			if len(words) == 1 && common(words) {
				strength = 0.5
			}
			if strength > aliases[k] {
				aliases[k] = strength
			}
		}
		add(ws, 1)
		// The first word of a name of several that opens no other app's name, is no word of
		// the language and no other app's actions use names its app alone, a brand with what
		// the app does after it ("Zentrix Scraper" -> "zentrix").
		if several[i] && opens[ws[0]] == 1 && len(ws[0]) >= minFirstAlias && !an.kb.english[Stem(ws[0])] && !english(an, ws[0]) && b.own(ws[0], slug) {
			add(ws[:1], 1)
		}
		rest := ws
		// A first word several names open with is a vendor's ("google sheets"), unless it
		// is a verb: names that open with "get" or "create" say what a tool does.
		if len(ws) > 1 && firsts[ws[0]] >= vendorApps && !verbFirst(an, ws[0]) {
			rest = ws[1:]
			add(rest, 1)
			add([]string{ws[0][:1] + strings.Join(rest, "")}, 1)
		}
		if len(rest) > 1 && qualifier(rest[len(rest)-1]) {
			add(rest[:len(rest)-1], 1)
		}
		// A name of several words is also written as one ("central station" ->
		// "centralstation").
		for _, k := range slices.Collect(maps.Keys(aliases)) {
			if parts := strings.Fields(k); len(parts) > 1 && len(k) >= minJoinedAlias {
				add([]string{strings.Join(parts, "")}, aliases[k])
			}
		}
		flat := strings.ReplaceAll(slug, "_", "")
		if t, ok := suffixOf[flat]; ok && suffixes[flat[len(t):]] >= 2 {
			add([]string{t}, 1)
		}
		if b.looseSlug(an, slug, len(apps)) {
			aliases[slug] = 0.5
		}
		for _, k := range slices.Sorted(maps.Keys(aliases)) {
			c.Aliases = append(c.Aliases, AppAlias{Words: strings.Fields(k), App: slug, Strength: aliases[k]})
		}
	}
}

// appTerms derives the words an app describes itself with (its description and
// categories), which say what the app is for even where its actions' own words do not.
func (b *CatalogBuilder) appTerms(c *Catalog, apps []CatalogApp) {
	an := b.an
	for _, a := range apps {
		slug := strings.ToLower(a.App)
		drop := append(Words(a.DisplayName), strings.Split(slug, "_")...)
		var words []string
		seen := map[string]bool{}
		for _, x := range Words(a.Description + " " + strings.Join(a.Categories, " ")) {
			if len(x) < 3 || an.IsStop(x) || !isLetters(x) || slices.Contains(drop, x) || seen[Stem(x)] {
				continue
			}
			if _, verb := an.VerbClass(Stem(x)); verb {
				continue
			}
			seen[Stem(x)] = true
			words = append(words, x)
			if len(words) == maxAppTerms {
				break
			}
		}
		if len(words) > 0 {
			c.AppWords = append(c.AppWords, AppWords{App: slug, Words: words})
		}
	}
}

// appWordsVocab adds the words of app names to the vocabulary, so that typo repair never
// takes an app's name for a misspelling.
func (b *CatalogBuilder) appWordsVocab(c *Catalog, apps []CatalogApp) {
	seen := map[string]bool{}
	for _, a := range apps {
		for _, x := range append(Words(a.DisplayName), strings.Split(strings.ToLower(a.App), "_")...) {
			if len(x) < 2 || !isLetters(x) || seen[x] || b.df[Stem(x)] >= minVocabDF {
				continue
			}
			seen[x] = true
			c.Words = append(c.Words, CatalogWord{x, 1})
		}
	}
}

// looseSlug reports whether an app's slug is a word of the language that many other apps'
// actions use ("location", "image", "search"): in lower case it is then more often the
// request's own word than the app's name, and names the app only loosely. Many is
// commonApps, or one app in sharedSlugShare when that is more.
func (b *CatalogBuilder) looseSlug(an *Analyzer, slug string, apps int) bool {
	if strings.Contains(slug, "_") || an.IsStop(slug) || !english(an, slug) {
		return false
	}
	// A verb or a time word is never taken for a name in lower case (see namedApps).
	s := Stem(slug)
	if _, verb := an.VerbClass(s); verb || an.timeWord[s] {
		return false
	}
	// The slug must be how the catalogue spells the word ("location", "locations"), not
	// a name that only shares its stem with it ("toggl", "toggle").
	if sp := b.spelled[s]; sp != slug && sp != slug+"s" && sp != slug+"es" && sp+"s" != slug {
		return false
	}
	others := len(b.wide[s])
	if b.wide[s][slug] {
		others--
	}
	return others >= max(commonApps, (apps+sharedSlugShare-1)/sharedSlugShare)
}

// own reports whether no app's actions but app's use word.
func (b *CatalogBuilder) own(word, app string) bool {
	for _, a := range b.apps[Stem(word)] {
		if !strings.EqualFold(a, app) {
			return false
		}
	}
	return true
}

// english reports whether WordNet knows word as a word of the language.
func english(an *Analyzer, word string) bool {
	known := false
	an.Expansions(Stem(word), func(Relation) { known = true })
	if _, verb := an.VerbClass(Stem(word)); verb {
		known = true
	}
	return known
}

// camelName returns the words of an app's one-word name written in camel case, in its
// display name or as its description's first word ("CentralStationCRM is ..." -> central,
// station, crm), when they spell its slug; otherwise ws.
func camelName(a CatalogApp, ws []string) []string {
	flat := strings.ReplaceAll(strings.ToLower(a.App), "_", "")
	cands := []string{strings.TrimSpace(a.DisplayName)}
	if f := strings.Fields(a.Description); len(f) > 0 {
		cands = append(cands, f[0])
	}
	for _, c := range cands {
		if parts := Words(splitCamel(c)); len(parts) > 1 && strings.Join(parts, "") == flat {
			return parts
		}
	}
	return ws
}

// splitCamel puts a space where a lower-case letter meets a capital ("CentralStation" ->
// "Central Station") and before the last capital of a run that goes on in lower case
// ("CRMTool" -> "CRM Tool").
func splitCamel(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte(' ')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// properName returns an app's name as words. Display names are often made from the slug
// ("Googledrive"); the description usually opens with the real name ("Google Drive is ..."),
// which is taken when its words spell the slug.
func properName(a CatalogApp) []string {
	flat := strings.ReplaceAll(strings.ToLower(a.App), "_", "")
	fields := strings.Fields(a.Description)
	for n := min(4, len(fields)); n >= 2; n-- {
		ws := Words(strings.Join(fields[:n], " "))
		if len(ws) == n && strings.Join(ws, "") == flat {
			return ws
		}
	}
	return Words(a.DisplayName)
}

// WriteTable writes c in the table format of data/catalog.txt.gz, uncompressed: one record
// a line, fields separated by tabs: "V word df", "B short long-words", "P app alias-words
// strength", "D app word,word,...".
func (c *Catalog) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, x := range c.Words {
		fmt.Fprintf(bw, "V\t%s\t%d\n", x.Word, x.DF)
	}
	for _, x := range c.Abbreviations {
		fmt.Fprintf(bw, "B\t%s\t%s\n", x.Short, x.Long)
	}
	for _, x := range c.Aliases {
		fmt.Fprintf(bw, "P\t%s\t%s\t%.1f\n", x.App, strings.Join(x.Words, " "), x.Strength)
	}
	for _, x := range c.AppWords {
		fmt.Fprintf(bw, "D\t%s\t%s\n", x.App, strings.Join(x.Words, ","))
	}
	return bw.Flush()
}

// ParseCatalog reads a table WriteTable wrote (comment lines, starting with #, skipped).
func ParseCatalog(r io.Reader) (*Catalog, error) {
	lines, err := scanLines(r)
	if err != nil {
		return nil, err
	}
	return catalogOf(lines)
}

// catalogOf reads a table's records.
func catalogOf(lines [][]string) (*Catalog, error) {
	c := &Catalog{}
	for i, l := range lines {
		bad := func() error {
			return fmt.Errorf("text: catalogue table record %d (%q): malformed", i+1, strings.Join(l, "\t"))
		}
		switch {
		case l[0] == "V" && len(l) == 3:
			df, err := strconv.Atoi(l[2])
			if err != nil {
				return nil, bad()
			}
			c.Words = append(c.Words, CatalogWord{l[1], df})
		case l[0] == "B" && len(l) == 3:
			c.Abbreviations = append(c.Abbreviations, Abbreviation{l[1], l[2]})
		case l[0] == "P" && len(l) == 4:
			s, err := strconv.ParseFloat(l[3], 64)
			ws := strings.Fields(l[2])
			if err != nil || len(ws) == 0 {
				return nil, bad()
			}
			c.Aliases = append(c.Aliases, AppAlias{Words: ws, App: l[1], Strength: s})
		case l[0] == "D" && len(l) == 3:
			c.AppWords = append(c.AppWords, AppWords{App: l[1], Words: strings.Split(l[2], ",")})
		default:
			return nil, bad()
		}
	}
	return c, nil
}

// verbFirst reports whether a name's first word is a verb of the analyser's classes ("get",
// "create", "send"): such a name says what a tool does rather than who makes it.
func verbFirst(an *Analyzer, w string) bool {
	_, ok := an.VerbClass(Stem(w))
	return ok
}
