package schema_test

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/toolhint/toolhint/schema"
)

// The package validates with its own compiled programs. santhosh-tekuri/jsonschema, a
// complete JSON Schema 2020-12 implementation, serves here as the oracle: on the same
// normalised schema, both must accept or refuse the same schemas, and give the same verdict
// on the same arguments (in Strict mode, where nothing is relaxed).

// oracleCompile compiles a parsed, normalised schema with the oracle.
func oracleCompile(tree *schema.Schema) (*jsonschema.Schema, error) {
	norm, _ := tree.MarshalJSON()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(u string) (io.ReadCloser, error) { return nil, io.EOF }
	const url = "mem://oracle.json"
	if err := c.AddResource(url, bytes.NewReader(norm)); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// oracleAgrees compares the package with the oracle on one schema and, when both compile
// it, on each argument document. It returns a description of the first disagreement, or "".
func oracleAgrees(t testing.TB, params string, args ...string) string {
	t.Helper()
	tree, err := schema.Parse(json.RawMessage(params))
	if err != nil {
		return "" // refused before either validator sees it
	}
	ours, oursErr := schema.Compile(json.RawMessage(params), schema.CompileOptions{Mode: schema.Strict})
	theirs, theirsErr := safeOracleCompile(tree)
	if (oursErr == nil) != (theirsErr == nil) {
		return "compile: ours " + errText(oursErr) + ", oracle " + errText(theirsErr)
	}
	if oursErr != nil {
		return ""
	}
	for _, a := range args {
		if !comparableArgs(a) || !json.Valid([]byte(a)) {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(a))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			continue
		}
		if depthOf(v) > 60 {
			continue
		}
		oursOK := ours.Validate(json.RawMessage(a)) == nil
		theirsOK, ok := safeOracleValidate(theirs, v)
		if !ok {
			continue // the oracle gave up (its own loop detection)
		}
		if oursOK != theirsOK {
			return "arguments " + truncateText(a, 200) + ": ours valid=" + boolText(oursOK) + ", oracle valid=" + boolText(theirsOK) + ": " + errText(ours.Validate(json.RawMessage(a)))
		}
	}
	return ""
}

func safeOracleCompile(tree *schema.Schema) (s *jsonschema.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, io.ErrUnexpectedEOF
		}
	}()
	return oracleCompile(tree)
}

func safeOracleValidate(s *jsonschema.Schema, v any) (valid, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			valid, ok = false, false
		}
	}()
	return s.Validate(v) == nil, true
}

// comparableArgs leaves out the one deliberate difference: numbers whose exponent makes
// them infinite as a float64 (1e400) are not integers here.
func comparableArgs(a string) bool {
	return !strings.ContainsAny(a, "eE") || !strings.Contains(strings.ToLower(a), "e4") && !strings.Contains(strings.ToLower(a), "e3")
}

func depthOf(v any) int {
	d := 0
	switch t := v.(type) {
	case map[string]any:
		for _, e := range t {
			d = max(d, depthOf(e))
		}
		return d + 1
	case []any:
		for _, e := range t {
			d = max(d, depthOf(e))
		}
		return d + 1
	}
	return 0
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return truncateText(err.Error(), 300)
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func truncateText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// TestOracle runs schemas that exercise every keyword, and arguments on both sides of
// each, through the package and the oracle.
func TestOracle(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		args   []string
	}{
		{"types", `{"type":"object","properties":{"i":{"type":"integer"},"n":{"type":"number"},"s":{"type":["string","null"]},"b":{"type":"boolean"},"a":{"type":"array"},"o":{"type":"object"}}}`,
			[]string{`{"i":1}`, `{"i":1.0}`, `{"i":1.5}`, `{"i":"1"}`, `{"n":-2.5e3}`, `{"s":null}`, `{"s":1}`, `{"b":0}`, `{"a":{}}`, `{"o":[]}`, `[]`, `"x"`, `null`}},
		{"enum and const", `{"type":"object","properties":{"e":{"enum":["a",1,null,{"k":[1]}]},"c":{"const":2}}}`,
			[]string{`{"e":"a"}`, `{"e":1.0}`, `{"e":null}`, `{"e":{"k":[1.0]}}`, `{"e":"b"}`, `{"c":2}`, `{"c":2.0}`, `{"c":"2"}`}},
		{"numbers", `{"type":"object","properties":{"x":{"type":"number","minimum":1,"maximum":10,"multipleOf":0.5},"y":{"exclusiveMinimum":0,"exclusiveMaximum":1}}}`,
			[]string{`{"x":1}`, `{"x":10}`, `{"x":10.5}`, `{"x":0.5}`, `{"x":2.25}`, `{"x":2.5}`, `{"y":0}`, `{"y":0.5}`, `{"y":1}`, `{"y":"0"}`}},
		{"strings", `{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":3,"pattern":"^[a-zé]+$"}}}`,
			[]string{`{"s":"ab"}`, `{"s":"é"}`, `{"s":"éé"}`, `{"s":"abcd"}`, `{"s":"AB"}`, `{"s":"a"}`}},
		{"arrays", `{"type":"object","properties":{"a":{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"},"minItems":1,"maxItems":3,"uniqueItems":true},"c":{"contains":{"const":1},"minContains":2,"maxContains":3}}}`,
			[]string{`{"a":["x",1,2]}`, `{"a":[]}`, `{"a":[1]}`, `{"a":["x","y"]}`, `{"a":["x",1,1.0]}`, `{"a":["x",1,2,3]}`, `{"c":[1,1]}`, `{"c":[1]}`, `{"c":[1,1,1,1]}`, `{"c":"x"}`}},
		{"objects", `{"type":"object","properties":{"a":{"type":"string"}},"patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false,"required":["a"],"minProperties":1,"maxProperties":3,"propertyNames":{"maxLength":5},"dependentRequired":{"a":["x-b"]}}`,
			[]string{`{"a":"1","x-b":2}`, `{"a":"1"}`, `{"x-b":2}`, `{"a":"1","x-b":"2"}`, `{"a":"1","x-b":2,"zz":1}`, `{"a":"1","x-b":2,"x-abcdef":1}`}},
		{"composition", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer","minimum":5}]},"o":{"oneOf":[{"type":"integer"},{"type":"number","minimum":2}]},"n":{"not":{"type":"null"}},"l":{"allOf":[{"minLength":1},{"maxLength":2}]}}}`,
			[]string{`{"a":"x"}`, `{"a":6}`, `{"a":4}`, `{"o":1}`, `{"o":3}`, `{"o":1.5}`, `{"n":null}`, `{"n":1}`, `{"l":""}`, `{"l":"abc"}`, `{"l":"ab"}`}},
		{"conditionals", `{"type":"object","if":{"properties":{"kind":{"const":"a"}},"required":["kind"]},"then":{"required":["a"]},"else":{"required":["b"]},"dependentSchemas":{"x":{"required":["y"]}}}`,
			[]string{`{"kind":"a","a":1}`, `{"kind":"a"}`, `{"b":1}`, `{}`, `{"b":1,"x":1}`, `{"b":1,"x":1,"y":2}`}},
		{"unevaluated", `{"type":"object","properties":{"a":{"type":"integer"}},"anyOf":[{"properties":{"b":{"type":"string"}}},{"properties":{"c":{"type":"string"}}}],"unevaluatedProperties":false,"$defs":{"L":{"type":"array","prefixItems":[{"type":"string"}],"unevaluatedItems":{"type":"integer"}}}}`,
			[]string{`{"a":1,"b":"x"}`, `{"a":1,"c":"x"}`, `{"a":1,"d":"x"}`, `{"b":1}`}},
		{"unevaluated items", `{"type":"object","properties":{"l":{"type":"array","prefixItems":[{"type":"string"}],"contains":{"type":"boolean"},"unevaluatedItems":{"type":"integer"}}}}`,
			[]string{`{"l":["x",true,1]}`, `{"l":["x",true,"y"]}`, `{"l":["x"]}`, `{"l":["x",true,false,2]}`}},
		{"references", `{"type":"object","$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"anyOf":[{"$ref":"#/$defs/node"},{"type":"null"}]}},"required":["v"]}},"properties":{"head":{"$ref":"#/$defs/node"},"self":{"$ref":"#"}}}`,
			[]string{`{"head":{"v":1,"next":{"v":2,"next":null}}}`, `{"head":{"v":1,"next":{"next":null}}}`, `{"self":{"self":{"head":{"v":"x"}}}}`, `{"self":{"self":{}}}`}},
		{"boolean schemas", `{"type":"object","properties":{"t":true,"f":false},"additionalProperties":{"type":"string"}}`,
			[]string{`{"t":1}`, `{"f":1}`, `{"z":"x"}`, `{"z":1}`}},
		{"big numbers", `{"type":"object","properties":{"i":{"type":"integer","maximum":1e20},"m":{"multipleOf":1e-3}}}`,
			[]string{`{"i":123456789012345678901234567890}`, `{"i":99999999999999999999}`, `{"i":1e19}`, `{"m":0.001}`, `{"m":0.0015}`, `{"m":12345678901234567890.002}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := schema.Compile(json.RawMessage(tt.schema), schema.CompileOptions{Mode: schema.Strict}); err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if d := oracleAgrees(t, tt.schema, tt.args...); d != "" {
				t.Error(d)
			}
		})
	}
}

// TestOracleRefusals checks that schemas the oracle refuses are refused by Compile and by
// Convert alike, and that schemas it accepts are accepted by both.
func TestOracleRefusals(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		refuse bool
	}{
		{"negative minLength", `{"type":"object","properties":{"a":{"type":"string","minLength":-1}}}`, true},
		{"fractional maxItems", `{"type":"object","properties":{"a":{"type":"array","maxItems":1.5}}}`, true},
		{"whole float maxItems", `{"type":"object","properties":{"a":{"type":"array","maxItems":2.0}}}`, false},
		{"pattern that does not compile", `{"type":"object","properties":{"a":{"type":"string","pattern":"(?<=x)y"}}}`, true},
		{"pattern property that does not compile", `{"type":"object","patternProperties":{"(":{}}}`, true},
		{"multipleOf zero", `{"type":"object","properties":{"a":{"multipleOf":0}}}`, true},
		{"minimum as a string", `{"type":"object","properties":{"a":{"minimum":"1"}}}`, true},
		{"uniqueItems as a string", `{"type":"object","properties":{"a":{"uniqueItems":"yes"}}}`, true},
		{"description as a number is dropped", `{"type":"object","properties":{"a":{"type":"string","description":5}}}`, false},
		{"contentEncoding as a number", `{"type":"object","properties":{"a":{"contentEncoding":5}}}`, true},
		{"schema in dependencies that is not one", `{"type":"object","dependencies":{"b":5}}`, true},
		{"repeated name in dependentRequired", `{"type":"object","dependentRequired":{"b":["c","c"]}}`, true},
		{"negative minContains", `{"type":"object","properties":{"a":{"minContains":-1}}}`, true},
		{"in-place loop through if", `{"type":"object","if":{"$ref":"#"}}`, true},
		{"readOnly as a string", `{"type":"object","properties":{"a":{"readOnly":"yes"}}}`, true},
		{"if that is not a schema", `{"type":"object","if":5}`, true},
		{"dependentRequired of numbers", `{"type":"object","dependentRequired":{"a":[1]}}`, true},
		{"empty prefixItems", `{"type":"object","properties":{"a":{"items":[]}}}`, true},
		{"unknown keywords are fine", `{"type":"object","x-anything":{"type":"banana"},"file_uploadable":true}`, false},
		{"draft-04 boolean exclusiveMinimum", `{"type":"object","properties":{"a":{"minimum":1,"exclusiveMinimum":true}}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, err := schema.Parse(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			_, oracleErr := safeOracleCompile(tree)
			if (oracleErr != nil) != tt.refuse {
				t.Fatalf("oracle refuses = %v (%v), want %v: the case is wrong", oracleErr != nil, oracleErr, tt.refuse)
			}
			_, compileErr := schema.Compile(json.RawMessage(tt.schema))
			_, convertErr := schema.Convert("A", "d", json.RawMessage(tt.schema))
			if (compileErr != nil) != tt.refuse || (convertErr != nil) != tt.refuse {
				t.Errorf("Compile error = %v, Convert error = %v; want refused = %v", compileErr, convertErr, tt.refuse)
			}
		})
	}
}

// TestCatalogOracle compares the package with the oracle over the whole shared catalogue:
// the same schemas compile, and least-effort arguments (empty, strict-shaped, Gemini-shaped)
// get the same verdict.
func TestCatalogOracle(t *testing.T) {
	rows := loadCatalog(t)
	compared, step := 0, 1
	if raceEnabled {
		step = 8
	}
	for i := 0; i < len(rows); i += step {
		r := rows[i]
		args := []string{`{}`}
		if f, err := schema.Convert(r.Action, r.Description, r.Parameters, schema.ConvertOptions{Mode: schema.Strict}); err == nil {
			if p, ok := f.StrictParameters(); ok {
				if root, err := decodeAny(p); err == nil {
					defs, _ := root.(map[string]any)["$defs"].(map[string]any)
					if a, ok := strictSample(root, defs, 0); ok {
						raw, _ := json.Marshal(a)
						args = append(args, string(raw))
					}
				}
			}
			if g, err := f.Gemini(); err == nil {
				if decl, err := decodeAny(g); err == nil {
					if params, has := decl.(map[string]any)["parameters"]; has {
						if a, ok := geminiSample(params, 0); ok {
							raw, _ := json.Marshal(a)
							args = append(args, string(raw))
						}
					}
				}
			}
		}
		if d := oracleAgrees(t, string(r.Parameters), args...); d != "" {
			t.Errorf("%s: %s", r.Action, d)
		}
		compared += len(args)
	}
	t.Logf("compared %d argument documents over %d schemas", compared, (len(rows)+step-1)/step)
}
