// Package text turns prompts, action slugs, names and descriptions into analysed search terms:
// tokenising, slug splitting, stemming and plural folding, stop words, the verb and synonym
// lexicon, phrase rewrites and entity typing. It is shared by the classifier in package cache
// and the ranking in package hint, so both sides of a match are analysed the same way.
package text
