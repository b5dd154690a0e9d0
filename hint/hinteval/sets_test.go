package hinteval_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/hint/hinteval"
)

var evalDir = flag.String("eval-dir", os.Getenv("TOOLHINT_EVAL_DIR"), "folder of labelled sets, e.g. ../shared/eval (default $TOOLHINT_EVAL_DIR)")

// setFloor is one set's least figures (testdata/sets_floor.json): a regression guard for the
// ranking on every catalogue, and the margin it keeps over or below BM25 there.
type setFloor struct {
	Hit5, HitAll float64
	// OverBM25 is the least hit@5 minus BM25's hit@5.
	OverBM25 float64
}

// TestSetsFloor scores every labelled set under -eval-dir (../shared/eval: the Composio dev
// set and the public sets of other catalogues) and checks each against its floor, and that
// the ranking's hit@5 is nowhere below BM25's.
func TestSetsFloor(t *testing.T) {
	if *evalDir == "" || *catalogPath == "" {
		t.Skip("set -eval-dir and -catalog (or TOOLHINT_EVAL_DIR and TOOLHINT_CATALOG) to score every labelled set")
	}
	raw, err := os.ReadFile("testdata/sets_floor.json")
	if err != nil {
		t.Fatal(err)
	}
	var floors map[string]setFloor
	if err := json.Unmarshal(raw, &floors); err != nil {
		t.Fatalf("sets_floor.json: %v", err)
	}
	sets, err := hinteval.FindSets(*evalDir, *catalogPath)
	if err != nil {
		t.Fatal(err)
	}
	reps, err := hinteval.RunSets(context.Background(), sets, hinteval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	hinteval.PrintSets(&b, reps)
	t.Logf("\n%s", b.String())
	seen := map[string]bool{}
	for _, r := range reps {
		name := filepath.ToSlash(r.Set.Name)
		seen[name] = true
		f, ok := floors[name]
		if !ok {
			t.Errorf("%s: no floor in testdata/sets_floor.json", name)
			continue
		}
		h, bm := r.Overall, r.Baseline
		if h.Hit5 < f.Hit5 || h.HitAll < f.HitAll || h.Hit5-bm.Hit5 < f.OverBM25 {
			t.Errorf("%s: hit@5 %.3f (floor %.3f), hit@all %.3f (floor %.3f), hit@5 over BM25 %.3f (floor %.3f)",
				name, h.Hit5, f.Hit5, h.HitAll, f.HitAll, h.Hit5-bm.Hit5, f.OverBM25)
		}
		if h.Hit5 < bm.Hit5 {
			t.Errorf("%s: hit@5 %.3f is below BM25's %.3f", name, h.Hit5, bm.Hit5)
		}
	}
	for name := range floors {
		if !seen[name] {
			t.Errorf("%s: has a floor but was not found under %s", name, *evalDir)
		}
	}
}

// TestFindSets: a queries file pairs with its folder's catalogue, or with the catalogue
// given when its folder has none (skipped without one); other files are not sets.
func TestFindSets(t *testing.T) {
	dir := t.TempDir()
	write := func(p string) {
		t.Helper()
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"dev-queries.jsonl", "README.md", "public/a/catalogue.jsonl", "public/a/queries.jsonl",
		"public/a/queries-pool200.jsonl", "public/b/catalogue.jsonl", "public/b/notes.jsonl"} {
		write(p)
	}
	got, err := hinteval.FindSets(dir, "/cat.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []hinteval.Set{
		{Name: "dev-queries", Catalog: "/cat.jsonl", Queries: filepath.Join(dir, "dev-queries.jsonl")},
		{Name: "public/a/queries", Catalog: filepath.Join(dir, "public/a/catalogue.jsonl"), Queries: filepath.Join(dir, "public/a/queries.jsonl")},
		{Name: "public/a/queries-pool200", Catalog: filepath.Join(dir, "public/a/catalogue.jsonl"), Queries: filepath.Join(dir, "public/a/queries-pool200.jsonl")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sets (-want +got):\n%s", diff)
	}
	got, err = hinteval.FindSets(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "public/a/queries" {
		t.Errorf("without a catalogue, the sets of folders with one only: %+v", got)
	}
}
