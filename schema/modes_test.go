package schema_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/schema"
)

// mailSchema is shaped like the parameter schemas of common send-email actions: an
// attachment object listed as required although its description says to leave it out, a
// subject that may be null, and lists with empty defaults.
const mailSchema = `{
  "type": "object",
  "properties": {
    "attachment": {"type": "object", "description": "A file to attach. Omit it, or pass null, for no attachment.",
      "properties": {"name": {"type": "string"}, "key": {"type": "string"}}, "required": ["name", "key"]},
    "to": {"type": "string", "description": "Recipient address."},
    "subject": {"type": ["string", "null"], "default": null},
    "body": {"type": "string"},
    "cc": {"type": "array", "items": {"type": "string"}, "default": []},
    "html": {"type": "boolean", "default": false},
    "meta": {"type": "object", "properties": {"tag": {"type": "string"}, "n": {"type": "integer"}}}
  },
  "required": ["attachment", "to", "body"]
}`

func TestModes(t *testing.T) {
	valid := func(err error) string {
		if err == nil {
			return "valid"
		}
		var ve *schema.ValidationError
		if !errors.As(err, &ve) || !errors.Is(err, schema.ErrInvalidArguments) {
			return "not a ValidationError: " + err.Error()
		}
		return "invalid"
	}
	tests := []struct {
		args                 string
		lenient, strict, off string
	}{
		{`{"to":"jay@acme.com","subject":"x","body":"hi"}`, "valid", "invalid", "valid"},
		{`{"to":"jay@acme.com","subject":"x","body":"hi","attachment":null}`, "valid", "invalid", "valid"},
		{`{"to":"jay@acme.com","body":"hi","attachment":{"name":"a.pdf","key":"k1"}}`, "valid", "valid", "valid"},
		{`{"to":"jay@acme.com","body":"hi","html":null,"cc":null,"meta":{"tag":null}}`, "valid", "invalid", "valid"},
		{`{"to":"jay@acme.com","subject":"x"}`, "invalid", "invalid", "valid"},
		{`{"to":"jay@acme.com","body":7}`, "invalid", "invalid", "valid"},
		{`{"to":"jay@acme.com","body":"hi","attachment":{"name":"a.pdf"}}`, "invalid", "invalid", "valid"},
		{`{"to":"jay@acme.com","body":"hi","meta":{"n":"many"}}`, "invalid", "invalid", "valid"},
		{`{"to":`, "invalid", "invalid", "invalid"},
	}
	validators := map[schema.Mode]*schema.Validator{}
	for _, m := range []schema.Mode{schema.Lenient, schema.Strict, schema.Off} {
		v, err := schema.Compile(json.RawMessage(mailSchema), schema.CompileOptions{Mode: m})
		if err != nil {
			t.Fatal(err)
		}
		if v.Mode() != m {
			t.Fatalf("Mode() = %v, want %v", v.Mode(), m)
		}
		validators[m] = v
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got := []string{
				valid(validators[schema.Lenient].Validate(json.RawMessage(tt.args))),
				valid(validators[schema.Strict].Validate(json.RawMessage(tt.args))),
				valid(validators[schema.Off].Validate(json.RawMessage(tt.args))),
			}
			if diff := cmp.Diff([]string{tt.lenient, tt.strict, tt.off}, got); diff != "" {
				t.Errorf("lenient, strict, off (-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff([]string{"body", "to"}, validators[schema.Lenient].Schema().Required); diff != "" {
		t.Errorf("lenient Schema().Required (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"attachment", "body", "to"}, validators[schema.Strict].Schema().Required); diff != "" {
		t.Errorf("strict Schema().Required (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]schema.Relaxation{{Property: "attachment", Rule: schema.RuleDescribedOptional}}, validators[schema.Lenient].Relaxations()); diff != "" {
		t.Errorf("Relaxations (-want +got):\n%s", diff)
	}
	if r := validators[schema.Strict].Relaxations(); r != nil {
		t.Errorf("strict Relaxations = %v, want nil", r)
	}
	if got := validators[schema.Lenient].Declared().Required; !cmp.Equal(got, []string{"attachment", "body", "to"}) {
		t.Errorf("Declared().Required = %v", got)
	}
	// What a strict-mode model writes for the left-out attachment (null) is repaired
	// away by coercion, so it never reaches the server.
	fixed, _, err := validators[schema.Lenient].CoerceAndValidate(json.RawMessage(`{"to":"jay@acme.com","body":"hi","attachment":null}`))
	if err != nil {
		t.Fatalf("CoerceAndValidate: %v", err)
	}
	if strings.Contains(string(fixed), "attachment") {
		t.Errorf("CoerceAndValidate kept the null attachment: %s", fixed)
	}
}

func TestConvertModes(t *testing.T) {
	lenient, err := schema.Convert("MAIL_SEND", "Send mail.", json.RawMessage(mailSchema))
	if err != nil {
		t.Fatal(err)
	}
	strict, err := schema.Convert("MAIL_SEND", "Send mail.", json.RawMessage(mailSchema), schema.ConvertOptions{Mode: schema.Strict})
	if err != nil {
		t.Fatal(err)
	}
	required := func(f schema.Function) []string {
		s, err := f.Schema()
		if err != nil {
			t.Fatal(err)
		}
		return s.Required
	}
	if diff := cmp.Diff([]string{"body", "to"}, required(lenient)); diff != "" {
		t.Errorf("lenient definition's required (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"attachment", "body", "to"}, required(strict)); diff != "" {
		t.Errorf("strict-mode definition's required (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]schema.Relaxation{{Property: "attachment", Rule: schema.RuleDescribedOptional}}, lenient.Relaxed); diff != "" {
		t.Errorf("Relaxed (-want +got):\n%s", diff)
	}
	// OpenAI strict mode lists every property as required; the relaxed one becomes
	// nullable there, so the model may answer null instead of inventing a file.
	p, ok := lenient.StrictParameters()
	if !ok {
		t.Fatalf("not strict: %s", lenient.StrictReason)
	}
	var st struct {
		Properties map[string]struct {
			Type  any   `json:"type"`
			AnyOf []any `json:"anyOf"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(p, &st); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"object", "null"}, st.Properties["attachment"].Type); diff != "" {
		t.Errorf("strict attachment type (-want +got):\n%s", diff)
	}
	if len(st.Required) != 7 {
		t.Errorf("strict required = %v, want all 7 properties", st.Required)
	}
	// Hidden parameters are not reported as relaxed.
	h, err := schema.Convert("MAIL_SEND", "d", json.RawMessage(mailSchema), schema.ConvertOptions{Hidden: []string{"attachment"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Relaxed) != 0 {
		t.Errorf("Relaxed = %v for a hidden parameter", h.Relaxed)
	}
}

func TestOverrides(t *testing.T) {
	ov := schema.Overrides{
		// Make subject a required, non-null string: a null in a merge patch deletes.
		"MAIL_SEND": {Patch: json.RawMessage(`{"properties":{"meta":null,"attachment":{"description":"The file."},"subject":{"type":"string","default":null}},"required":["to","body","subject"]}`)},
		"MAIL_NEW":  {Replace: json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}`)},
		"MAIL_BAD":  {Patch: json.RawMessage(`{"properties":`)},
	}
	t.Run("patch", func(t *testing.T) {
		v, err := schema.Compile(json.RawMessage(mailSchema), schema.CompileOptions{Action: "MAIL_SEND", Overrides: ov})
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Validate(json.RawMessage(`{"to":"a@b.c","body":"hi"}`)); err == nil {
			t.Error("the patched required subject is not enforced")
		}
		if err := v.Validate(json.RawMessage(`{"to":"a@b.c","body":"hi","subject":"s"}`)); err != nil {
			t.Errorf("patched schema: %v", err)
		}
		sv, err := schema.Compile(json.RawMessage(mailSchema), schema.CompileOptions{Mode: schema.Strict, Action: "MAIL_SEND", Overrides: ov})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"body", "subject", "to"}, sv.Schema().Required); diff != "" {
			t.Errorf("strict required (-want +got):\n%s", diff)
		}
		if _, has := sv.Schema().Properties["meta"]; has {
			t.Error("the patch did not delete meta")
		}
		if got := sv.Schema().Properties["attachment"].Description; got != "The file." {
			t.Errorf("attachment description = %q", got)
		}
		f, err := schema.Convert("MAIL_SEND", "d", json.RawMessage(mailSchema), schema.ConvertOptions{Overrides: ov})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(f.Parameters), `"meta"`) || !strings.Contains(string(f.Parameters), `"The file."`) {
			t.Errorf("Convert did not apply the override: %s", f.Parameters)
		}
	})
	t.Run("replace", func(t *testing.T) {
		v, err := schema.Compile(json.RawMessage(mailSchema), schema.CompileOptions{Action: "MAIL_NEW", Overrides: ov})
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Validate(json.RawMessage(`{"x":1}`)); err != nil {
			t.Errorf("replaced schema refuses its own arguments: %v", err)
		}
		if err := v.Validate(json.RawMessage(`{"to":"a@b.c","body":"hi"}`)); err == nil {
			t.Error("replaced schema accepts the old arguments")
		}
	})
	t.Run("other slugs untouched", func(t *testing.T) {
		in := json.RawMessage(mailSchema)
		out, err := ov.Apply("OTHER", in)
		if err != nil || &out[0] != &in[0] {
			t.Errorf("Apply for a slug without override = %p, %v; want the same bytes", out, err)
		}
		var none schema.Overrides
		if out, err := none.Apply("MAIL_SEND", in); err != nil || string(out) != mailSchema {
			t.Errorf("nil Overrides changed the schema: %v", err)
		}
	})
	t.Run("bad patch", func(t *testing.T) {
		_, err := schema.Compile(json.RawMessage(mailSchema), schema.CompileOptions{Action: "MAIL_BAD", Overrides: ov})
		if !errors.Is(err, schema.ErrInvalidSchema) {
			t.Errorf("Compile with a broken patch: error = %v, want ErrInvalidSchema", err)
		}
		if _, err := schema.Convert("MAIL_BAD", "d", json.RawMessage(mailSchema), schema.ConvertOptions{Overrides: ov}); !errors.Is(err, schema.ErrInvalidSchema) {
			t.Errorf("Convert with a broken patch: error = %v, want ErrInvalidSchema", err)
		}
	})
	t.Run("merge patch semantics", func(t *testing.T) {
		got, err := schema.Override{Patch: json.RawMessage(`{"a":{"b":null,"c":[3]},"d":1}`)}.Apply(json.RawMessage(`{"a":{"b":1,"c":[1,2],"e":true},"f":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(`{"a":{"c":[3],"e":true},"d":1,"f":"x"}`, string(got)); diff != "" {
			t.Errorf("patched (-want +got):\n%s", diff)
		}
	})
}

func TestCompilerKeys(t *testing.T) {
	c := schema.NewCompiler(schema.CompilerConfig{})
	ov := schema.Overrides{"A": {Patch: json.RawMessage(`{"required":["to"]}`)}}
	compile := func(opts schema.CompileOptions) *schema.Validator {
		v, err := c.Compile(json.RawMessage(mailSchema), opts)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	lenient := compile(schema.CompileOptions{})
	if compile(schema.CompileOptions{}) != lenient {
		t.Error("same options compiled twice")
	}
	strict := compile(schema.CompileOptions{Mode: schema.Strict})
	patched := compile(schema.CompileOptions{Action: "A", Overrides: ov})
	if strict == lenient || patched == lenient || patched == strict {
		t.Error("different modes or overrides share a validator")
	}
	if compile(schema.CompileOptions{Action: "B", Overrides: ov}) != lenient {
		t.Error("an override for another slug changed the cache key")
	}
	ov["A"] = schema.Override{Patch: json.RawMessage(`{"required":["body"]}`)}
	if compile(schema.CompileOptions{Action: "A", Overrides: ov}) == patched {
		t.Error("a changed override came back from the cache")
	}
	if c.Len() != 4 {
		t.Errorf("Len = %d, want 4", c.Len())
	}
}

func TestArgumentLimits(t *testing.T) {
	c := schema.NewCompiler(schema.CompilerConfig{Limits: schema.Limits{MaxArgBytes: 1000, MaxArgDepth: 8}})
	open := json.RawMessage(`{"type":"object"}`)
	nest := func(n int) string { return strings.Repeat(`{"a":`, n) + `1` + strings.Repeat(`}`, n) }
	tests := []struct {
		name string
		mode schema.Mode
		args string
		want error // nil: valid
	}{
		{"at the depth limit", schema.Lenient, nest(8), nil},
		{"over the depth limit", schema.Lenient, nest(9), schema.ErrTooDeep},
		{"brackets inside strings do not count", schema.Lenient, `{"a":"` + strings.Repeat("[{", 50) + `"}`, nil},
		{"over the size limit", schema.Lenient, `{"a":"` + strings.Repeat("x", 1000) + `"}`, schema.ErrTooLarge},
		{"limits hold in Off mode", schema.Off, nest(9), schema.ErrTooDeep},
		{"Strict mode", schema.Strict, `{"a":"` + strings.Repeat("x", 1000) + `"}`, schema.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := c.Compile(open, schema.CompileOptions{Mode: tt.mode})
			if err != nil {
				t.Fatal(err)
			}
			for name, err := range map[string]error{
				"Validate":    v.Validate(json.RawMessage(tt.args)),
				"CheckLimits": v.CheckLimits(json.RawMessage(tt.args)),
			} {
				if tt.want == nil {
					if err != nil {
						t.Errorf("%s: %v", name, err)
					}
					continue
				}
				var ve *schema.ValidationError
				if !errors.Is(err, tt.want) || !errors.Is(err, schema.ErrInvalidArguments) || !errors.As(err, &ve) || len(ve.Failures) != 1 {
					t.Errorf("%s error = %v, want a ValidationError wrapping %v and ErrInvalidArguments", name, err, tt.want)
				}
			}
		})
	}
	// Arguments that reach validation through coercion are held to the same limits.
	v, _ := c.Compile(open)
	if _, _, err := v.CoerceAndValidate(json.RawMessage(nest(9))); !errors.Is(err, schema.ErrTooDeep) {
		t.Errorf("CoerceAndValidate of too deep arguments: %v", err)
	}
	// The default limits say "too deep" long before the decoder's own bound.
	d, _ := schema.Compile(open)
	err := d.Validate(json.RawMessage(strings.Repeat("[", 20000) + strings.Repeat("]", 20000)))
	if !errors.Is(err, schema.ErrTooDeep) || !strings.Contains(err.Error(), "too deep") {
		t.Errorf("20,000 levels: error = %v, want too deep", err)
	}
}

// TestActionAndDeprecatedSlug: CompileOptions and GoType name their action Action; the
// former Slug still works alone, and where both are set Action wins.
func TestActionAndDeprecatedSlug(t *testing.T) {
	// The patch makes subject a required, non-null string.
	ov := schema.Overrides{"MAIL_SEND": {Patch: json.RawMessage(`{"properties":{"subject":{"type":"string","default":null}},"required":["to","body","subject"]}`)}}
	noSubject := json.RawMessage(`{"to":"a@b.c","body":"hi"}`)
	tests := []struct {
		name        string
		opts        schema.CompileOptions
		wantPatched bool
	}{
		{"Action", schema.CompileOptions{Action: "MAIL_SEND", Overrides: ov}, true},
		{"Slug alone", schema.CompileOptions{Slug: "MAIL_SEND", Overrides: ov}, true},
		{"both: Action wins", schema.CompileOptions{Action: "MAIL_SEND", Slug: "OTHER", Overrides: ov}, true},
		{"both: Action wins over a patched Slug", schema.CompileOptions{Action: "OTHER", Slug: "MAIL_SEND", Overrides: ov}, false},
	}
	for _, tt := range tests {
		t.Run("compile/"+tt.name, func(t *testing.T) {
			for _, c := range []*schema.Compiler{nil, schema.NewCompiler(schema.CompilerConfig{})} {
				var v *schema.Validator
				var err error
				if c == nil {
					v, err = schema.Compile(json.RawMessage(mailSchema), tt.opts)
				} else {
					v, err = c.Compile(json.RawMessage(mailSchema), tt.opts)
				}
				if err != nil {
					t.Fatal(err)
				}
				if patched := v.Validate(noSubject) != nil; patched != tt.wantPatched {
					t.Errorf("compiler %v: override applied %v, want %v", c != nil, patched, tt.wantPatched)
				}
			}
		})
	}
	params := json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"}}}`)
	for _, tt := range []struct {
		name string
		typ  schema.GoType
		want string
	}{
		{"Action", schema.GoType{Action: "MAIL_SEND", Parameters: params}, "type MailSendParams struct"},
		{"Slug alone", schema.GoType{Slug: "MAIL_SEND", Parameters: params}, "type MailSendParams struct"},
		{"both: Action wins", schema.GoType{Action: "MAIL_SEND", Slug: "OTHER_THING", Parameters: params}, "type MailSendParams struct"},
	} {
		t.Run("generate/"+tt.name, func(t *testing.T) {
			src, err := schema.GenerateGo(schema.GoConfig{Package: "p", Types: []schema.GoType{tt.typ}})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(src), tt.want) || strings.Contains(string(src), "OtherThing") {
				t.Errorf("generated source lacks %q (or names the Slug):\n%s", tt.want, src)
			}
		})
	}
}
