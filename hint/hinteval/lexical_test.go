package hinteval_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/hint/hinteval"
)

var updateLexical = flag.Bool("update-lexical", false, "rewrite testdata/lexical.json from the current ranking")

// lexicalFigures are what the lexical ranking (no embedder, no reranker) gives on a set of
// labelled prompts: the figures, and a digest of every listed action, strategy and
// confidence, so that a change to any one ranking shows.
type lexicalFigures struct {
	Cases                                          int
	Hit1, Hit5, HitAll, MRR, ListedMean, Confident float64
	ConfidentRight, Destructive                    float64
	Strategies                                     map[string]int
	Digest                                         string
}

func lexicalOf(rep hinteval.Report) lexicalFigures {
	o := rep.Overall
	h := sha256.New()
	for _, oc := range rep.Outcomes {
		fmt.Fprintf(h, "%s\t%s\t%t\t%s\n", oc.Case.ID, oc.Strategy, oc.Confident, strings.Join(oc.Listed, ","))
	}
	return lexicalFigures{Cases: o.Cases, Hit1: o.Hit1, Hit5: o.Hit5, HitAll: o.HitAll, MRR: o.MRR,
		ListedMean: o.ListedMean, Confident: o.Confident, ConfidentRight: o.ConfidentRight,
		Destructive: o.Destructive, Strategies: o.Strategies, Digest: hex.EncodeToString(h.Sum(nil))}
}

// TestLexicalUnchanged pins the lexical ranking: a Builder with no embedder and no reranker
// must give exactly the figures (and the very lists) recorded in testdata/lexical.json, on
// the project's own labelled prompts against the project's catalogue and, when the shared
// data is set, on the dev set against the full catalogue. The optional tiers must cost the
// hosts that do not use them nothing. A deliberate change to the ranking rewrites the file
// with -update-lexical; review its diff.
func TestLexicalUnchanged(t *testing.T) {
	ctx := context.Background()
	type set struct{ name, catalog, cases string }
	sets := []set{{"project", testCatalog, projectCases}}
	if *catalogPath != "" && *evalPath != "" {
		sets = append(sets, set{"dev", *catalogPath, *evalPath}, set{"project-full", *catalogPath, projectCases})
	}
	raw, err := os.ReadFile("testdata/lexical.json")
	if err != nil && !*updateLexical {
		t.Fatal(err)
	}
	want := map[string]lexicalFigures{}
	if err == nil {
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("lexical.json: %v", err)
		}
	}
	got := map[string]lexicalFigures{}
	for _, s := range sets {
		st := catalogStore(t, s.catalog)
		cases, err := hinteval.ReadCasesFile(s.cases)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := hinteval.Run(ctx, st, cases, hinteval.Options{Builder: hint.New(hint.Config{})})
		if err != nil {
			t.Fatal(err)
		}
		got[s.name] = lexicalOf(rep)
		if *updateLexical {
			continue
		}
		w, ok := want[s.name]
		if !ok {
			t.Errorf("testdata/lexical.json has no figures for %q: run with -update-lexical", s.name)
			continue
		}
		if diff := cmp.Diff(w, got[s.name]); diff != "" {
			t.Errorf("%s: lexical ranking changed (-want +got):\n%s", s.name, diff)
		}
	}
	if *updateLexical {
		for k, v := range want {
			if _, ok := got[k]; !ok {
				got[k] = v
			}
		}
		out, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("testdata/lexical.json", append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
