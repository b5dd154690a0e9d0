package hint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/cache"
)

// Reranker orders the best few actions of a hint the lexical ranking is not sure of, with a
// model of the host's (Config.Reranker). Implementations must be safe for concurrent use
// and honour ctx's deadline.
type Reranker interface {
	// Rerank returns the candidates' action slugs, best first, for the prompt. Slugs it
	// leaves out keep their order after those it returns; slugs that are not candidates
	// are ignored.
	Rerank(ctx context.Context, prompt string, cands []RerankCandidate) ([]string, error)
}

// RerankCandidate is one action offered to a Reranker. It is plain data.
type RerankCandidate struct {
	Action string // the action's slug
	App    string
	// Description is the first line of the action's description (at most
	// maxRerankDesc bytes); empty when the store cannot say.
	Description string
}

const maxRerankDesc = 200

// rerank lets Config.Reranker reorder the top actions of res when res is not confident,
// under Config.RerankTimeout; on any failure res keeps the lexical order and says why.
func (b *Builder) rerank(ctx context.Context, st Store, prompt string, res *Result) {
	if b.rr == nil || res.Confident || len(res.Matches) < 2 {
		return
	}
	k := min(b.rerankTop, len(res.Matches))
	ctx, cancel := context.WithTimeout(ctx, b.rerankTimeout)
	defer cancel()
	order, err := b.callReranker(ctx, st, prompt, res.Matches[:k])
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // an answer after the deadline is not used
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			res.Fallbacks = append(res.Fallbacks, fmt.Sprintf("rerank: the reranker did not answer within %v", b.rerankTimeout))
		} else {
			res.Fallbacks = append(res.Fallbacks, "rerank: "+err.Error())
		}
		return
	}
	top := res.Matches[:k]
	next := make([]Match, 0, k)
	placed := make([]bool, k)
	for _, slug := range order {
		if i := slices.IndexFunc(top, func(m Match) bool { return m.Action == slug }); i >= 0 && !placed[i] {
			next = append(next, top[i])
			placed[i] = true
		}
	}
	if len(next) == 0 {
		res.Fallbacks = append(res.Fallbacks, "rerank: the reranker returned none of the candidates")
		return
	}
	for i, m := range top {
		if !placed[i] {
			next = append(next, m)
		}
	}
	copy(top, next)
	for i := range top {
		res.MatchedActions[i] = top[i].Action
	}
	res.Strategy = res.Matches[0].Tier
	res.Reranked = true
}

// callReranker reads the candidates' descriptions and calls the reranker, turning a panic
// in either into an error.
func (b *Builder) callReranker(ctx context.Context, st Store, prompt string, top []Match) (order []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			order, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	cands := make([]RerankCandidate, len(top))
	// The descriptions come from the store when it reads actions, as both cache stores do.
	ar, _ := st.(cache.ActionReader)
	for i, m := range top {
		cands[i] = RerankCandidate{Action: m.Action, App: m.App}
		if ar == nil {
			continue
		}
		a, err := ar.Action(ctx, m.Action)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", m.Action, err)
		}
		cands[i].Description = firstLine(a.Description)
	}
	return b.rr.Rerank(ctx, prompt, cands)
}

// firstLine returns the first line (or sentence) of s, at most maxRerankDesc bytes, cut at a
// rune boundary.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if len(s) > maxRerankDesc {
		s = strings.ToValidUTF8(s[:maxRerankDesc], "")
		s = strings.TrimSpace(s) + "…"
	}
	return s
}
