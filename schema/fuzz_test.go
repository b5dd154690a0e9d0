package schema_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhint/toolhint/schema"
)

// fuzzSchemas is the starting corpus of every fuzz target: the golden inputs plus a few hostile shapes.
func fuzzSchemas(f *testing.F) []string {
	corpus := []string{
		issueSchema,
		createEventParams,
		`{"type":"object","properties":{"a":{"$ref":"#"}}}`,
		`{"$ref":"file:///etc/passwd"}`,
		`{"type":"object","properties":{"a":{"type":"None"},"b":{"type":["string","number","boolean"]},"c":{"allOf":[{"type":"object","properties":{"x":{"type":"string"}}},{"type":"object","additionalProperties":true}]}}}`,
		`{"type":"object","definitions":{"n":{"type":"object","properties":{"next":{"$ref":"#/definitions/n"}}}},"properties":{"head":{"$ref":"#/definitions/n"}}}`,
		`{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"null"}],"nullable":true,"examples":"one"}}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false,"required":["a"],"minProperties":1,"propertyNames":{"maxLength":5},"dependentRequired":{"a":["x-b"]}}`,
		`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer","minimum":5}]},"o":{"oneOf":[{"type":"integer"},{"type":"number","multipleOf":0.5}]},"n":{"not":{"type":"null"}},"l":{"type":"array","prefixItems":[{"const":1}],"items":{"enum":["a",2]},"uniqueItems":true,"contains":{"type":"string"}}}}`,
		`{"type":"object","if":{"properties":{"k":{"const":"a"}},"required":["k"]},"then":{"required":["a"]},"else":{"required":["b"]},"properties":{"k":{"type":"string"}},"unevaluatedProperties":{"type":"integer"}}`,
		`[]`, `{"type":"string"}`, `{`,
	}
	dirs, _ := filepath.Glob(filepath.Join("testdata", "golden", "*", "input.json"))
	for _, d := range dirs {
		raw, err := os.ReadFile(d)
		if err != nil {
			f.Fatal(err)
		}
		var in goldenInput
		if err := json.Unmarshal(raw, &in); err != nil {
			f.Fatal(err)
		}
		corpus = append(corpus, string(in.Parameters))
	}
	return corpus
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSchemas(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tree, err := schema.Parse(json.RawMessage(s))
		if err != nil {
			if !errors.Is(err, schema.ErrInvalidSchema) && !errors.Is(err, schema.ErrLimit) && !errors.Is(err, schema.ErrRefRefused) {
				t.Fatalf("Parse error %v wraps no sentinel", err)
			}
			return
		}
		out, _ := tree.MarshalJSON()
		again, err := schema.Parse(out)
		if err != nil {
			t.Fatalf("re-parse of normalised output %s: %v", out, err)
		}
		out2, _ := again.MarshalJSON()
		if string(out) != string(out2) {
			t.Fatalf("normalisation is not idempotent:\n%s\n%s", out, out2)
		}
	})
}

func FuzzConvert(f *testing.F) {
	for _, s := range fuzzSchemas(f) {
		f.Add("ACTION", s)
	}
	f.Fuzz(func(t *testing.T, name, s string) {
		fn, err := schema.Convert(name, "d", json.RawMessage(s), schema.ConvertOptions{Hidden: []string{"user_id"}})
		if name != "" {
			// Convert refuses exactly what Compile refuses.
			if _, cerr := schema.Compile(json.RawMessage(s)); (cerr == nil) != (err == nil) {
				t.Fatalf("Convert error %v but Compile error %v", err, cerr)
			}
		}
		if err != nil {
			return
		}
		if !schema.ValidFunctionName(fn.Name) {
			t.Fatalf("invalid function name %q for %q", fn.Name, name)
		}
		for _, r := range []func() (json.RawMessage, error){
			func() (json.RawMessage, error) { return fn.OpenAI(true) },
			func() (json.RawMessage, error) { return fn.OpenAI(false) },
			fn.Anthropic, fn.Gemini,
		} {
			out, err := r()
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			if !json.Valid(out) {
				t.Fatalf("render produced invalid JSON: %s", out)
			}
		}
		if p, ok := fn.StrictParameters(); ok {
			if problems := checkStrict(p); len(problems) > 0 {
				t.Fatalf("strict output %s breaks the rules: %v", p, problems)
			}
		}
		g, _ := fn.Gemini()
		if problems := checkGemini(g); len(problems) > 0 {
			t.Fatalf("gemini output %s breaks the subset: %v", g, problems)
		}
	})
}

func FuzzCoerce(f *testing.F) {
	for _, a := range []string{`{"title":"x","count":"42","labels":"a","meta":"{\"k\":\"v\"}"}`, `{"ids":["1",2,"x"]}`, `{}`, `null`, `[1]`, `"s"`, `{"owner":"12","ratio":null}`} {
		f.Add(a)
	}
	v, err := schema.Compile(json.RawMessage(issueSchema))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args string) {
		out, _, err := v.Coerce(json.RawMessage(args))
		if err != nil {
			if !errors.Is(err, schema.ErrInvalidArguments) {
				t.Fatalf("Coerce error %v wraps no sentinel", err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Coerce produced invalid JSON %s", out)
		}
		again, more, err := v.Coerce(out)
		if err != nil || len(more) != 0 || string(again) != string(out) {
			t.Fatalf("Coerce is not idempotent on %s: %s %v %v", out, again, more, err)
		}
	})
}

func FuzzValidate(f *testing.F) {
	for _, s := range fuzzSchemas(f) {
		f.Add(s, `{"title":"x","a":1}`)
		f.Add(s, `{"title":null,"a":[1,"2",{"b":null}],"child":{"child":{}}}`)
	}
	f.Fuzz(func(t *testing.T, s, args string) {
		v, err := schema.Compile(json.RawMessage(s))
		if err != nil {
			return
		}
		err = v.Validate(json.RawMessage(args))
		var ve *schema.ValidationError
		if err != nil && (!errors.As(err, &ve) || len(ve.Failures) == 0) {
			t.Fatalf("Validate error %v is not a non-empty *ValidationError", err)
		}
		_, _, _ = v.CoerceAndValidate(json.RawMessage(args))
		if d := oracleAgrees(t, s, args); d != "" {
			t.Fatal(d)
		}
	})
}

func FuzzGenerateGo(f *testing.F) {
	for _, s := range fuzzSchemas(f) {
		f.Add("ACTION", s)
	}
	f.Fuzz(func(t *testing.T, slug, s string) {
		if _, err := schema.Parse(json.RawMessage(s)); err != nil {
			return
		}
		if _, err := schema.GenerateGo(schema.GoConfig{Package: "p", Types: []schema.GoType{{Action: slug, Description: s, Parameters: json.RawMessage(s)}}}); err != nil {
			t.Fatalf("GenerateGo on a schema Parse accepts: %v", err)
		}
	})
}
