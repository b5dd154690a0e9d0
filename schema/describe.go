package schema

// The phrase rules below read a property's description, lower-cased, as a list of words
// (runs of letters and digits), with the characters around each word for the few rules that
// need punctuation ("(optional)", "Optional."). They look for what people write when a field
// may be left out, may be null, is filled by the server, or must be given.

type word struct {
	w             string
	before, after byte // the bytes around the word; 0 at the ends
}

// words splits a lower-cased description into words.
func words(desc string) []word {
	out := make([]word, 0, len(desc)/5)
	for i := 0; i < len(desc); {
		if !isWordByte(desc[i]) {
			i++
			continue
		}
		j := i
		for j < len(desc) && isWordByte(desc[j]) {
			j++
		}
		w := word{w: desc[i:j]}
		if i > 0 {
			w.before = desc[i-1]
		}
		if j < len(desc) {
			w.after = desc[j]
		}
		out = append(out, w)
		i = j
	}
	return out
}

func isWordByte(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80 }

func in(w string, set ...string) bool {
	for _, s := range set {
		if w == s {
			return true
		}
	}
	return false
}

// at returns the i-th word, or "" outside the list.
func at(ws []word, i int) string {
	if i < 0 || i >= len(ws) {
		return ""
	}
	return ws[i].w
}

// conditional words turn "required" into "required only sometimes".
func conditional(w string) bool {
	return in(w, "if", "when", "unless", "only", "for", "to", "in", "with", "whenever")
}

// insistsRequired reports whether a description's words say the property must be given: "Required.",
// "This field is required", "mandatory", "must be provided", "at least one".
func insistsRequired(ws []word) bool {
	for i, w := range ws {
		next := at(ws, i+1)
		switch w.w {
		case "required", "mandatory":
			if conditional(next) {
				continue
			}
			prev := at(ws, i-1)
			if i == 0 || in(prev, "is", "are", "always", "strictly") || (w.w == "mandatory" && prev != "not") {
				return true
			}
		case "must":
			if at(ws, i+1) == "be" && in(at(ws, i+2), "provided", "specified", "supplied", "given", "included") && !conditional(at(ws, i+3)) {
				return true
			}
		case "least":
			if at(ws, i-1) == "at" && next == "one" && at(ws, i+2) != "of" {
				return true
			}
		case "one":
			if next == "or" && at(ws, i+2) == "more" {
				return true
			}
		}
	}
	return false
}

// describedOptional reports whether a description says the property may be left out.
func describedOptional(ws []word) bool {
	for i, w := range ws {
		next, prev := at(ws, i+1), at(ws, i-1)
		switch w.w {
		case "optional", "optionally":
			if i == 0 || in(prev, "is", "are", "entirely", "completely", "fully", "field", "parameter") {
				return true
			}
			if w.w == "optional" && (w.before == '(' || w.before == '[') && (w.after == ')' || w.after == ']') {
				return true
			}
			if w.w == "optional" && (w.after == '.' || w.after == ';' || w.after == ':') {
				return true
			}
			if in(prev, "an", "the", "this") && !in(at(ws, i-2), "containing", "contains", "with", "and", "including", "include", "includes", "of", "for", "any", "other", "some", "or") {
				return true
			}
		case "omit", "omitted", "omitting", "omits":
			return true
		case "leave":
			for _, n := range []string{next, at(ws, i+2), at(ws, i+3)} {
				if in(n, "empty", "blank", "unset", "out", "null") {
					return true
				}
			}
		case "if", "when":
			switch {
			case in(next, "unspecified", "unset", "absent", "missing", "empty", "blank", "omitted", "unprovided", "provided", "specified", "supplied", "given", "present", "set", "included", "passed", "sent"):
				return true
			case next == "not" && in(at(ws, i+2), "provided", "specified", "set", "given", "supplied", "passed", "present", "included", "sent"):
				return true
			case next == "left" && in(at(ws, i+2), "empty", "blank", "unset", "out"):
				return true
			}
		case "default", "defaults":
			if in(next, "to", "is", "value") || w.after == ':' || prev == "by" {
				return true
			}
		case "required":
			if prev == "not" && next != "to" {
				return true
			}
			if in(next, "if", "when", "unless") || (next == "only" && in(at(ws, i+2), "if", "when")) {
				return true
			}
		}
	}
	return false
}

// describedNull reports whether a description says null is a valid value.
func describedNull(ws []word) bool {
	for i, w := range ws {
		switch w.w {
		case "null":
			prev, next := at(ws, i-1), at(ws, i+1)
			if in(prev, "to", "or", "as", "pass", "use", "send", "provide", "specify") ||
				in(next, "to", "for", "if", "means", "when", "clears", "removes", "resets", "unsets", "disables") ||
				(prev == "be" && in(at(ws, i-2), "can", "may")) {
				return true
			}
		case "nullable":
			return true
		}
	}
	return false
}

// describedReadOnly reports whether a description says the server sets the value itself.
// "Generated" alone is not enough: "the system-generated ID of the record" names a value
// the caller must pass.
func describedReadOnly(ws []word) bool {
	for i, w := range ws {
		next := at(ws, i+1)
		switch w.w {
		case "readonly":
			return true
		case "read":
			if next == "only" {
				return true
			}
		case "auto", "automatically":
			if in(next, "set", "populated", "assigned", "calculated", "computed", "filled", "updated") {
				return true
			}
		case "settable":
			if at(ws, i-1) == "not" {
				return true
			}
		case "by":
			if next == "the" && in(at(ws, i+2), "server", "system", "api") && in(at(ws, i-1), "set", "assigned", "computed", "calculated", "populated") {
				return true
			}
		}
	}
	return false
}
