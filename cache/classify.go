package cache

// NewClassifier returns the rule-based classifier over the taxonomy t.
// A nil t means DefaultTaxonomy().
//
// PLACEHOLDER: the real classifier is being written; this one derives nothing.
func NewClassifier(t *Taxonomy) Classifier { return ruleClassifier{} }

type ruleClassifier struct{}

func (ruleClassifier) Classify(a Action) ActionMeta {
	return ActionMeta{Action: a.Slug, App: a.App}
}
