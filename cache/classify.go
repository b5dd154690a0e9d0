package cache

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/toolhint/toolhint/internal/text"
)

// Classification limits.
const (
	maxDescTerms   = 20  // description terms analysed per action (fewer are kept: see Classify)
	maxKeywords    = 16  // keywords kept per action
	maxParams      = 12  // parameters summarised per action
	maxParamDesc   = 100 // characters of a parameter description
	maxDescScanned = 600 // characters of a description analysed
)

// NewClassifier returns the rule-based classifier over the taxonomy t. A nil t means
// DefaultTaxonomy(). The classifier is safe for concurrent use and deterministic.
//
// It reads the action's main verb from its slug (the first verb after the app prefix,
// "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL" -> send), the objects it acts on (the first
// taxonomy objects after the verb, then before it: message, channel), and names the
// capabilities object.verb that the taxonomy defines (message.send). Without a verb in the
// slug it tries the display name, then the first words of the description. An action whose
// object is unknown gets a generic capability (data.query for reads).
//
// Destructive: the destructiveHint and readOnlyHint tags (or the catalogue's own flags) win
// when present; otherwise an action is destructive when its main verb deletes, removes,
// archives, cancels or revokes, or when its slug carries such a word and its verb does not
// only read.
func NewClassifier(t *Taxonomy) Classifier {
	if t == nil {
		t = DefaultTaxonomy()
	}
	return &ruleClassifier{t: t, an: t.an}
}

type ruleClassifier struct {
	t  *Taxonomy
	an *text.Analyzer
}

// termTable interns term strings for one catalogue write: the same stem shares one string
// across the actions written together, which saves memory and keeps ranking's term
// comparisons in cache. A write makes one catalogue version; its table is dropped when
// the write ends, so the strings of replaced catalogue versions can be collected. (A
// table kept for the classifier's lifetime grew with every re-import of fresh text.)
// It is safe for concurrent use by the goroutines of one write.
type termTable struct{ m sync.Map } // string -> string

// intern replaces each string of ss by the table's copy; a nil table leaves ss alone.
func (t *termTable) intern(ss []string) []string {
	if t == nil {
		return ss
	}
	for i, s := range ss {
		if v, ok := t.m.Load(s); ok {
			ss[i] = v.(string)
			continue
		}
		v, _ := t.m.LoadOrStore(s, s)
		ss[i] = v.(string)
	}
	return ss
}

// Classify derives a's metadata; see NewClassifier.
func (c *ruleClassifier) Classify(a Action) ActionMeta {
	return c.classify(a, nil)
}

// classify derives a's metadata, interning its terms in terms (nil: none).
func (c *ruleClassifier) classify(a Action, terms *termTable) ActionMeta {
	app := strings.ToLower(a.App)
	if app == "" {
		if i := strings.IndexByte(a.Slug, '_'); i > 0 {
			app = strings.ToLower(a.Slug[:i])
		}
	}
	m := ActionMeta{Action: a.Slug, App: app}
	appWords := strings.Split(app, "_")
	appWords = append(appWords, strings.ReplaceAll(app, "_", ""))

	m.SlugTerms = terms.intern(c.an.SlugTerms(a.Slug, app))
	if a.DisplayName != "" {
		m.NameTerms = terms.intern(c.an.Terms(a.DisplayName, 0, appWords...))
	}
	desc := a.Description
	if len(desc) > maxDescScanned {
		desc = desc[:maxDescScanned]
	}
	m.DescTerms = terms.intern(c.an.Terms(desc, maxDescTerms, appWords...))

	// The main verb: from the slug, else the display name, else the description's opening.
	verb, at := c.an.MainVerb(m.SlugTerms)
	objTerms := m.SlugTerms
	if verb == "" {
		if v, i := c.an.MainVerb(m.NameTerms); v != "" {
			verb, at, objTerms = v, i, m.NameTerms
		} else if v, i := c.an.MainVerb(m.DescTerms); v != "" && i < 3 {
			verb = v
			// Objects still come from the slug: its words name what the action is about.
			at = -1
		}
	}
	cv := ""
	if verb != "" {
		cv = capVerb(c.an, verb)
	}

	// Objects: after the verb first, then before it.
	var objects []string
	addObjects := func(terms []string) {
		for _, s := range terms {
			for _, o := range c.t.byStem[s] {
				objects = appendUnique(objects, o)
			}
		}
	}
	if at >= 0 {
		addObjects(objTerms[at+1:])
		addObjects(objTerms[:at])
	} else {
		addObjects(objTerms)
	}
	if len(objects) == 0 && objTerms != nil {
		addObjects(m.NameTerms)
	}

	if cv != "" {
		n := 0
		for _, o := range objects {
			if cp, ok := c.t.byID[o+"."+cv]; ok {
				m.Capabilities = append(m.Capabilities, cp.ID) // the shared string
				// Creating a post publishes it: the action sends it too.
				if cv == CapCreate && c.t.sends[o] {
					if sp, ok := c.t.byID[o+"."+CapSend]; ok {
						m.Capabilities = append(m.Capabilities, sp.ID)
					}
				}
				if n++; n == 2 {
					break
				}
			}
		}
		if len(m.Capabilities) == 0 {
			id := GenericObject + "." + cv
			if cv == CapRead {
				id = GenericObject + ".query"
			}
			if _, ok := c.t.byID[id]; ok {
				m.Capabilities = append(m.Capabilities, id)
			} else {
				m.Capabilities = append(m.Capabilities, GenericObject+".query")
			}
		}
	} else {
		m.Capabilities = []string{GenericObject + ".query"}
	}

	// Keywords: the verb class, the objects' last name parts and the slug and name terms.
	if verb != "" {
		m.Keywords = append(m.Keywords, c.an.Stem(verb))
	}
	for _, o := range objects {
		if len(m.Keywords) >= maxKeywords {
			break
		}
		if i := strings.LastIndexByte(o, '.'); i >= 0 {
			o = o[i+1:]
		}
		m.Keywords = appendUnique(m.Keywords, c.an.Stem(o))
	}
	for _, ts := range [][]string{m.SlugTerms, m.NameTerms} {
		for _, s := range ts {
			if len(m.Keywords) >= maxKeywords {
				break
			}
			m.Keywords = appendUnique(m.Keywords, s)
		}
	}

	// Destructive and read-only: tags and catalogue flags win.
	tagged := false
	for _, tag := range a.Tags {
		switch strings.ToLower(tag) {
		case "destructivehint":
			m.Destructive, tagged = true, true
		case "readonlyhint":
			m.ReadOnly, tagged = true, true
		}
	}
	if a.Destructive != nil {
		m.Destructive, tagged = *a.Destructive, true
	}
	if a.ReadOnly != nil {
		m.ReadOnly = *a.ReadOnly
		tagged = true
	}
	if m.ReadOnly {
		m.Destructive = false
	}
	if !tagged {
		family := c.an.Family(verb)
		switch {
		case verb != "" && c.an.DestructiveClass(verb):
			m.Destructive = true
		case family != text.FamilyRead:
			for _, s := range m.SlugTerms {
				if c.an.DestructiveWord(s) {
					m.Destructive = true
					break
				}
			}
		}
		m.ReadOnly = !m.Destructive && family == text.FamilyRead
	}

	switch {
	case verb != "" && len(objects) > 0:
		m.Confidence = 0.8
	case verb != "":
		m.Confidence = 0.6
	default:
		m.Confidence = 0.3
	}
	if tagged {
		m.Confidence += 0.1
	}
	if a.Deprecated {
		m.Confidence -= 0.2
	}
	m.Params = summariseParams(a.Parameters)

	// Fields keep only what the fields above them lack: a match counts at the best field it
	// is found in, so repeats add nothing but work.
	if slices.Equal(m.NameTerms, m.SlugTerms) {
		m.NameTerms = nil
	}
	m.DescTerms = without(m.DescTerms, m.SlugTerms, m.NameTerms)
	return m
}

// without returns ss minus the strings in either of the other lists, reusing ss.
func without(ss, x, y []string) []string {
	out := ss[:0]
	for _, s := range ss {
		if !slices.Contains(x, s) && !slices.Contains(y, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// summariseParams lists the top-level parameters of a JSON Schema object, required first,
// each with a short description. A schema it cannot read gives nil.
//
// It walks the schema once with a streaming decoder rather than unmarshalling it and then
// decoding its properties again: import runs it on every action. It reads what
// json.Unmarshal would (keys match in any case, the last of a repeated key wins, trailing
// data is an error), except that a repeated "properties" key must be valid every time.
func summariseParams(schema json.RawMessage) []Param {
	if len(schema) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(schema))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var params []Param
	var required []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		switch {
		case strings.EqualFold(key, "properties"):
			var ok bool
			if params, ok = readProperties(dec); !ok {
				return nil
			}
		case strings.EqualFold(key, "required"):
			if err := dec.Decode(&required); err != nil {
				return nil
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil
	}
	var req, opt []Param
	for _, p := range params {
		if slices.Contains(required, p.Name) {
			p.Required = true
			req = append(req, p)
		} else {
			opt = append(opt, p)
		}
	}
	out := append(req, opt...)
	if len(out) > maxParams {
		out = out[:maxParams]
	}
	return out
}

// readProperties reads the value of a schema's "properties" from dec: one Param per
// property, in document order, none marked required yet. It reports false for a value that
// is not an object of objects.
func readProperties(dec *json.Decoder) ([]Param, bool) {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []Param
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		name, _ := tok.(string)
		var p struct {
			Type        json.RawMessage   `json:"type"`
			Description string            `json:"description"`
			Title       string            `json:"title"`
			AnyOf       []json.RawMessage `json:"anyOf"`
		}
		if err := dec.Decode(&p); err != nil {
			return nil, false
		}
		d := p.Description
		if d == "" {
			d = p.Title
		}
		out = append(out, Param{Name: name, Type: paramType(p.Type, p.AnyOf), Description: shortDesc(d)})
	}
	_, err := dec.Token() // the closing brace
	return out, err == nil
}

// paramType names a property's JSON type: the first non-null one of a type list or anyOf.
func paramType(raw json.RawMessage, anyOf []json.RawMessage) string {
	var one string
	if json.Unmarshal(raw, &one) == nil && one != "" {
		return one
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		for _, t := range many {
			if t != "null" {
				return t
			}
		}
	}
	for _, sub := range anyOf {
		var st struct {
			Type json.RawMessage `json:"type"`
		}
		if json.Unmarshal(sub, &st) == nil {
			if t := paramType(st.Type, nil); t != "" && t != "null" {
				return t
			}
		}
	}
	return ""
}

// shortDesc keeps the first sentence of a description, at most maxParamDesc characters.
func shortDesc(d string) string {
	d = strings.Join(strings.Fields(d), " ")
	if i := strings.Index(d, ". "); i > 0 {
		d = d[:i+1]
	}
	if len(d) > maxParamDesc {
		cut := maxParamDesc
		for cut > 0 && !isRuneStart(d[cut]) {
			cut--
		}
		d = strings.TrimSpace(d[:cut]) + "…"
	}
	return d
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
