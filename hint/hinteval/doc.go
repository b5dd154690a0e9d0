// Package hinteval measures action selection: it runs hint.Build over labelled prompts
// (the JSON Lines format of the project's tool-selection eval sets) and reports hit@1,
// hit@5, hit@all, MRR, actions listed, strategies, the destructive-listed rate and latency,
// overall and split by kind, mode and app-set size, beside a BM25 ranking over the same apps
// as a baseline.
package hinteval
