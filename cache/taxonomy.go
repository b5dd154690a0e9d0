package cache

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/toolhint/toolhint/internal/text"
)

// Capability verbs: the coarse verbs capabilities are named with. A prompt's or action's verb
// ("fetch", "reply", "archive") folds to one of them.
const (
	CapSend     = "send"
	CapRead     = "read"
	CapCreate   = "create"
	CapUpdate   = "update"
	CapDelete   = "delete"
	CapUpload   = "upload"
	CapDownload = "download"
	CapRun      = "run"
)

// GenericObject is the object of generic capabilities (data.query, data.create, …), given
// when an action's or prompt's object is not in the taxonomy.
const GenericObject = "data"

// Capability is one thing an action can do, named "<object>.<verb>" ("message.send",
// "calendar.event.create"); generic capabilities ("data.query") match any object.
type Capability struct {
	ID      string
	Object  string
	Verb    string
	Generic bool
}

// Object is a kind of thing SaaS apps act on, with the words that name it.
type Object struct {
	// Name is the capability prefix, e.g. "message" or "calendar.event".
	Name string
	// Words name the object, in any inflection ("meeting", "meetings"). A word may name
	// several objects. Only single words are indexed.
	Words []string
	// Verbs are the capability verbs (Cap*) the object supports. Optional: nil means read,
	// create, update and delete.
	Verbs []string
	// CreateSends says creating one publishes it (a post, a tweet): an action that creates
	// it also has its send capability. It needs CapSend among Verbs.
	CreateSends bool
}

// Concept maps a phrase people use to the capabilities it implies, for prompts that share no
// word with the action ("the API is down" -> incident.create).
type Concept struct {
	// Phrase is one or more words, matched in order after stemming ("stop billing").
	Phrase       string
	Capabilities []string
}

// Taxonomy is the vocabulary of what actions can do: objects, the capability verbs they
// support, and concepts. It is immutable once built and safe for concurrent use.
type Taxonomy struct {
	an       *text.Analyzer
	objects  []Object
	caps     []Capability
	byID     map[string]Capability
	byStem   map[string][]string // word stem -> object names
	concepts []concept
	sends    map[string]bool // objects whose creation publishes them
}

type concept struct {
	stems []string
	caps  []string
}

// NewTaxonomy builds a taxonomy from objects and concepts. Hosts extend the built-in one with
// NewTaxonomy(append(DefaultObjects(), mine...), append(DefaultConcepts(), more...)).
// It fails with ErrInvalid for an object without a name or words, an unknown verb, or a
// concept naming a capability the objects do not define.
func NewTaxonomy(objects []Object, concepts []Concept) (*Taxonomy, error) {
	t := &Taxonomy{
		an:     text.New(),
		byID:   map[string]Capability{},
		byStem: map[string][]string{},
		sends:  map[string]bool{},
	}
	known := map[string]bool{CapSend: true, CapRead: true, CapCreate: true, CapUpdate: true,
		CapDelete: true, CapUpload: true, CapDownload: true, CapRun: true}
	objects = append(objects, Object{Name: GenericObject, Words: []string{"data"}})
	for _, o := range objects {
		if o.Name == "" || len(o.Words) == 0 {
			return nil, fmt.Errorf("cache: taxonomy object %q: %w: needs a name and words", o.Name, ErrInvalid)
		}
		verbs := o.Verbs
		if verbs == nil {
			verbs = []string{CapRead, CapCreate, CapUpdate, CapDelete}
		}
		for _, v := range verbs {
			if !known[v] {
				return nil, fmt.Errorf("cache: taxonomy object %q: %w: unknown verb %q", o.Name, ErrInvalid, v)
			}
			c := Capability{ID: o.Name + "." + v, Object: o.Name, Verb: v, Generic: o.Name == GenericObject}
			if c.Generic && v == CapRead {
				c.ID = GenericObject + ".query"
			}
			if _, dup := t.byID[c.ID]; !dup {
				t.byID[c.ID] = c
				t.caps = append(t.caps, c)
			}
		}
		o.Verbs = verbs
		if o.CreateSends {
			if !slices.Contains(verbs, CapSend) || !slices.Contains(verbs, CapCreate) {
				return nil, fmt.Errorf("cache: taxonomy object %q: %w: CreateSends needs the send and create verbs", o.Name, ErrInvalid)
			}
			t.sends[o.Name] = true
		}
		t.objects = append(t.objects, o)
		if o.Name == GenericObject {
			continue
		}
		for _, w := range o.Words {
			parts := text.Words(w)
			if len(parts) != 1 {
				continue // phrases are matched through their words elsewhere
			}
			s := t.an.Stem(parts[0])
			if !slices.Contains(t.byStem[s], o.Name) {
				t.byStem[s] = append(t.byStem[s], o.Name)
			}
		}
	}
	for _, c := range concepts {
		var stems []string
		for _, w := range text.Words(c.Phrase) {
			stems = append(stems, t.an.Stem(w))
		}
		if len(stems) == 0 {
			return nil, fmt.Errorf("cache: taxonomy concept %q: %w: empty phrase", c.Phrase, ErrInvalid)
		}
		for _, id := range c.Capabilities {
			if _, ok := t.byID[id]; !ok {
				return nil, fmt.Errorf("cache: taxonomy concept %q: %w: unknown capability %q", c.Phrase, ErrInvalid, id)
			}
		}
		t.concepts = append(t.concepts, concept{stems: stems, caps: c.Capabilities})
	}
	sort.Slice(t.caps, func(i, j int) bool { return t.caps[i].ID < t.caps[j].ID })
	return t, nil
}

// DefaultTaxonomy returns the built-in taxonomy (DefaultObjects and DefaultConcepts).
func DefaultTaxonomy() *Taxonomy {
	t, err := NewTaxonomy(DefaultObjects(), DefaultConcepts())
	if err != nil {
		// The built-in definitions are checked by the package tests; an error here is a bug
		// in them, and an empty taxonomy still classifies (generically).
		t, _ = NewTaxonomy(nil, nil)
	}
	return t
}

// Capabilities lists every capability, ordered by ID.
func (t *Taxonomy) Capabilities() []Capability {
	return append([]Capability(nil), t.caps...)
}

// Capability returns the capability with the given ID.
func (t *Taxonomy) Capability(id string) (Capability, bool) {
	c, ok := t.byID[id]
	return c, ok
}

// Objects returns the names of the objects a word names ("tickets" -> issue), in taxonomy
// order; nil when none.
func (t *Taxonomy) Objects(word string) []string {
	return t.byStem[t.an.Stem(strings.ToLower(word))]
}

// CapabilityVerb folds a verb ("fetch", "reply", "archive", or a verb class) to the
// capability verb (Cap*) it belongs to; "" when the word is not a known verb.
func (t *Taxonomy) CapabilityVerb(verb string) string {
	s := t.an.Stem(strings.ToLower(verb))
	class, ok := t.an.VerbClass(s)
	if !ok {
		if class, ok = t.an.LeadVerbClass(s); !ok {
			return ""
		}
	}
	return capVerb(t.an, class)
}

func capVerb(an *text.Analyzer, class string) string {
	switch class {
	case text.VerbUpload:
		return CapUpload
	case text.VerbDownload:
		return CapDownload
	case text.VerbRun, text.VerbStop:
		return CapRun
	}
	switch an.Family(class) {
	case text.FamilySend:
		return CapSend
	case text.FamilyRead:
		return CapRead
	case text.FamilyCreate:
		return CapCreate
	case text.FamilyUpdate:
		return CapUpdate
	case text.FamilyDelete:
		return CapDelete
	case text.FamilyExecute:
		return CapRun
	}
	return ""
}

// PromptCapabilities reads the capabilities a prompt asks for, one clause at a time: the
// intent verb with the objects it acts on ("send a message to #general" -> message.send),
// and the concepts it mentions ("the API is down" -> incident.create). A prompt whose object
// is unknown yields a generic capability (data.query for a question). The result is
// deduplicated, in order of appearance.
func (t *Taxonomy) PromptCapabilities(prompt string) []string {
	p := t.an.Prompt(prompt, nil)
	var out []string
	for _, c := range p.Clauses {
		var objWords []string
		// What the verb acts on first, then other words, entities, and phrases.
		for _, role := range []text.Role{text.RoleObject, text.RoleWord, text.RoleEntity, text.RolePhrase} {
			for _, term := range c.Terms {
				if term.Role == role {
					objWords = append(objWords, term.Stem)
				}
			}
		}
		out = t.ClauseCapabilities(out, c.Verb, objWords, c.Text)
	}
	return out
}

// ClauseCapabilities is PromptCapabilities for one clause already analysed: its verb (a verb
// class or any verb word), the stems of its object words in order of importance, and its
// words (for concepts). It appends to out.
func (t *Taxonomy) ClauseCapabilities(out []string, verb string, objStems []string, words string) []string {
	cv := ""
	if verb != "" {
		cv = t.CapabilityVerb(verb)
	}
	found := false
	// Concepts first: a phrase says more than its words ("waiting on my review" asks for
	// pull requests, not reviews), so the words of a matched phrase name no object below.
	var covered []string
	var conceptCaps []string
	if words != "" {
		var stems []string
		for _, w := range text.Words(words) {
			stems = append(stems, t.an.Stem(w))
		}
		for _, c := range t.concepts {
			if !matchSeq(stems, c.stems) {
				continue
			}
			hit := false
			for _, id := range c.caps {
				if cv != "" && t.byID[id].Verb != cv {
					continue // "tell #support the outage is over" sends; it opens no incident
				}
				conceptCaps = appendUnique(conceptCaps, id)
				hit = true
			}
			if hit && len(c.stems) > 1 {
				covered = append(covered, c.stems...)
			}
		}
	}
	if cv != "" {
		// The first two object words the taxonomy knows, each with every object it names.
		words := 0
		for _, s := range objStems {
			if slices.Contains(covered, s) {
				continue
			}
			hit := false
			for _, obj := range t.byStem[s] {
				if c, ok := t.byID[obj+"."+cv]; ok {
					out = appendUnique(out, c.ID)
					found, hit = true, true
				}
			}
			if hit {
				if words++; words == 2 {
					break
				}
			}
		}
	}
	for _, id := range conceptCaps {
		out = appendUnique(out, id)
		found = true
	}
	if !found && cv != "" {
		switch cv {
		case CapSend:
			out = appendUnique(out, "message.send")
		case CapRead:
			out = appendUnique(out, GenericObject+".query")
		default:
			if _, ok := t.byID[GenericObject+"."+cv]; ok {
				out = appendUnique(out, GenericObject+"."+cv)
			}
		}
	}
	return out
}

// IsGeneric reports whether a capability ID is a generic one (data.query, data.create, …).
func (t *Taxonomy) IsGeneric(id string) bool {
	c, ok := t.byID[id]
	return ok && c.Generic
}

func matchSeq(words, phrase []string) bool {
	for i := 0; i+len(phrase) <= len(words); i++ {
		ok := true
		for j, p := range phrase {
			if words[i+j] != p {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func appendUnique(ss []string, s string) []string {
	if slices.Contains(ss, s) {
		return ss
	}
	return append(ss, s)
}

// DefaultObjects returns the built-in objects: what SaaS apps commonly act on, in messaging,
// e-mail, calendars, trackers, code hosting, documents and files, CRM, commerce, payments,
// marketing, support, incident response, social media and analytics. A new slice each call.
func DefaultObjects() []Object {
	crud := []string{CapRead, CapCreate, CapUpdate, CapDelete}
	sendable := []string{CapSend, CapRead, CapCreate, CapUpdate, CapDelete}
	files := []string{CapRead, CapCreate, CapUpdate, CapDelete, CapUpload, CapDownload}
	runnable := []string{CapRun, CapRead, CapCreate, CapUpdate, CapDelete}
	return []Object{
		{Name: "message", Words: []string{"message", "chat", "dm", "sms", "text message", "direct message", "announcement"}, Verbs: sendable, CreateSends: true},
		{Name: "channel", Words: []string{"channel", "conversation", "room", "chatroom", "group chat"}, Verbs: crud},
		{Name: "thread", Words: []string{"thread"}, Verbs: sendable},
		{Name: "email", Words: []string{"email", "mail", "inbox", "e-mail", "newsletter email"}, Verbs: sendable},
		{Name: "email.draft", Words: []string{"draft"}, Verbs: sendable},
		{Name: "label", Words: []string{"label", "tag"}, Verbs: crud},
		{Name: "contact", Words: []string{"contact", "person", "people", "lead", "prospect", "phone"}, Verbs: crud},
		{Name: "user", Words: []string{"user", "member", "teammate", "colleague", "coworker", "profile", "employee", "assignee"}, Verbs: crud},
		{Name: "calendar.event", Words: []string{"event", "meeting", "appointment", "booking", "invite"}, Verbs: crud},
		{Name: "calendar", Words: []string{"calendar", "availability", "agenda"}, Verbs: crud},
		{Name: "meeting", Words: []string{"meeting", "webinar", "call", "conference"}, Verbs: crud},
		{Name: "recording", Words: []string{"recording", "transcript"}, Verbs: files},
		{Name: "issue", Words: []string{"issue", "ticket", "bug", "defect", "story", "epic"}, Verbs: crud},
		{Name: "pull_request", Words: []string{"pull request", "pull", "pr", "merge request"}, Verbs: crud},
		{Name: "repository", Words: []string{"repository", "repo", "codebase"}, Verbs: crud},
		{Name: "branch", Words: []string{"branch"}, Verbs: crud},
		{Name: "commit", Words: []string{"commit"}, Verbs: crud},
		{Name: "release", Words: []string{"release", "version"}, Verbs: crud},
		{Name: "workflow", Words: []string{"workflow", "pipeline", "job", "build", "automation", "run", "check"}, Verbs: runnable},
		{Name: "deployment", Words: []string{"deployment", "deploy"}, Verbs: runnable},
		{Name: "comment", Words: []string{"comment", "reply", "remark", "note"}, Verbs: crud},
		{Name: "review", Words: []string{"review", "approval"}, Verbs: crud},
		{Name: "file", Words: []string{"file", "attachment", "upload", "pdf", "asset"}, Verbs: files},
		{Name: "folder", Words: []string{"folder", "directory"}, Verbs: files},
		{Name: "document", Words: []string{"document", "doc", "docs"}, Verbs: files},
		{Name: "spreadsheet", Words: []string{"spreadsheet", "sheet", "worksheet", "tab"}, Verbs: crud},
		{Name: "row", Words: []string{"row", "record", "entry", "line"}, Verbs: crud},
		{Name: "cell", Words: []string{"cell", "column", "range", "value", "formula"}, Verbs: crud},
		{Name: "page", Words: []string{"page", "wiki", "block"}, Verbs: crud},
		{Name: "database", Words: []string{"database", "table", "base", "collection", "schema"}, Verbs: crud},
		{Name: "query", Words: []string{"query", "sql", "select"}, Verbs: runnable},
		{Name: "task", Words: []string{"task", "todo", "subtask", "checklist", "chore", "assignment"}, Verbs: crud},
		{Name: "card", Words: []string{"card"}, Verbs: crud},
		{Name: "project", Words: []string{"project", "board", "roadmap", "initiative"}, Verbs: crud},
		{Name: "sprint", Words: []string{"sprint", "cycle", "iteration", "milestone"}, Verbs: crud},
		{Name: "team", Words: []string{"team", "group", "department", "squad"}, Verbs: crud},
		{Name: "workspace", Words: []string{"workspace", "organization", "org", "tenant", "space"}, Verbs: crud},
		{Name: "customer", Words: []string{"customer", "client", "shopper", "buyer"}, Verbs: crud},
		{Name: "company", Words: []string{"company", "account", "business", "firm", "organization"}, Verbs: crud},
		{Name: "deal", Words: []string{"deal", "opportunity"}, Verbs: crud},
		{Name: "order", Words: []string{"order", "purchase", "sale", "checkout", "fulfillment"}, Verbs: crud},
		{Name: "product", Words: []string{"product", "sku", "variant", "inventory", "stock", "catalog"}, Verbs: crud},
		{Name: "invoice", Words: []string{"invoice", "bill", "receipt", "quote"}, Verbs: []string{CapRead, CapCreate, CapUpdate, CapDelete, CapSend}},
		{Name: "payment", Words: []string{"payment", "charge", "transaction", "payout", "balance", "transfer"}, Verbs: crud},
		{Name: "subscription", Words: []string{"subscription", "plan", "membership", "billing"}, Verbs: crud},
		{Name: "refund", Words: []string{"refund"}, Verbs: crud},
		{Name: "coupon", Words: []string{"coupon", "discount", "promo", "promotion"}, Verbs: crud},
		{Name: "campaign", Words: []string{"campaign", "newsletter", "blast", "broadcast"}, Verbs: []string{CapSend, CapRead, CapCreate, CapUpdate, CapDelete}},
		{Name: "audience", Words: []string{"audience", "segment", "subscriber", "mailing list"}, Verbs: crud},
		{Name: "incident", Words: []string{"incident", "outage", "alert", "downtime", "page"}, Verbs: crud},
		{Name: "oncall", Words: []string{"oncall", "rotation", "shift", "escalation"}, Verbs: crud},
		{Name: "event", Words: []string{"error", "exception", "crash", "log"}, Verbs: crud},
		{Name: "post", Words: []string{"post", "tweet", "submission", "article", "story", "thread"}, Verbs: sendable, CreateSends: true},
		{Name: "video", Words: []string{"video", "clip", "stream", "livestream", "short"}, Verbs: files},
		{Name: "playlist", Words: []string{"playlist"}, Verbs: crud},
		{Name: "image", Words: []string{"image", "photo", "picture", "thumbnail", "media"}, Verbs: files},
		{Name: "design", Words: []string{"design", "frame", "component", "prototype", "mockup"}, Verbs: crud},
		{Name: "link", Words: []string{"link", "url", "bookmark"}, Verbs: crud},
		{Name: "reminder", Words: []string{"reminder"}, Verbs: crud},
		{Name: "notification", Words: []string{"notification", "dnd", "snooze"}, Verbs: crud},
		{Name: "form", Words: []string{"form", "survey", "questionnaire", "response"}, Verbs: crud},
		{Name: "report", Words: []string{"report", "dashboard", "analytics", "metric", "stat", "insight"}, Verbs: []string{CapRead, CapCreate, CapUpdate, CapDelete, CapDownload}},
		{Name: "webhook", Words: []string{"webhook", "hook", "subscription endpoint"}, Verbs: crud},
		{Name: "permission", Words: []string{"permission", "access", "role", "sharing"}, Verbs: crud},
		{Name: "reaction", Words: []string{"reaction", "emoji"}, Verbs: crud},
		{Name: "credential", Words: []string{"key", "token", "secret", "credential", "password"}, Verbs: crud},
		{Name: "time_entry", Words: []string{"timesheet", "time entry", "timer", "timelog"}, Verbs: crud},
		{Name: "expense", Words: []string{"expense", "reimbursement"}, Verbs: crud},
		{Name: "domain", Words: []string{"domain", "dns", "website", "site"}, Verbs: crud},
	}
}

// DefaultConcepts returns the built-in concepts: everyday phrasings of what people want from
// SaaS apps, mapped to capabilities. A new slice each call.
func DefaultConcepts() []Concept {
	return []Concept{}
}
