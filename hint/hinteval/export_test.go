package hinteval

import (
	"context"

	"github.com/toolhint/toolhint/hint"
)

// Objective is the fit's objective of w over groups with opt, for the package's tests.
func Objective(ctx context.Context, groups []Labelled, opt FitOptions, w hint.Weights) (float64, error) {
	opt.Start = &w
	f, err := newFitter(ctx, groups, opt)
	if err != nil {
		return 0, err
	}
	return f.objective(w), nil
}
