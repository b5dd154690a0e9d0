package hint

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolhint/toolhint/cache"
)

// CatalogStore is what EmbedCatalog reads and writes: the catalogue's actions and the
// vectors kept for them. *cache.Memory and *cache.Postgres satisfy it.
type CatalogStore interface {
	cache.ActionLister
	cache.VectorStore
}

// EmbedOptions configure EmbedCatalog. The zero value is the defaults.
type EmbedOptions struct {
	// Apps limits the work to these apps. Optional. Empty means every app.
	Apps []string
	// BatchSize is how many actions are embedded (and stored) at a time. Optional.
	// Defaults to 64.
	BatchSize int
	// Progress, when not nil, is called from the embedding goroutine with the counts so
	// far after every batch is stored, and with the final counts (the report EmbedCatalog
	// returns) when every action has been looked at, unless the last batch's call had
	// them already, as
	// cache.SyncOptions.Progress is during a sync. It must return quickly and must not
	// call st. Optional.
	Progress func(EmbedReport)
}

// EmbedReport says what EmbedCatalog did, or has done so far when passed to
// EmbedOptions.Progress. It is plain data.
type EmbedReport struct {
	Actions  int // actions looked at
	Current  int // of those, with a current vector of the model already: left alone
	Embedded int // vectors computed and stored
	Batches  int // Embed calls
}

// maxEmbedText bounds the text embedded per action, well within embedding models' input
// limits.
const maxEmbedText = 2000

// EmbedCatalog computes the vectors the semantic tier (Config.Embedder) compares prompts
// with: one per action, from its slug words, display name and description, by emb's model,
// stored in st. Run it after an import or a sync, with the Embedder the Builders use.
//
// It is idempotent and incremental: an action whose vector of this model is current (the
// action has not changed since it was embedded) is left alone, so after a sync only the
// actions the sync changed are embedded, and a second run embeds nothing; a new model
// embeds everything again. Work is done in batches, each stored before the next is
// embedded: when it fails or ctx ends, what was stored stays and a later run goes on from
// there. The report counts what was done, also with an error.
func EmbedCatalog(ctx context.Context, st CatalogStore, emb Embedder, opt EmbedOptions) (EmbedReport, error) {
	var rep, told EmbedReport
	progress := func() {
		if opt.Progress != nil && (rep != told || rep == EmbedReport{}) {
			told = rep
			opt.Progress(rep)
		}
	}
	if st == nil || emb == nil {
		return rep, fmt.Errorf("%w: EmbedCatalog needs a store and an embedder", ErrInvalidRequest)
	}
	batch := opt.BatchSize
	if batch <= 0 {
		batch = 64
	}
	model := emb.Model()
	cur, err := st.Vectors(ctx, model, opt.Apps)
	if err != nil {
		return rep, fmt.Errorf("hint: embed catalog: reading vectors: %w", err)
	}
	current := make(map[string]bool, len(cur))
	for _, v := range cur {
		current[v.Action] = true
	}
	// Actions are read a page at a time, so that a large catalogue's schemas are not all
	// held at once.
	const page = 1000
	var todo []cache.Action
	flush := func() error {
		if len(todo) == 0 {
			return nil
		}
		texts := make([]string, len(todo))
		for i, a := range todo {
			texts[i] = ActionText(a)
		}
		rep.Batches++
		vecs, err := emb.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("hint: embed catalog: %w", err)
		}
		if len(vecs) != len(todo) {
			return fmt.Errorf("hint: embed catalog: %d vectors for %d texts", len(vecs), len(todo))
		}
		vs := make([]cache.ActionVector, len(todo))
		for i, a := range todo {
			vs[i] = cache.ActionVector{Action: a.Slug, Version: a.UpdatedAt, Vector: vecs[i]}
		}
		n, err := st.PutVectors(ctx, model, vs)
		if err != nil {
			return fmt.Errorf("hint: embed catalog: storing vectors: %w", err)
		}
		rep.Embedded += n
		todo = todo[:0]
		progress()
		return nil
	}
	for off := 0; ; off += page {
		as, err := st.Actions(ctx, cache.ActionFilter{Apps: opt.Apps, Limit: page, Offset: off})
		if err != nil {
			return rep, fmt.Errorf("hint: embed catalog: reading actions: %w", err)
		}
		for _, a := range as {
			rep.Actions++
			if current[a.Slug] {
				rep.Current++
				continue
			}
			a.Parameters, a.Response = nil, nil // not embedded; not kept
			todo = append(todo, a)
			if len(todo) == batch {
				if err := flush(); err != nil {
					return rep, err
				}
			}
		}
		if len(as) < page {
			break
		}
	}
	if err := flush(); err != nil {
		return rep, err
	}
	progress()
	return rep, nil
}

// ActionText is the text EmbedCatalog embeds for an action: its slug's words, its display
// name and (the start of) its description.
func ActionText(a cache.Action) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(strings.ReplaceAll(a.Slug, "_", " ")))
	if a.DisplayName != "" {
		b.WriteString(". ")
		b.WriteString(a.DisplayName)
	}
	if d := strings.TrimSpace(a.Description); d != "" {
		b.WriteString(". ")
		b.WriteString(d)
	}
	s := b.String()
	if len(s) > maxEmbedText {
		s = strings.ToValidUTF8(s[:maxEmbedText], "")
	}
	return s
}
