// Package hint builds the system-message hint an agent framework injects before a model turn:
// from a prompt and an agent's (or workspace's) apps, it names the few catalogue actions that
// fit, best first, with parameter hints for the top ones.
//
// [Build] resolves the apps the agent may use (its active assignments; when it has none, the
// apps connected to its workspace; [Request.Apps] overrides both), analyses the prompt into
// clauses (one per step it asks for) and ranks the action metadata of those apps for each,
// in two stages:
//
//   - recall: a field-weighted BM25 (BM25F) over every allowed action that shares a word
//     with the clause — its key words (slug words without the app prefix, display name),
//     description, parameter names and its app's name — with IDF and field lengths taken
//     from the actions in scope. The clause's best forty are candidates whatever else
//     says; so are the actions that match what the clause acts on (its own words or their
//     expansions), one of its specific capabilities (message.send, issue.create, … through
//     the taxonomy of package cache), or, for an app the clause names, the clause's verb.
//     The only hard filters are permissions and the destructive rule: destructive actions
//     are considered only for a clause that asks to delete, remove, archive or cancel, and
//     only when they do that.
//   - ordering: each candidate is described by a few dozen features — its BM25F score
//     relative to the clause's best, IDF-weighted matches by field (slug words, display
//     name, description) and by where the matched word comes from (the prompt itself, a
//     WordNet synonym, derivation or hypernym, the context), the intent verb against the
//     action's main verb, capability agreement, list-versus-get fit, the app the clause
//     names, how central the clause's object is to the app, the app's own description,
//     the clause's words that only the app's name holds (an app called "Melon love
//     quotes" for a request for love quotes: its actions' slugs leave the name out),
//     slug words the prompt does not explain (a number or a version such as "v2" is no word
//     to explain), and whether only recall found it — and
//     scored as the dot product of the features with [Weights]. The shipped weights
//     ([DefaultWeights], weights.json) are fitted by hint/hinteval across catalogues: the
//     labelled Composio requests and public tool-selection sets of other catalogues.
//
// A clause that names an app lists that app's actions before any other app's, and a hint
// whose top action belongs to an app other than the one named is never confident. Clauses'
// lists are interleaved, the clauses whose best actions score near the best clause's first
// (a sentence that sets the scene does not lead the hint); steps a prompt implies (finding
// the draft it asks to send) follow; a hint that is not sure of a one-step request, or that
// serves several steps, is then filled up to twelve actions from BM25F over the whole
// prompt, so that it never misses what a plain lexical ranking would find (one that is
// sure, up to three: what a request needs first is often beside the action it asks for).
// [Result.Probability] is the calibrated probability that the first action is right (a
// logistic function of its score, its lead, and whether its app is named, recall alone
// found it and BM25F agrees, fitted on held-out folds); the hint is confident, and says "You MUST call", from a threshold chosen for
// precision on held-out folds, unless its first action is the only candidate of its app
// (a catalogue of one action per app), where that probability reads surer than it is.
// Strategies: capability and token_filtered (the tier of the top action), recipe_token in
// recipe mode (no candidate gate), and fallback when nothing fits: then the hint lists no
// action and says so, with the apps in scope.
//
// A hint names no tool the model was not given. Only when the host says the model has a
// search meta-tool ([Config.SearchTool] or [Request.SearchTool], such as the router's
// [SearchTool]) does a hint that is not sure point the model at it; [Result.MetaTools] then
// lists it, and registry.Resolver.HintTools gives the model the hint's actions and those
// meta-tools in one call.
//
// The open-class knowledge the analysis uses — synonyms, derivations, phrasal verbs, app
// aliases, abbreviations, an app's main objects and self-description — comes from general
// sources, never written word by word: WordNet, compiled in, and the catalogue itself. A store
// that keeps its catalogue's knowledge ([cache.KnowledgeStore]: *cache.Memory and
// *cache.Postgres compute it whenever a write changes the catalogue's apps or actions) gives
// its vocabulary, app aliases and app self-descriptions: each Build reads the knowledge's
// version, and a Builder swaps to an analyser over the new knowledge when it changes, so apps
// a sync brings, a host's own tools and any other catalogue are named and described by their
// own words. A store without it, or an app its knowledge says nothing of, gets the table
// compiled from one Composio snapshot. Only closed word classes (stop words, prepositions,
// time words, verb classes) are written by hand.
//
// Every listed action carries an explanation ([Match]); [Result.Reason] says why the hint is
// or is not confident. Only a confident hint says "You MUST call"; the others say that none
// of the actions is a sure match. [Builder.Trace] exposes the part of a Build that does not
// depend on the weights, so that weights can be fitted quickly.
//
// A request that leaves no usable app (an agent without active assignments, a workspace
// without an active connection to an enabled app) is an error wrapping [ErrNoApps] that
// says which, never an empty hint the host could mistake for "nothing matched".
//
// Build fails closed: when a store read that decides what the agent may use (assignments,
// connections, tool configs) or the action metadata fails, it returns an error wrapping
// [ErrStoreUnavailable] and the store's error, never a hint that might list an app or an
// action the workspace does not allow. A host that would rather go on without a hint opts
// in with [Request.Degrade] (or [Config.Degrade]) and gets a hint limited to what is
// certainly allowed, with [Result.Degraded] saying why. A panic while ranking is logged through
// the optional *slog.Logger and the hint says nothing matched.
//
// Two optional tiers serve hosts that have models of their own. With an [Embedder]
// ([Config.Embedder]; package embedding has one for OpenAI-compatible endpoints) each Build
// embeds the prompt's clauses in one call and compares them with the action vectors
// [EmbedCatalog] stored (cache.VectorStore); the similarity is a feature of the ranking, and
// the most similar actions may be listed though they share no word with the prompt. A
// [Reranker] ([Config.Reranker]) re-orders the first few actions of a hint that is not
// confident. Each runs under its own deadline; when one fails or runs out of time the hint
// is the lexical one and [Result.Fallbacks] says why. Without them nothing changes.
//
// [Identity] says who a turn is for (agent, workspace, Composio user, apps). It is the one
// identity type of the library: a host builds one per turn, asks for a hint with
// [Identity.Request], and passes the same value as registry.Subject and executor.Scope's
// Identity; [Request.Identity] goes the other way.
//
// Hints can learn from use ([Config.Usage], [UsageConfig]): for a request with a
// workspace, features of the ordering come from the workspace's record of use (package
// cache, written by executor.UsageRecorder): how the workspace's calls of each action went
// (recent ones weighing more, failures counting against; only where much of the clause's
// words led to the action), how much of the clause's term weight earlier calls with the same
// terms ([PromptTerms]) led to it, and whether the request repeats earlier successful calls
// of it. A near repeat (most of the request's IDF-weighted terms shared with an earlier
// call's) gets a strong prior; an exact repeat is listed first and may make the hint
// confident ([Result.Probability] at least 0.9 times how surely it repeats). Such actions
// are candidates though they share no word with the request, and are never cut from its
// list; the named-app order and the destructive gate apply to them as to every candidate,
// and [Match.Usage] shows their share of the score. Nothing crosses workspaces. Without a
// record or a workspace, every hint is the lexical one.
//
// An optional [Observer] ([Config.Observer]) sees every Build start and end, with the
// request, the result (strategy, matched actions), the error and the time taken, for
// metrics or tracing; a panic in it is logged and changes nothing.
//
// # How a Build ranks
//
// The ranking runs in stages, each in a file of its own, the data going one way through
// them:
//
//   - analyse (analyse.go) reads the prompt once into clauses, each with its terms, verb and
//     capabilities, and the steps it implies, and keeps the prompt's own words as a plain
//     lexical search reads them;
//   - match (match.go) finds the actions in scope that hold the prompt's terms, field by
//     field;
//   - recall (recall.go) scores those actions by BM25F, for each clause (its terms as the
//     clause weighs them) and for the whole prompt (its own words, each alike);
//   - features (features.go) keeps each clause's candidates and describes each by its
//     features;
//   - order (order.go) scores the candidates with the [Weights], keeps each clause's best,
//     interleaves the clauses' lists, fuses that list with the whole prompt's ranking, cuts
//     it to the limits and fills a hint that is not sure from that ranking;
//   - calibrate (calibrate.go) gives [Result.Probability] and whether the hint is confident;
//   - render (render.go) writes the text the model reads.
//
// Each stage is a function of its own, taking what the stages before it give; the stages
// up to features are called in order by one function of match.go. They do not depend on
// the weights: [Builder.Trace] keeps what they give, so that weights can be fitted without
// analysing the prompts again.
package hint
