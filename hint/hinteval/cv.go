package hinteval

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Fold is one part of an app-grouped split: the apps it holds and the cases it scores.
// It is plain data.
type Fold struct {
	Apps  []string `json:"apps"`  // lower case, sorted
	Cases []string `json:"cases"` // the ids of the cases scored in this fold
	Train int      `json:"train"` // cases the fold's model was fitted on
}

// CVOptions configure CrossValidate. It is plain data but for Fit.
type CVOptions struct {
	// K is the number of folds. Optional. Defaults to 5.
	K int
	// Fit returns the options (in practice the Builder) that score a held-out fold, learnt
	// from the training cases alone. Optional: nil scores every fold with Options, so the
	// cross-validated figures equal the in-sample ones (nothing is learnt).
	Fit func(ctx context.Context, train []Case) (Options, error)
	// Options score the folds when Fit is nil, and give the baseline depth.
	Options Options
	// Extra are more labelled cases to learn from, never scored: each fold's training set
	// also holds those of them none of whose expected actions belongs to a fold app.
	// Optional.
	Extra []Case
}

// CVReport is the outcome of CrossValidate: the held-out outcomes of every fold pooled
// into one Report, and the folds. It is plain data.
type CVReport struct {
	Report
	Folds []Fold `json:"folds"`
}

// CrossValidate measures selection on apps the ranking learnt nothing from. The apps of
// the cases' expected actions are split into K folds of about equal case counts; a case
// belongs to the fold of the app of its first expected action. Each fold is scored with
// what Fit learns from the training cases: every case none of whose expected actions
// belongs to a fold app. Every case is scored exactly once.
func CrossValidate(ctx context.Context, st Store, cases []Case, opt CVOptions) (CVReport, error) {
	k := opt.K
	if k <= 0 {
		k = 5
	}
	folds, of := AppFolds(cases, k)
	var out CVReport
	var outcomes []Outcome
	for f := range folds {
		var test, train []Case
		for i, c := range cases {
			switch {
			case of[i] == f:
				test = append(test, c)
			case !touches(c, folds[f].Apps):
				train = append(train, c)
			}
		}
		for _, c := range opt.Extra {
			if !touches(c, folds[f].Apps) {
				train = append(train, c)
			}
		}
		folds[f].Train = len(train)
		o := opt.Options
		if opt.Fit != nil {
			var err error
			if o, err = opt.Fit(ctx, train); err != nil {
				return CVReport{}, fmt.Errorf("hinteval: fitting fold %d: %w", f+1, err)
			}
		}
		if o.BaselineDepth == 0 {
			o.BaselineDepth = opt.Options.BaselineDepth
		}
		rep, err := Run(ctx, st, test, o)
		if err != nil {
			return CVReport{}, err
		}
		outcomes = append(outcomes, rep.Outcomes...)
	}
	// Pool in the cases' own order, so reports compare line by line with Run's.
	pos := make(map[string]int, len(cases))
	for i, c := range cases {
		pos[c.ID] = i
	}
	slices.SortStableFunc(outcomes, func(a, b Outcome) int { return pos[a.Case.ID] - pos[b.Case.ID] })
	out.Report = summarizeAll(outcomes)
	out.Folds = folds
	return out, nil
}

// AppFolds splits cases into k app-grouped folds. It returns the folds and, per case, the
// index of its fold. Apps are ordered by how many cases they lead (ties by name) and each
// goes to the fold with the fewest cases so far, so the split is deterministic.
func AppFolds(cases []Case, k int) ([]Fold, []int) {
	lead := map[string]int{}
	primary := make([]string, len(cases))
	for i, c := range cases {
		apps := expectedApps(c)
		if len(apps) > 0 {
			primary[i] = apps[0]
			lead[apps[0]]++
		}
	}
	var apps []string
	for a := range lead {
		apps = append(apps, a)
	}
	slices.SortFunc(apps, func(a, b string) int {
		if lead[a] != lead[b] {
			return lead[b] - lead[a]
		}
		return strings.Compare(a, b)
	})
	folds := make([]Fold, k)
	size := make([]int, k)
	fold := map[string]int{}
	for _, a := range apps {
		f := 0
		for j := 1; j < k; j++ {
			if size[j] < size[f] {
				f = j
			}
		}
		fold[a] = f
		size[f] += lead[a]
		folds[f].Apps = append(folds[f].Apps, a)
	}
	of := make([]int, len(cases))
	for i, c := range cases {
		of[i] = fold[primary[i]]
		folds[of[i]].Cases = append(folds[of[i]].Cases, c.ID)
	}
	for f := range folds {
		slices.Sort(folds[f].Apps)
	}
	return folds, of
}

// expectedApps returns the apps of a case's expected actions, in order of first use: for
// each slug, the longest of the case's apps that prefixes it.
func expectedApps(c Case) []string {
	var out []string
	for _, g := range c.Expect {
		for _, slug := range g {
			if a := appOf(slug, c.Apps); a != "" && !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

func appOf(slug string, apps []string) string {
	best := ""
	s := strings.ToLower(slug)
	for _, a := range apps {
		a = strings.ToLower(a)
		if strings.HasPrefix(s, a+"_") && len(a) > len(best) {
			best = a
		}
	}
	return best
}

// touches reports whether any expected action of c belongs to one of apps.
func touches(c Case, apps []string) bool {
	for _, a := range expectedApps(c) {
		if slices.Contains(apps, a) {
			return true
		}
	}
	return false
}
