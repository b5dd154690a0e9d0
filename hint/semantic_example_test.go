package hint_test

import (
	"context"
	"fmt"
	"log"

	"github.com/toolhint/toolhint/hint"
)

// The semantic tier: vectors of the catalogue's actions are computed once (and again only
// for what a sync changes); each Build then embeds the prompt and lists actions similar in
// meaning even when they share no word with it. The embedder here is a deterministic fake;
// a host would use embedding.New with its model server.
func ExampleEmbedCatalog() {
	ctx := context.Background()
	st, err := semanticStore(ctx) // gmail and todoist
	if err != nil {
		log.Fatal(err)
	}
	emb := &fakeEmbedder{}
	rep, err := hint.EmbedCatalog(ctx, st, emb, hint.EmbedOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("embedded %d of %d actions\n", rep.Embedded, rep.Actions)
	rep, _ = hint.EmbedCatalog(ctx, st, emb, hint.EmbedOptions{})
	fmt.Printf("again: embedded %d, %d current\n", rep.Embedded, rep.Current)

	req := hint.Request{AgentID: 1, Apps: []string{"gmail", "todoist"}, Prompt: "nudge me about the dentist tomorrow"}
	lexical, _ := hint.New(hint.Config{}).Build(ctx, st, req)
	semantic, _ := hint.New(hint.Config{Embedder: emb}).Build(ctx, st, req)
	fmt.Println("lexical:", lexical.MatchedActions, lexical.Strategy)
	fmt.Println("semantic:", semantic.MatchedActions[0], semantic.Semantic, semantic.Confident)
	// Output:
	// embedded 6 of 6 actions
	// again: embedded 0, 6 current
	// lexical: [] fallback
	// semantic: TODOIST_CREATE_TASK true false
}
