// Command cataloggen derives general knowledge about the words of a Composio catalogue and
// writes it as a compact, gzipped table (internal/text/data/catalog.txt.gz): the catalogue's
// vocabulary (for typo repair), abbreviations, app aliases made from the apps' names, and the
// words apps describe themselves with.
//
//	go run ./internal/text/cmd/cataloggen -actions ../shared/catalog/composio-actions.jsonl \
//	    -apps ../shared/catalog/composio-apps.jsonl -out internal/text/data/catalog.txt.gz
//
// Everything is computed the same way for every app and every word; nothing is keyed by a
// particular app or word. The table holds statistics and short word lists, no catalogue rows.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/toolhint/toolhint/internal/text"
)

const (
	minVocabDF    = 2  // actions a word must appear in to join the vocabulary
	maxDescWords  = 80 // description words read per action
	minAbbrevSeen = 3  // actions in which an abbreviation must meet its long form
	maxAppTerms   = 24 // description words kept per app
	commonApps    = 8  // apps whose actions use a word, from which it is a common word
	vendorApps    = 3  // display names a first word must open to count as a vendor
	qualifierApps = 3  // display names a last word must close to count as a qualifier
	// A last word that closes fewer names counts as a qualifier when at least
	// qualifierApps slugs end with it, each keeping minSlugStem letters before it, and it
	// closes at least minQualifierNames names.
	minSlugStem       = 4
	minQualifierNames = 2
	minJoinedAlias    = 6 // characters a multi-word name written as one needs to be an alias
)

type action struct {
	App         string `json:"app"`
	Slug        string `json:"action"`
	DisplayName string `json:"display_name"`
	Description string `json:"description"`
}

type app struct {
	App         string   `json:"app"`
	DisplayName string   `json:"display_name"`
	Description string   `json:"description"`
	Categories  []string `json:"categories"`
}

func main() {
	actions := flag.String("actions", "", "catalogue actions JSONL")
	apps := flag.String("apps", "", "catalogue apps JSONL")
	out := flag.String("out", "internal/text/data/catalog.txt.gz", "output file")
	flag.Parse()
	if *actions == "" || *apps == "" {
		fmt.Fprintln(os.Stderr, "cataloggen: -actions and -apps are required")
		os.Exit(2)
	}
	if err := run(*actions, *apps, *out); err != nil {
		fmt.Fprintln(os.Stderr, "cataloggen:", err)
		os.Exit(1)
	}
}

func readJSONL[T any](path string, f func(T)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(file, 1<<20))
	for {
		var v T
		if err := dec.Decode(&v); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		f(v)
	}
}

// stats counts words per action, by stem; each stem keeps its most frequent spelling.
type stats struct {
	forms  map[string]map[string]int  // stem -> spelling -> count
	df     map[string]int             // stem -> actions whose slug, name or description hold it
	slugDF map[string]int             // stem -> actions whose slug holds it
	descDF map[string]int             // stem -> actions whose name or description (not slug) hold it
	abbrev map[[2]string]int          // (short, long) -> actions where both appear
	apps   map[string]map[string]bool // stem -> apps whose actions hold it
	n      int
}

func run(actionsPath, appsPath, out string) error {
	an := text.New()
	st := &stats{
		forms: map[string]map[string]int{}, df: map[string]int{}, slugDF: map[string]int{},
		descDF: map[string]int{},
		abbrev: map[[2]string]int{}, apps: map[string]map[string]bool{},
	}
	err := readJSONL(actionsPath, func(a action) {
		st.n++
		app := strings.ToLower(a.App)
		slugWords := slugWords(a.Slug, app)
		descWords := text.Words(a.DisplayName + " " + a.Description)
		if len(descWords) > maxDescWords {
			descWords = descWords[:maxDescWords]
		}
		slug := st.stems(an, slugWords)
		desc := st.stems(an, descWords)
		all := map[string]bool{}
		for s := range slug {
			all[s] = true
			st.slugDF[s]++
		}
		for s := range desc {
			all[s] = true
			if !slug[s] {
				st.descDF[s]++
			}
		}
		for s := range all {
			st.df[s]++
			if st.apps[s] == nil {
				st.apps[s] = map[string]bool{}
			}
			st.apps[s][app] = true
		}
		st.abbreviations(append(slugWords, descWords...))
	})
	if err != nil {
		return err
	}
	var appList []app
	if err := readJSONL(appsPath, func(a app) { appList = append(appList, a) }); err != nil {
		return err
	}

	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(zw)
	fmt.Fprintf(w, "# Derived from a Composio catalogue snapshot (%d actions, %d apps) by internal/text/cmd/cataloggen.\n", st.n, len(appList))
	fmt.Fprintln(w, "# V word df | B short long words | P app alias words strength | D app words,...")
	st.writeVocab(w)
	writeAppWords(w, appList, st)
	st.writeAbbrev(w)
	writeAliases(w, appList, st, an)
	writeAppTerms(w, appList, an)
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
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
func (st *stats) stems(an *text.Analyzer, words []string) map[string]bool {
	out := map[string]bool{}
	for _, w := range words {
		if len(w) < 2 || an.IsStop(w) || !letters(w) {
			continue
		}
		s := text.Stem(w)
		if st.forms[s] == nil {
			st.forms[s] = map[string]int{}
		}
		st.forms[s][w]++
		out[s] = true
	}
	return out
}

func letters(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// form returns a stem's most frequent spelling.
func (st *stats) form(stem string) string {
	best, n := stem, -1
	for w, c := range st.forms[stem] {
		if c > n || c == n && w < best {
			best, n = w, c
		}
	}
	return best
}

func (st *stats) writeVocab(w io.Writer) {
	var words []string
	for s, df := range st.df {
		if df >= minVocabDF {
			words = append(words, s)
		}
	}
	sort.Strings(words)
	for _, s := range words {
		// Every spelling seen is known: typo repair must not "correct" a real word.
		forms := make([]string, 0, len(st.forms[s]))
		for form := range st.forms[s] {
			forms = append(forms, form)
		}
		sort.Strings(forms)
		for _, form := range forms {
			if st.forms[s][form] >= minVocabDF || form == st.form(s) {
				fmt.Fprintf(w, "V\t%s\t%d\n", form, st.df[s])
			}
		}
	}
}

// abbreviations counts, within one action's words, short words that are the initials of
// two or three consecutive words ("pr": "pull request") or a clipping of a longer word
// ("repo": "repository").
func (st *stats) abbreviations(words []string) {
	seen := map[[2]string]bool{}
	set := map[string]bool{}
	for _, w := range words {
		set[w] = true
	}
	note := func(short, long string) {
		k := [2]string{short, long}
		if !seen[k] {
			seen[k] = true
			st.abbrev[k]++
		}
	}
	for i := range words {
		for n := 2; n <= 3 && i+n <= len(words); n++ {
			var init strings.Builder
			ok := true
			for _, x := range words[i : i+n] {
				if len(x) < 2 || !letters(x) {
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
		if len(short) < 2 || len(short) > 5 || !letters(short) {
			continue
		}
		for long := range set {
			if len(long) >= len(short)+3 && strings.HasPrefix(long, short) && letters(long) {
				note(short, long)
			}
		}
	}
}

func (st *stats) writeAbbrev(w io.Writer) {
	type cand struct {
		long string
		c    int
	}
	by := map[string][]cand{}
	for k, c := range st.abbrev {
		short, long := k[0], k[1]
		if c < minAbbrevSeen {
			continue
		}
		// The short form must be a word of its own, not only the start of longer ones:
		// most actions holding it hold the long form too.
		if sdf := st.df[text.Stem(short)]; sdf == 0 || float64(c) < 0.3*float64(sdf) {
			continue
		}
		by[short] = append(by[short], cand{long, c})
	}
	var keys []string
	for s := range by {
		keys = append(keys, s)
	}
	sort.Strings(keys)
	for _, s := range keys {
		cs := by[s]
		sort.Slice(cs, func(i, j int) bool {
			if cs[i].c != cs[j].c {
				return cs[i].c > cs[j].c
			}
			return cs[i].long < cs[j].long
		})
		fmt.Fprintf(w, "B\t%s\t%s\n", s, cs[0].long)
	}
}

// writeAliases writes the names people use for apps, from their display names: the whole
// name, the name without a vendor word that opens several apps' names ("Google Sheets" ->
// "sheets") or a qualifier that closes several ("Snowflake Basic" -> "snowflake"), and the
// vendor's initial joined to the rest ("gsheets"). An alias that is also a common catalogue
// word ("sheets", "calendar") or an English word ("retell", "jump") names its app only
// loosely (strength 0.5); a part of a name that is a function word ("once") is no alias.
func writeAliases(w io.Writer, apps []app, st *stats, an *text.Analyzer) {
	firsts, lasts := map[string]int{}, map[string]int{}
	names := make([][]string, len(apps))
	for i, a := range apps {
		ws := properName(a)
		names[i] = ws
		if len(ws) > 1 {
			firsts[ws[0]]++
			lasts[ws[len(ws)-1]]++
		}
	}
	// A word many apps' actions use ("calendar", "sheets") is a common word, not a name.
	common := func(words []string) bool {
		for _, x := range words {
			if len(st.apps[text.Stem(x)]) < commonApps {
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
		for t := range slugs {
			if len(t) >= 3 && len(s) >= len(t)+2 && strings.HasPrefix(s, t) && len(t) > len(suffixOf[s]) {
				suffixOf[s] = t // the longest app slug the slug extends
			}
		}
	}
	for s, t := range suffixOf {
		suffixes[s[len(t):]]++
	}
	// A qualifier also counts when app slugs end with it as often ("capsule_crm",
	// "centralstationcrm", "espocrm").
	slugEnds := func(word string) int {
		n := 0
		for s := range slugs {
			if len(s) >= len(word)+minSlugStem && strings.HasSuffix(s, word) {
				n++
			}
		}
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
		if len(ws) == 1 {
			// A one-word name may be several words in camel case ("CentralStationCRM").
			ws = camelName(a, ws)
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
		rest := ws
		if len(ws) > 1 && firsts[ws[0]] >= vendorApps {
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
		keys := make([]string, 0, len(aliases))
		for k := range aliases {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "P\t%s\t%s\t%.1f\n", slug, k, aliases[k])
		}
	}
}

// writeAppTerms writes the words an app describes itself with (its description and
// categories), which say what the app is for even where its actions' own words do not.
func writeAppTerms(w io.Writer, apps []app, an *text.Analyzer) {
	for _, a := range apps {
		slug := strings.ToLower(a.App)
		drop := append(text.Words(a.DisplayName), strings.Split(slug, "_")...)
		var words []string
		seen := map[string]bool{}
		for _, x := range text.Words(a.Description + " " + strings.Join(a.Categories, " ")) {
			if len(x) < 3 || an.IsStop(x) || !letters(x) || slices.Contains(drop, x) || seen[text.Stem(x)] {
				continue
			}
			if _, verb := an.VerbClass(text.Stem(x)); verb {
				continue
			}
			seen[text.Stem(x)] = true
			words = append(words, x)
			if len(words) == maxAppTerms {
				break
			}
		}
		if len(words) > 0 {
			fmt.Fprintf(w, "D\t%s\t%s\n", slug, strings.Join(words, ","))
		}
	}
}

// writeAppWords adds the words of app names to the vocabulary, so that typo repair never
// takes an app's name for a misspelling.
func writeAppWords(w io.Writer, apps []app, st *stats) {
	seen := map[string]bool{}
	for _, a := range apps {
		for _, x := range append(text.Words(a.DisplayName), strings.Split(strings.ToLower(a.App), "_")...) {
			if len(x) < 2 || !letters(x) || seen[x] || st.df[text.Stem(x)] >= minVocabDF {
				continue
			}
			seen[x] = true
			fmt.Fprintf(w, "V\t%s\t1\n", x)
		}
	}
}

// english reports whether WordNet knows word as a word of the language.
func english(an *text.Analyzer, word string) bool {
	known := false
	an.Expansions(text.Stem(word), func(text.Relation) { known = true })
	if _, verb := an.VerbClass(text.Stem(word)); verb {
		known = true
	}
	return known
}

// camelName returns the words of an app's one-word name written in camel case, in its
// display name or as its description's first word ("CentralStationCRM is ..." -> central,
// station, crm), when they spell its slug; otherwise ws.
func camelName(a app, ws []string) []string {
	flat := strings.ReplaceAll(strings.ToLower(a.App), "_", "")
	cands := []string{strings.TrimSpace(a.DisplayName)}
	if f := strings.Fields(a.Description); len(f) > 0 {
		cands = append(cands, f[0])
	}
	for _, c := range cands {
		if parts := text.Words(splitCamel(c)); len(parts) > 1 && strings.Join(parts, "") == flat {
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
func properName(a app) []string {
	flat := strings.ReplaceAll(strings.ToLower(a.App), "_", "")
	fields := strings.Fields(a.Description)
	for n := min(4, len(fields)); n >= 2; n-- {
		ws := text.Words(strings.Join(fields[:n], " "))
		if len(ws) == n && strings.Join(ws, "") == flat {
			return ws
		}
	}
	return text.Words(a.DisplayName)
}
