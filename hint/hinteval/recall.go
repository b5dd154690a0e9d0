package hinteval

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/hint"
)

// RecallReport is the outcome of CandidateRecall. It is plain data.
type RecallReport struct {
	Cases int `json:"cases"`
	// Overall is the share of cases each of whose expected steps has an action among the
	// actions the ranking considers (hint.Trace.Considered); Kinds is the same per kind.
	Overall float64            `json:"overall"`
	Kinds   map[string]float64 `json:"kinds"`
	// Missed are the ids of the other cases, in the cases' order.
	Missed []string `json:"missed"`
}

// CandidateRecall traces every case and reports how many of them the ranking can get
// right at all: those each of whose expected steps has an action among the considered
// ones. Weights only order and cut what is considered, so Overall bounds hit@all (and
// hit@5) from above whatever the weights: what is missing here is missing knowledge, not
// a badly fitted weight. Options.Builder and WorkspaceOf are used as Run uses them.
func CandidateRecall(ctx context.Context, st Store, cases []Case, opt Options) (RecallReport, error) {
	b := opt.Builder
	if b == nil {
		b = hint.New(hint.Config{})
	}
	rep := RecallReport{Cases: len(cases), Kinds: map[string]float64{}}
	if len(cases) == 0 {
		return rep, nil
	}
	in, n := map[string]int{}, map[string]int{}
	all := 0
	for _, c := range cases {
		req := request(c, opt.WorkspaceOf)
		tr, err := b.Trace(ctx, st, req)
		if err != nil {
			return RecallReport{}, fmt.Errorf("hinteval: case %s: %w", c.ID, err)
		}
		n[c.Kind]++
		if !slices.Contains(ranks(c.Expect, tr.Considered()), 0) {
			in[c.Kind]++
			all++
			continue
		}
		rep.Missed = append(rep.Missed, c.ID)
	}
	rep.Overall = float64(all) / float64(len(cases))
	for k, v := range n {
		rep.Kinds[k] = float64(in[k]) / float64(v)
	}
	return rep, nil
}

// Print writes the report as one line.
func (r RecallReport) Print(w io.Writer) {
	kinds := make([]string, 0, len(r.Kinds))
	for k := range r.Kinds {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	var b strings.Builder
	for i, k := range kinds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.3f", k, r.Kinds[k])
	}
	fmt.Fprintf(w, "candidate recall (every expected step among the actions considered; bounds hit@all for any weights): %.3f on %d cases (%s)\n",
		r.Overall, r.Cases, b.String())
}
