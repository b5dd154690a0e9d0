package hint

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/toolhint/toolhint/cache"
)

// Embedder turns texts into vectors, for the optional semantic tier (Config.Embedder). It is
// implemented by the host, or by *embedding.Client for any OpenAI-compatible embeddings
// endpoint. Implementations must be safe for concurrent use and honour ctx's deadline.
type Embedder interface {
	// Embed returns one vector per text, in order, all of one length.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the model: vectors of different models are never compared, and the
	// stores keep each action's vector with the name of the model that computed it.
	Model() string
}

// vectorReader is what the semantic tier reads besides Store: *cache.Memory and
// *cache.Postgres have it.
type vectorReader interface {
	Vectors(ctx context.Context, model string, apps []string) ([]cache.ActionVector, error)
}

// The semantic tier's shape, per clause: the semTop actions most similar to the clause
// get the semantic feature, scaled from 1 (the most similar) down to 0 (the first action
// past semTop), so that its size does not depend on how a model spreads its cosines; the
// semLift most similar may be candidates though they share no word with the clause.
const (
	semTop  = 10
	semLift = 3
)

// semantic is the semantic tier's work for one Build: the signal source it gives the
// ranking, or, when it could not run, why (fallback) — or neither when it has nothing to do.
type semantic struct {
	src      signalSource
	fallback string
}

// semanticSource embeds the prompt's clauses (one Embed call) and compares them with the
// stored vectors of metas' actions. It runs under Config.EmbedTimeout; whatever fails, the
// Build goes on with the lexical ranking and the reason is returned.
func (b *Builder) semanticSource(ctx context.Context, st Store, pa *analysis, metas []cache.ActionMeta) (s semantic) {
	if b.emb == nil || len(metas) == 0 {
		return semantic{}
	}
	defer func() {
		if r := recover(); r != nil {
			s = semantic{fallback: fmt.Sprintf("semantic: panic: %v", r)}
		}
	}()
	vr, ok := st.(vectorReader)
	if !ok {
		return semantic{fallback: "semantic: the store keeps no vectors"}
	}
	texts := make([]string, 0, maxClauses)
	for _, c := range pa.get(b.an).Clauses {
		if !slices.Contains(texts, c.Text) {
			texts = append(texts, c.Text)
		}
	}
	if len(texts) == 0 {
		return semantic{}
	}
	ctx, cancel := context.WithTimeout(ctx, b.embedTimeout)
	defer cancel()
	model := b.emb.Model()
	vs, err := vr.Vectors(ctx, model, pa.apps)
	if err != nil {
		return semantic{fallback: "semantic: reading vectors: " + err.Error()}
	}
	if len(vs) == 0 {
		return semantic{fallback: fmt.Sprintf("semantic: no vectors of model %q for these apps (see EmbedCatalog)", model)}
	}
	qs, err := b.emb.Embed(ctx, texts)
	switch {
	case err == nil && ctx.Err() != nil:
		err = ctx.Err() // an answer after the deadline is not used
	case err == nil && len(qs) != len(texts):
		err = fmt.Errorf("%d vectors for %d texts", len(qs), len(texts))
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return semantic{fallback: fmt.Sprintf("semantic: the embedder did not answer within %v", b.embedTimeout)}
		}
		return semantic{fallback: "semantic: embedder: " + err.Error()}
	}
	byText := make(map[string]map[string]signal, len(texts))
	for i, t := range texts {
		sigs, err := similar(qs[i], vs, metas)
		if err != nil {
			return semantic{fallback: "semantic: " + err.Error()}
		}
		byText[t] = sigs
	}
	return semantic{src: func(words string, _ []string) map[string]signal { return byText[words] }}
}

// similar returns the semantic signals of the actions of metas most similar to q among
// those with a vector in vs. Both are ordered by app then action.
func similar(q []float32, vs []cache.ActionVector, metas []cache.ActionMeta) (map[string]signal, error) {
	qn := norm(q)
	if qn == 0 {
		return nil, errors.New("the prompt's vector is zero")
	}
	// The semTop+1 most similar, best first: kept by insertion, as most actions are not.
	type hit struct {
		action string
		cos    float64
	}
	var buf [semTop + 1]hit
	hits := buf[:0]
	better := func(a, b hit) bool { return a.cos > b.cos || a.cos == b.cos && a.action < b.action }
	j := 0
	for i := range metas {
		m := &metas[i]
		// vs may hold actions metas lacks (disabled ones): skip those before m.
		for j < len(vs) && (vs[j].App < m.App || vs[j].App == m.App && vs[j].Action < m.Action) {
			j++
		}
		if j == len(vs) {
			break
		}
		if vs[j].App != m.App || vs[j].Action != m.Action {
			continue
		}
		v := vs[j].Vector
		if len(v) != len(q) {
			return nil, fmt.Errorf("the prompt's vector has %d dimensions, the actions' %d", len(q), len(v))
		}
		// Stored vectors have length one (cache.VectorStore).
		h := hit{m.Action, float64(dot32(q, v)) / qn}
		if len(hits) == len(buf) && !better(h, hits[len(hits)-1]) {
			continue
		}
		if len(hits) < len(buf) {
			hits = append(hits, h)
		} else {
			hits[len(hits)-1] = h
		}
		for k := len(hits) - 1; k > 0 && better(hits[k], hits[k-1]); k-- {
			hits[k], hits[k-1] = hits[k-1], hits[k]
		}
	}
	if len(hits) == 0 {
		return nil, nil
	}
	top := hits[0].cos
	floor := hits[min(semTop, len(hits)-1)].cos
	if len(hits) <= semTop {
		floor = min(floor, 0) // too few to tell: scale from zero similarity
	}
	out := make(map[string]signal, semTop)
	for k := 0; k < min(semTop, len(hits)); k++ {
		s := 1.0
		if top > floor {
			s = (hits[k].cos - floor) / (top - floor)
		}
		if s <= 0 {
			break
		}
		out[hits[k].action] = signal{Semantic: float32(s), Lift: k < semLift}
	}
	return out, nil
}

// dot32 is the dot product of two vectors of one length, in float32 with four
// accumulators: comparing a prompt with thousands of actions is most of the semantic
// tier's time, and this precision ranks them the same.
func dot32(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

func norm(a []float32) float64 { return math.Sqrt(float64(dot32(a, a))) }

// mergeSignals returns a source that gives what both a and b give: the features of an
// action both speak of add up, and either may lift it. Either may be nil. This is how
// the sources outside the lexical ranking (usage, semantic similarity) are combined.
func mergeSignals(a, b signalSource) signalSource {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(words string, terms []string) map[string]signal {
		x, y := a(words, terms), b(words, terms)
		if len(x) == 0 {
			return y
		}
		if len(y) == 0 {
			return x
		}
		out := make(map[string]signal, len(x)+len(y))
		for k, v := range x {
			out[k] = v
		}
		for k, v := range y {
			s := out[k]
			s.Learnt += v.Learnt
			s.Cover += v.Cover
			s.Semantic += v.Semantic
			s.Lift = s.Lift || v.Lift
			out[k] = s
		}
		return out
	}
}
