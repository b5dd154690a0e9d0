package hinteval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// ErrFormat reports a case file that cannot be read.
var ErrFormat = errors.New("hinteval: bad case file")

// Case is one labelled prompt. It is plain data.
type Case struct {
	ID     string   `json:"id"`
	Prompt string   `json:"prompt"`
	Apps   []string `json:"apps"`
	Mode   string   `json:"mode"` // "chatbot" or "recipe"
	Kind   string   `json:"kind"` // named, implied, vague, multi, recipe
	// Expect lists one group per needed step; any action of a group fulfils the step.
	Expect            [][]string `json:"expect"`
	DestructiveIntent bool       `json:"destructive_intent"`
}

// ReadCases reads cases, one JSON object per line. Blank lines are skipped.
func ReadCases(r io.Reader) ([]Case, error) {
	var out []Case
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var c Case
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrFormat, n, err)
		}
		if c.ID == "" || len(c.Apps) == 0 || len(c.Expect) == 0 {
			return nil, fmt.Errorf("%w: line %d: id, apps and expect are required", ErrFormat, n)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("hinteval: reading cases: %w", err)
	}
	return out, nil
}

// ReadCasesFile reads cases from a file.
func ReadCasesFile(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hinteval: %w", err)
	}
	defer f.Close()
	return ReadCases(f)
}

// LoadCatalog imports a catalogue snapshot (cache.ImportJSONL format) into a new memory
// store. It is only that: open the file and call cache.ImportJSONL (or
// cache.ImportJSONLWithOptions, for progress) into cache.NewMemory().
//
// Deprecated: load a catalogue the one way, with cache.ImportJSONL, as the measurement
// tools do; the stores it fills are what Run and RunSets read.
func LoadCatalog(ctx context.Context, path string) (*cache.Memory, error) {
	return importFile(ctx, path)
}

// importFile imports the catalogue snapshot at path into a new memory store with
// cache.ImportJSONL.
func importFile(ctx context.Context, path string) (*cache.Memory, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hinteval: %w", err)
	}
	defer f.Close()
	st := cache.NewMemory()
	if _, err := cache.ImportJSONL(ctx, st, bufio.NewReaderSize(f, 1<<20)); err != nil {
		return nil, fmt.Errorf("hinteval: importing %s: %w", path, err)
	}
	return st, nil
}

// Store is what a run reads: what hint.Build needs, plus the actions for the BM25 baseline.
type Store interface {
	hint.Store
	cache.ActionLister
}

// Metrics are the figures of one group of cases. It is plain data.
type Metrics struct {
	Cases       int     `json:"cases"`
	Hit1        float64 `json:"hit1"`
	Hit5        float64 `json:"hit5"`
	HitAll      float64 `json:"hit_all"`
	MRR         float64 `json:"mrr"`
	ListedMean  float64 `json:"listed_mean"`
	ListedP50   float64 `json:"listed_p50"`
	ListedP90   float64 `json:"listed_p90"`
	Destructive float64 `json:"destructive_rate"` // share of non-destructive cases listing a destructive action
	// Confident is the share of cases whose hint carries the strong directive, and
	// ConfidentRight the share of those whose top action is right.
	Confident      float64        `json:"confident"`
	ConfidentRight float64        `json:"confident_right"`
	Strategies     map[string]int `json:"strategies,omitempty"`
	LatencyP50     time.Duration  `json:"latency_p50"`
	LatencyP99     time.Duration  `json:"latency_p99"`
}

// Report is the outcome of a run: hint.Build and the BM25 baseline, overall and split. It is
// plain data; Print only reads it.
type Report struct {
	Overall  Metrics            `json:"overall"`
	Baseline Metrics            `json:"baseline"`
	Splits   map[string]Metrics `json:"splits"`   // "kind=named", "mode=recipe", "size=2-8", …
	BSplits  map[string]Metrics `json:"bsplits"`  // the baseline's splits
	Outcomes []Outcome          `json:"outcomes"` // one per case
}

// Outcome is one case's result. It is plain data.
type Outcome struct {
	Case      Case
	Listed    []string
	Ranks     []int // per expected group: 1-based rank, 0 when not listed
	Baseline  []int // the same for the BM25 ranking
	Strategy  hint.Strategy
	Confident bool
	Latency   time.Duration
	// DestructiveListed reports whether a listed action is destructive by the store's metadata.
	DestructiveListed bool
}

// Options configure a run. It is plain data but for WorkspaceOf.
type Options struct {
	// Builder builds the hints. Optional. Defaults to hint.New(hint.Config{}).
	Builder *hint.Builder
	// BaselineDepth is how many BM25 results count as listed. Optional. Defaults to 15.
	BaselineDepth int
	// WorkspaceOf, when set, gives each case's request a workspace (for usage priors).
	// Optional: by default the requests have none.
	WorkspaceOf func(Case) string
}

// Run builds the hint for every case and scores it, with the BM25 baseline beside it. Cases
// run one after another (latency is measured per Build, store call included). Request.Apps
// is the case's apps; AgentID is 1.
func Run(ctx context.Context, st Store, cases []Case, opt Options) (Report, error) {
	b := opt.Builder
	if b == nil {
		b = hint.New(hint.Config{})
	}
	depth := opt.BaselineDepth
	if depth <= 0 {
		depth = baselineDepth
	}
	bm, err := newBM25(ctx, st)
	if err != nil {
		return Report{}, err
	}
	destructive, err := destructiveSet(ctx, st)
	if err != nil {
		return Report{}, err
	}
	var rep Report
	for _, c := range cases {
		req := request(c, opt.WorkspaceOf)
		start := time.Now()
		res, err := b.Build(ctx, st, req)
		lat := time.Since(start)
		if err != nil {
			return Report{}, fmt.Errorf("hinteval: case %s: %w", c.ID, err)
		}
		o := Outcome{Case: c, Listed: res.MatchedActions, Strategy: res.Strategy, Confident: res.Confident, Latency: lat}
		o.Ranks = ranks(c.Expect, res.MatchedActions)
		base := bm.rank(c.Prompt, c.Apps, depth)
		o.Baseline = ranks(c.Expect, base)
		for _, a := range res.MatchedActions {
			if destructive[a] {
				o.DestructiveListed = true
			}
		}
		rep.Outcomes = append(rep.Outcomes, o)
	}
	return summarizeAll(rep.Outcomes), nil
}

// summarizeAll builds a Report from outcomes: overall and split by kind, mode and size.
func summarizeAll(outcomes []Outcome) Report {
	rep := Report{Outcomes: outcomes}
	rep.Overall, rep.Baseline = summarize(rep.Outcomes)
	rep.Splits, rep.BSplits = map[string]Metrics{}, map[string]Metrics{}
	groups := map[string][]Outcome{}
	for _, o := range rep.Outcomes {
		size := "size=2-8"
		if len(o.Case.Apps) > 8 {
			size = "size=15-30"
		}
		for _, k := range []string{"kind=" + o.Case.Kind, "mode=" + o.Case.Mode, size} {
			groups[k] = append(groups[k], o)
		}
	}
	for k, os := range groups {
		rep.Splits[k], rep.BSplits[k] = summarize(os)
	}
	return rep
}

func destructiveSet(ctx context.Context, st Store) (map[string]bool, error) {
	metas, err := st.ActionMeta(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("hinteval: reading metadata: %w", err)
	}
	out := map[string]bool{}
	for _, m := range metas {
		if m.Destructive {
			out[m.Action] = true
		}
	}
	return out, nil
}

// ranks gives each expected group the 1-based position of its first listed member.
func ranks(expect [][]string, listed []string) []int {
	out := make([]int, len(expect))
	for g, group := range expect {
		for i, a := range listed {
			if slices.Contains(group, a) {
				out[g] = i + 1
				break
			}
		}
	}
	return out
}

func summarize(os []Outcome) (hintM, baseM Metrics) {
	hintM = score(os, func(o Outcome) []int { return o.Ranks })
	baseM = score(os, func(o Outcome) []int { return o.Baseline })
	hintM.Strategies = map[string]int{}
	var listed []float64
	var lat []time.Duration
	nonDestr, destrListed := 0, 0
	sure, right := 0, 0
	for _, o := range os {
		hintM.Strategies[string(o.Strategy)]++
		if o.Confident {
			sure++
			if slices.Contains(o.Ranks, 1) {
				right++ // the top action does one of the steps asked for
			}
		}
		listed = append(listed, float64(len(o.Listed)))
		lat = append(lat, o.Latency)
		if !o.Case.DestructiveIntent {
			nonDestr++
			if o.DestructiveListed {
				destrListed++
			}
		}
	}
	if len(os) > 0 {
		hintM.Confident = float64(sure) / float64(len(os))
	}
	if sure > 0 {
		hintM.ConfidentRight = float64(right) / float64(sure)
	}
	hintM.ListedMean = mean(listed)
	hintM.ListedP50 = quantile(listed, 0.5)
	hintM.ListedP90 = quantile(listed, 0.9)
	if nonDestr > 0 {
		hintM.Destructive = float64(destrListed) / float64(nonDestr)
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		hintM.LatencyP50 = lat[(len(lat)-1)/2]
		hintM.LatencyP99 = lat[int(math.Ceil(0.99*float64(len(lat))))-1]
	}
	return hintM, baseM
}

func score(os []Outcome, rk func(Outcome) []int) Metrics {
	m := Metrics{Cases: len(os)}
	if len(os) == 0 {
		return m
	}
	for _, o := range os {
		r := rk(o)
		h5, ha, rr := caseScore(r)
		if hitAt1(r) {
			m.Hit1++
		}
		m.Hit5 += h5
		m.HitAll += ha
		m.MRR += rr
	}
	n := float64(len(os))
	m.Hit1 /= n
	m.Hit5 /= n
	m.HitAll /= n
	m.MRR /= n
	return m
}

// hitAt1 reports whether every expected group of a case was listed within the first as
// many places as there are groups (for one group: first).
func hitAt1(r []int) bool {
	for _, x := range r {
		if x == 0 || x > len(r) {
			return false
		}
	}
	return true
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	if i < 0 {
		i = 0
	}
	return s[i]
}

// Print writes the report as a table: the hint beside the BM25 baseline, overall then by
// split, then strategies and latency.
func (r Report) Print(w io.Writer) {
	fmt.Fprintf(w, "%-16s %5s  %-27s  %-27s  %s\n", "group", "cases", "hint  hit@1 hit@5 hit@all  MRR", "bm25 hit@1 hit@5 hit@all  MRR", "listed mean/p90  destr")
	row := func(name string, h, b Metrics) {
		fmt.Fprintf(w, "%-16s %5d  %5.3f %5.3f %7.3f %5.3f  %5.3f %5.3f %7.3f %5.3f  %6.1f/%-4.0f  %5.3f\n",
			name, h.Cases, h.Hit1, h.Hit5, h.HitAll, h.MRR, b.Hit1, b.Hit5, b.HitAll, b.MRR, h.ListedMean, h.ListedP90, h.Destructive)
	}
	row("overall", r.Overall, r.Baseline)
	keys := make([]string, 0, len(r.Splits))
	for k := range r.Splits {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		row(k, r.Splits[k], r.BSplits[k])
	}
	var ss []string
	for k, v := range r.Overall.Strategies {
		ss = append(ss, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(ss)
	fmt.Fprintf(w, "strategies: %s\n", strings.Join(ss, " "))
	fmt.Fprintf(w, "confident (\"You MUST call\"): %.1f%% of cases, top action right in %.1f%% of them\n", 100*r.Overall.Confident, 100*r.Overall.ConfidentRight)
	fmt.Fprintf(w, "latency: p50 %v  p99 %v (includes the store call)\n", r.Overall.LatencyP50, r.Overall.LatencyP99)
}
