package text

// Verb classes. An action's main verb and a prompt's intent verb are folded to one of these,
// so "ping", "tell" and "notify" meet "send", and "fetch", "retrieve" and "look up" meet "get".
const (
	VerbSend      = "send"
	VerbReply     = "reply"
	VerbForward   = "forward"
	VerbGet       = "get"
	VerbList      = "list"
	VerbSearch    = "search"
	VerbCreate    = "create"
	VerbAdd       = "add"
	VerbUpdate    = "update"
	VerbMove      = "move"
	VerbAssign    = "assign"
	VerbDelete    = "delete"
	VerbRemove    = "remove"
	VerbArchive   = "archive"
	VerbCancel    = "cancel"
	VerbUpload    = "upload"
	VerbDownload  = "download"
	VerbShare     = "share"
	VerbInvite    = "invite"
	VerbRun       = "run"
	VerbSubscribe = "subscribe"
	VerbCopy      = "copy"
	VerbMerge     = "merge"
	VerbApprove   = "approve"
	VerbSchedule  = "schedule"
	VerbStop      = "stop"
	VerbCount     = "count"
	// VerbOther is the class of a verb outside all the others ("analyze", "translate",
	// "calculate"): the clause asks to do what the verb word (Clause.VerbWord) names.
	VerbOther = "other"
)

// Verb families group verb classes that partly stand in for each other: a prompt that asks to
// "find" an issue is well served by "get" or "list".
const (
	FamilySend    = "send"
	FamilyRead    = "read"
	FamilyCreate  = "create"
	FamilyUpdate  = "update"
	FamilyDelete  = "delete"
	FamilyExecute = "execute"
)

// verbClasses lists, per class, its family and the words that name it. Strict verbs are read
// as verbs wherever they occur; see nounVerbs for words that are verbs only at the start of
// an instruction.
func verbClasses() []verbClass {
	return []verbClass{
		{VerbSend, FamilySend, []string{"send", "post", "ping", "notify", "tell", "broadcast", "announce", "shoot", "deliver", "dispatch", "inform", "alert", "remind", "say", "chat"}},
		{VerbReply, FamilySend, []string{"reply", "respond", "answer"}},
		{VerbForward, FamilySend, []string{"forward", "fwd"}},
		{VerbGet, FamilyRead, []string{"get", "fetch", "retrieve", "read", "view", "show", "display", "see", "check", "look", "pull", "grab", "describe", "inspect", "detail", "lookup", "load", "obtain", "access", "open", "info", "retrieval", "summarize", "summarise", "review", "peek", "monitor"}},
		{VerbList, FamilyRead, []string{"list", "enumerate", "browse"}},
		{VerbSearch, FamilyRead, []string{"search", "find", "query", "locate", "filter", "discover", "seek", "lookup", "match", "scan", "hunt"}},
		{VerbCount, FamilyRead, []string{"count", "total", "sum", "aggregate", "calculate", "compute", "tally", "measure"}},
		{VerbCreate, FamilyCreate, []string{"create", "make", "creation", "generate", "build", "compose", "draft", "write", "raise", "initiate", "register", "setup", "establish", "produce", "spin", "organize", "organise", "arrange", "prepare", "start"}},
		{VerbAdd, FamilyCreate, []string{"add", "insert", "append", "attach", "include", "put", "addition", "insertion", "enter", "paste", "embed", "drop"}},
		{VerbSchedule, FamilyCreate, []string{"schedule", "book", "plan", "reserve"}},
		{VerbInvite, FamilyCreate, []string{"invite", "invitation", "onboard", "welcome"}},
		{VerbUpload, FamilyCreate, []string{"upload", "save", "store", "backup", "import"}},
		{VerbUpdate, FamilyUpdate, []string{"update", "edit", "modify", "change", "rename", "set", "patch", "adjust", "replace", "mark", "resolve", "complete", "finish", "close", "reopen", "fill", "correct", "fix", "apply", "upsert", "toggle", "pin", "star", "enable", "disable", "tweak", "amend", "revise", "configure", "overwrite", "transition", "unpin", "lock", "unlock", "rewrite", "reschedule", "postpone", "extend", "bump", "increase", "decrease", "raise", "label", "tag", "rate", "react", "pause",
			"snooze", "mute", "unmute", "resume"}},
		{VerbMove, FamilyUpdate, []string{"move", "push", "transfer", "relocate", "reorder", "rearrange", "sort", "migrate", "shift"}},
		{VerbAssign, FamilyUpdate, []string{"assign", "reassign", "delegate", "allocate", "hand"}},
		{VerbMerge, FamilyUpdate, []string{"merge", "combine"}},
		{VerbApprove, FamilyUpdate, []string{"approve", "accept", "confirm", "sign", "endorse", "verify"}},
		{VerbShare, FamilyUpdate, []string{"share", "grant", "publish", "expose", "give"}},
		{VerbDelete, FamilyDelete, []string{"delete", "erase", "destroy", "purge", "wipe", "discard", "deletion", "nuke", "obliterate", "bin"}},
		{VerbRemove, FamilyDelete, []string{"remove", "removal", "unlink", "detach", "uninstall", "unassign", "kick", "clear", "unshare", "evict", "expel", "eject"}},
		{VerbArchive, FamilyDelete, []string{"archive", "trash", "unpublish", "hide"}},
		{VerbCancel, FamilyDelete, []string{"cancel", "revoke", "terminate", "void", "unsubscribe", "deactivate", "suspend", "ban", "block", "disconnect", "abort", "rescind", "withdraw", "cancellation", "invalidate", "decline", "reject", "deny"}},
		{VerbDownload, FamilyRead, []string{"download", "export"}},
		{VerbRun, FamilyExecute, []string{"run", "execute", "trigger", "launch", "deploy", "invoke", "call", "kickoff", "rerun", "retry", "redeploy", "perform", "fire"}},
		{VerbStop, FamilyExecute, []string{"stop", "halt", "end"}},
		{VerbSubscribe, FamilyCreate, []string{"subscribe", "follow", "join", "watch", "like", "favorite", "favourite", "upvote", "vote", "bookmark", "enroll", "enrol"}},
		{VerbCopy, FamilyCreate, []string{"copy", "duplicate", "clone", "fork"}},
	}
}

type verbClass struct {
	class, family string
	words         []string
}

// nounVerbs are words that name a verb only when they open an instruction ("email Bob the
// deck", "DM Lena", "tweet that"), and are nouns elsewhere.
func nounVerbs() map[string]string {
	return map[string]string{
		"email": VerbSend, "mail": VerbSend, "message": VerbSend, "text": VerbSend, "dm": VerbSend,
		"tweet": VerbSend, "sms": VerbSend, "page": VerbSend, "slack": VerbSend, "comment": VerbAdd,
		"file": VerbCreate, "log": VerbCreate, "note": VerbAdd, "list": VerbList, "tag": VerbUpdate,
		"label": VerbUpdate, "star": VerbUpdate, "pin": VerbUpdate, "book": VerbSchedule,
		"schedule": VerbSchedule, "invite": VerbInvite, "call": VerbRun, "ticket": VerbCreate,
		"reply": VerbReply, "forward": VerbForward, "flag": VerbUpdate, "bookmark": VerbSubscribe,
		"draft": VerbCreate, "post": VerbSend, "ship": VerbRun, "release": VerbCreate,
		"bill": VerbCreate, "invoice": VerbCreate, "refund": VerbCreate, "chat": VerbSend, "alert": VerbSend,
		"review": VerbGet, "history": VerbList, "record": VerbAdd, "report": VerbCreate,
		"new": VerbCreate, // "new issue: …"; elsewhere an adjective
	}
}

// destructiveClasses are the verb classes whose actions destroy, hide or stop something.
func destructiveClasses() map[string]bool {
	return map[string]bool{
		VerbDelete: true, VerbRemove: true, VerbArchive: true, VerbCancel: true,
	}
}

// destructiveWords are slug words that make an action destructive wherever they appear,
// unless the action's main verb only reads.
func destructiveWords() []string {
	return []string{
		"delete", "trash", "purge", "destroy", "erase", "wipe", "remove", "archive", "revoke",
		"cancel", "terminate", "unsubscribe", "deactivate", "ban", "void", "uninstall", "kick",
		"deletion", "nuke", "discard", "suspend",
	}
}

// stopWords carry no intent: function words, politeness, and the boilerplate of tool
// descriptions ("Tool to ... use when you need ...").
func stopWords() []string {
	return []string{
		"a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
		"at", "be", "been", "before", "being", "below", "between", "both", "but", "by", "can",
		"could", "did", "do", "does", "doing", "down", "each", "few", "for", "from", "further",
		"had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if",
		"in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself",
		"no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out",
		"over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the",
		"their", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too",
		"under", "until", "up", "very", "was", "we", "were", "when", "where", "which", "while",
		"who", "whom", "why", "will", "with", "would", "you", "your", "yours", "please", "hey",
		"hi", "thanks", "thank", "ok", "okay", "kindly", "want", "wanna", "need", "needs", "like",
		"lets", "let", "us", "via", "using", "use", "used", "tool", "tools", "action", "actions",
		"given", "specified", "provided", "specific", "particular", "based", "etc", "eg", "ie",
		"able", "allow", "allows", "one", "ones", "something", "anything", "everything", "whatever",
		"already", "yet", "still", "maybe", "might", "must", "shall", "may", "go", "going", "gonna",
		"im", "ive", "ill", "youre", "dont", "doesnt", "didnt", "isnt", "arent", "whats",
		"thats", "theres", "heres", "wheres", "whens", "whos", "hows", "whys",
		"its", "s", "t", "d", "ll", "re", "ve", "m", "quick", "quickly", "asap",
		"right", "away", "real", "really", "actually", "basically", "sure", "again", "currently",
		"whether", "either", "every", "per", "onto", "upon", "within", "without", "toward",
		"towards", "across", "along", "around", "behind", "beyond", "near", "among", "instead",
		"well", "even", "ever", "never", "much", "many", "lot", "lots", "bit", "got",
		"existing", "desired", "corresponding", "respective", "optionally",
		"optional", "required", "including", "includes", "include", "e", "g", "via", "whose",
		"what", "is", "api", "endpoint", "returns", "return",
		"method", "operation", "perform", "performs", "allowing", "enables", "enable", "supports",
		"user's", "someone's", "thing", "stuff",
		// Adverbs that join what a request says to what it said before.
		"additionally", "furthermore", "moreover", "besides", "lastly", "finally", "meanwhile",
		"likewise", "similarly", "secondly", "thirdly", "firstly",
	}
}

// helpVerbs ask for help ("can you help me with the report", "help me find it"): as a
// request's verb, or before it, they say nothing of which action, and their word is no term
// ("help" would match help desks).
func helpVerbs() []string { return []string{"help", "assist"} }

// timeWords describe when, not what; they count little.
func timeWords() []string {
	return []string{
		"today", "tomorrow", "tommorow", "tomorow", "yesterday", "tonight", "now", "later", "soon",
		"morning", "afternoon", "evening", "night", "noon", "midnight", "week", "weekend", "month",
		"year", "quarter", "hour", "minute", "minutes", "hours", "day", "days", "weeks", "months",
		"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "mon", "tue",
		"wed", "thu", "fri", "sat", "sun", "january", "february", "march", "april", "june", "july",
		"august", "september", "october", "november", "december", "jan", "feb", "mar", "apr",
		"jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "am", "pm", "last", "next",
		"previous", "past", "recent", "recently", "latest", "daily", "weekly", "monthly",
		"yearly", "annual", "eod", "eow", "min", "mins", "hr", "hrs", "pt", "et", "utc", "gmt",
		"cet", "pst", "est", "earlier", "ago", "first", "second", "third", "every", "each",
	}
}

// prepositions open phrases (recipients, places, times) that count less than the verb and its
// object.
func prepositions() []string {
	return []string{
		"to", "in", "into", "on", "onto", "from", "for", "with", "about", "at", "by", "under",
		"within", "inside", "over", "via", "after", "before", "until", "during", "between",
		"against", "without", "per", "like", "saying", "says", "said", "called",
		"named", "titled", "that",
	}
}

// rewrites are idioms that name a verb with words of their own, for the few common ones
// WordNet does not list as phrases ("let the team know" tells the team; "how many" counts).
// A "*" matches any one word. Patterns are matched on lower-case words before stemming.
// Phrasal verbs WordNet does list ("set up", "look up", "shut down") are found there.
func rewrites() []rewrite {
	return []rewrite{
		{[]string{"let", "*", "know"}, []string{"tell", "*"}},
		{[]string{"let", "*", "*", "know"}, []string{"tell", "*"}},
		{[]string{"let", "*", "*", "*", "know"}, []string{"tell", "*"}},
		{[]string{"give", "*", "access"}, []string{"grant", "access", "to", "*"}},
		{[]string{"give", "*", "*", "access"}, []string{"grant", "access", "to", "*"}},
		{[]string{"give", "*", "*", "*", "access"}, []string{"grant", "access", "to", "*"}},
		// Giving to oneself is getting; giving to others grants ("give @sam the role").
		{[]string{"give", "me"}, []string{"get"}},
		{[]string{"give", "us"}, []string{"get"}},
		// Being provided with something is getting it ("can you provide me with the rankings").
		{[]string{"provide", "me", "with"}, []string{"get"}},
		{[]string{"provide", "us", "with"}, []string{"get"}},
		{[]string{"provide", "me"}, []string{"get"}},
		{[]string{"provide", "us"}, []string{"get"}},
		// Liking or loving to do something is wanting it: the verb is what follows ("I would
		// like to delete", "we'd love to book"), and "would like" a thing asks for it.
		{[]string{"would", "like"}, []string{"would"}},
		{[]string{"would", "love"}, []string{"would"}},
		{[]string{"like", "to"}, []string{"to"}},
		{[]string{"love", "to"}, []string{"to"}},
		{[]string{"how", "many"}, []string{"count"}},
		{[]string{"what's", "on"}, []string{"list"}},
		{[]string{"whats", "on"}, []string{"list"}},
		{[]string{"what", "is", "on"}, []string{"list"}},
		{[]string{"who", "is"}, []string{"get"}},
		{[]string{"who's"}, []string{"get"}},
		// Opening something new creates it ("open a ticket"); opening what exists reads it.
		{[]string{"open", "a"}, []string{"create"}},
		{[]string{"open", "an"}, []string{"create"}},
		{[]string{"open", "new"}, []string{"create"}},
		{[]string{"e", "mail"}, []string{"email"}},
		{[]string{"to", "do"}, []string{"todo"}},
		{[]string{"to", "dos"}, []string{"todo"}},
	}
}

type rewrite struct {
	from []string
	to   []string
}
