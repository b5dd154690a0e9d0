package hint

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

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
// For a request with a WorkspaceID, Build reads the workspace's record and adds features to
// the candidates: how well the workspace's calls of the action went (successes for,
// failures against, recent ones weighing more; counted only where much of the clause's terms
// led to the action before), how strongly and how much of the request's terms led to it,
// and how surely the request repeats earlier successful calls of it. A near repeat (the
// request shares at least half of its and the calls' IDF-weighted terms) lifts the action
// into the candidates; an exact repeat (0.8) leads its clause and the hint, and makes the
// hint's probability at least 0.9 times how surely it repeats. An action otherwise missing
// from the lexical ranking is listed only when its learnt terms cover much of the request.
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
		if t.Source == text.SourceWord && t.Role != text.RoleContent && cache.CheckUsageTerm(t.Stem) == nil && !slices.Contains(dst, t.Stem) {
			dst = append(dst, t.Stem)
		}
	}
	return dst
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
	// priors holds every action with a record and its prior: shared by every clause, the
	// ranking only reads it.
	priors *priorTable
	// actions are the actions with a prior, in order of their IDs (termAction.id).
	actions []string
	// byTerm is, per term of the recorded calls, the actions with a prior the calls with
	// the term led to, and how strongly (see termAction).
	byTerm map[string][]termAction
	// idf is, per term, how rare it is among the calls; unseen is that of a term no call
	// had, as much as the rarest.
	idf    map[string]float64
	unseen float64
	// keys are the distinct sets of terms the calls were made with, and keyOf, per term,
	// the keys that hold it: what repeats matches a request against.
	keys  []repeatKey
	keyOf map[string][]uint16
}

// repeatKey is one set of terms calls were made with: their decayed weight, and the net
// weight (successes minus failures) of each action they called.
type repeatKey struct {
	terms  []string // sorted, each once
	weight float64  // sum of the terms' IDF
	mass   float32  // decayed weight of the calls
	nets   []actionNet
}

// actionNet is an action's net decayed weight among the calls of a repeatKey.
type actionNet struct {
	id  uint8 // in usageModel.actions
	net float32
}

// termAction is an action calls with a term led to: the decayed net weight (successes
// minus failures) of those calls, over that of all the calls with the term plus one, so
// that a term seen once says less than one seen in many calls that agree. Only positive
// shares are kept.
type termAction struct {
	id    uint8 // in usageModel.actions
	share float32
}

// Bounds of a workspace's model, so that a Build's cost does not grow with the record:
// the actions with a prior (those with the most weight), and the actions kept per term
// (those with the largest share). minLearnt is the least term signal a clause is given.
const (
	maxPriorActions = 256
	maxTermActions  = 16
	minLearnt       = 0.01
	maxRepeatKeys   = 512
)

// Repeats: a request whose terms share at least nearAt of their IDF weight (over the
// weight of both sets together) with the terms of earlier calls is a near repeat of them;
// from exactAt, of an action those calls went well with, it is an exact repeat (see
// usageModel.repeats).
const (
	nearAt  = 0.5
	exactAt = 0.8
)

// An action's ID (termAction.id) is a uint8: this fails to compile when maxPriorActions
// outgrows it.
const _ = uint8(maxPriorActions - 1)

// usageSource returns the signal source for req and the workspace's model (its priors and
// repeats, shared by every clause), nil when there are no priors for it (no workspace, no
// reader, an empty record) or the record could not be read (logged).
func (b *Builder) usageSource(ctx context.Context, st Store, req Request) (signalSource, *usageModel) {
	u := b.usage
	if u == nil || req.WorkspaceID == "" {
		return nil, nil
	}
	rd := u.cfg.Reader
	if rd == nil {
		rd, _ = st.(UsageReader)
		if rd == nil {
			return nil, nil
		}
	}
	m, err := u.model(ctx, rd, req.WorkspaceID)
	if err != nil {
		b.warn(ctx, req, "usage read", err)
		return nil, nil
	}
	if m == nil || m.priors == nil {
		return nil, nil
	}
	return m.signals, m
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
// failures) over its whole weight plus one, in (-1, 1): one success gives 1/2, many
// successes approach 1, as many failures as successes give 0.
func buildUsageModel(evs []cache.UsageEvent, now time.Time, cfg UsageConfig) *usageModel {
	m := &usageModel{at: now, byTerm: map[string][]termAction{}, idf: map[string]float64{}}
	type tally struct{ ok, failed float64 }
	by := map[string]*tally{}
	termNet := map[string]map[string]float64{} // term -> action -> net weight
	termMass := map[string]float64{}           // term -> weight of its calls
	termCalls := map[string]int{}              // term -> number of its calls
	calls := 0                                 // calls with terms
	byKey := map[string]*keyTally{}
	var terms []string
	for pos, e := range evs {
		age := max(now.Sub(e.At), 0)
		w := math.Exp2(-age.Hours()/cfg.HalfLife.Hours() - float64(pos)/float64(cfg.HalfLifeCalls))
		t := by[e.Action]
		if t == nil {
			t = &tally{}
			by[e.Action] = t
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
		calls++
		terms = append(terms[:0], e.Terms...)
		slices.Sort(terms)
		terms = slices.Compact(terms)
		kt := byKey[strings.Join(terms, " ")]
		if kt == nil {
			kt = &keyTally{terms: slices.Clone(terms), net: map[string]float64{}}
			byKey[strings.Join(terms, " ")] = kt
		}
		kt.mass += w
		kt.net[e.Action] += sign * w
		for _, term := range terms {
			net := termNet[term]
			if net == nil {
				net = map[string]float64{}
				termNet[term] = net
			}
			net[e.Action] += sign * w
			termMass[term] += w
			termCalls[term]++
		}
	}
	actions := make([]string, 0, len(by))
	for a := range by {
		actions = append(actions, a)
	}
	weight := func(a string) float64 { return by[a].ok + by[a].failed }
	slices.SortFunc(actions, func(x, y string) int {
		if c := cmp.Compare(weight(y), weight(x)); c != 0 {
			return c
		}
		return strings.Compare(x, y)
	})
	m.actions = actions[:min(len(actions), maxPriorActions)]
	ids := make(map[string]uint8, len(m.actions))
	priors := make(map[string]float32, len(m.actions))
	for id, a := range m.actions {
		t := by[a]
		ids[a] = uint8(id)
		priors[a] = float32((t.ok - t.failed) / (t.ok + t.failed + 1))
	}
	n := float64(calls)
	m.unseen = math.Log1p(n / 1.5)
	for term, net := range termNet {
		m.idf[term] = math.Log1p(n / (float64(termCalls[term]) + 0.5))
		var tas []termAction
		for a, v := range net {
			if id, ok := ids[a]; ok && v > 0 {
				tas = append(tas, termAction{id: id, share: float32(v / (termMass[term] + 1))})
			}
		}
		if len(tas) == 0 {
			continue
		}
		slices.SortFunc(tas, func(x, y termAction) int {
			if c := cmp.Compare(y.share, x.share); c != 0 {
				return c
			}
			return cmp.Compare(x.id, y.id)
		})
		m.byTerm[term] = tas[:min(len(tas), maxTermActions)]
	}
	m.priors = newPriorTable(priors)
	m.addKeys(byKey, ids)
	return m
}

// keyTally is what the calls made with one set of terms add up to, decayed: their
// weight, and each action's net weight (successes minus failures).
type keyTally struct {
	terms []string
	mass  float64
	net   map[string]float64
}

// addKeys keeps the heaviest maxRepeatKeys of byKey, each with the nets of the actions with
// a prior (ids), and indexes them by term.
func (m *usageModel) addKeys(byKey map[string]*keyTally, ids map[string]uint8) {
	keys := make([]*keyTally, 0, len(byKey))
	for _, k := range byKey {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y *keyTally) int {
		if c := cmp.Compare(y.mass, x.mass); c != 0 {
			return c
		}
		return slices.Compare(x.terms, y.terms)
	})
	m.keyOf = map[string][]uint16{}
	for _, k := range keys[:min(len(keys), maxRepeatKeys)] {
		rk := repeatKey{terms: k.terms, mass: float32(k.mass)}
		for _, t := range k.terms {
			rk.weight += m.idf[t]
		}
		for a, v := range k.net {
			if id, ok := ids[a]; ok && v != 0 {
				rk.nets = append(rk.nets, actionNet{id: id, net: float32(v)})
			}
		}
		slices.SortFunc(rk.nets, func(x, y actionNet) int { return cmp.Compare(x.id, y.id) })
		for _, t := range k.terms {
			m.keyOf[t] = append(m.keyOf[t], uint16(len(m.keys)))
		}
		m.keys = append(m.keys, rk)
	}
}

// repeats returns, for a request of terms (each once), the actions it repeats and how
// surely, in (0, 1]. A key (the terms of earlier calls) is near when the IDF weight of the
// terms it shares with the request is at least nearAt of that of both together. An action's
// value is the overlap of its nearest key with a positive net, times its share of the near
// keys' calls (each key counting by its overlap, failures against): one successful call
// with the very terms gives 1; a sibling the same requests went to as often halves it;
// failures take it away. The keys' terms among skip count on neither side. Nil when
// nothing is near.
func (m *usageModel) repeats(terms, skip []string) map[string]float32 {
	if m == nil || len(m.keys) == 0 {
		return nil
	}
	var inter [maxRepeatKeys]float64
	var touched []uint16
	total := 0.0
	for _, t := range terms {
		idf := m.termIDF(t)
		total += idf
		for _, k := range m.keyOf[t] {
			if inter[k] == 0 {
				touched = append(touched, k)
			}
			inter[k] += idf
		}
	}
	var best, num [maxPriorActions]float32
	var seen []uint8
	den := float32(0)
	for _, k := range touched {
		key := &m.keys[k]
		weight := key.weight
		for _, t := range key.terms {
			if slices.Contains(skip, t) {
				weight -= m.idf[t]
			}
		}
		ov := float32(inter[k] / (total + weight - inter[k]))
		if ov < nearAt {
			continue
		}
		den += ov * key.mass
		for _, an := range key.nets {
			if best[an.id] == 0 && num[an.id] == 0 {
				seen = append(seen, an.id)
			}
			num[an.id] += ov * an.net
			if an.net > 0 {
				best[an.id] = max(best[an.id], ov)
			}
		}
	}
	var out map[string]float32
	for _, id := range seen {
		if best[id] == 0 || num[id] <= 0 {
			continue
		}
		if out == nil {
			out = map[string]float32{}
		}
		out[m.actions[id]] = best[id] * min(num[id]/den, 1)
	}
	return out
}

// termIDF returns how rare t is among the calls; a term no call had is as rare as the
// rarest.
func (m *usageModel) termIDF(t string) float64 {
	if idf, ok := m.idf[t]; ok {
		return idf
	}
	return m.unseen
}

// signals is the model's signalSource: for the actions the clause's terms led to before,
// the share of the clause's term weight (IDF) they explain, each term by the share of its
// calls that went to the action. A term no call had weighs as much as the rarest, so a
// clause of new words learns little.
func (m *usageModel) signals(_ string, terms []string) map[string]signal {
	var learnt, cover [maxPriorActions]float32
	var seen [maxPriorActions]uint8 // the IDs learnt holds, in order
	ns := 0
	var total float64
	for _, t := range terms {
		idf := m.termIDF(t)
		total += idf
		for _, ta := range m.byTerm[t] {
			if learnt[ta.id] == 0 {
				seen[ns] = ta.id
				ns++
			}
			learnt[ta.id] += float32(idf) * ta.share
			cover[ta.id] += float32(idf)
		}
	}
	var out map[string]signal
	for _, id := range seen[:ns] {
		v := min(learnt[id]/float32(total), 1)
		if v < minLearnt {
			continue
		}
		if out == nil {
			out = make(map[string]signal, ns)
		}
		a := m.actions[id]
		out[a] = signal{Learnt: v, Cover: min(cover[id]/float32(total), 1), Lift: v >= liftAt && m.priors.m[a] > 0}
	}
	return out
}

// priorTable holds priors by action, with the set of their slugs in front of the map (see
// slugSet). It is immutable once made.
type priorTable struct {
	set slugSet
	m   map[string]float32
}

// newPriorTable returns the table of m, nil when m is empty.
func newPriorTable(m map[string]float32) *priorTable {
	if len(m) == 0 {
		return nil
	}
	t := &priorTable{m: m}
	for a := range m {
		t.set.add(a)
	}
	return t
}

// slugSet is a bit set of slug hashes: mayHaveHash is false for most slugs not added, true
// for every slug added. Most of a request's candidates have no outside signal, and the set
// turns most of them away at the cost of a few loads instead of a map lookup.
type slugSet [64]uint64

func (s *slugSet) add(slug string) {
	h := slugHash(slug)
	s[h>>6] |= 1 << (h & 63)
}

// mayHaveHash reports whether a slug of hash h (slugHash) may have been added.
func (s *slugSet) mayHaveHash(h uint32) bool { return s[h>>6]&(1<<(h&63)) != 0 }

// slugHash is a cheap 12-bit hash of a slug: its length and its last eight bytes, where
// the actions of an app differ most, read in one load.
func slugHash(s string) uint32 {
	n := len(s)
	var x uint64
	if n >= 8 {
		x = binary.LittleEndian.Uint64([]byte(s[n-8:]))
	} else {
		for i := 0; i < n; i++ {
			x = x<<8 | uint64(s[i])
		}
	}
	x = (x ^ uint64(n)) * 0x9e3779b97f4a7c15
	return uint32(x >> 52)
}
