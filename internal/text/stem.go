package text

// Stem folds an English word (lower case, ASCII letters and digits) to a stem shared by its
// inflections: plurals ("emails" -> "email", "replies" -> "reply"), -ing and -ed forms
// ("sending" -> "send", "scheduled" -> "schedul") and a final silent e ("message" and
// "messages" -> "messag"). Stems are only compared with each other, never shown as words.
// Stem is idempotent on its own output for the words that matter here.
func Stem(w string) string {
	if s, ok := irregular[w]; ok {
		return s
	}
	if len(w) <= 3 || !isAlpha(w) {
		return w
	}
	w = foldPlural(w)
	if _, ok := keepIng[w]; !ok {
		switch {
		case len(w) > 5 && hasSuffix(w, "ing"):
			w = unsuffix(w[:len(w)-3])
		case len(w) > 4 && hasSuffix(w, "ed") && !hasSuffix(w, "eed"):
			w = unsuffix(w[:len(w)-2])
		}
	}
	if len(w) > 4 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

func foldPlural(w string) string {
	switch {
	case hasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case hasSuffix(w, "sses"), hasSuffix(w, "xes"), hasSuffix(w, "ches"), hasSuffix(w, "shes"), hasSuffix(w, "zzes"):
		return w[:len(w)-2]
	case hasSuffix(w, "ss"), hasSuffix(w, "us"), hasSuffix(w, "is"), hasSuffix(w, "ys") && len(w) <= 4:
		return w
	case w[len(w)-1] == 's':
		return w[:len(w)-1]
	}
	return w
}

// undouble turns "stopp" into "stop" but leaves "add", "call", "pass" alone.
func undouble(w string) string {
	n := len(w)
	if n >= 4 && w[n-1] == w[n-2] {
		switch w[n-1] {
		case 'l', 's', 'z', 'f':
			return w
		case 'a', 'e', 'i', 'o', 'u':
			return w
		}
		return w[:n-1]
	}
	return w
}

// unsuffix tidies a stem whose -ing or -ed was cut: "stopp" -> "stop", "nam" -> "name".
func unsuffix(w string) string {
	if u := undouble(w); u != w {
		return u
	}
	return restoreE(w)
}

// restoreE turns a short consonant-vowel-consonant stem back into its -e word ("nam" from
// "named" becomes "name"), so that it meets the uninflected form.
func restoreE(w string) string {
	if len(w) == 3 && !isVowel(w[0]) && isVowel(w[1]) && !isVowel(w[2]) && w[2] != 'w' && w[2] != 'x' && w[2] != 'y' {
		return w + "e"
	}
	return w
}

func isVowel(c byte) bool { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' }

func hasSuffix(w, s string) bool { return len(w) >= len(s) && w[len(w)-len(s):] == s }

func isAlpha(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// irregular maps forms the suffix rules get wrong to their stems.
var irregular = map[string]string{
	"sent": "send", "wrote": "write", "written": "write", "made": "make", "got": "get",
	"gotten": "get", "found": "find", "people": "person", "persons": "person",
	"children": "child", "men": "man", "women": "woman", "data": "data", "news": "news",
	"status": "status", "statuses": "status", "analyses": "analysis", "bought": "buy",
	"sold": "sell", "paid": "pay", "ran": "run", "began": "begin", "begun": "begin",
	"kept": "keep", "left": "leave", "told": "tell", "shown": "show", "known": "know",
	"taken": "take", "took": "take", "gave": "give", "given": "give", "chose": "choose",
	"chosen": "choose", "went": "go", "gone": "go", "did": "do", "done": "done", "saw": "see",
	"seen": "see", "read": "read", "set": "set", "put": "put", "cc": "cc", "bcc": "bcc",
	"ids": "id", "urls": "url", "dms": "dm", "prs": "pr", "apis": "api", "this": "this",
	"its": "it", "has": "has", "was": "was", "does": "do", "goes": "go", "yes": "yes",
	"series": "series", "alias": "alias", "aliases": "alias", "canvas": "canvas",
	"business": "business", "address": "address", "addresses": "address", "access": "access",
	"process": "process", "processes": "process", "class": "class", "classes": "class",
	"less": "less", "always": "always", "towards": "toward", "whereas": "whereas",
	"sms": "sms", "gps": "gps", "https": "http", "rss": "rss", "aws": "aws", "ios": "ios",
	"lists": "list", "listed": "list", "listing": "list", "posts": "post",
}

// keepIng lists -ing and -ed words that are nouns in their own right.
var keepIng = map[string]struct{}{
	"meeting": {}, "setting": {}, "billing": {}, "booking": {}, "recording": {}, "pricing": {},
	"string": {}, "thing": {}, "morning": {}, "evening": {}, "building": {}, "heading": {},
	"mapping": {}, "during": {}, "something": {}, "anything": {}, "everything": {},
	"nothing": {}, "pending": {}, "warning": {}, "bring": {}, "spring": {}, "ceiling": {},
	"embed": {}, "onboarding": {}, "offboarding": {}, "ring": {}, "king": {}, "wing": {},
	"sing": {}, "shed": {}, "hundred": {}, "thousand": {},
}
