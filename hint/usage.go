package hint

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/internal/text"
)

// UsageReader is what usage priors read: a workspace's record of use, newest first (see
// cache.UsageStore). *cache.Memory and *cache.Postgres satisfy it. Implementations must be
// safe for concurrent use.
type UsageReader interface {
	Usage(ctx context.Context, workspaceID string, since time.Time) ([]cache.UsageEvent, error)
}

// UsageConfig turns on priors learnt from each workspace's record of use (Config.Usage).
// For a request with a WorkspaceID, Build reads the workspace's record and adds two
// bounded features to the candidates the lexical ranking found: how well the workspace's
// calls of the action went (successes for, failures against, recent ones weighing more),
// and how strongly the request's terms led to the action before. An action the lexical
// ranking did not find is listed only when its learnt terms cover much of the request.
// Priors never put an action before the actions of an app the request names, and never
// bring a destructive action into a request that does not ask to destroy. It is plain data
// but for Reader.
type UsageConfig struct {
	// Reader reads the record of use. Optional. Defaults to the store Build is given, when
	// it implements UsageReader; with neither, there are no priors.
	Reader UsageReader
	// HalfLife is the age at which a call counts half. Optional. Defaults to 14 days.
	HalfLife time.Duration
	// HalfLifeCalls is the number of the workspace's later calls after which a call counts
	// half, so that a workspace that moves to another action is followed soon. Optional.
	// Defaults to 200.
	HalfLifeCalls int
	// Window is how far back the record is read. Optional. Defaults to
	// cache.DefaultUsageRetention.
	Window time.Duration
	// Refresh is how long what was learnt from a workspace's record is reused before the
	// record is read again. Optional. Defaults to 30 seconds; negative reads it on every
	// Build.
	Refresh time.Duration
	// MaxWorkspaces bounds the workspaces whose priors are kept between reads. Optional.
	// Defaults to 1024.
	MaxWorkspaces int
}

func (c UsageConfig) withDefaults() UsageConfig {
	if c.HalfLife <= 0 {
		c.HalfLife = 14 * 24 * time.Hour
	}
	if c.HalfLifeCalls <= 0 {
		c.HalfLifeCalls = 200
	}
	if c.Window <= 0 {
		c.Window = cache.DefaultUsageRetention
	}
	if c.Refresh == 0 {
		c.Refresh = 30 * time.Second
	}
	if c.MaxWorkspaces <= 0 {
		c.MaxWorkspaces = 1024
	}
	return c
}

// liftAt is the least share of a clause's term weight an action's learnt terms must cover
// for the action to be listed without a lexical match.
const liftAt = 0.3

// PromptTerms returns the terms of prompt that a workspace's record of use keeps (see
// cache.UsageEvent): the stems of the words of its instructions, without quoted text or a
// message body, each once, in order. It never returns the prompt's text. Equal to
// New(Config{}).PromptTerms.
func PromptTerms(prompt string) []string { return defaultBuilder().PromptTerms(prompt) }

// PromptTerms returns the terms of prompt a record of use keeps; see the function
// PromptTerms.
func (b *Builder) PromptTerms(prompt string) []string {
	if len(prompt) > MaxPromptLen {
		prompt = prompt[:MaxPromptLen]
	}
	var out []string
	for _, c := range b.an.Prompt(prompt, nil).Clauses {
		out = usageTerms(c, out)
	}
	if len(out) > cache.MaxUsageTerms {
		out = out[:cache.MaxUsageTerms]
	}
	return out
}

// usageTerms appends to dst the stems of c's own words, message content aside, that dst
// does not hold yet: the terms a record of use keeps and usage priors match.
func usageTerms(c text.Clause, dst []string) []string {
	for _, t := range c.Terms {
		if t.Source == text.SourceWord && t.Role != text.RoleContent && storableTerm(t.Stem) && !slices.Contains(dst, t.Stem) {
			dst = append(dst, t.Stem)
		}
	}
	return dst
}

// storableTerm reports whether a record of use can keep t: one short word of printable
// UTF-8 (see cache.UsageEvent).
func storableTerm(t string) bool {
	return t != "" && len(t) <= cache.MaxUsageTermLen && utf8.ValidString(t) &&
		strings.IndexFunc(t, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) < 0
}

// usagePriors learns from the workspaces' records of use, keeping what it learnt for a
// while. It is safe for concurrent use.
type usagePriors struct {
	cfg UsageConfig
	mu  sync.Mutex
	m   map[string]*usageModel // by workspace
}

func newUsagePriors(cfg *UsageConfig) *usagePriors {
	if cfg == nil {
		return nil
	}
	return &usagePriors{cfg: cfg.withDefaults(), m: map[string]*usageModel{}}
}

// usageModel is what one workspace's record says. It is immutable once built.
type usageModel struct {
	at time.Time // when the record was read
	// base holds every action with a record: its prior, and no term signal. Shared by
	// every clause without a learnt term: the ranking only reads it.
	base map[string]signal
	// requests are the distinct term sets of the recorded calls, with the actions each
	// led to; byTerm indexes them by term.
	requests []pastRequest
	byTerm   map[string][]int32
	// idf is, per term, how rare it is among the requests; unseen is that of a term no
	// request has.
	idf    map[string]float64
	unseen float64
}

// pastRequest is one term set of a workspace's calls and where it led.
type pastRequest struct {
	terms []string
	norm  float64 // the length of its IDF vector
	// share is, per action its calls went to, the decayed net weight (successes minus
	// failures) of those calls, over that of all its calls or 1, whichever is more; only
	// positive shares are kept.
	share []termAction
}

type termAction struct {
	action string
	share  float64
}

// Bounds of a workspace's model, so that a Build's cost does not grow with the record:
// the actions with a prior (those with the most weight), and the earlier requests a clause
// is compared with (those sharing the most term weight with it).
const (
	maxPriorActions = 256
	maxNeighbours   = 32
)

// source returns the signal source for req, nil when there are no priors for it (no
// workspace, no reader, an empty record) or the record could not be read (logged).
func (b *Builder) usageSource(ctx context.Context, st Store, req Request) signalSource {
	u := b.usage
	if u == nil || req.WorkspaceID == "" {
		return nil
	}
	rd := u.cfg.Reader
	if rd == nil {
		rd, _ = st.(UsageReader)
		if rd == nil {
			return nil
		}
	}
	m, err := u.model(ctx, rd, req.WorkspaceID)
	if err != nil {
		b.warn(ctx, req, "usage read", err)
		return nil
	}
	if m == nil || len(m.base) == 0 {
		return nil
	}
	return m.signals
}

// model returns the workspace's model, read anew when the kept one is older than Refresh.
func (u *usagePriors) model(ctx context.Context, rd UsageReader, ws string) (*usageModel, error) {
	now := time.Now()
	if u.cfg.Refresh > 0 {
		u.mu.Lock()
		m := u.m[ws]
		u.mu.Unlock()
		if m != nil && now.Sub(m.at) < u.cfg.Refresh {
			return m, nil
		}
	}
	evs, err := storeRead(func() ([]cache.UsageEvent, error) { return rd.Usage(ctx, ws, now.Add(-u.cfg.Window)) })
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	m := buildUsageModel(evs, now, u.cfg)
	if u.cfg.Refresh > 0 {
		u.mu.Lock()
		if len(u.m) >= u.cfg.MaxWorkspaces {
			for k := range u.m { // evict one, any
				delete(u.m, k)
				break
			}
		}
		u.m[ws] = m
		u.mu.Unlock()
	}
	return m, nil
}

// buildUsageModel learns from evs, newest first. A call weighs 1/2 per HalfLife of age and
// per HalfLifeCalls later calls. An action's prior is its net weight (successes minus
// failures) relative to that of the workspace's most successful action, in [-1, 1].
func buildUsageModel(evs []cache.UsageEvent, now time.Time, cfg UsageConfig) *usageModel {
	m := &usageModel{at: now, byTerm: map[string][]int32{}, idf: map[string]float64{}}
	type tally struct{ ok, failed float64 }
	by := map[string]*tally{}
	apps := map[string]string{} // action -> app
	reqIndex := map[string]int{}
	var net []map[string]float64 // per request: action -> net weight
	var mass []float64           // per request: the weight of all its calls
	for pos, e := range evs {
		age := max(now.Sub(e.At), 0)
		w := math.Exp2(-age.Hours()/cfg.HalfLife.Hours() - float64(pos)/float64(cfg.HalfLifeCalls))
		t := by[e.Action]
		if t == nil {
			t = &tally{}
			by[e.Action] = t
			apps[e.Action] = e.App
		}
		sign := 1.0
		if e.OK {
			t.ok += w
		} else {
			t.failed += w
			sign = -1
		}
		if len(e.Terms) == 0 {
			continue
		}
		terms := slices.Clone(e.Terms)
		slices.Sort(terms)
		terms = slices.Compact(terms)
		key := strings.Join(terms, " ")
		ri, ok := reqIndex[key]
		if !ok {
			ri = len(m.requests)
			reqIndex[key] = ri
			m.requests = append(m.requests, pastRequest{terms: terms})
			net, mass = append(net, map[string]float64{}), append(mass, 0)
			for _, term := range terms {
				m.byTerm[term] = append(m.byTerm[term], int32(ri))
			}
		}
		net[ri][e.Action] += sign * w
		mass[ri] += w
	}
	n := float64(len(m.requests))
	m.unseen = math.Log1p(2 * n)
	for term, rs := range m.byTerm {
		m.idf[term] = math.Log1p(n / (float64(len(rs)) + 0.5))
	}
	for ri := range m.requests {
		r := &m.requests[ri]
		for _, term := range r.terms {
			r.norm += m.idf[term] * m.idf[term]
		}
		r.norm = math.Sqrt(r.norm)
		for a, v := range net[ri] {
			if v > 0 {
				r.share = append(r.share, termAction{action: a, share: v / max(mass[ri], 1)})
			}
		}
	}
	appOK := map[string]float64{}
	for a, t := range by {
		appOK[apps[a]] += t.ok
	}
	actions := make([]string, 0, len(by))
	for a := range by {
		actions = append(actions, a)
	}
	if len(actions) > maxPriorActions {
		weight := func(a string) float64 { return by[a].ok + by[a].failed }
		slices.SortFunc(actions, func(x, y string) int {
			if c := cmp.Compare(weight(y), weight(x)); c != 0 {
				return c
			}
			return strings.Compare(x, y)
		})
		actions = actions[:maxPriorActions]
	}
	m.base = make(map[string]signal, len(actions))
	for _, a := range actions {
		t := by[a]
		p := (t.ok - t.failed) / (appOK[apps[a]] + 1)
		m.base[a] = signal{Prior: float32(min(max(p, -1), 1))}
	}
	return m
}

type neighbour struct {
	ri  int32
	sim float64
}

// signals is the model's signalSource: every recorded action's prior, and for the actions
// earlier requests like the clause led to, how alike the closest such request is (the
// cosine of their IDF-weighted terms) times the share of its calls that went to the
// action. A term no request had weighs most, so a clause of new words learns little.
func (m *usageModel) signals(_ string, terms []string) map[string]signal {
	if len(terms) == 0 || len(m.requests) == 0 {
		return m.base
	}
	var qnorm float64
	var all []neighbour                  // first the dot products, then the cosines
	at := make([]int32, len(m.requests)) // request -> 1 + its index in all; 0: none
	for _, t := range terms {
		idf, ok := m.idf[t]
		if !ok {
			idf = m.unseen
		}
		qnorm += idf * idf
		for _, ri := range m.byTerm[t] {
			if at[ri] == 0 {
				all = append(all, neighbour{ri: ri})
				at[ri] = int32(len(all))
			}
			all[at[ri]-1].sim += idf * idf
		}
	}
	if len(all) == 0 {
		return m.base
	}
	qnorm = math.Sqrt(qnorm)
	// The closest maxNeighbours requests, kept by replacing the least of them.
	near := make([]neighbour, 0, min(len(all), maxNeighbours))
	least := 0
	for _, nb := range all {
		nb.sim /= qnorm * m.requests[nb.ri].norm
		switch {
		case len(near) < maxNeighbours:
			near = append(near, nb)
			if nb.sim < near[least].sim {
				least = len(near) - 1
			}
		case nb.sim > near[least].sim:
			near[least] = nb
			for k := range near {
				if near[k].sim < near[least].sim {
					least = k
				}
			}
		}
	}
	var out map[string]signal
	for _, nb := range near {
		for _, ta := range m.requests[nb.ri].share {
			if out == nil {
				out = maps.Clone(m.base) // a copy of the table, cheaper than inserting anew
			}
			s := out[ta.action]
			if v := float32(min(nb.sim*ta.share, 1)); v > s.Learnt {
				s.Learnt = v
				s.Lift = v >= liftAt && s.Prior > 0
				out[ta.action] = s
			}
		}
	}
	if out == nil {
		return m.base
	}
	return out
}
