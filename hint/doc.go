// Package hint builds the system-message hint an agent framework injects before a model turn:
// from a prompt and an agent's (or workspace's) apps, it names the few catalogue actions that
// fit, best first, with parameter hints for the top ones.
//
// [Build] resolves the apps the agent may use (its active assignments; when it has none, the
// apps connected to its workspace; [Request.Apps] overrides both), reads the prompt's
// capabilities and terms, and ranks the action metadata of those apps in three tiers:
//
//   - capability: the prompt's specific capabilities (message.send, issue.create, …, read
//     through the taxonomy of package cache) matched against each action's capabilities;
//   - token_filtered: prompt terms matched against slug words, display names and
//     descriptions, with the prompt's object words as a mandatory gate, so an action that
//     only shares the verb ("create" a channel when the prompt sends a message) never
//     competes;
//   - fallback: a few safe actions per app, in name order, when nothing matched (chatbot
//     mode only).
//
// In recipe mode (a curated step instruction) the taxonomy gate is skipped and names weigh
// more (strategy recipe_token). Destructive actions are left out unless the prompt asks to
// delete, remove, archive or cancel, and then only those that match it.
//
// Every listed action carries an explanation ([Match]): its tier, its score, the prompt terms
// it matched and the capabilities it shares with the prompt. The score blends what a
// capability tier weighs (capability match, keyword overlap, the classifier's confidence)
// with the lexical signals that matter most in practice: the verb class, IDF-weighted term
// matches by field (slug words above display name above description), the app the prompt
// names, and a penalty for slug words the prompt does not explain. Prompts that ask for
// several things are split into clauses whose rankings are interleaved.
//
// Build fails closed: when a store read that decides what the agent may use (assignments,
// connections, tool configs) or the action metadata fails, it returns an error wrapping
// [ErrStoreUnavailable] and the store's error, never a hint that might list an app or an
// action the workspace does not allow. A host that would rather go on without a hint opts
// in with [Request.Degrade] (or [Config.Degrade]) and gets a hint limited to what is
// certainly allowed, with [Result.Degraded] saying why. A panic in a ranking tier is logged
// through the optional *slog.Logger and the next tier runs.
package hint
