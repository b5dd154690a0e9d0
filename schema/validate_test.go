package schema_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/schema"
)

const issueSchema = `{
  "type": "object",
  "properties": {
    "title": {"type": "string"},
    "count": {"type": "integer", "default": 10},
    "ratio": {"type": ["number", "null"], "default": null},
    "draft": {"type": "boolean"},
    "labels": {"type": "array", "items": {"type": "string"}},
    "ids": {"type": "array", "items": {"type": "integer"}},
    "meta": {"type": "object", "additionalProperties": {"type": "string"}},
    "state": {"type": "string", "enum": ["open", "closed"]},
    "owner": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    "note": {"type": "string"}
  },
  "required": ["title"]
}`

func TestCompileRefusesRefs(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   error
	}{
		{"file ref", `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, schema.ErrRefRefused},
		{"root file ref", `{"$ref":"file:///etc/passwd"}`, schema.ErrRefRefused},
		{"remote ref", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`, schema.ErrRefRefused},
		{"relative ref", `{"type":"object","properties":{"a":{"$ref":"other.json#/x"}}}`, schema.ErrRefRefused},
		{"dangling local ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`, schema.ErrRefRefused},
		{"ref hidden in patternProperties", `{"type":"object","patternProperties":{"^x":{"$ref":"http://evil/"}}}`, schema.ErrRefRefused},
		{"remote $schema is ignored, not fetched", `{"$schema":"http://evil.example/meta","type":"object"}`, nil},
		{"dynamic ref", `{"type":"object","properties":{"a":{"$dynamicRef":"#x"}}}`, schema.ErrRefRefused},
		{"ref cycle", `{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, schema.ErrInvalidSchema},
		{"not JSON", `{"type":`, schema.ErrInvalidSchema},
		{"array root", `[1,2]`, schema.ErrInvalidSchema},
		{"string root type", `{"type":"string"}`, schema.ErrInvalidSchema},
		{"unknown type", `{"type":"object","properties":{"a":{"type":"banana"}}}`, schema.ErrInvalidSchema},
		{"too deep", `{"type":"object","properties":{"a":` + strings.Repeat(`{"type":"array","items":`, 40) + `{"type":"string"}` + strings.Repeat(`}`, 40) + `}}`, schema.ErrLimit},
		{"local recursion is fine", `{"type":"object","properties":{"child":{"$ref":"#"}}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := schema.Compile(json.RawMessage(tt.schema))
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("Compile error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestLimits(t *testing.T) {
	big := `{"type":"object","properties":{"a":{"type":"string","description":"` + strings.Repeat("x", 2<<20) + `"}}}`
	if _, err := schema.Compile(json.RawMessage(big)); !errors.Is(err, schema.ErrLimit) {
		t.Errorf("2 MiB schema: error = %v, want ErrLimit", err)
	}
	vals := make([]string, 3000)
	for i := range vals {
		vals[i] = `"v` + strings.Repeat("x", i%7) + `"`
	}
	enum := `{"type":"object","properties":{"a":{"enum":[` + strings.Join(vals, ",") + `]}}}`
	if _, err := schema.Parse(json.RawMessage(enum)); !errors.Is(err, schema.ErrLimit) {
		t.Errorf("3000-value enum: error = %v, want ErrLimit", err)
	}
	if _, err := schema.ParseWith(json.RawMessage(enum), schema.Limits{MaxEnum: -1}); err != nil {
		t.Errorf("3000-value enum without limit: %v", err)
	}
	var se *schema.SchemaError
	_, err := schema.Parse(json.RawMessage(`{"type":"object","properties":{"a b":{"type":"wat"}}}`))
	if !errors.As(err, &se) || se.Path != "/properties/a b/type" {
		t.Errorf("error = %#v, want a SchemaError at /properties/a b/type", err)
	}
}

func TestValidate(t *testing.T) {
	v, err := schema.Compile(json.RawMessage(issueSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args string
		want []schema.Failure // nil: valid
	}{
		{"valid", `{"title":"x","labels":["a"],"owner":null}`, nil},
		{"missing required", `{}`, []schema.Failure{{Path: "", Reason: "missing required properties: 'title'; add them"}}},
		{"several paths", `{"title":1,"labels":["a",2],"state":"gone"}`, []schema.Failure{
			{Path: "/labels/1", Reason: "wrong type: expected string, but got number"},
			{Path: "/state", Reason: `value must be one of "open", "closed"`},
			{Path: "/title", Reason: "wrong type: expected string, but got number"},
		}},
		{"anyOf folded", `{"title":"x","owner":"me"}`, []schema.Failure{
			{Path: "/owner", Reason: "matches none of the allowed forms (wrong type: expected integer, but got string; or wrong type: expected null, but got string)"},
		}},
		{"not JSON", `{"title":`, []schema.Failure{{Path: "", Reason: "arguments are not valid JSON: unexpected end of JSON input"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Validate(json.RawMessage(tt.args))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var ve *schema.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, schema.ErrInvalidArguments) {
				t.Fatalf("Validate error = %v, want a *ValidationError", err)
			}
			if diff := cmp.Diff(tt.want, ve.Failures); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCoerce(t *testing.T) {
	v, err := schema.Compile(json.RawMessage(issueSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  string
		want  string
		kinds []schema.Coercion
	}{
		{"nothing to do", `{"title":"x","count":3}`, `{"title":"x","count":3}`, nil},
		{"string to integer and boolean", `{"title":"x","count":"42","draft":"TRUE"}`, `{"count":42,"draft":true,"title":"x"}`,
			[]schema.Coercion{{Path: "/count", Kind: schema.CoerceInteger}, {Path: "/draft", Kind: schema.CoerceBoolean}}},
		{"number to string", `{"title":7,"count":1}`, `{"count":1,"title":"7"}`, []schema.Coercion{{Path: "/title", Kind: schema.CoerceString}}},
		{"json string to object and array", `{"title":"x","count":1,"meta":"{\"k\":\"v\"}","labels":"[\"a\",\"b\"]"}`, `{"count":1,"labels":["a","b"],"meta":{"k":"v"},"title":"x"}`,
			[]schema.Coercion{{Path: "/labels", Kind: schema.CoerceJSON}, {Path: "/meta", Kind: schema.CoerceJSON}}},
		{"wrap single value, then coerce element", `{"title":"x","count":1,"ids":"5"}`, `{"count":1,"ids":[5],"title":"x"}`,
			[]schema.Coercion{{Path: "/ids", Kind: schema.CoerceWrap}, {Path: "/ids/0", Kind: schema.CoerceInteger}}},
		{"strict null omitted, no default filled", `{"title":"x","count":null,"ratio":null,"note":null}`, `{"ratio":null,"title":"x"}`,
			[]schema.Coercion{{Path: "/count", Kind: schema.CoerceOmitNull}, {Path: "/note", Kind: schema.CoerceOmitNull}}},
		{"integer beyond int64 kept exact", `{"title":"x","count":"123456789012345678901234567890"}`, `{"count":123456789012345678901234567890,"title":"x"}`, []schema.Coercion{{Path: "/count", Kind: schema.CoerceInteger}}},
		{"anyOf branch", `{"title":"x","count":1,"owner":"12"}`, `{"count":1,"owner":12,"title":"x"}`, []schema.Coercion{{Path: "/owner", Kind: schema.CoerceInteger}}},
		{"empty arguments", "  ", `{}`, []schema.Coercion{{Path: "", Kind: schema.CoerceEmpty}}},
		{"double-encoded arguments", `"{\"title\":\"x\",\"count\":1}"`, `{"count":1,"title":"x"}`, []schema.Coercion{{Path: "", Kind: schema.CoerceJSON}}},
		{"hopeless value left for validation", `{"title":"x","count":"many"}`, `{"title":"x","count":"many"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, kinds, err := v.Coerce(json.RawMessage(tt.args))
			if err != nil {
				t.Fatalf("Coerce: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.kinds, kinds); diff != "" {
				t.Errorf("coercions (-want +got):\n%s", diff)
			}
		})
	}
	if _, _, err := v.CoerceAndValidate(json.RawMessage(`{"title":"x","count":"many"}`)); !errors.Is(err, schema.ErrInvalidArguments) {
		t.Errorf("CoerceAndValidate of a hopeless value: error = %v, want ErrInvalidArguments", err)
	}
}

func TestCompilerCache(t *testing.T) {
	c := schema.NewCompiler(schema.CompilerConfig{MaxEntries: 2})
	a, err := c.Compile(json.RawMessage(issueSchema))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := c.Compile(json.RawMessage(issueSchema))
			if err != nil || b != a {
				t.Errorf("cached Compile = %p, %v; want %p", b, err, a)
			}
			if err := b.Validate(json.RawMessage(`{"title":"x"}`)); err != nil {
				t.Errorf("Validate: %v", err)
			}
		}()
	}
	wg.Wait()
	for _, s := range []string{`{"type":"object"}`, `{"type":"object","properties":{}}`} {
		if _, err := c.Compile(json.RawMessage(s)); err != nil {
			t.Fatal(err)
		}
	}
	if c.Len() != 2 {
		t.Errorf("Len = %d, want 2 (bounded)", c.Len())
	}
	if b, _ := c.Compile(json.RawMessage(issueSchema)); b == a {
		t.Error("evicted validator came back from the cache")
	}
	if _, err := c.Compile(json.RawMessage(`{"$ref":"file:///etc/passwd"}`)); !errors.Is(err, schema.ErrRefRefused) {
		t.Errorf("Compiler.Compile file ref: %v", err)
	}
}

func TestCoerceSkipsDefaultsThatDoNotFit(t *testing.T) {
	v, err := schema.Compile(json.RawMessage(`{"type":"object","properties":{
	  "latest":{"type":"string","enum":["true","false"],"default":"True"},
	  "ids":{"type":"array","items":{"type":"string"},"default":true},
	  "mode":{"type":"string","enum":["a","b"],"default":"b"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, kinds, err := v.CoerceAndValidate(json.RawMessage(`{}`), schema.CoerceOptions{FillDefaults: true})
	if err != nil {
		t.Fatalf("CoerceAndValidate: %v", err)
	}
	if diff := cmp.Diff(`{"mode":"b"}`, string(got)); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]schema.Coercion{{Path: "/mode", Kind: schema.CoerceDefault}}, kinds); diff != "" {
		t.Errorf("coercions (-want +got):\n%s", diff)
	}
}

func TestCoerceGeminiShapedArguments(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "golden", "numeric_enum_null_only", "input.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in goldenInput
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	v, err := schema.Compile(in.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	// What a Gemini model writes from the declaration: the number enum as its text, the
	// null-only property left out (the normaliser made it optional, so it stays out).
	got, kinds, err := v.CoerceAndValidate(json.RawMessage(`{"image_id":"img_1","angle":"270"}`))
	if err != nil {
		t.Fatalf("CoerceAndValidate: %v", err)
	}
	if diff := cmp.Diff(`{"angle":270,"image_id":"img_1"}`, string(got)); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	want := []schema.Coercion{{Path: "/angle", Kind: schema.CoerceNumber}}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("coercions (-want +got):\n%s", diff)
	}
}

// TestOptionsAtMostOne: each entry point that takes its options as an optional last
// argument takes none or one, and refuses more with an error naming the call, never a
// panic or a silent choice.
func TestOptionsAtMostOne(t *testing.T) {
	params := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","default":3}}}`)
	v, err := schema.Compile(params)
	if err != nil {
		t.Fatal(err)
	}
	c := schema.NewCompiler(schema.CompilerConfig{})
	two := []schema.CompileOptions{{}, {Mode: schema.Strict}}
	fill := []schema.CoerceOptions{{FillDefaults: true}, {}}
	tests := []struct {
		name string
		call func() error
		want string // "" for success
	}{
		{"Compile, none", func() error { _, err := schema.Compile(params); return err }, ""},
		{"Compile, one", func() error { _, err := schema.Compile(params, two[1]); return err }, ""},
		{"Compile, two", func() error { _, err := schema.Compile(params, two...); return err }, "schema: compile: 2 schema.CompileOptions values, want at most one"},
		{"Compiler.Compile, two", func() error { _, err := c.Compile(params, two...); return err }, "schema: compile: 2 schema.CompileOptions values, want at most one"},
		{"Coerce, one", func() error { _, _, err := v.Coerce(nil, fill[0]); return err }, ""},
		{"Coerce, two", func() error { _, _, err := v.Coerce(nil, fill...); return err }, "schema: coerce: 2 schema.CoerceOptions values, want at most one"},
		{"Convert, two", func() error {
			_, err := schema.Convert("X", "", params, schema.ConvertOptions{}, schema.ConvertOptions{Mode: schema.Strict})
			return err
		}, "schema: convert: 2 schema.ConvertOptions values, want at most one"},
		{"CoerceAndValidate, two", func() error { _, _, err := v.CoerceAndValidate(nil, fill...); return err }, "schema: coerce and validate: 2 schema.CoerceOptions values, want at most one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := tt.call(); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
	// The one option given is the one applied.
	for _, compile := range []func(json.RawMessage, ...schema.CompileOptions) (*schema.Validator, error){schema.Compile, c.Compile} {
		if sv, err := compile(params, two[1]); err != nil {
			t.Errorf("Compile with Mode Strict: %v", err)
		} else if sv.Mode() != schema.Strict {
			t.Errorf("Compile with Mode Strict gave mode %v", sv.Mode())
		}
	}
	got, done, err := v.CoerceAndValidate(nil, fill[0])
	if err != nil || string(got) != `{"n":3}` || len(done) != 2 {
		t.Errorf("CoerceAndValidate with FillDefaults = %s, %v, %v; want {\"n\":3} after two repairs", got, done, err)
	}
}
