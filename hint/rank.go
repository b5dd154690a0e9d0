package hint

import "github.com/toolhint/toolhint/cache"

// A Build ranks in stages, one file each, the data going one way through them; the package
// documentation ("How a Build ranks") lists them. rankPrepare (match.go) runs the stages up
// to features, which do not depend on the weights, and returns a ranking (what a Trace
// keeps); rank runs it for a Build, then order and calibrate (fill), then the parameter
// hints (params.go); Build renders the Result.

// maxTerms bounds the terms of a prompt's table, so that a term is a bit of a uint64.
const maxTerms = 64

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

// ranking is the weight-independent part of ranking one request: what rankPrepare hands
// from the features stage to order.
type ranking struct {
	metas   []cache.ActionMeta
	table   []string
	clauses []clauseInfo
	lists   [][]cand // per clause, then per lookup
	lookups int      // the last lookups entries of clauses are implied lookup steps
	of      []int    // per lookup: the clause it serves
	recipe  bool
	relaxed bool // no action passed the gate: the lists are guesses
	// said holds the table terms that are the prompt's own words (text.Prompt.Words), each
	// as the prompt says it, whatever clause it is in: what the whole prompt's BM25F
	// ranking reads (see promptRecall).
	said uint64
	// saidNames are the terms of said that may name an app: not a verb of the classes nor
	// a time word ("search for art", "right now" name no app called search or now).
	saidNames uint64
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
