package hint

import (
	"testing"

	"github.com/toolhint/toolhint/internal/text"
)

// TestVerbFeature: an action's verb against a clause's gives one verb feature: the same
// verb, or the clause's own verb word in the slug, agrees; the same family, add for create
// and related families agree less; another family conflicts; a clause without a verb has
// no verb feature.
func TestVerbFeature(t *testing.T) {
	b := &Builder{}
	for _, tc := range []struct {
		name           string
		verb, family   string // the clause's verb and its family
		aVerb, aFamily string // the action's main verb and its family
		word, anyVerb  bool   // the slug holds the clause's own verb word, any of its verb words
		want           int
	}{
		{"no verb", "", "", text.VerbGet, text.FamilyRead, false, false, -1},
		{"the same verb", text.VerbList, text.FamilyRead, text.VerbList, text.FamilyRead, false, false, featVerbSame},
		{"the verb word in the slug", text.VerbDelete, text.FamilyDelete, text.VerbUpdate, text.FamilyUpdate, true, true, featVerbSame},
		{"a verb of no class", text.VerbOther, "", text.VerbGet, text.FamilyRead, false, false, featVerbNone},
		{"a verb word of the same family in the slug", text.VerbList, text.FamilyRead, text.VerbGet, text.FamilyRead, false, true, featVerbSame},
		{"a verb word of another family in the slug", text.VerbList, text.FamilyRead, text.VerbDelete, text.FamilyDelete, false, true, featVerbFamily},
		{"an action without a verb", text.VerbSend, text.FamilySend, "", "", false, false, featVerbNone},
		{"add for create", text.VerbCreate, text.FamilyCreate, text.VerbAdd, text.FamilyUpdate, false, false, featVerbAddCreate},
		{"the same family", text.VerbList, text.FamilyRead, text.VerbGet, text.FamilyRead, false, false, featVerbFamily},
		{"related families", text.VerbCreate, text.FamilyCreate, text.VerbUpdate, text.FamilyUpdate, false, false, featVerbRelated},
		{"another family", text.VerbList, text.FamilyRead, text.VerbDelete, text.FamilyDelete, false, false, featVerbConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := &clauseInfo{c: text.Clause{Verb: tc.verb}, family: tc.family}
			if got := b.verbFeature(info, tc.aVerb, tc.aFamily, tc.word, tc.anyVerb); got != tc.want {
				t.Errorf("verbFeature = %s, want %s", verbFeatureName(got), verbFeatureName(tc.want))
			}
		})
	}
}

func verbFeatureName(k int) string {
	if k < 0 {
		return "none"
	}
	return weightNames[k]
}
