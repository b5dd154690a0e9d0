package hinteval

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/internal/text"
)

// bm25 is the baseline: Okapi BM25 over each action's slug words (app prefix kept, as a
// plain ranker would), display name and description, lower-cased words with English stop
// words removed and no stemming, over the actions of the case's apps.
type bm25 struct {
	an   *text.Analyzer
	docs map[string][]bdoc // app -> documents
}

type bdoc struct {
	slug string
	tf   map[string]int
	n    int
}

func newBM25(ctx context.Context, st Store) (*bm25, error) {
	acts, err := st.Actions(ctx, cache.ActionFilter{})
	if err != nil {
		return nil, fmt.Errorf("hinteval: reading actions: %w", err)
	}
	b := &bm25{an: text.New(), docs: map[string][]bdoc{}}
	for _, a := range acts {
		d := bdoc{slug: a.Slug, tf: map[string]int{}}
		for _, w := range b.words(strings.ReplaceAll(a.Slug, "_", " ") + " " + a.DisplayName + " " + a.Description) {
			d.tf[w]++
			d.n++
		}
		app := strings.ToLower(a.App)
		b.docs[app] = append(b.docs[app], d)
	}
	return b, nil
}

func (b *bm25) words(s string) []string {
	var out []string
	for _, w := range text.Words(s) {
		if !b.an.IsStop(w) {
			out = append(out, w)
		}
	}
	return out
}

// rank returns the top depth action slugs for the prompt over apps.
func (b *bm25) rank(prompt string, apps []string, depth int) []string {
	const k1, bb = 1.2, 0.75
	var docs []bdoc
	for _, a := range apps {
		docs = append(docs, b.docs[strings.ToLower(a)]...)
	}
	if len(docs) == 0 {
		return nil
	}
	q := b.words(prompt)
	slices.Sort(q)
	q = slices.Compact(q)
	avg := 0.0
	for _, d := range docs {
		avg += float64(d.n)
	}
	avg /= float64(len(docs))
	idf := make([]float64, len(q))
	for i, t := range q {
		df := 0
		for _, d := range docs {
			if d.tf[t] > 0 {
				df++
			}
		}
		idf[i] = math.Log(1 + (float64(len(docs))-float64(df)+0.5)/(float64(df)+0.5))
	}
	type scored struct {
		slug  string
		score float64
	}
	var ss []scored
	for _, d := range docs {
		s := 0.0
		for i, t := range q {
			f := float64(d.tf[t])
			if f == 0 {
				continue
			}
			s += idf[i] * f * (k1 + 1) / (f + k1*(1-bb+bb*float64(d.n)/avg))
		}
		if s > 0 {
			ss = append(ss, scored{d.slug, s})
		}
	}
	slices.SortFunc(ss, func(x, y scored) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return strings.Compare(x.slug, y.slug)
	})
	out := make([]string, 0, depth)
	for i := 0; i < len(ss) && i < depth; i++ {
		out = append(out, ss[i].slug)
	}
	return out
}
