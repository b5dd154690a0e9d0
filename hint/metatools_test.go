package hint_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/hint"
)

// TestSearchToolOnlyWhenOffered: a hint that is not sure names the search meta-tool only
// when the host says the model has it (Config.SearchTool, or Request.SearchTool, which
// wins), and lists it in MetaTools exactly when the text names it.
func TestSearchToolOnlyWhenOffered(t *testing.T) {
	tests := []struct {
		name       string
		config     string
		request    string
		prompt     string
		wantSearch string
	}{
		{name: "fallback, none offered", prompt: "zxqv plorb wibble"},
		{name: "unsure, none offered", prompt: "something about the channel"},
		{name: "fallback, config", config: hint.SearchTool, prompt: "zxqv plorb wibble", wantSearch: hint.SearchTool},
		{name: "unsure, config", config: hint.SearchTool, prompt: "something about the channel", wantSearch: hint.SearchTool},
		{name: "unsure, request", request: "find_tools", prompt: "something about the channel", wantSearch: "find_tools"},
		{name: "request wins", config: hint.SearchTool, request: "find_tools", prompt: "zxqv plorb wibble", wantSearch: "find_tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := hint.New(hint.Config{SearchTool: tt.config})
			res, err := b.Build(context.Background(), newFake(), hint.Request{AgentID: 1, Prompt: tt.prompt, Apps: allApps, SearchTool: tt.request})
			if err != nil {
				t.Fatal(err)
			}
			if res.Confident {
				t.Fatalf("confident about %q: the test needs an unsure hint", tt.prompt)
			}
			var want []string
			if tt.wantSearch != "" {
				want = []string{tt.wantSearch}
			}
			if diff := cmp.Diff(want, res.MetaTools); diff != "" {
				t.Errorf("MetaTools (-want +got):\n%s", diff)
			}
			for _, name := range []string{hint.SearchTool, "find_tools"} {
				if got := strings.Contains(res.Text, name); got != (name == tt.wantSearch) {
					t.Errorf("text names %s: %v, want %v:\n%s", name, got, !got, res.Text)
				}
			}
			if !strings.Contains(res.Text, "Do not invent action names") && !strings.Contains(res.Text, "do not invent action names") {
				t.Errorf("the text lost its warning:\n%s", res.Text)
			}
		})
	}
}
