package executor_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/executor"
)

func TestTruncate(t *testing.T) {
	many := `{`
	for i := range 300 {
		if i > 0 {
			many += ","
		}
		many += `"key` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa3(i) + `":"value"`
	}
	many += `}`
	tests := []struct {
		name    string
		in      string
		max     int
		want    string // exact output when set
		wantCut bool
		has     string
	}{
		{name: "fits", in: `{"a":1}`, max: 100, want: `{"a":1}`},
		{name: "no limit", in: `[` + strings.Repeat(`1,`, 5000) + `1]`, max: -1, wantCut: false},
		{name: "non-JSON becomes a string", in: `plain <text>`, max: 100, want: `"plain <text>"`},
		{name: "non-JSON cut", in: strings.Repeat("é", 500), max: 60, wantCut: true, has: "more characters truncated"},
		{name: "long string value", in: `{"body":"` + strings.Repeat("a", 5000) + `"}`, max: 200, wantCut: true, has: "more characters truncated"},
		{name: "long array keeps a count", in: `[` + strings.Repeat(`{"id":1},`, 999) + `{"id":1}]`, max: 300, wantCut: true, has: "of 1000 items truncated"},
		{name: "many keys", in: many, max: 400, wantCut: true, has: "more fields not shown"},
		{name: "deep nesting", in: strings.Repeat(`{"a":`, 200) + `"x"` + strings.Repeat(`}`, 200), max: 100, wantCut: true},
		{name: "tiny limit", in: `{"a":"` + strings.Repeat("b", 100) + `"}`, max: 5, wantCut: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, cut := executor.Truncate(json.RawMessage(tt.in), tt.max)
			if cut != tt.wantCut {
				t.Errorf("cut = %v, want %v", cut, tt.wantCut)
			}
			if !json.Valid(out) {
				t.Fatalf("output is not valid JSON: %s", out)
			}
			if tt.want != "" {
				if diff := cmp.Diff(tt.want, string(out)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			}
			if tt.max > 48 && utf8.RuneCount(out) > tt.max {
				t.Errorf("output has %d characters, over %d", utf8.RuneCount(out), tt.max)
			}
			if !strings.Contains(string(out), tt.has) {
				t.Errorf("output %s lacks %q", out, tt.has)
			}
		})
	}
}

func itoa3(i int) string {
	return string(rune('0'+i/100)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10))
}

// deepResult builds a JSON object about size bytes large, nested depth levels deep: each
// level has an id, a name, a list of records and the next level under "child".
func deepResult(depth, size int) []byte {
	per := size / depth
	var b strings.Builder
	for i := range depth {
		fmt.Fprintf(&b, `{"id":%d,"name":"level %d","records":[`, i, i)
		for j := 0; j*40 < per; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"n":%d,"v":"%s"}`, j, strings.Repeat("r", 24))
		}
		b.WriteString(`],"child":`)
	}
	b.WriteString(`null`)
	b.WriteString(strings.Repeat("}", depth))
	return []byte(b.String())
}

// TestTruncateDeepKeepsStructure: a 5 MB result nested 2,000 levels deep is cut to valid
// JSON whose top levels keep every key, with a marker object where the nesting is cut.
func TestTruncateDeepKeepsStructure(t *testing.T) {
	in := deepResult(2000, 5<<20)
	if len(in) < 5<<20 || !json.Valid(in) {
		t.Fatalf("fixture: %d bytes, valid %v", len(in), json.Valid(in))
	}
	out, cut := executor.Truncate(in, executor.DefaultMaxResultChars)
	if !cut || !json.Valid(out) {
		t.Fatalf("cut %v, valid %v: %.300s", cut, json.Valid(out), out)
	}
	if n := utf8.RuneCount(out); n > executor.DefaultMaxResultChars {
		t.Errorf("%d characters, over %d", n, executor.DefaultMaxResultChars)
	}
	var top map[string]any
	if err := json.Unmarshal(out, &top); err != nil {
		t.Fatalf("not an object: %v: %.200s", err, out)
	}
	node, levels := top, 0
	for {
		keys := make([]string, 0, len(node))
		for k := range node {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if _, marker := node["_truncated"]; marker && len(node) == 1 {
			break
		}
		if levels < 3 {
			if diff := cmp.Diff([]string{"child", "id", "name", "records"}, keys); diff != "" {
				t.Errorf("level %d keys (-want +got):\n%s", levels, diff)
			}
		}
		child, ok := node["child"].(map[string]any)
		if !ok {
			t.Fatalf("level %d: child is %T, want an object down to the marker", levels, node["child"])
		}
		node, levels = child, levels+1
	}
	if levels < 3 {
		t.Errorf("only %d levels kept", levels)
	}
	if !strings.Contains(fmt.Sprint(node["_truncated"]), "nested deeper than") {
		t.Errorf("marker = %v", node)
	}
}

// TestTruncateBeyondDecoderDepth: JSON nested deeper than encoding/json reads (10,000
// levels) is still JSON: it is cut to a marker object, however small it is, not turned
// into a string, and text that is not JSON still becomes a string.
func TestTruncateBeyondDecoderDepth(t *testing.T) {
	deep := strings.Repeat(`{"a":[`, 6000) + `1` + strings.Repeat(`]}`, 6000)
	if json.Valid([]byte(deep)) {
		t.Fatal("fixture: encoding/json accepts it; make it deeper")
	}
	for _, max := range []int{-1, 100, executor.DefaultMaxResultChars} {
		out, cut := executor.Truncate(json.RawMessage(deep), max)
		if !cut || !json.Valid(out) || !strings.HasPrefix(string(out), `{"a":[{"a":[`) || !strings.Contains(string(out), `"_truncated":"nested deeper than`) {
			t.Errorf("max %d: cut %v: %.200s", max, cut, out)
		}
	}
	broken := strings.Repeat(`[`, 12000) + strings.Repeat(`]`, 11999)
	out, _ := executor.Truncate(json.RawMessage(broken), 100)
	if len(out) == 0 || out[0] != '"' || !json.Valid(out) {
		t.Errorf("unbalanced input: %.100s, want a JSON string", out)
	}
}
