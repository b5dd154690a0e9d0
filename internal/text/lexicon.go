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
		{VerbGet, FamilyRead, []string{"get", "fetch", "retrieve", "read", "view", "show", "display", "see", "check", "look", "pull", "grab", "describe", "inspect", "detail", "lookup", "load", "obtain", "access", "open", "give", "info", "retrieval", "summarize", "summarise", "review", "peek", "monitor"}},
		{VerbList, FamilyRead, []string{"list", "enumerate", "browse", "history"}},
		{VerbSearch, FamilyRead, []string{"search", "find", "query", "locate", "filter", "discover", "seek", "lookup", "match", "scan", "hunt"}},
		{VerbCount, FamilyRead, []string{"count", "total", "sum", "aggregate", "calculate", "compute", "tally", "measure"}},
		{VerbCreate, FamilyCreate, []string{"create", "make", "creation", "generate", "build", "compose", "draft", "write", "raise", "initiate", "register", "setup", "establish", "produce", "spin", "organize", "organise", "arrange", "prepare", "start"}},
		{VerbAdd, FamilyCreate, []string{"add", "insert", "append", "attach", "include", "put", "addition", "insertion", "enter", "paste", "embed"}},
		{VerbSchedule, FamilyCreate, []string{"schedule", "book", "plan", "reserve"}},
		{VerbInvite, FamilyCreate, []string{"invite", "invitation", "onboard", "welcome"}},
		{VerbUpload, FamilyCreate, []string{"upload", "save", "store", "backup", "import"}},
		{VerbUpdate, FamilyUpdate, []string{"update", "edit", "modify", "change", "rename", "set", "patch", "adjust", "replace", "mark", "resolve", "complete", "finish", "close", "reopen", "fill", "correct", "fix", "apply", "upsert", "toggle", "pin", "star", "enable", "disable", "tweak", "amend", "revise", "configure", "overwrite", "transition", "unpin", "lock", "unlock", "rewrite", "reschedule", "postpone", "extend", "bump", "increase", "decrease", "raise", "label", "tag", "rate", "react", "pause",
			"snooze", "mute", "unmute", "resume"}},
		{VerbMove, FamilyUpdate, []string{"move", "push", "transfer", "relocate", "reorder", "rearrange", "sort", "migrate", "shift"}},
		{VerbAssign, FamilyUpdate, []string{"assign", "reassign", "delegate", "allocate", "hand"}},
		{VerbMerge, FamilyUpdate, []string{"merge", "combine"}},
		{VerbApprove, FamilyUpdate, []string{"approve", "accept", "confirm", "sign", "endorse", "verify"}},
		{VerbShare, FamilyUpdate, []string{"share", "grant", "publish", "expose"}},
		{VerbDelete, FamilyDelete, []string{"delete", "erase", "destroy", "purge", "wipe", "discard", "deletion", "nuke", "obliterate", "bin", "drop"}},
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
		"thats", "theres", "its", "s", "t", "d", "ll", "re", "ve", "m", "quick", "quickly", "asap",
		"right", "away", "real", "really", "actually", "basically", "sure", "again", "currently",
		"whether", "either", "every", "per", "onto", "upon", "within", "without", "toward",
		"towards", "across", "along", "around", "behind", "beyond", "near", "among", "instead",
		"well", "even", "ever", "never", "much", "many", "lot", "lots", "bit", "got",
		"existing", "desired", "corresponding", "respective", "optionally",
		"optional", "required", "including", "includes", "include", "e", "g", "via", "whose",
		"what", "is", "api", "endpoint", "request", "requests", "response", "returns", "return",
		"method", "operation", "perform", "performs", "allowing", "enables", "enable", "supports",
		"user's", "someone's", "thing", "stuff",
	}
}

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

// canonical folds spelling variants and abbreviations to one word on both sides of a match.
func canonical() map[string][]string {
	return map[string][]string{
		"mail": {"email"}, "emails": {"email"}, "repo": {"repository"}, "doc": {"document"},
		"msg": {"message"}, "pr": {"pull", "request"}, "todo": {"task"}, "todos": {"task"},
		"org": {"organization"}, "organisation": {"organization"}, "dir": {"directory"},
		"img": {"image"}, "pic": {"image"}, "picture": {"image"}, "photo": {"image"},
		"info": {"information"}, "config": {"configuration"}, "db": {"database"},
		"env": {"environment"}, "spreadsheet": {"spreadsheet"}, "addr": {"address"},
		"calender": {"calendar"}, "colour": {"color"}, "favourite": {"favorite"},
		"cancelled": {"cancel"}, "canceled": {"cancel"}, "canceling": {"cancel"},
		"cancelling": {"cancel"}, "labelled": {"label"}, "labeled": {"label"},
		"recipient": {"recipient"}, "convo": {"conversation"}, "dept": {"department"},
		"attachement": {"attachment"}, "meetup": {"meeting"}, "webinar": {"webinar"},
		"gif": {"image"}, "jpg": {"image"}, "png": {"image"}, "pdf": {"file"},
	}
}

// synonyms are prompt-side expansions: a word in a prompt also looks for these words, at a
// lower weight. They are things true of SaaS apps in general ("ticket" and "issue" name the
// same thing in different trackers).
func synonyms() map[string][]string {
	return map[string][]string{
		"ticket":       {"issue"},
		"issue":        {"ticket"},
		"bug":          {"issue"},
		"defect":       {"issue"},
		"error":        {"issue", "event"},
		"exception":    {"issue", "event"},
		"crash":        {"issue", "event"},
		"task":         {"todo", "item", "card"},
		"card":         {"task"},
		"item":         {"task", "record"},
		"meeting":      {"event"},
		"appointment":  {"event"},
		"call":         {"meeting", "event"},
		"event":        {"meeting"},
		"calendar":     {"event"},
		"inbox":        {"email", "message", "thread"},
		"email":        {"message", "thread"},
		"message":      {"chat", "conversation", "history"},
		"chat":         {"message"},
		"conversation": {"message", "channel"},
		"thread":       {"conversation", "message"},
		"dm":           {"message", "conversation"},
		"text":         {"content"},
		"channel":      {"conversation"},
		"room":         {"channel", "space"},
		"folder":       {"directory", "path"},
		"directory":    {"folder"},
		"file":         {"document"},
		"document":     {"file", "page"},
		"attachment":   {"file"},
		"sheet":        {"spreadsheet", "worksheet"},
		"tab":          {"sheet", "worksheet"},
		"worksheet":    {"sheet"},
		"spreadsheet":  {"sheet"},
		"row":          {"record", "value"},
		"record":       {"row"},
		"column":       {"field", "value"},
		"cell":         {"value", "range"},
		"person":       {"contact", "user", "member", "people"},
		"everyone":     {"contact", "user", "member"},
		"everybody":    {"contact", "user", "member"},
		"someone":      {"user", "contact"},
		"colleague":    {"user", "member"},
		"coworker":     {"user", "member"},
		"teammate":     {"user", "member"},
		"member":       {"user"},
		"user":         {"member"},
		"contact":      {"person", "people"},
		"client":       {"customer", "contact"},
		"customer":     {"contact", "client"},
		"company":      {"organization", "account"},
		"account":      {"organization", "company"},
		"lead":         {"contact"},
		"deal":         {"opportunity"},
		"opportunity":  {"deal"},
		"sale":         {"order", "charge", "payment"},
		"revenue":      {"charge", "payment", "invoice", "balance"},
		"payment":      {"charge"},
		"charge":       {"payment"},
		"purchase":     {"order"},
		"order":        {"purchase"},
		"plan":         {"subscription"},
		"subscription": {"plan"},
		"billing":      {"subscription", "invoice"},
		"bill":         {"invoice"},
		"receipt":      {"invoice"},
		"refund":       {"refund"},
		"coupon":       {"discount"},
		"discount":     {"coupon"},
		"outage":       {"incident"},
		"downtime":     {"incident"},
		"alert":        {"incident"},
		"incident":     {"alert"},
		"oncall":       {"incident", "schedule"},
		"tweet":        {"post", "tweet"},
		"status":       {"state"},
		"reaction":     {"emoji"},
		"emoji":        {"reaction"},
		"audience":     {"list"},
		"newsletter":   {"campaign"},
		"subscriber":   {"member", "contact"},
		"board":        {"project"},
		"workspace":    {"team"},
		"url":          {"link"},
		"link":         {"url"},
		"label":        {"tag"},
		"tag":          {"label"},
		"note":         {"page", "comment"},
		"wiki":         {"page", "space"},
		"page":         {"document"},
		"video":        {"video"},
		"clip":         {"video"},
		"image":        {"media", "photo"},
		"media":        {"image", "video"},
		"comment":      {"reply", "note"},
		"review":       {"comment"},
		"repository":   {"project"},
		"project":      {"board"},
		"code":         {"repository", "file"},
		"commit":       {"commit"},
		"deploy":       {"deployment", "release"},
		"release":      {"deployment", "tag"},
		"team":         {"group"},
		"group":        {"team", "channel"},
		"sprint":       {"cycle", "iteration"},
		"milestone":    {"cycle"},
		"query":        {"sql"},
		"sql":          {"query"},
		"table":        {"database"},
		"database":     {"table"},
		"form":         {"survey"},
		"survey":       {"form"},
		"phone":        {"contact"},
		"number":       {"phone"},
		"address":      {"email"},
		"profile":      {"user", "info"},
		"draft":        {"draft"},
		"history":      {"message", "conversation"},
		"say":          {"message"},
		"talk":         {"message"},
		"discuss":      {"message"},
		"mention":      {"message"},
		"cash":         {"balance", "payment"},
		"money":        {"balance", "payment"},
		"blast":        {"campaign"},
		"invite":       {"event", "meeting", "invitation"},
		"reminder":     {"task"},
		"notification": {"dnd", "disturb", "snooze"},
		"dnd":          {"disturb", "snooze"},
		"followup":     {"reply"},
		"product":      {"item"},
		"stock":        {"inventory"},
		"inventory":    {"stock"},
		"shipment":     {"fulfillment"},
		"shipping":     {"fulfillment"},
		"playlist":     {"playlist"},
		"post":         {"submission"},
		"due":          {"task", "deadline"},
		"deadline":     {"due"},
		"branch":       {"reference", "ref"},
		"collaborator": {"member", "permission"},
	}
}

// appAliases name apps by the words people use for them. Only apps the agent may use count.
func appAliases() map[string][]string {
	return map[string][]string{
		"gcal":        {"googlecalendar"},
		"calendar":    {"googlecalendar", "outlook", "calendly"},
		"drive":       {"googledrive", "one_drive"},
		"gdrive":      {"googledrive"},
		"sheets":      {"googlesheets"},
		"sheet":       {"googlesheets"},
		"gsheet":      {"googlesheets"},
		"spreadsheet": {"googlesheets", "excel"},
		"docs":        {"googledocs"},
		"gdoc":        {"googledocs"},
		"gdocs":       {"googledocs"},
		"teams":       {"microsoft_teams"},
		"msteams":     {"microsoft_teams"},
		"outlook":     {"outlook"},
		"onedrive":    {"one_drive"},
		"gh":          {"github"},
		"meet":        {"googlemeet"},
		"gmeet":       {"googlemeet"},
		"yt":          {"youtube"},
		"tweet":       {"twitter"},
		"x":           {"twitter"},
		"subreddit":   {"reddit"},
		"sfdc":        {"salesforce"},
		"excel":       {"excel"},
		"inbox":       {"gmail", "outlook"},
		"email":       {"gmail", "outlook"},
		"mail":        {"gmail", "outlook"},
		"gmail":       {"gmail"},
		"notion":      {"notion"},
		"confluence":  {"confluence"},
		"wiki":        {"confluence", "notion"},
		"repo":        {"github", "gitlab", "bitbucket"},
		"repository":  {"github", "gitlab", "bitbucket"},
		"pr":          {"github", "gitlab", "bitbucket"},
		"oncall":      {"pagerduty", "opsgenie"},
		"crm":         {"hubspot", "salesforce", "pipedrive", "zoho"},
		"sql":         {"supabase", "postgres", "snowflake", "bigquery"},
	}
}

// rewrites replace multi-word phrasings with the words an action would use. A "*" matches
// any one word. Patterns are matched on lower-case words before stemming.
func rewrites() []rewrite {
	return []rewrite{
		{[]string{"look", "up"}, []string{"get"}},
		{[]string{"get", "together"}, []string{"schedule", "meeting"}},
		{[]string{"get", "*", "together"}, []string{"schedule", "meeting"}},
		{[]string{"get", "the", "word", "out"}, []string{"announce"}},
		{[]string{"spread", "the", "word"}, []string{"announce"}},
		{[]string{"do", "not", "disturb"}, []string{"dnd"}},
		{[]string{"up", "to", "speed", "on"}, []string{"get"}},
		{[]string{"dig", "into"}, []string{"search"}},
		{[]string{"tick", "off"}, []string{"complete"}},
		{[]string{"check", "off"}, []string{"complete"}},
		{[]string{"cross", "off"}, []string{"complete"}},
		{[]string{"dont", "forget"}, []string{"create", "reminder"}},
		{[]string{"give", "*", "access"}, []string{"add", "collaborator", "permission", "to", "*"}},
		{[]string{"give", "*", "*", "access"}, []string{"add", "collaborator", "permission", "to", "*"}},
		{[]string{"give", "*", "*", "*", "access"}, []string{"add", "collaborator", "permission", "to", "*"}},
		{[]string{"grant", "*", "access"}, []string{"add", "collaborator", "permission", "to", "*"}},
		{[]string{"grant", "*", "*", "access"}, []string{"add", "collaborator", "permission", "to", "*"}},
		{[]string{"remind", "me"}, []string{"create", "reminder"}},
		{[]string{"remind", "us"}, []string{"create", "reminder"}},
		{[]string{"open", "a"}, []string{"create"}},
		{[]string{"open", "an"}, []string{"create"}},
		{[]string{"open", "new"}, []string{"create"}},
		{[]string{"looking", "up"}, []string{"get"}},
		{[]string{"find", "out"}, []string{"get"}},
		{[]string{"let", "*", "know"}, []string{"send", "message", "to", "*"}},
		{[]string{"let", "*", "*", "know"}, []string{"send", "message", "to", "*"}},
		{[]string{"let", "*", "*", "*", "know"}, []string{"send", "message", "to", "*"}},
		{[]string{"give", "*", "a", "heads", "up"}, []string{"send", "message"}},
		{[]string{"heads", "up"}, []string{"send", "message"}},
		{[]string{"reach", "out"}, []string{"send", "message"}},
		{[]string{"get", "in", "touch"}, []string{"send", "message"}},
		{[]string{"follow", "up", "with"}, []string{"send", "email", "to"}},
		{[]string{"follow", "up"}, []string{"reply"}},
		{[]string{"drop", "*", "a", "line"}, []string{"send", "message"}},
		{[]string{"drop", "*", "a", "note"}, []string{"send", "message"}},
		{[]string{"shoot", "*", "an", "email"}, []string{"send", "email"}},
		{[]string{"shoot", "*", "a", "message"}, []string{"send", "message"}},
		{[]string{"get", "*", "set", "up"}, []string{"create", "*"}},
		{[]string{"set", "up"}, []string{"create"}},
		{[]string{"spin", "up"}, []string{"create"}},
		{[]string{"put", "together"}, []string{"create"}},
		{[]string{"kick", "off"}, []string{"start"}},
		{[]string{"shut", "down"}, []string{"stop"}},
		{[]string{"turn", "off"}, []string{"disable"}},
		{[]string{"turn", "on"}, []string{"enable"}},
		{[]string{"switch", "off"}, []string{"disable"}},
		{[]string{"switch", "on"}, []string{"enable"}},
		{[]string{"sign", "up"}, []string{"subscribe"}},
		{[]string{"opt", "out"}, []string{"unsubscribe"}},
		{[]string{"fill", "in"}, []string{"update"}},
		{[]string{"fill", "out"}, []string{"update"}},
		{[]string{"jot", "down"}, []string{"create", "note"}},
		{[]string{"write", "down"}, []string{"create", "note"}},
		{[]string{"note", "down"}, []string{"create", "note"}},
		{[]string{"catch", "up", "on"}, []string{"get"}},
		{[]string{"go", "through"}, []string{"read"}},
		{[]string{"go", "over"}, []string{"read"}},
		{[]string{"loop", "*", "in"}, []string{"invite"}},
		{[]string{"loop", "*", "into"}, []string{"invite", "to"}},
		{[]string{"get", "rid", "of"}, []string{"delete"}},
		{[]string{"clean", "up"}, []string{"delete"}},
		{[]string{"take", "down"}, []string{"delete"}},
		{[]string{"hand", "off"}, []string{"assign"}},
		{[]string{"hand", "over"}, []string{"assign"}},
		{[]string{"loop", "in"}, []string{"invite"}},
		{[]string{"e", "mail"}, []string{"email"}},
		{[]string{"to", "do"}, []string{"todo"}},
		{[]string{"to", "dos"}, []string{"todo"}},
		{[]string{"pull", "request"}, []string{"pull", "request"}},
		{[]string{"merge", "request"}, []string{"pull", "request"}},
		{[]string{"on", "call"}, []string{"oncall"}},
		// Tracking time starts a timer: a time entry.
		{[]string{"track", "time"}, []string{"start", "time", "entry"}},
		{[]string{"track", "my", "time"}, []string{"start", "time", "entry"}},
		{[]string{"log", "time"}, []string{"create", "time", "entry"}},
		{[]string{"log", "hours"}, []string{"create", "time", "entry"}},
		// Dependencies between tracker items are issue links.
		{[]string{"blocked", "by"}, []string{"issue", "link", "to"}},
		{[]string{"depends", "on"}, []string{"issue", "link", "to"}},
		{[]string{"dependent", "on"}, []string{"issue", "link", "to"}},
		{[]string{"duplicate", "of"}, []string{"issue", "link", "to"}},
		{[]string{"relates", "to"}, []string{"issue", "link", "to"}},
		// A place for work to live is a project (a board, a list, a space).
		{[]string{"home", "for"}, []string{"project", "for"}},
		{[]string{"whats", "hot"}, []string{"list", "hot", "posts"}},
		{[]string{"what's", "hot"}, []string{"list", "hot", "posts"}},
		{[]string{"whats", "trending"}, []string{"list", "trending", "posts"}},
		{[]string{"what's", "trending"}, []string{"list", "trending", "posts"}},
		{[]string{"what's", "on"}, []string{"list"}},
		{[]string{"whats", "on", "my", "calendar"}, []string{"list", "calendar", "events"}},
		{[]string{"whats", "on", "the", "calendar"}, []string{"list", "calendar", "events"}},
		{[]string{"on", "my", "calendar"}, []string{"on", "calendar", "events"}},
		{[]string{"whats", "on"}, []string{"list"}},
		{[]string{"what", "is", "on"}, []string{"list"}},
		{[]string{"how", "many"}, []string{"count"}},
		{[]string{"who", "is"}, []string{"get"}},
		{[]string{"who's"}, []string{"get"}},
		{[]string{"make", "sure", "*", "dont", "forget"}, []string{"create", "reminder"}},
		{[]string{"make", "sure", "*", "remember"}, []string{"create", "reminder"}},
		{[]string{"make", "sure"}, []string{"check"}},
		// Approving a pull request is submitting a review that approves it.
		{[]string{"approve", "pr"}, []string{"create", "review", "approve", "pull", "request"}},
		{[]string{"approve", "*", "pr"}, []string{"create", "review", "approve", "*", "pull", "request"}},
		{[]string{"approve", "pull", "request"}, []string{"create", "review", "approve", "pull", "request"}},
		{[]string{"approve", "*", "pull", "request"}, []string{"create", "review", "approve", "*", "pull", "request"}},
		{[]string{"sign", "off", "on"}, []string{"approve"}},
		{[]string{"thumbs", "up"}, []string{"approve"}},
		{[]string{"stop", "billing"}, []string{"cancel", "subscription"}},
		{[]string{"stop", "charging"}, []string{"cancel", "subscription"}},
		{[]string{"stop", "paying"}, []string{"cancel", "subscription"}},
		{[]string{"free", "slot"}, []string{"free", "busy"}},
		{[]string{"free", "time"}, []string{"free", "busy"}},
		{[]string{"up", "to", "date"}, []string{"current"}},
		{[]string{"to", "the", "end", "of"}, []string{"append", "to"}},
		{[]string{"at", "the", "end", "of"}, []string{"append", "to"}},
	}
}

type rewrite struct {
	from []string
	to   []string
}

// verbObjects are objects a verb word implies: "attach" acts on an attachment, "approve" on a
// review, "archive" usually closes the item. They join the clause's object terms.
func verbObjects() map[string][]string {
	return map[string][]string{
		"attach":      {"attachment", "file"},
		"upload":      {"file"},
		"download":    {"file"},
		"invite":      {"invitation", "member"},
		"book":        {"event", "meeting"},
		"schedule":    {"event", "meeting"},
		"reschedule":  {"event", "meeting"},
		"archive":     {"close", "archive"},
		"approve":     {"review", "approval"},
		"assign":      {"assignee"},
		"reassign":    {"assignee"},
		"subscribe":   {"subscription"},
		"unsubscribe": {"subscription"},
		"remind":      {"reminder"},
		"move":        {"status", "transition"},
		"resolve":     {"status", "resolution"},
		"close":       {"status", "close"},
		"reopen":      {"status", "open"},
		"complete":    {"status", "complete", "close"},
		"finish":      {"status", "complete", "close"},
		"mark":        {"status"},
		"react":       {"reaction"},
		"star":        {"star"},
		"pin":         {"pin"},
		"tag":         {"tag", "label"},
		"label":       {"label"},
		"comment":     {"comment"},
		"reply":       {"reply"},
		"forward":     {"forward"},
		"merge":       {"merge"},
		"rename":      {"name", "title"},
		"follow":      {"follower"},
		"like":        {"like", "favorite"},
		"count":       {"count", "aggregate"},
		"total":       {"aggregate", "sum"},
		"sum":         {"aggregate", "sum"},
		"export":      {"export"},
		"import":      {"import"},
		"publish":     {"publish"},
		"transfer":    {"transfer"},
		"refund":      {"refund"},
		"trash":       {"trash"},
	}
}

// appObjects names the main thing well-known apps hold, from general knowledge of them: a
// prompt that names the app but not the object ("search my Gmail for …") is about that.
func appObjects() map[string][]string {
	return map[string][]string{
		"gmail": {"email"}, "outlook": {"email"}, "zoho_mail": {"email"},
		"slack": {"message"}, "microsoft_teams": {"message"}, "discord": {"message"},
		"telegram": {"message"}, "whatsapp": {"message"}, "twilio": {"message"},
		"googlecalendar": {"event"}, "calendly": {"event"}, "cal": {"event"},
		"googledrive": {"file"}, "dropbox": {"file"}, "one_drive": {"file"}, "box": {"file"},
		"googlesheets": {"spreadsheet", "row"}, "excel": {"worksheet", "row"},
		"airtable": {"record"}, "googledocs": {"document"}, "notion": {"page"},
		"confluence": {"page"}, "coda": {"doc"}, "jira": {"issue"}, "linear": {"issue"},
		"github": {"repository", "issue"}, "gitlab": {"project", "issue"},
		"bitbucket": {"repository"}, "sentry": {"issue", "event"}, "trello": {"card"},
		"asana": {"task"}, "todoist": {"task"}, "clickup": {"task"}, "monday": {"item"},
		"basecamp": {"todo"}, "wrike": {"task"}, "zendesk": {"ticket"},
		"freshdesk": {"ticket"}, "intercom": {"conversation"}, "hubspot": {"contact", "deal"},
		"salesforce": {"record", "opportunity"}, "pipedrive": {"deal"}, "stripe": {"payment", "customer"},
		"shopify": {"order", "product"}, "mailchimp": {"campaign"}, "sendgrid": {"email"},
		"youtube": {"video"}, "twitter": {"post"}, "reddit": {"post"}, "linkedin": {"post"},
		"pagerduty": {"incident"}, "opsgenie": {"alert"}, "figma": {"file"}, "zoom": {"meeting"},
		"googlemeet": {"meeting"}, "supabase": {"project", "database"}, "spotify": {"track", "playlist"},
		"quickbooks": {"invoice"}, "xero": {"invoice"}, "docusign": {"envelope"},
		"typeform": {"form"}, "googleforms": {"form"}, "calendar": {"event"},
	}
}
