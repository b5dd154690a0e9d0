package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// steps runs the first (yes/no) pass and, when it fails, the explaining pass, and returns
// how many schema checks each made.
func steps(t *testing.T, v *Validator, args string) (check, explain int) {
	t.Helper()
	val, err := decodeJSON([]byte(args))
	if err != nil {
		t.Fatal(err)
	}
	c := checker{lenient: true, limit: maxCheckSteps}
	if c.check(v.prog.root, val, nil) {
		return c.steps, 0
	}
	e := checker{lenient: true, collect: true, memo: c.memo, limit: maxExplainSteps}
	e.check(v.prog.root, val, nil)
	return c.steps, e.steps
}

// TestCheckCostIsLinear counts schema checks (no clocks) on recursive schemas whose naive
// validation is cubic or exponential in the depth of the arguments, and requires the count
// to grow in proportion to the size of the arguments.
func TestCheckCostIsLinear(t *testing.T) {
	dag := func(n int) string {
		var defs []string
		for i := 0; i < n; i++ {
			defs = append(defs, fmt.Sprintf(`"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"},{"type":"object","properties":{"v":{"$ref":"#/$defs/d%d"}}}]}`, i, i+1, i+1, i+1))
		}
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"string"}`, n))
		return `{"type":"object","$defs":{` + strings.Join(defs, ",") + `},"properties":{"x":{"$ref":"#/$defs/d0"}}}`
	}
	chain := func(depth int, leaf string) string {
		return strings.Repeat(`{"child":`, depth) + leaf + strings.Repeat(`}`, depth)
	}
	tree := func(width, depth int) string {
		node := `{"v":1}`
		for i := 0; i < depth; i++ {
			node = `{"kids":[` + strings.TrimSuffix(strings.Repeat(node+",", width), ",") + `]}`
		}
		return node
	}
	tests := []struct {
		name   string
		schema string
		args   func(n int) string
	}{
		{"anyOf with null, deep", `{"type":"object","properties":{"child":{"anyOf":[{"$ref":"#"},{"type":"null"}]}}}`,
			func(n int) string { return chain(n, `{}`) }},
		{"anyOf with null, deep, failing at the bottom", `{"type":"object","properties":{"child":{"anyOf":[{"$ref":"#"},{"type":"null"}]},"x":{"type":"integer"}}}`,
			func(n int) string { return chain(n, `{"x":"bad"}`) }},
		{"two recursive branches, failing at the bottom", `{"type":"object","properties":{"child":{"anyOf":[{"$ref":"#"},{"$ref":"#"}]},"x":{"type":"integer"}}}`,
			func(n int) string { return chain(n, `{"x":"bad"}`) }},
		{"wide tree", `{"type":"object","properties":{"kids":{"type":"array","items":{"anyOf":[{"$ref":"#"},{"type":"object","properties":{"v":{"type":"integer"}}}]}},"v":{"type":"integer"}}}`,
			func(n int) string { return tree(n, 3) }},
		{"reference DAG", dag(40),
			func(n int) string { return `{"x":` + strings.Repeat(`{"v":`, n) + `5` + strings.Repeat(`}`, n) + `}` }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCompiler(CompilerConfig{Limits: Limits{MaxArgDepth: -1, MaxArgBytes: -1}})
			v, err := c.Compile(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			var prev, prevExplain, prevSize int
			for _, n := range []int{8, 16, 32} {
				args := tt.args(n)
				check, explain := steps(t, v, args)
				t.Logf("n=%d: %d bytes, %d checks, %d explaining", n, len(args), check, explain)
				if prev > 0 {
					grow := float64(len(args)) / float64(prevSize)
					if float64(check) > 1.3*grow*float64(prev)+20 || float64(explain) > 1.3*grow*float64(prevExplain)+200 {
						t.Errorf("arguments grew %.1fx, checks from %d to %d, explaining from %d to %d: not linear", grow, prev, check, prevExplain, explain)
					}
				}
				prev, prevExplain, prevSize = check, explain, len(args)
			}
		})
	}
}
