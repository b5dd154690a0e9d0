// Package hinteval measures action selection: it runs hint.Build over labelled prompts
// (the JSON Lines format of the project's tool-selection eval sets) and reports hit@1,
// hit@5, hit@all, MRR, actions listed, strategies, the destructive-listed rate, how often the
// hint is confident and how often it is then right, and latency, overall and split by kind,
// mode and app-set size, beside a BM25 ranking over the same apps as a baseline.
//
// [CrossValidate] gives the figures that predict prompts on apps the ranking never learnt
// from: the cases are split into folds by the apps of their expected actions, and each fold
// is scored with weights [Fit] on the other folds only (plus, optionally, extra labelled
// cases that do not touch the fold's apps). [Fit] fits the ranking's weights by coordinate
// ascent; the package's shipped weights are made with it (see examples/selection -fit).
// [CandidateRecall] reports how many cases the ranking can get right at all: those whose
// expected actions are among the actions it considers, which no weights add to.
//
// [Replay] measures usage priors: what recording the other prompts' expected actions as a
// workspace's calls does to each prompt, and the most it could do.
//
// testdata/unseen.jsonl is the project's own labelled set: 200 prompts written by hand from
// the catalogue, 70% of them on apps the shared dev set never uses. It serves as extra
// training data for the fits and as a second measurement. testdata/unseen2.jsonl is a third
// set of 300 prompts, written the same way for yet other apps (96% of its cases expect only
// apps that neither of the other two sets uses); it is meant to be scored (-eval), never
// trained on, so that it stays a measurement of apps the weights never saw.
package hinteval
