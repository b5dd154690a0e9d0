package executor

import (
	"context"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/schema"
)

// fromFunctionName finds the action whose schema.FunctionName is name among the actions the
// scope may see.
func (e *Executor) fromFunctionName(ctx context.Context, name string) (string, bool) {
	for _, c := range e.candidates(ctx) {
		if len(c) > schema.MaxNameLength && schema.FunctionName(c) == name {
			return c, true
		}
	}
	return "", false
}

// suggest returns up to n real tool names closest to name: platform tools and the actions
// of the apps the scope may use, scored by edit distance and shared words.
func (e *Executor) suggest(ctx context.Context, name string, n int) []string {
	if name == "" {
		return nil
	}
	return closest(name, e.candidates(ctx), n)
}

// candidates lists the real names the scope may call: active platform tools and the
// actions of the allowed apps (every app when no access checker or app list is set).
func (e *Executor) candidates(ctx context.Context) []string {
	var cands []string
	if e.cfg.Registry != nil {
		for _, t := range e.cfg.Registry.All(true) {
			cands = append(cands, t.Name)
		}
	}
	if e.cfg.Catalog != nil {
		var apps []string
		if e.cfg.Access != nil {
			if a, err := e.cfg.Access.AllowedApps(ctx, e.cfg.Scope.subject()); err == nil {
				apps = a
				if len(apps) == 0 {
					apps = []string{} // no allowed apps: suggest no actions
				}
			}
		} else if len(e.cfg.Scope.Apps) > 0 {
			apps = e.cfg.Scope.Apps
		}
		if apps == nil || len(apps) > 0 {
			if metas, err := e.cfg.Catalog.ActionMeta(ctx, apps); err == nil {
				for _, m := range metas {
					cands = append(cands, m.Action)
				}
			}
		}
	}
	return cands
}

type scored struct {
	name  string
	score float64
}

// closest ranks candidates by similarity to name and keeps the best n above a floor.
func closest(name string, cands []string, n int) []string {
	q := strings.ToUpper(shorten(name, 128))
	qt := words(q)
	// In a large catalogue only candidates sharing a word start with the query are scored:
	// the edit distances are the expensive part.
	filter := len(cands) > 500
	heads := make(map[string]bool, len(qt))
	for _, w := range qt {
		heads[head(w)] = true
	}
	var best []scored
	for _, c := range cands {
		uc := strings.ToUpper(c)
		if filter && !sharesHead(uc, heads) {
			continue
		}
		s := similarity(q, qt, uc)
		if s < 0.4 {
			continue
		}
		best = append(best, scored{c, s})
	}
	slices.SortStableFunc(best, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for _, b := range best {
		if len(out) == n {
			break
		}
		if !slices.Contains(out, b.name) {
			out = append(out, b.name)
		}
	}
	return out
}

// head is the first two bytes of a word, the unit of the pre-filter.
func head(w string) string {
	if len(w) > 2 {
		return w[:2]
	}
	return w
}

// sharesHead reports whether any word of name starts like a query word.
func sharesHead(name string, heads map[string]bool) bool {
	for len(name) > 0 {
		i := strings.IndexAny(name, "_- .")
		w := name
		if i >= 0 {
			w, name = name[:i], name[i+1:]
		} else {
			name = ""
		}
		if len(w) > 1 && heads[head(w)] {
			return true
		}
	}
	return false
}

// similarity mixes a normalised edit distance over the whole name with how well the words
// match: every word of the query should find a close word in the candidate (SEND~SENDS,
// MESAGE~MESSAGE), and the candidate should not be mostly other words.
func similarity(q string, qt []string, c string) float64 {
	ct := words(c)
	if len(qt) == 0 || len(ct) == 0 {
		return 0
	}
	recall := 0.0
	matched := make([]bool, len(ct))
	for _, w := range qt {
		best, at := 0.0, -1
		for j, v := range ct {
			if s := wordSim(w, v); s > best {
				best, at = s, j
			}
		}
		if at >= 0 {
			recall += best
			matched[at] = true
		}
	}
	recall /= float64(len(qt))
	hits := 0
	for _, m := range matched {
		if m {
			hits++
		}
	}
	precision := float64(hits) / float64(len(ct))
	overlap := 0.7*recall + 0.3*precision
	edit := 1 - float64(levenshtein(q, c))/float64(max(len(q), len(c)))
	return 0.25*edit + 0.75*overlap
}

// wordSim scores two words from 0 to 1: equal, one a prefix of the other (an inflection),
// or a small edit apart; below 0.7 counts as no match.
func wordSim(a, b string) float64 {
	if a == b {
		return 1
	}
	if len(a) >= 3 && len(b) >= 3 && (strings.HasPrefix(a, b) || strings.HasPrefix(b, a)) {
		return 0.95
	}
	s := 1 - float64(levenshtein(a, b))/float64(max(len(a), len(b)))
	if s < 0.7 {
		return 0
	}
	return s
}

// words splits a name into its words, leaving out one-letter ones ("A", "_").
func words(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' || r == ' ' || r == '.' })
	out := f[:0]
	for _, w := range f {
		if len(w) > 1 {
			out = append(out, w)
		}
	}
	return out
}

// levenshtein is the edit distance between two byte strings.
func levenshtein(a, b string) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
