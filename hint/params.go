package hint

import (
	"slices"
	"strings"

	"github.com/toolhint/toolhint/cache"
)

// contentParam reports whether actions take the text a user dictates under name: a closed
// list, as the words of dictateWords are.
func contentParam(name string) bool {
	switch name {
	case "text", "body", "message", "content", "comment":
		return true
	}
	return false
}

// dictateWords returns the words with which a prompt dictates text to write.
func dictateWords() []string {
	return []string{"say", "tell", "write", "message", "text", "note", "comment", "body", "content", "reply", "post"}
}

// paramHints chooses the parameter hints of the matches that have them: the required
// parameters first, then those whose names the prompt mentions (a word of the name, as
// stemmed, is a term of the prompt: "the text", "in the channel"; the content field, text or
// body, of a prompt that dictates what to write), then the rest in the
// catalogue's order, at most Limits.MaxParamsPerAction. hinted are the matches' indexes in
// metas, in order, for those that carry parameter hints; terms are the stems of the
// prompt's own words. The catalogue's own order is
// often alphabetical, which would otherwise show as_user and attachments before the text
// of a message the prompt dictates.
func (b *Builder) paramHints(terms []string, metas []cache.ActionMeta, hinted []int32, res *Result) {
	if len(hinted) == 0 {
		return
	}
	// A prompt that dictates what to write ("saying hi", "post a note", "the message")
	// mentions the field that carries it, whatever the field is called.
	dictates := slices.ContainsFunc(dictateWords(), func(w string) bool { return slices.Contains(terms, b.an.Stem(w)) })
	mentioned := func(p cache.Param) bool {
		if dictates && contentParam(p.Name) {
			return true
		}
		// The words of a snake_case name, stemmed as the prompt's terms are, without
		// allocating a list of them.
		for name := strings.ToLower(p.Name); name != ""; {
			w, rest, _ := strings.Cut(name, "_")
			if w != "" && slices.Contains(terms, b.an.Stem(w)) {
				return true
			}
			name = rest
		}
		return false
	}
	k := 0
	for i := range res.Matches {
		if len(res.Matches[i].Params) == 0 || k >= len(hinted) {
			continue
		}
		meta := &metas[hinted[k]]
		k++
		// Class 0: required, 1: mentioned, 2: the rest. One pass per class keeps the
		// catalogue's order within each.
		class := make([]int, len(meta.Params))
		for j, p := range meta.Params {
			switch {
			case p.Required:
			case mentioned(p):
				class[j] = 1
			default:
				class[j] = 2
			}
		}
		ps := make([]cache.Param, 0, len(meta.Params))
		for c := range 3 {
			for j, p := range meta.Params {
				if class[j] == c {
					ps = append(ps, p)
				}
			}
		}
		res.Matches[i].Params = ps[:min(len(ps), b.limits.MaxParamsPerAction)]
	}
}
