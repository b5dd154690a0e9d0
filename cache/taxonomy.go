package cache

// Taxonomy is the vocabulary of what actions can do. PLACEHOLDER: being written.
type Taxonomy struct{}

// DefaultTaxonomy returns the built-in taxonomy. PLACEHOLDER: being written.
func DefaultTaxonomy() *Taxonomy { return &Taxonomy{} }
