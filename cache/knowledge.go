package cache

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/internal/text"
)

// CatalogKnowledge is what the prompt analyser learns from a store's catalogue: its
// vocabulary with each word's document frequency (typo repair, telling common words from
// rare ones), abbreviations, the names people use for its apps (made from the apps' display
// names and descriptions) and the words apps describe themselves with. The package's stores
// compute it whenever a write changes the catalogue's apps or actions (an import, a sync, an
// Apply), and keep it with the catalogue, so that apps a sync brings, a host's own tools
// and any other catalogue are known by their own words; hint.Builder reads it. WordNet, a
// general source, is compiled in and not part of it.
type CatalogKnowledge struct {
	// Version identifies what the knowledge was computed from: a digest of every app's
	// slug, display name, description and categories and every action's app, slug, display
	// name and description. It changes whenever those change, and not when an identical
	// catalogue is written again. Empty when the store holds no catalogue.
	Version string
	// Actions and Apps count what it was computed from.
	Actions, Apps int
	// Table is the knowledge in the analyser's table format: one record a line, fields
	// separated by tabs ("V word df", "B short long", "P app alias strength", "D app
	// word,..."), as the compiled table that applies when a store has none.
	Table []byte
}

// KnowledgeStore is implemented by stores that keep their catalogue's knowledge
// (*Memory and *Postgres). A store without it leaves the analyser with its compiled table.
type KnowledgeStore interface {
	// CatalogKnowledge returns the knowledge of the catalogue as it is now. It is cheap
	// when the catalogue has not changed since the last call (a version check), so that a
	// caller may ask on every request. Table is shared and must not be modified.
	CatalogKnowledge(ctx context.Context) (CatalogKnowledge, error)
}

// ComputeCatalogKnowledge computes the knowledge of a catalogue of apps and actions, as the
// package's stores do for theirs: the same input gives the same knowledge and Version,
// whatever the order of the slices. Only the fields named in CatalogKnowledge.Version are
// read. A catalogue without apps or actions has an empty knowledge.
func ComputeCatalogKnowledge(apps []App, actions []Action) CatalogKnowledge {
	apps = slices.Clone(apps)
	slices.SortFunc(apps, func(x, y App) int { return strings.Compare(x.Slug, y.Slug) })
	acts := slices.Clone(actions)
	slices.SortFunc(acts, func(x, y Action) int {
		return cmp.Or(strings.Compare(x.App, y.App), strings.Compare(x.Slug, y.Slug))
	})
	kb := newKnowledgeBuilder()
	for _, a := range acts {
		kb.action(a.App, a.Slug, a.DisplayName, a.Description)
	}
	for _, a := range apps {
		kb.app(a.Slug, a.DisplayName, a.Description, a.Categories)
	}
	return kb.finish()
}

// knowledgeBuilder computes a CatalogKnowledge from the actions in (app, slug) order, then
// the apps in slug order (the order the version digest reads them in).
type knowledgeBuilder struct {
	cb      *text.CatalogBuilder
	h       hash.Hash
	apps    []text.CatalogApp
	actions int
}

func newKnowledgeBuilder() *knowledgeBuilder {
	return &knowledgeBuilder{cb: text.NewCatalogBuilder(), h: sha256.New()}
}

// newKnowledgeDigest returns a knowledgeBuilder that computes the version only, a small
// fraction of the work of the statistics: its finish is not to be called.
func newKnowledgeDigest() *knowledgeBuilder {
	return &knowledgeBuilder{h: sha256.New()}
}

// field writes one field to the digest, length first, so that no two inputs digest alike.
func (k *knowledgeBuilder) field(s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	k.h.Write(n[:])
	k.h.Write([]byte(s))
}

func (k *knowledgeBuilder) action(app, slug, name, desc string) {
	k.actions++
	k.field("action")
	k.field(app)
	k.field(slug)
	k.field(name)
	k.field(desc)
	if k.cb != nil {
		k.cb.AddAction(app, slug, name, desc)
	}
}

func (k *knowledgeBuilder) app(slug, name, desc string, categories []string) {
	k.field("app")
	k.field(slug)
	k.field(name)
	k.field(desc)
	k.field(strings.Join(categories, "\x1f"))
	k.apps = append(k.apps, text.CatalogApp{App: slug, DisplayName: name, Description: desc, Categories: categories})
}

// version returns the version of what was added: "" for nothing.
func (k *knowledgeBuilder) version() string {
	if k.actions == 0 && len(k.apps) == 0 {
		return ""
	}
	return hex.EncodeToString(k.h.Sum(nil)[:16])
}

func (k *knowledgeBuilder) finish() CatalogKnowledge {
	v := k.version()
	if v == "" {
		return CatalogKnowledge{}
	}
	var b bytes.Buffer
	_ = k.cb.Catalog(k.apps).WriteTable(&b) // a bytes.Buffer does not fail
	return CatalogKnowledge{Version: v, Actions: k.actions, Apps: len(k.apps), Table: b.Bytes()}
}

// Memory implements KnowledgeStore.
var _ KnowledgeStore = (*Memory)(nil)

// CatalogKnowledge returns the knowledge of the catalogue as it is now. It is computed from
// a catalogue snapshot the first time it is asked for after a write changed the apps or
// actions, and kept with that snapshot: later calls return it at once. A snapshot whose
// version is the one computed last (a write that left names and descriptions as they were)
// takes that knowledge without computing the statistics again.
func (m *Memory) CatalogKnowledge(ctx context.Context) (CatalogKnowledge, error) {
	if err := ctx.Err(); err != nil {
		return CatalogKnowledge{}, err
	}
	c := m.catalog.Load()
	c.know.once.Do(func() {
		digest := newKnowledgeDigest()
		c.knowledgeInput(digest)
		if last := m.lastKnow.Load(); last != nil && last.Version == digest.version() {
			c.know.k = *last
			return
		}
		kb := newKnowledgeBuilder()
		c.knowledgeInput(kb)
		c.know.k = kb.finish()
		m.lastKnow.Store(&c.know.k)
	})
	return c.know.k, nil
}

// knowledgeInput adds to kb the snapshot's actions, then its apps, in the order the version
// digest reads them.
func (c *memCatalog) knowledgeInput(kb *knowledgeBuilder) {
	for _, s := range c.appSlugs {
		for _, a := range c.apps[s].actions {
			kb.action(a.a.App, a.a.Slug, a.a.DisplayName, a.a.Description)
		}
	}
	for _, s := range c.appSlugs {
		a := c.apps[s].app
		kb.app(a.Slug, a.DisplayName, a.Description, a.Categories)
	}
}
