// Command selection runs the action-selection benchmark: it loads a catalogue snapshot into a
// memory store, builds the hint for every labelled prompt, and prints hit@1, hit@5, hit@all,
// MRR, actions listed, strategies, the destructive-listed rate and latency beside a BM25
// baseline, overall and split by kind, mode and app-set size. A last line gives the candidate
// recall (hinteval.CandidateRecall): the share of prompts whose expected actions the ranking
// considers at all, which bounds hit@all whatever the weights.
//
//	go run ./examples/selection -catalog ../shared/catalog/composio-actions.jsonl \
//	    -eval ../shared/eval/dev-queries.jsonl [-misses] [-json] [-cv] [-fit -out hint/weights.json] \
//	    [-train hint/hinteval/testdata/unseen.jsonl] [-replay] [-repeat hint/hinteval/testdata/unseen2.jsonl]
//
// -sets DIR scores every labelled set under DIR (each queries*.jsonl with its folder's
// catalogue.jsonl, or -catalog for a folder without one, as ../shared/eval's dev set) and
// prints one table: the ranking's hit@1, hit@5, hit@all, MRR, mean listed, how often it is
// confident and then right, and p50 latency, beside BM25's. With -fit it fits the weights on
// all the sets (at most -set-cap cases of each, each set weighing the same, the hint's
// confidence calibrated on three held-out folds) and writes them to -out: the package's
// shipped weights are made this way. With -lodo it leaves one dataset out at a time: fits
// on the others, scores it.
//
//	go run ./examples/selection -sets ../shared/eval -catalog ../shared/catalog/composio-actions.jsonl [-fit -out hint/weights.json | -lodo]
//
// The shipped weights: -sets ../shared/eval -catalog … -train hint/hinteval/testdata/unseen.jsonl
// -catalog-weight 3 -above-baseline 1 -fit (the Composio sets count three times as much as
// each other set, and a set below BM25's hit@5 costs the fit its shortfall), the last fit
// moving only the fusion and whole-prompt weights (-fit-only fuse_single,fuse_multi,
// fuse_many,prompt_bm25f,bm25f,bm25f_top,recall_only,prompt_app,app_focus), and the usage
// weights set where the replay (-replay) shows use costs no request its first place and a
// workspace's record still reorders siblings (TestUsageReorders).
//
// -replay adds the usage replay (hinteval.Replay): for each app-grouped fold, the expected
// actions of the other folds' prompts are recorded as one workspace's successful calls, and
// the fold is scored without and with usage priors; it prints one line, the hit@1 gain, its
// ceiling (the prompts whose top action is wrong and whose expected action another prompt
// used) and the hit@5 change on prompts whose expected actions were never used.
// -repeat FILES adds the repeat check (hinteval.RepeatCheck) on -eval and FILES
// (comma-separated; "-" for -eval alone): for each request whose hint does not name an
// expected action first, one (then three) successful calls of it from the request are
// recorded in the request's own workspace and the request is asked again; it prints, per
// file and for all, how often the expected action then comes first, leaks to another
// workspace, right hints broken by another action's unrelated use, and what failed calls do.
// With -fit, -repeat FILES instead fits the weights of repeats alone (hinteval.FitRepeat) in the
// repeat check's setting on -eval's requests (and -train's), then runs the check on FILES,
// kept out of the fit, with the shipped weights and with the fitted ones; it writes the
// fitted weights to -out only when those held-out figures meet the repeat bar (80% right
// first after one call, 90% after three, no leak, at most 2% of right hints broken):
//
//	go run ./examples/selection -eval ../shared/eval/dev-queries.jsonl -fit \
//	    -repeat hint/hinteval/testdata/unseen2.jsonl -out hint/weights.json
//
// -weights FILE scores with the weights in FILE (as -fit writes them) instead of the shipped
// ones, without a rebuild: the way to compare a fit's weights before shipping them.
//
// -cv adds the app-grouped 5-fold cross-validation: weights are fitted on four folds' apps
// and the fifth is scored, for each fold; these are the figures that predict unseen apps.
// -fit fits the weights on all the cases (and -train's) and writes them to -out; the
// package's shipped weights are made this way, with -train naming the project's own sets
// (several files, separated by commas).
//
// -embed-url and -embed-model add the semantic tier with an OpenAI-compatible embeddings
// API (Ollama: -embed-url http://localhost:11434/v1 -embed-model nomic-embed-text): the
// catalogue is embedded first, then every figure (and -fit, -cv) includes it.
// -embed-key-env names the environment variable holding the API key, when it needs one.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/embedding"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/hint/hinteval"
)

var (
	missAt     int
	explain    string
	cv, fit    bool
	replay     bool
	repeat     string
	ablate     bool
	out, train string

	embedURL, embedModel, embedKeyEnv string

	sets        string
	setCap      int
	fitOnly     string
	lodo        bool
	ownW        float64
	floorW      float64
	weightsPath string
)

func main() {
	catalog := flag.String("catalog", os.Getenv("TOOLHINT_CATALOG"), "catalogue JSONL (default $TOOLHINT_CATALOG)")
	eval := flag.String("eval", os.Getenv("TOOLHINT_EVAL"), "labelled queries JSONL (default $TOOLHINT_EVAL)")
	misses := flag.Bool("misses", false, "list the cases whose expected actions are not all within -miss-at")
	flag.IntVar(&missAt, "miss-at", 5, "rank beyond which -misses lists a case")
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.StringVar(&explain, "explain", "", "print the hint and its explanations for the case with this id")
	flag.BoolVar(&cv, "cv", false, "also run the app-grouped 5-fold cross-validation (weights fitted per fold)")
	flag.BoolVar(&replay, "replay", false, "also run the usage replay: per app-grouped fold, the other folds' expected actions are recorded as a workspace's calls and the fold is scored with usage priors")
	flag.StringVar(&repeat, "repeat", "", "also run the repeat check (hinteval.RepeatCheck) on -eval and these more labelled files (comma-separated): one successful call of a missed request's expected action in its workspace, then the same request again")
	flag.BoolVar(&fit, "fit", false, "fit the weights on all the cases and write them to -out")
	flag.StringVar(&out, "out", "", "where -fit writes the weights (JSON)")
	flag.BoolVar(&ablate, "ablate", false, "cross-validate once per knowledge source with its weights held at zero (slow)")
	flag.StringVar(&embedURL, "embed-url", "", "an OpenAI-compatible embeddings API root, e.g. http://localhost:11434/v1: adds the semantic tier")
	flag.StringVar(&embedModel, "embed-model", "", "the embedding model (with -embed-url)")
	flag.StringVar(&embedKeyEnv, "embed-key-env", "", "the environment variable holding the embeddings API key, if it needs one")
	flag.StringVar(&train, "train", "", "more labelled cases (JSONL files, comma-separated) that -fit and -cv learn from but never score, e.g. hint/hinteval/testdata/unseen.jsonl")
	flag.StringVar(&sets, "sets", "", "score every labelled set under this folder (e.g. ../shared/eval: its queries files with their folder's catalogue.jsonl, or -catalog) and print one table, ranking beside BM25")
	flag.BoolVar(&lodo, "lodo", false, "with -sets: leave one dataset out: fit on the other datasets, score the one left out, for each (slow)")
	flag.Float64Var(&ownW, "catalog-weight", 1, "with -sets -fit: the weight in the fit of each set on -catalog (and each -train file), where every other set weighs 1")
	flag.Float64Var(&floorW, "above-baseline", 0, "with -sets -fit or -lodo: what each unit of hit@5 by which a set falls below BM25's costs the fit's objective (0: nothing)")
	flag.StringVar(&weightsPath, "weights", "", "score with the weights in this JSON file (as -fit writes them) instead of the shipped ones")
	flag.StringVar(&fitOnly, "fit-only", "", "with -sets -fit: fit only these weights (comma-separated), from the shipped ones, and the calibration")
	flag.IntVar(&setCap, "set-cap", 400, "with -sets -fit: at most this many cases of each set, evenly spaced, are fitted on")
	flag.Parse()
	if sets != "" {
		if err := runSets(sets, *catalog, *asJSON); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if *catalog == "" || *eval == "" {
		fmt.Fprintln(os.Stderr, "selection: -catalog and -eval are required")
		os.Exit(2)
	}
	if err := run(*catalog, *eval, *misses, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// loadCatalog loads the catalogue at path into a new memory store the one way
// (cache.ImportJSONLWithOptions: cache.ImportJSONL with progress), reporting its progress
// on stderr.
func loadCatalog(ctx context.Context, path string) (*cache.Memory, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st := cache.NewMemory()
	_, err = cache.ImportJSONLWithOptions(ctx, st, f, cache.ImportOptions{
		Progress: func(p cache.ImportProgress) {
			fmt.Fprintf(os.Stderr, "\rselection: importing %s: %d actions of %d apps", filepath.Base(path), p.Actions, p.Apps)
		},
	})
	fmt.Fprintln(os.Stderr)
	if err != nil {
		return nil, fmt.Errorf("importing %s: %w", path, err)
	}
	return st, nil
}

func run(catalog, eval string, misses, asJSON bool) error {
	ctx := context.Background()
	st, err := loadCatalog(ctx, catalog)
	if err != nil {
		return err
	}
	cases, err := hinteval.ReadCasesFile(eval)
	if err != nil {
		return err
	}
	cfg, err := semanticConfig(ctx, st)
	if err != nil {
		return err
	}
	if cfg.Weights, err = readWeights(); err != nil {
		return err
	}
	builder := hint.New(cfg)
	if explain != "" {
		for _, c := range cases {
			if c.ID != explain {
				continue
			}
			res, err := builder.Build(ctx, st, hint.Request{AgentID: 1, Prompt: c.Prompt, Apps: c.Apps, RecipeMode: c.Mode == "recipe"})
			if err != nil {
				return err
			}
			fmt.Printf("%s %q\nexpect %v\nstrategy %s capabilities %v\n", c.ID, c.Prompt, c.Expect, res.Strategy, res.Capabilities)
			for _, m := range res.Matches {
				fmt.Printf("  %-60s step %d score %6.3f tier %s terms %v caps %v\n", m.Action, m.Step, m.Score, m.Tier, m.Terms, m.Capabilities)
			}
			fmt.Println(res.Text)
			return nil
		}
		return fmt.Errorf("selection: no case %q", explain)
	}
	var extra []hinteval.Case
	for _, path := range strings.Split(train, ",") {
		if path == "" {
			continue
		}
		more, err := hinteval.ReadCasesFile(path)
		if err != nil {
			return err
		}
		extra = append(extra, more...)
	}
	if ablate {
		return runAblation(ctx, st, cases, extra)
	}
	if fit && repeat != "" {
		return fitRepeat(ctx, st, cases, extra)
	}
	if fit && replay {
		// Only the usage weights, in the replay setting; the lexical ones stay.
		w, frep, err := hinteval.FitUsage(ctx, st, append(slices.Clip(cases), extra...), nil, hinteval.ReplayOptions{})
		if err != nil {
			return err
		}
		return writeWeights(w, frep)
	}
	if fit {
		w, frep, err := hinteval.Fit(ctx, st, append(slices.Clip(cases), extra...), hinteval.FitOptions{Config: cfg})
		if err != nil {
			return err
		}
		return writeWeights(w, frep)
	}
	rep, err := hinteval.Run(ctx, st, cases, hinteval.Options{Builder: builder})
	if err != nil {
		return err
	}
	if cv {
		cvr, err := hinteval.CrossValidate(ctx, st, cases, hinteval.CVOptions{Fit: hinteval.FitFolds(st, hinteval.FitOptions{Config: cfg}), Extra: extra})
		if err != nil {
			return err
		}
		fmt.Println("app-grouped 5-fold cross-validation (weights fitted on the other folds' apps):")
		cvr.Print(os.Stdout)
		fmt.Printf("in-sample hit@5 minus cross-validated: %.3f\n\n", rep.Overall.Hit5-cvr.Overall.Hit5)
		fmt.Println("in-sample (the shipped weights):")
	}
	if asJSON {
		out := rep
		out.Outcomes = nil
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(b))
		return nil
	}
	rep.Print(os.Stdout)
	recall, err := hinteval.CandidateRecall(ctx, st, cases, hinteval.Options{Builder: builder})
	if err != nil {
		return err
	}
	recall.Print(os.Stdout)
	if replay {
		rr, err := hinteval.Replay(ctx, st, cases, hinteval.ReplayOptions{})
		if err != nil {
			return err
		}
		rr.Print(os.Stdout)
	}
	if repeat != "" {
		if err := runRepeat(ctx, st, eval, cases); err != nil {
			return err
		}
	}
	if misses {
		fmt.Printf("\ncases with an expected action outside the top %d:\n", missAt)
		for _, o := range rep.Outcomes {
			miss := false
			for _, r := range o.Ranks {
				if r == 0 || r > missAt {
					miss = true
				}
			}
			if !miss && !(o.DestructiveListed && !o.Case.DestructiveIntent) {
				continue
			}
			if o.DestructiveListed && !o.Case.DestructiveIntent {
				fmt.Print("[destructive listed] ")
			}
			top := o.Listed
			if len(top) > 6 {
				top = top[:6]
			}
			fmt.Printf("%s [%s/%s] %q\n  ranks %v  listed %s\n  expect %v\n", o.Case.ID, o.Case.Kind, o.Case.Mode,
				o.Case.Prompt, o.Ranks, strings.Join(top, " "), o.Case.Expect)
		}
	}
	return nil
}

// runRepeat prints the repeat check of the eval set (its cases, read already) and of each of
// -repeat's files, and of all of them together.
func runRepeat(ctx context.Context, st *cache.Memory, eval string, cases []hinteval.Case) error {
	files, err := readFiles(strings.Split(repeat, ","))
	if err != nil {
		return err
	}
	files = append([]labelledFile{{name: filepath.Base(eval), cases: cases}}, files...)
	_, err = repeatFiles(ctx, st, files, hinteval.RepeatOptions{}, "")
	return err
}

// labelledFile is the cases of one labelled file, named by its base name.
type labelledFile struct {
	name  string
	cases []hinteval.Case
}

// readFiles reads each labelled file of paths ("" and "-" skipped).
func readFiles(paths []string) ([]labelledFile, error) {
	var out []labelledFile
	for _, path := range paths {
		if path == "" || path == "-" {
			continue
		}
		cs, err := hinteval.ReadCasesFile(path)
		if err != nil {
			return nil, err
		}
		out = append(out, labelledFile{name: filepath.Base(path), cases: cs})
	}
	return out, nil
}

// repeatFiles prints the repeat check of each file, behind prefix, and of all of them; it
// returns the total.
func repeatFiles(ctx context.Context, st *cache.Memory, files []labelledFile, opt hinteval.RepeatOptions, prefix string) (hinteval.RepeatReport, error) {
	var total hinteval.RepeatReport
	for _, f := range files {
		rep, err := hinteval.RepeatCheck(ctx, st, f.cases, opt)
		if err != nil {
			return total, err
		}
		rep.Print(os.Stdout, prefix+f.name)
		total = total.Add(rep)
	}
	total.Print(os.Stdout, prefix+"all")
	return total, nil
}

// fitRepeat fits the usage weights in the repeat check's setting on -eval's cases (and
// -train's), scores -repeat's files, held out of the fit, with the shipped and with the
// fitted weights, and writes the fitted ones to -out only when the held-out figures meet the
// repeat bar.
func fitRepeat(ctx context.Context, st *cache.Memory, cases, extra []hinteval.Case) error {
	w, frep, err := hinteval.FitRepeat(ctx, st, append(slices.Clip(cases), extra...), hinteval.RepeatFitOptions{})
	if err != nil {
		return err
	}
	fmt.Printf("fit (repeat setting): %d cases, objective %.4f (start %.4f), %d passes:", frep.Cases, frep.Objective, frep.Start, frep.Passes)
	for _, n := range hinteval.UsageWeightNames() {
		v, _ := w.Get(n)
		fmt.Printf(" %s %g", n, v)
	}
	fmt.Println()
	held, err := readFiles(strings.Split(repeat, ","))
	if err != nil {
		return err
	}
	if _, err := repeatFiles(ctx, st, held, hinteval.RepeatOptions{}, "held out, shipped weights: "); err != nil {
		return err
	}
	total, err := repeatFiles(ctx, st, held, hinteval.RepeatOptions{Config: hint.Config{Weights: &w}}, "held out, fitted weights: ")
	if err != nil {
		return err
	}
	if !total.Meets() {
		fmt.Println("the held-out figures with the fitted weights miss the repeat bar: nothing written")
		return nil
	}
	return writeWeights(w, frep)
}

// runSets prints the table of every set under dir.
func runSets(dir, catalog string, asJSON bool) error {
	ctx := context.Background()
	found, err := hinteval.FindSets(dir, catalog)
	if err != nil {
		return err
	}
	if len(found) == 0 {
		return fmt.Errorf("selection: no labelled sets under %s", dir)
	}
	if !fit && !lodo {
		return printSets(ctx, found, asJSON)
	}
	groups, stores, err := labelledSets(ctx, found, catalog)
	if err != nil {
		return err
	}
	// -train's files are more requests on -catalog, fitted on (and calibrated on) beside
	// the sets, each weighing as one set.
	if fit && train != "" {
		st, ok := stores[catalog]
		if !ok {
			if st, err = loadCatalog(ctx, catalog); err != nil {
				return err
			}
		}
		for _, path := range strings.Split(train, ",") {
			cases, err := hinteval.ReadCasesFile(path)
			if err != nil {
				return err
			}
			groups = append(groups, hinteval.Labelled{Store: st, Cases: spaced(cases, setCap), Weight: ownW, Calibrate: true})
		}
	}
	if fit {
		// Usage and semantic similarity are zero on these sets: their weights keep the
		// shipped values (fitted in the replay setting, or by a host for its model).
		start, kept := hint.NeutralWeights(), append(hinteval.UsageWeightNames(), "semantic")
		if fitOnly != "" {
			// Only the named weights move, from the shipped ones; the calibration is fitted
			// again for them.
			start, kept = hint.DefaultWeights(), nil
			only := strings.Split(fitOnly, ",")
			for _, name := range hint.WeightNames() {
				if !slices.Contains(only, name) {
					kept = append(kept, name)
				}
			}
		}
		for _, name := range kept {
			v, _ := hint.DefaultWeights().Get(name)
			start = start.With(name, v)
		}
		w, frep, err := hinteval.FitSets(ctx, groups, hinteval.FitOptions{Start: &start, Freeze: kept, CalibrationFolds: 3, AboveBaseline: floorW})
		if err != nil {
			return err
		}
		return writeWeights(w, frep)
	}
	return leaveOneOut(ctx, found, groups)
}

// printSets prints the table of every set found, or its JSON.
func printSets(ctx context.Context, found []hinteval.Set, asJSON bool) error {
	w, err := readWeights()
	if err != nil {
		return err
	}
	reps, err := hinteval.RunSets(ctx, found, hinteval.Options{Builder: hint.New(hint.Config{Weights: w})})
	if err != nil {
		return err
	}
	if asJSON {
		b, err := json.MarshalIndent(reps, "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(b))
		return nil
	}
	hinteval.PrintSets(os.Stdout, reps)
	return nil
}

// labelledSets loads every set's catalogue (once each, returned by path) and cases: at most -set-cap of each,
// every set weighing the same in a fit, the sets of catalog (the Composio catalogue) the
// ones the hint's confidence is calibrated on.
func labelledSets(ctx context.Context, found []hinteval.Set, catalog string) ([]hinteval.Labelled, map[string]*cache.Memory, error) {
	var groups []hinteval.Labelled
	stores := map[string]*cache.Memory{}
	for _, s := range found {
		st, ok := stores[s.Catalog]
		if !ok {
			var err error
			if st, err = loadCatalog(ctx, s.Catalog); err != nil {
				return nil, nil, err
			}
			stores[s.Catalog] = st
		}
		cases, err := hinteval.ReadCasesFile(s.Queries)
		if err != nil {
			return nil, nil, err
		}
		// The hint's confidence is calibrated on the sets of -catalog: Composio requests.
		w := 1.0
		if s.Catalog == catalog {
			w = ownW
		}
		groups = append(groups, hinteval.Labelled{Store: st, Cases: spaced(cases, setCap), Weight: w, Calibrate: s.Catalog == catalog})
	}
	return groups, stores, nil
}

// leaveOneOut fits, for each dataset (a set's folder: the variants of one benchmark go
// together), weights on the other datasets' cases and scores the dataset's sets with them.
func leaveOneOut(ctx context.Context, found []hinteval.Set, groups []hinteval.Labelled) error {
	dataset := func(s hinteval.Set) string { return filepath.Dir(s.Queries) + "|" + s.Catalog }
	var reps []hinteval.SetReport
	done := map[string]bool{}
	for _, s := range found {
		d := dataset(s)
		if done[d] {
			continue
		}
		done[d] = true
		var train []hinteval.Labelled
		var held []int
		for i, o := range found {
			if dataset(o) == d {
				held = append(held, i)
			} else {
				train = append(train, groups[i])
			}
		}
		w, _, err := hinteval.FitSets(ctx, train, hinteval.FitOptions{AboveBaseline: floorW})
		if err != nil {
			return err
		}
		opt := hinteval.Options{Builder: hint.New(hint.Config{Weights: &w})}
		for _, i := range held {
			r, err := hinteval.RunSet(ctx, groups[i].Store, found[i], opt)
			if err != nil {
				return err
			}
			reps = append(reps, r)
		}
	}
	fmt.Println("leave one dataset out (each scored with weights fitted on the others):")
	hinteval.PrintSets(os.Stdout, reps)
	return nil
}

// spaced returns at most n of cases, evenly spaced.
func spaced(cases []hinteval.Case, n int) []hinteval.Case {
	if n <= 0 || len(cases) <= n {
		return cases
	}
	out := make([]hinteval.Case, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, cases[i*len(cases)/n])
	}
	return out
}

// writeWeights prints what a fit did and writes the weights to -out (stdout without it).
func writeWeights(w hint.Weights, frep hinteval.FitReport) error {
	b, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return err
	}
	fmt.Printf("fit: %d cases, objective %.4f (start %.4f), %d passes\n", frep.Cases, frep.Objective, frep.Start, frep.Passes)
	if out == "" {
		fmt.Println(string(b))
		return nil
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}

// ablations are the knowledge sources whose contribution -ablate measures, each by the
// weights that carry it.
var ablations = []struct {
	name    string
	weights []string
}{
	{"none (all sources)", nil},
	{"WordNet synonyms", []string{"synonym_key", "synonym_desc"}},
	{"WordNet derivations, attributes, entailments", []string{"derived_key", "derived_desc"}},
	{"WordNet hypernyms", []string{"hypernym_key", "hypernym_desc"}},
	{"context (earlier steps, app main objects as terms, capability objects)", []string{"context_key", "context_desc"}},
	{"app objects (share and main objects, from slugs)", []string{"app_object", "main_object"}},
	{"app self-descriptions", []string{"app_desc"}},
	{"capabilities (taxonomy)", []string{"capability", "capability_other"}},
}

func runAblation(ctx context.Context, st *cache.Memory, cases, extra []hinteval.Case) error {
	fmt.Println("app-grouped 5-fold cross-validation with one knowledge source's weights held at zero:")
	fmt.Printf("%-72s %6s %7s %6s\n", "without", "hit@5", "hit@all", "MRR")
	for _, a := range ablations {
		start := hint.NeutralWeights()
		for _, n := range a.weights {
			start = start.With(n, 0)
		}
		opt := hinteval.FitOptions{Start: &start, Freeze: a.weights}
		rep, err := hinteval.CrossValidate(ctx, st, cases, hinteval.CVOptions{Fit: hinteval.FitFolds(st, opt), Extra: extra})
		if err != nil {
			return err
		}
		o := rep.Overall
		fmt.Printf("%-72s %6.3f %7.3f %6.3f\n", a.name, o.Hit5, o.HitAll, o.MRR)
	}
	return nil
}

// readWeights returns the weights of -weights, nil (the shipped ones) without it.
func readWeights() (*hint.Weights, error) {
	if weightsPath == "" {
		return nil, nil
	}
	b, err := os.ReadFile(weightsPath)
	if err != nil {
		return nil, err
	}
	var w hint.Weights
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("%s: %w", weightsPath, err)
	}
	return &w, nil
}

// semanticConfig returns the Builder configuration: with -embed-url, an embedder whose
// vectors of the catalogue's actions it computes first.
func semanticConfig(ctx context.Context, st *cache.Memory) (hint.Config, error) {
	if embedURL == "" {
		return hint.Config{}, nil
	}
	c, err := embedding.New(embedding.Config{BaseURL: embedURL, Model: embedModel, APIKey: os.Getenv(embedKeyEnv)})
	if err != nil {
		return hint.Config{}, err
	}
	rep, err := hint.EmbedCatalog(ctx, st, c, hint.EmbedOptions{
		BatchSize: 128,
		Progress: func(p hint.EmbedReport) {
			fmt.Fprintf(os.Stderr, "\rselection: embedding: %d embedded, %d current, of %d looked at", p.Embedded, p.Current, p.Actions)
		},
	})
	fmt.Fprintln(os.Stderr)
	if err != nil {
		return hint.Config{}, err
	}
	fmt.Fprintf(os.Stderr, "selection: embedded %d actions in %d calls\n", rep.Embedded, rep.Batches)
	return hint.Config{Embedder: c, EmbedTimeout: 10 * time.Second}, nil
}
