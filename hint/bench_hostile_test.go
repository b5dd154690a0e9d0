package hint_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/text/texttest"
)

// BenchmarkBuildHostile builds prompts of hostile shapes at the prompt limit (one long word,
// digit runs, a word repeated, combining marks, many distinct words, emoji, …) and natural
// long ones, for an agent with eight apps over the full catalogue in memory. Target: every
// shape under 50ms.
func BenchmarkBuildHostile(b *testing.B) {
	st := loadFull(b)
	metas, err := st.ActionMeta(context.Background(), agent8Apps)
	if err != nil {
		b.Fatal(err)
	}
	// The words of the apps' action slugs: words the analysis knows.
	seen := map[string]bool{}
	var vocab []string
	for _, m := range metas {
		for _, w := range strings.Split(strings.ToLower(m.Action), "_")[1:] {
			if len(w) > 2 && !seen[w] {
				seen[w] = true
				vocab = append(vocab, w)
			}
		}
	}
	bl := hint.New(hint.Config{})
	for _, s := range texttest.Shapes(hint.MaxPromptLen, vocab) {
		b.Run(s.Name, func(b *testing.B) {
			benchBuildPrompts(b, bl, st, hint.Request{AgentID: 1, Apps: agent8Apps}, []string{s.Prompt})
		})
	}
}
