package hint

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/toolhint/toolhint/cache"
	"os"
	"slices"
	"testing"
)

type kase struct {
	ID, Prompt, Mode, Kind string
	Apps                   []string
	Expect                 [][]string
}

func TestScratchDiag(t *testing.T) {
	ctx := context.Background()
	f, _ := os.Open("/work/shared/catalog/composio-actions.jsonl")
	st := cache.NewMemory()
	cache.ImportJSONL(ctx, st, bufio.NewReader(f))
	b := New(Config{})
	cnt := map[string]int{}
	for _, path := range []string{"/work/shared/eval/dev-queries.jsonl", "hinteval/testdata/unseen.jsonl"} {
		ef, _ := os.Open(path)
		sc := bufio.NewScanner(ef)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var k kase
			json.Unmarshal(sc.Bytes(), &k)
			tr, _ := b.Trace(ctx, st, Request{AgentID: 1, Prompt: k.Prompt, Apps: k.Apps, RecipeMode: k.Mode == "recipe"})
			listed, _ := tr.Rank(b.weights)
			for _, g := range k.Expect {
				pos := -1
				for i, a := range listed {
					if slices.Contains(g, a) {
						pos = i
						break
					}
				}
				if pos >= 0 && pos < 5 {
					cnt["hit5"]++
					continue
				}
				cand := false
				if tr.r != nil {
					for _, l := range tr.r.lists {
						for _, c := range l {
							if slices.Contains(g, tr.r.metas[c.i].Action) {
								cand = true
							}
						}
					}
				}
				key := k.Kind + " notcand"
				if cand {
					key = k.Kind + " cand-notlisted"
				}
				if pos >= 5 {
					key = k.Kind + " listed>5"
				}
				cnt[key]++
				if os.Getenv("SHOW") == key {
					fmt.Printf("%s %q\n   want %v\n   got %v\n", k.ID, k.Prompt, g, listed[:min(len(listed), 6)])
				}
			}
		}
	}
	keys := []string{}
	for k := range cnt {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Println(k, cnt[k])
	}
}
func TestScratchOne(t *testing.T) {
	ctx := context.Background()
	f, _ := os.Open("/work/shared/catalog/composio-actions.jsonl")
	st := cache.NewMemory()
	cache.ImportJSONL(ctx, st, bufio.NewReader(f))
	b := New(Config{})
	tr, _ := b.Trace(ctx, st, Request{AgentID: 1, Prompt: os.Getenv("P"), Apps: []string{"todoist", "googlecalendar", "notion", "slack", "gmail"}})
	fmt.Println(tr.r.table)
	for ci, cl := range tr.r.clauses {
		fmt.Println("clause", ci, cl.c.Verb, cl.c.Apps, cl.caps, len(tr.r.lists[ci]))
		for _, c := range tr.r.keep(tr.r.lists[ci], &b.weights, Limits{MaxActions: 12, MaxDBRowsPerApp: 100}) {
			d := ""
			for fi := 0; fi < numFeatures; fi++ {
				if c.cand.f[fi] != 0 {
					d += fmt.Sprintf(" %s:%.2f", weightNames[fi], float64(c.cand.f[fi])*b.weights.v[fi])
				}
			}
			fmt.Printf("  %s %.2f %s\n", tr.r.metas[c.cand.i].Action, c.score, d)
		}
	}
}
func TestScratchDiff2(t *testing.T) {
	ctx := context.Background()
	f, _ := os.Open("/work/shared/catalog/composio-actions.jsonl")
	st := cache.NewMemory()
	cache.ImportJSONL(ctx, st, bufio.NewReader(f))
	b := New(Config{})
	for _, path := range []string{"/work/shared/eval/dev-queries.jsonl", "hinteval/testdata/unseen.jsonl"} {
		ef, _ := os.Open(path)
		sc := bufio.NewScanner(ef)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var k kase
			json.Unmarshal(sc.Bytes(), &k)
			if k.Kind == "vague" {
				continue
			}
			tr, _ := b.Trace(ctx, st, Request{AgentID: 1, Prompt: k.Prompt, Apps: k.Apps, RecipeMode: k.Mode == "recipe"})
			listed, _ := tr.Rank(b.weights)
			for _, g := range k.Expect {
				pos := -1
				for i, a := range listed {
					if slices.Contains(g, a) {
						pos = i
						break
					}
				}
				if pos >= 0 && pos < 5 || tr.r == nil {
					continue
				}
				for ci, l := range tr.r.lists {
					all := tr.r.keep(l, &b.weights, Limits{MaxActions: 1000, MaxDBRowsPerApp: 1000})
					for j, c := range all {
						if slices.Contains(g, tr.r.metas[c.cand.i].Action) {
							top := all[0]
							d := ""
							for fi := 0; fi < numFeatures; fi++ {
								x := float64(c.cand.f[fi]-top.cand.f[fi]) * b.weights.v[fi]
								if x > 0.1 || x < -0.1 {
									d += fmt.Sprintf(" %s:%+.2f", weightNames[fi], x)
								}
							}
							fmt.Printf("%s c%d r%d %q\n   exp %s %.2f | top %s %.2f |%s\n", k.ID, ci, j, k.Prompt, tr.r.metas[c.cand.i].Action, c.score, tr.r.metas[top.cand.i].Action, top.score, d)
							break
						}
					}
				}
			}
		}
	}
}
