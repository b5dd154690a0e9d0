package hinteval

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Set is one labelled set of requests and the catalogue its slugs come from. It is plain
// data.
type Set struct {
	Name    string // the folder and file it was found as: "public/bfcl/queries-pool200"
	Catalog string // the catalogue JSONL
	Queries string // the labelled cases JSONL
}

// FindSets lists the labelled sets under dir: every queries*.jsonl (or *-queries.jsonl)
// file, with the catalogue.jsonl of its own folder, or catalog when its folder has none
// (the Composio sets, whose catalogue lives elsewhere; empty catalog skips them). Sets come
// in the order of their names.
func FindSets(dir, catalog string) ([]Set, error) {
	var sets []Set
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() || !strings.HasSuffix(name, ".jsonl") || !(strings.HasPrefix(name, "queries") || strings.HasSuffix(name, "-queries.jsonl")) {
			return nil
		}
		cat := filepath.Join(filepath.Dir(path), "catalogue.jsonl")
		if _, err := os.Stat(cat); err != nil {
			if catalog == "" {
				return nil
			}
			cat = catalog
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		sets = append(sets, Set{Name: strings.TrimSuffix(filepath.ToSlash(rel), ".jsonl"), Catalog: cat, Queries: path})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("hinteval: finding sets: %w", err)
	}
	slices.SortFunc(sets, func(a, b Set) int { return strings.Compare(a.Name, b.Name) })
	return sets, nil
}

// SetReport is one set's figures: the ranking and the BM25 baseline. It is plain data.
type SetReport struct {
	Set      Set     `json:"set"`
	Overall  Metrics `json:"overall"`
	Baseline Metrics `json:"baseline"`
}

// RunSets scores every set with the builder opt names (each catalogue loaded once, into a
// memory store) and returns one report per set, in order.
func RunSets(ctx context.Context, sets []Set, opt Options) ([]SetReport, error) {
	var out []SetReport
	stores := map[string]Store{}
	for _, s := range sets {
		st, ok := stores[s.Catalog]
		if !ok {
			m, err := importFile(ctx, s.Catalog)
			if err != nil {
				return nil, err
			}
			st, stores[s.Catalog] = m, m
		}
		rep, err := RunSet(ctx, st, s, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, rep)
	}
	return out, nil
}

// RunSet scores one set whose catalogue st holds already.
func RunSet(ctx context.Context, st Store, s Set, opt Options) (SetReport, error) {
	cases, err := ReadCasesFile(s.Queries)
	if err != nil {
		return SetReport{}, err
	}
	rep, err := Run(ctx, st, cases, opt)
	if err != nil {
		return SetReport{}, fmt.Errorf("hinteval: set %s: %w", s.Name, err)
	}
	return SetReport{Set: s, Overall: rep.Overall, Baseline: rep.Baseline}, nil
}

// PrintSets writes one row per set: the ranking's hit@1, hit@5, hit@all, MRR, mean listed,
// how often it is confident and how often it is then right, and its p50 latency, beside
// BM25's hit@1, hit@5, hit@all and MRR; then how many sets the ranking's hit@5 is below
// BM25's on.
func PrintSets(w io.Writer, reps []SetReport) {
	fmt.Fprintf(w, "%-34s %5s | %5s %5s %7s %5s %6s %5s %5s %8s | %5s %5s %7s %5s\n",
		"set", "cases", "hit@1", "hit@5", "hit@all", "MRR", "listed", "conf", "right", "p50",
		"bm@1", "bm@5", "bm@all", "bmMRR")
	below := 0
	for _, r := range reps {
		h, b := r.Overall, r.Baseline
		mark := ""
		if h.Hit5 < b.Hit5 {
			below++
			mark = " <"
		}
		fmt.Fprintf(w, "%-34s %5d | %5.3f %5.3f %7.3f %5.3f %6.1f %5.3f %5.3f %8s | %5.3f %5.3f %7.3f %5.3f%s\n",
			r.Set.Name, h.Cases, h.Hit1, h.Hit5, h.HitAll, h.MRR, h.ListedMean, h.Confident, h.ConfidentRight,
			h.LatencyP50.Round(1000), b.Hit1, b.Hit5, b.HitAll, b.MRR, mark)
	}
	fmt.Fprintf(w, "hit@5 below BM25's on %d of %d sets (marked <)\n", below, len(reps))
}
