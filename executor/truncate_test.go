package executor_test

import (
	"encoding/json"
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
