// Package text turns prompts, action slugs, names and descriptions into analysed search terms:
// tokenising, slug splitting, stemming and plural folding, stop words, verb classes, idioms,
// entity typing, two words the catalogue writes as one ("web hook"), and expansions of
// prompt words. It is shared by the classifier in package
// cache and the ranking in package hint, so both sides of a match are analysed the same way.
//
// Closed word classes (stop words, prepositions, time words, verb classes and a few idioms)
// are written by hand in lexicon.go. Everything open-class comes from two generated tables
// embedded in data/: data/wordnet.txt.gz, made by cmd/wordnetgen from WordNet 3.0 (synonyms,
// derivations, attributes, entailments, hypernyms, phrasal verbs, irregular forms; licence in
// data/WORDNET-LICENSE), and data/catalog.txt.gz, made by cmd/cataloggen from a Composio
// catalogue snapshot (vocabulary for typo repair, abbreviations, app aliases from their
// names, the words apps describe themselves with).
//
// The catalogue knowledge is computed by ComputeCatalog (or a CatalogBuilder fed one action
// at a time), the one implementation behind both cmd/cataloggen and the stores of package
// cache, which compute it for their own catalogue. NewWithCatalog builds an analyser over
// such knowledge: its vocabulary (WordNet's relations are narrowed to it when looked up, so
// WordNet is parsed once per process and shared), its app aliases and self-descriptions,
// with the compiled table's for apps it says nothing of. How words fold (inflections and the
// compiled abbreviations) is the same for every analyser, since the stores' action terms
// were analysed with it.
// A prompt is untrusted: its analysis reads it once, and what it does beyond that (typo
// repair, terms and their expansions, looking ahead past a comma or an opening quote) is
// bounded per word and per prompt (bound.go), so that no shape of prompt costs much more
// than an everyday request. Package texttest makes such shapes for tests and benchmarks.
//
// The build never needs either source; regenerate the tables with the commands when the
// sources or the hand-written classes change (a test checks the catalogue table is current).
package text
