package hint

import (
	"math"
	"slices"

	"github.com/toolhint/toolhint/cache"
)

// Ranking happens in two parts. The first analyses the prompt into clauses, matches every
// candidate action against each clause's terms, keeps the actions that pass the clause's
// gate, and describes each by a vector of features (see weights.go); none of this depends
// on the weights. The second scores each kept action as the dot product of its features
// with the weights, orders and cuts each clause's list, and interleaves the clauses' lists.
// A Trace holds the first part, so that weights can be fitted without analysing again.
//
// Steps a prompt implies come last: a clause that acts on something existing it names by
// kind, not by ID ("send out the draft I wrote"), also lists the best actions that find it.

const maxTerms = 64

// ranking is the weight-independent part of ranking one request.
type ranking struct {
	metas   []cache.ActionMeta
	table   []string
	clauses []clauseInfo
	lists   [][]cand // per clause, then per lookup
	lookups int      // the last lookups entries of clauses are implied lookup steps
	of      []int    // per lookup: the clause it serves
	recipe  bool
	relaxed bool // no action passed the gate: the lists are guesses
	// recall is the whole prompt's BM25F ranking (see promptRecall): what fills a hint
	// after the clauses' lists.
	recall []int32
	caps   []string
	// objectsOf returns an app's main objects.
	objectsOf func(app string) []string
	// explicit are the actions the prompt names by their exact slug, in order: they are
	// listed first, and make the hint confident.
	explicit []int32
	// signals are, per clause (then per implied step), what sources outside the lexical
	// ranking say about actions; nil when there is no source. lifts are, per clause, the
	// actions its signals lift: a short list that spares most candidates a map lookup.
	signals []map[string]signal
	lifts   [][]string
	// priors are, by action, the workspace's decayed record with it (successes count for,
	// failures against; in (-1, 1)), the same for every clause; nil without a record of use.
	priors *priorTable
	// repeats are, by action, how surely the request repeats earlier successful calls of
	// it (see usageModel.repeats); nil without a record of use or when it repeats none.
	repeats map[string]float32
	// outside holds every action any clause's signals or the priors speak of; nil with
	// neither.
	outside *slugSet
}

// rank runs the capability / token tiers (or recipe matching) and fills res.
// src and use, when not nil, are what sources outside the lexical ranking say (see
// rankPrepare).
func (b *Builder) rank(req Request, pa *analysis, metas []cache.ActionMeta, src signalSource, use *usageModel, res *Result) {
	sc, _ := b.pool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	defer b.pool.Put(sc)
	r := b.rankPrepare(req, pa, metas, sc, src, use)
	if r == nil {
		return
	}
	res.Capabilities = r.caps
	hinted := b.fill(r, &b.weights, res)
	b.paramHints(r.promptStems(), metas, hinted, res)
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func appendUniq(ss []string, add ...string) []string {
	for _, s := range add {
		if !slices.Contains(ss, s) {
			ss = append(ss, s)
		}
	}
	return ss
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
