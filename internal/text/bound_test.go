package text

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/internal/text/texttest"
)

// promptLimit is hint.MaxPromptLen, the longest prompt hint analyses.
const promptLimit = 16 << 10

// boundApps are the apps of an everyday agent.
var boundApps = []string{"gmail", "slack", "github", "jira", "notion", "googlecalendar", "googledrive", "hubspot"}

// knownWords returns words the tables know, in a fixed order.
func knownWords(a *Analyzer) []string {
	var out []string
	for s, df := range a.kb.known {
		if df > 0 && isLetters(s) && len(s) > 2 && !a.stop[s] {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// TestPromptWorkBounded analyses prompts of hostile shapes at the prompt limit: none may try
// more than ten times what an everyday request tries (spellings, terms), and none may look
// at the prompt again more than a few times over.
func TestPromptWorkBounded(t *testing.T) {
	a := New()
	var normal work
	a.prompt(texttest.Normal, boundApps, &normal)
	if normal.candidates == 0 || normal.terms == 0 {
		t.Fatalf("the everyday request tried %d spellings and %d terms; want some of each", normal.candidates, normal.terms)
	}
	t.Logf("everyday request: %d spellings, %d terms, %d scanned", normal.candidates, normal.terms, normal.scanned)
	for _, s := range texttest.Shapes(promptLimit, knownWords(a)) {
		t.Run(s.Name, func(t *testing.T) {
			var wk work
			a.prompt(s.Prompt, boundApps, &wk)
			t.Logf("%d bytes: %d spellings, %d repairs, %d terms, %d scanned", len(s.Prompt), wk.candidates, wk.repairs, wk.terms, wk.scanned)
			if wk.tried() > 10*normal.tried() {
				t.Errorf("tried %d spellings and terms; want at most 10× the %d of %q", wk.tried(), normal.tried(), texttest.Normal)
			}
			if wk.scanned > 2*len(s.Prompt) {
				t.Errorf("looked at %d tokens and bytes again; want at most twice the prompt's %d bytes", wk.scanned, len(s.Prompt))
			}
		})
	}
}

// stemCut is the most letters Stem takes off a word: a plural s, -ing, a doubled consonant
// and a final e.
const stemCut = 6

// TestRepairLen checks maxRepairLen against the tables: every spelling one edit away from a
// longer word has at least maxRepairLen letters, and its stem more than any word the tables
// know, so leaving such words alone loses no repair.
func TestRepairLen(t *testing.T) {
	a := New()
	longest, word := 0, ""
	for _, keys := range []func(func(string) bool){maps.Keys(a.kb.known), maps.Keys(a.kb.canon)} {
		for s := range keys {
			if isLetters(s) && len(s) > longest {
				longest, word = len(s), s
			}
		}
	}
	if longest+stemCut >= maxRepairLen {
		t.Errorf("the tables know %q (%d letters): maxRepairLen %d must exceed it by more than %d", word, longest, maxRepairLen, stemCut)
	}
	for s := range a.kb.known {
		if !isLetters(s) {
			continue
		}
		for _, suffix := range []string{"s", "es", "ies", "ing", "ings", "ed", "eds", "ening", "enings"} {
			if w := s + suffix; len(w)-len(Stem(w)) > stemCut {
				t.Fatalf("Stem(%q) = %q cuts more than %d letters", w, Stem(w), stemCut)
			}
		}
	}
}

// TestRepairBudget: typos are repaired in the order they come until the prompt's budget
// cannot pay for the next word in full; a word too long for any repair costs nothing.
func TestRepairBudget(t *testing.T) {
	a := New()
	typos := strings.Fields("mesage chanel calender reprot deplyo incidnet spredsheet documnet repositroy")
	var wk work
	p := a.prompt("send "+strings.Join(typos, " and "), nil, &wk)
	var stems []string
	for _, c := range p.Clauses {
		for _, t := range c.Terms {
			stems = append(stems, t.Stem)
		}
	}
	if first, last := typos[0], typos[len(typos)-1]; !slices.Contains(stems, a.Stem("message")) || !slices.Contains(stems, last) {
		t.Errorf("terms %q: want the first typo (%s) repaired and the last (%s) left as it is", stems, first, last)
	}
	if wk.candidates > maxRepairCandidates || wk.repairs >= len(typos) {
		t.Errorf("tried %d spellings for %d words; want at most %d, and not every word", wk.candidates, wk.repairs, maxRepairCandidates)
	}
	for _, n := range []int{maxRepairLen + 1, promptLimit} {
		var wk work
		if r := a.repair(strings.Repeat("q", n), &wk); r != "" || wk.candidates != 0 {
			t.Errorf("repair of a %d-letter word = %q after %d spellings; want none tried", n, r, wk.candidates)
		}
	}
	var one work
	if r := a.repair("mesage", &one); r != "message" || one.candidates != repairCandidates(len("mesage")) {
		t.Errorf("repair(mesage) = %q after %d spellings; want message after %d", r, one.candidates, repairCandidates(len("mesage")))
	}
}

// TestRepairKeepsFirstLetter: typo repair mends a word into a known one that keeps its first
// letter, or swaps it with the second; a word the catalogue lacks that differs from a known
// one in its first letter, and a word of the analyser's own lexicon (a preposition), are
// left as they are.
func TestRepairKeepsFirstLetter(t *testing.T) {
	b := NewCatalogBuilder()
	b.AddAction("pharma", "PHARMA_GET_CURING_STATUS", "Get curing status", "Gets the curing status of a batch.")
	b.AddAction("mail", "MAIL_SEND_MESSAGE", "Send message", "Sends a message.")
	a := NewWithCatalog(b.Catalog([]CatalogApp{{App: "pharma"}, {App: "mail"}}))
	for w, want := range map[string]string{
		"mesage":   "message", // a letter left out
		"emssage":  "message", // the first two letters swapped
		"phishing": "",        // not whishing (WordNet's whish)
		"during":   "",        // a preposition, not curing
		"wheres":   "",        // "where's", a function word
	} {
		var wk work
		if got := a.repair(w, &wk); got != want {
			t.Errorf("repair(%q) = %q, want %q", w, got, want)
		}
	}
}
