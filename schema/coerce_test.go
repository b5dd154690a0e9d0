package schema_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/schema"
)

// TestCoerceFillsNothingByDefault: coercion repairs what the model wrote and adds no key it
// did not write; defaults are filled only when the caller asks for them.
func TestCoerceFillsNothingByDefault(t *testing.T) {
	v, err := schema.Compile(json.RawMessage(`{"type":"object","properties":{
	  "title":{"type":"string","default":""},
	  "per_page":{"type":"integer","default":1},
	  "user_id":{"type":"string","default":"me"},
	  "state":{"type":"string","enum":["open","closed"],"default":"open"},
	  "filter":{"type":"object","properties":{"limit":{"type":"integer","default":30},"q":{"type":"string"}}}},
	  "required":["filter"]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  string
		opts  schema.CoerceOptions
		want  string
		kinds []schema.Coercion
	}{
		{"only what was written", `{"filter":{"q":"x"}}`, schema.CoerceOptions{}, `{"filter":{"q":"x"}}`, nil},
		{"repairs still made", `{"filter":{"q":"x"},"per_page":"5"}`, schema.CoerceOptions{}, `{"filter":{"q":"x"},"per_page":5}`,
			[]schema.Coercion{{Path: "/per_page", Kind: schema.CoerceInteger}}},
		{"fill defaults when asked, at every level", `{"filter":{"q":"x"}}`, schema.CoerceOptions{FillDefaults: true},
			`{"filter":{"limit":30,"q":"x"},"per_page":1,"state":"open","title":"","user_id":"me"}`,
			[]schema.Coercion{{Path: "/filter/limit", Kind: schema.CoerceDefault}, {Path: "/per_page", Kind: schema.CoerceDefault},
				{Path: "/state", Kind: schema.CoerceDefault}, {Path: "/title", Kind: schema.CoerceDefault}, {Path: "/user_id", Kind: schema.CoerceDefault}}},
		{"a written value is never replaced by its default", `{"filter":{"q":"x","limit":2},"per_page":50,"state":"closed","title":"t","user_id":"u"}`,
			schema.CoerceOptions{FillDefaults: true}, `{"filter":{"q":"x","limit":2},"per_page":50,"state":"closed","title":"t","user_id":"u"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, kinds, err := v.Coerce(json.RawMessage(tt.args), tt.opts)
			if err != nil {
				t.Fatalf("Coerce: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.kinds, kinds); diff != "" {
				t.Errorf("coercions (-want +got):\n%s", diff)
			}
			fixed, kinds2, err := v.CoerceAndValidate(json.RawMessage(tt.args), tt.opts)
			if err != nil {
				t.Fatalf("CoerceAndValidate: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(fixed)); diff != "" {
				t.Errorf("CoerceAndValidate args (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.kinds, kinds2); diff != "" {
				t.Errorf("CoerceAndValidate coercions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCoerceAndValidateNumberRange: a number no 64-bit float holds is refused, whatever
// JSON Schema's arithmetic says of it.
func TestCoerceAndValidateNumberRange(t *testing.T) {
	v, err := schema.Compile(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number"},"s":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args string
		want []schema.Failure // nil: valid
	}{
		{`{"n":1e20,"x":1.5e300}`, nil},
		{`{"n":123456789012345678901234567890}`, nil},
		{`{"n":1e400}`, []schema.Failure{{Path: "/n", Reason: "the number 1e400 is out of range; send a number a 64-bit float can hold"}}},
		{`{"x":-1e400,"n":"x"}`, []schema.Failure{{Path: "/x", Reason: "the number -1e400 is out of range; send a number a 64-bit float can hold"},
			{Path: "/n", Reason: "wrong type: expected integer, but got string"}}},
		{`{"s":1e400}`, nil}, // a string is wanted: the number becomes its text
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			_, _, err := v.CoerceAndValidate(json.RawMessage(tt.args))
			var got []schema.Failure
			var ve *schema.ValidationError
			if errors.As(err, &ve) {
				got = ve.Failures
			} else if err != nil {
				t.Fatalf("error %v is not a *ValidationError", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCoerceChecksLimitsFirst: Coerce and CoerceAndValidate refuse arguments over the
// limits before decoding them, in every mode, with the limit's error.
func TestCoerceChecksLimitsFirst(t *testing.T) {
	deep := json.RawMessage(`{"n":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`)
	large := json.RawMessage(`{"s":"` + strings.Repeat("a", 300) + `"}`)
	for _, mode := range []schema.Mode{schema.Lenient, schema.Strict, schema.Off} {
		c := schema.NewCompiler(schema.CompilerConfig{Limits: schema.Limits{MaxArgBytes: 256}})
		v, err := c.Compile(json.RawMessage(`{"type":"object","properties":{"n":{},"s":{"type":"string"}}}`), schema.CompileOptions{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			args json.RawMessage
			want error
		}{{deep, schema.ErrTooDeep}, {large, schema.ErrTooLarge}} {
			if _, _, err := v.Coerce(tt.args); !errors.Is(err, tt.want) || !errors.Is(err, schema.ErrInvalidArguments) {
				t.Errorf("%v: Coerce: %v, want %v", mode, err, tt.want)
			}
			if _, _, err := v.CoerceAndValidate(tt.args); !errors.Is(err, tt.want) {
				t.Errorf("%v: CoerceAndValidate: %v, want %v", mode, err, tt.want)
			}
		}
	}
}

// TestCoerceAndValidateOffKeepsNumbers: Off checks no values, so a number out of float64's
// range is not refused there (the other modes refuse it).
func TestCoerceAndValidateOffKeepsNumbers(t *testing.T) {
	for _, tt := range []struct {
		mode    schema.Mode
		refused bool
	}{{schema.Lenient, true}, {schema.Strict, true}, {schema.Off, false}} {
		v, err := schema.Compile(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`), schema.CompileOptions{Mode: tt.mode})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = v.CoerceAndValidate(json.RawMessage(`{"n":1e400}`))
		if (err != nil) != tt.refused {
			t.Errorf("%v: %v, want refused %v", tt.mode, err, tt.refused)
		}
	}
}
