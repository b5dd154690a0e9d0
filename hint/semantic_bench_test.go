package hint_test

import (
	"context"
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// benchSemantic measures Builds with the fake embedder (768 dimensions, as a small real
// model) over st's apps, embedded first. Beside BenchmarkBuildAgent8Apps it shows what the
// semantic tier costs in process: reading the vectors and comparing every candidate action
// with the prompt. A real embedder adds its own round trip.
func benchSemantic(b *testing.B, st *cache.Memory, apps []string) {
	emb := &fakeEmbedder{pad: 768 - fakeDims}
	if _, err := hint.EmbedCatalog(context.Background(), st, emb, hint.EmbedOptions{Apps: apps, BatchSize: 512}); err != nil {
		b.Fatal(err)
	}
	benchBuildWith(b, hint.New(hint.Config{Embedder: emb}), st, hint.Request{AgentID: 1, Apps: apps})
}

// BenchmarkBuildSemanticAgent8Apps is BenchmarkBuildAgent8Apps with the semantic tier.
func BenchmarkBuildSemanticAgent8Apps(b *testing.B) {
	benchSemantic(b, loadFull(b), agent8Apps)
}

// BenchmarkBuildSemanticTestdata is BenchmarkBuildTestdata with the semantic tier.
func BenchmarkBuildSemanticTestdata(b *testing.B) {
	st, err := loadTestdata(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	benchSemantic(b, st, []string{"gmail", "slack", "github", "jira", "notion", "googlecalendar"})
}
