package text

// Bounds on the analysis of one prompt. A prompt is untrusted text of up to 16 KiB (hint's
// MaxPromptLen). The analysis reads it once; what it does beyond that (trying spellings
// of a word, adding terms and their expansions to a clause, looking ahead past a comma) is
// bounded per word or per prompt, so that no shape of prompt (one word of 16 KiB, thousands
// of unknown words, a comma run, unclosed quotes) costs more than a few everyday requests.
// The bounds are above what any labelled prompt of the eval sets needs.
const (
	// maxRepairLen is the longest word typo repair looks at: no word of the tables is
	// longer than 30 letters, and stemming cuts at most 6 from a spelling one edit away,
	// so no longer word has a known word within one edit (TestRepairLen checks the tables).
	maxRepairLen = 40
	// maxRepairCandidates bounds the spellings typo repair tries per prompt: a word of n
	// letters has 53n-27 spellings one edit away that keep its first letter (291 for six
	// letters), so this repairs four everyday typos; a prompt of thousands of unknown words
	// (random letters, another language) then costs no more than a few typos. A word is
	// tried in full or not at all.
	maxRepairCandidates = 1200
	// maxPromptTerms bounds the terms offered to a prompt's clauses (its own words,
	// their expansions, terms one step inherits from another); the labelled prompts of the
	// eval sets need at most 2000. Later words go without once it is spent: the ranking
	// reads only the first clauses anyway.
	maxPromptTerms = 2048
	// maxAddresseeLen is the longest text before a colon that can only name who is
	// addressed ("jira: close PAY-9", "in Google Sheets and Google Docs: …"); longer text
	// introduces a message body. It bounds the text looked at again at each colon.
	maxAddresseeLen = 64
	// maxSearchedTerms is the most terms of a clause searched one by one for a stem (an
	// everyday clause has a few dozen, with expansions); a clause with more indexes them,
	// so that adding a term costs the same at any length.
	maxSearchedTerms = 128
)

// work counts what one prompt's analysis does beyond reading the prompt once, so that tests
// can check it stays bounded whatever the prompt's shape.
type work struct {
	// candidates counts the spellings typo repair tried.
	candidates int
	// repairs counts the words typo repair tried spellings for.
	repairs int
	// terms counts the terms offered to a clause: the prompt's own, expansions, and terms
	// one clause inherits from another.
	terms int
	// scanned counts tokens and bytes looked at again, beyond the one pass that reads the
	// prompt: the look-aheads for a closing quote, for a verb after "and" or a comma, for
	// what a colon addresses.
	scanned int
}

// tried is the work that a prompt's length does not bound: what the 10× test compares.
func (w *work) tried() int { return w.candidates + w.terms }

// spendTerm reports whether a clause may take one more term, and counts it.
func (w *work) spendTerm() bool {
	if w.terms >= maxPromptTerms {
		return false
	}
	w.terms++
	return true
}

// repairCandidates is the number of spellings one edit away from a word of n letters that
// keep its first letter or swap it with the second: n-1 deletions, n-1 transpositions, 26n
// insertions and 25(n-1) substitutions.
func repairCandidates(n int) int { return 53*n - 27 }
