package hint_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
	"github.com/toolhint/toolhint/hint"
)

// TestSemanticPostgres: with vectors in PostgreSQL the semantic tier gives what it gives
// with the memory store, and EmbedCatalog is as incremental there.
func TestSemanticPostgres(t *testing.T) {
	ctx := context.Background()
	pg := cachetest.OpenPostgres(t)
	mem, err := semanticStore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	acts, err := mem.Actions(ctx, cache.ActionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := mem.ListApps(ctx, cache.AppQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Apply(ctx, cache.Batch{Apps: page.Apps, Actions: acts}); err != nil {
		t.Fatal(err)
	}
	emb := &fakeEmbedder{}
	for _, st := range []hint.CatalogStore{mem, pg} {
		if rep, err := hint.EmbedCatalog(ctx, st, emb, hint.EmbedOptions{}); err != nil || rep.Embedded != len(acts) {
			t.Fatalf("EmbedCatalog = %+v, %v", rep, err)
		}
		if rep, err := hint.EmbedCatalog(ctx, st, emb, hint.EmbedOptions{}); err != nil || rep.Embedded != 0 || rep.Current != len(acts) {
			t.Fatalf("second EmbedCatalog = %+v, %v", rep, err)
		}
	}
	b := hint.New(hint.Config{Embedder: emb})
	for _, p := range []string{vaguePrompt, "send an email to dana about the offsite", "finish the chore list"} {
		req := hint.Request{AgentID: 1, Apps: semApps, Prompt: p}
		want, err := b.Build(ctx, mem, req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.Build(ctx, pg, req)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Semantic {
			t.Errorf("%q: semantic tier not used with PostgreSQL: %v", p, got.Fallbacks)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: memory and PostgreSQL differ (-memory +postgres):\n%s", p, diff)
		}
	}
}
