package text_test

import (
	"slices"
	"testing"

	"github.com/toolhint/toolhint/internal/text"
)

// TestGeneratedKnowledge checks that the embedded tables load and carry each kind of
// relation the analyser uses, on words any table generated from the named sources has.
func TestGeneratedKnowledge(t *testing.T) {
	a := text.New()
	has := func(stem string, src text.Source, want string) bool {
		found := false
		a.Expansions(a.Stem(stem), func(r text.Relation) {
			if r.Source == src && r.Stem == a.Stem(want) {
				found = true
			}
		})
		return found
	}
	for _, c := range []struct {
		word string
		src  text.Source
		want string
	}{
		{"invoice", text.SourceSynonym, "bill"},      // WordNet synonym
		{"remind", text.SourceDerived, "reminder"},   // WordNet derivation
		{"attach", text.SourceDerived, "attachment"}, // WordNet derivation
		{"refund", text.SourceHypernym, "payment"},   // WordNet hypernym
	} {
		if !has(c.word, c.src, c.want) {
			t.Errorf("%s: no %v relation to %s", c.word, c.src, c.want)
		}
	}
	if got := a.Stem("sent"); got != a.Stem("send") {
		t.Errorf("Stem(sent) = %q, want the stem of send (WordNet's irregular forms)", got)
	}
	if got := a.Stem("repo"); got != a.Stem("repository") {
		t.Errorf("Stem(repo) = %q, want the stem of repository (a catalogue abbreviation)", got)
	}
	if got := a.AppAliases("gsheets"); !slices.Contains(got, "googlesheets") {
		t.Errorf("AppAliases(gsheets) = %v, want googlesheets (from the app's name)", got)
	}
	if got := a.AppsDescribedBy(a.Stem("task")); !slices.Contains(got, "todoist") {
		t.Errorf("AppsDescribedBy(task) = %v, want todoist among them", got)
	}
	if df, ok := a.KnownStem(a.Stem("channel")); !ok || df == 0 {
		t.Errorf("KnownStem(channel) = %d, %v; want a catalogue word", df, ok)
	}
	if _, ok := a.KnownStem("qzxwv"); ok {
		t.Error("KnownStem knows a made-up word")
	}
}
