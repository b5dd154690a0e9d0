package schema_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/schema"
)

func TestParseNormalises(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"nullable folds into type and enum", `{"type":"object","properties":{"a":{"type":"string","enum":["x"],"nullable":true}}}`,
			`{"properties":{"a":{"enum":["x",null],"type":["string","null"]}},"type":"object"}`},
		{"definitions become $defs", `{"type":"object","definitions":{"D":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/D"}}}`,
			`{"$defs":{"D":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/D"}},"type":"object"}`},
		{"python type names", `{"type":"object","properties":{"a":{"type":"None"},"b":{"type":["str","int","str"]}}}`,
			`{"properties":{"a":{"type":"null"},"b":{"type":["string","integer"]}},"type":"object"}`},
		{"missing types inferred", `{"properties":{"a":{"enum":["x","y"]},"b":{"items":{"type":"string"}},"c":{"properties":{}}}}`,
			`{"properties":{"a":{"enum":["x","y"],"type":"string"},"b":{"items":{"type":"string"},"type":"array"},"c":{"properties":{},"type":"object"}},"type":"object"}`},
		{"scalar examples and example", `{"type":"object","properties":{"a":{"type":"string","examples":"x","example":"y"}}}`,
			`{"properties":{"a":{"examples":["x","y"],"type":"string"}},"type":"object"}`},
		{"unknown keywords kept, meta dropped, keys sorted, no HTML escaping", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"f":{"type":"string","file_uploadable":true,"description":"a <b> & c"}},"required":["f","f"]}`,
			`{"properties":{"f":{"description":"a <b> & c","file_uploadable":true,"type":"string"}},"required":["f"],"type":"object"}`},
		{"allOf of objects merged", `{"type":"object","properties":{"r":{"allOf":[{"type":"object","properties":{"id":{"type":"number"}},"required":["id"]},{"type":"object","additionalProperties":true}]}}}`,
			`{"properties":{"r":{"additionalProperties":true,"properties":{"id":{"type":"number"}},"required":["id"],"type":"object"}},"type":"object"}`},
		{"draft-3 required flag ignored", `{"type":"object","properties":{"a":{"type":"string","required":true}}}`,
			`{"properties":{"a":{"type":"string"}},"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := schema.Parse(json.RawMessage(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := s.MarshalJSON()
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("normalised (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConvertPermissiveFallback(t *testing.T) {
	bad := json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/x"}}}`)
	if _, err := schema.Convert("A", "d", bad); !errors.Is(err, schema.ErrRefRefused) {
		t.Fatalf("Convert error = %v, want ErrRefRefused", err)
	}
	f, err := schema.Convert("A", "d", bad, schema.ConvertOptions{Permissive: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Fallback, "leaves the document") || string(f.Parameters) != `{"type":"object"}` {
		t.Errorf("fallback = %q, parameters = %s", f.Fallback, f.Parameters)
	}
	if _, err := schema.Convert("", "d", nil); !errors.Is(err, schema.ErrInvalidName) {
		t.Errorf("empty name: error = %v, want ErrInvalidName", err)
	}
}

func TestHandWrittenFunction(t *testing.T) {
	f := schema.Function{Slug: "X_GET", Description: "d", Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}
	got, err := f.OpenAI(true)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"function":{"description":"d","name":"X_GET","parameters":{"additionalProperties":false,"properties":{"n":{"type":["integer","null"]}},"required":["n"],"type":"object"},"strict":true},"type":"function"}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("OpenAI (-want +got):\n%s", diff)
	}
}

func TestFunctionNames(t *testing.T) {
	tests := []struct {
		slug, want string
	}{
		{"GMAIL_SEND_EMAIL", "GMAIL_SEND_EMAIL"},
		{"bad name.v2", "bad_name_v2_8a71311b"},
		{strings.Repeat("A", 64), strings.Repeat("A", 64)},
		{"_21RISK_GET", "_21RISK_GET"},
		{"2CHAT_SEND", "_2CHAT_SEND_%s"},
		{strings.Repeat("A", 65), strings.Repeat("A", 55) + "_83620394"},
	}
	offered := []string{}
	for _, tt := range tests {
		offered = append(offered, tt.slug)
	}
	var names schema.Names
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			got := schema.FunctionName(tt.slug)
			if !schema.ValidFunctionName(got) {
				t.Fatalf("FunctionName(%q) = %q is not valid", tt.slug, got)
			}
			if got != schema.FunctionName(tt.slug) {
				t.Fatal("FunctionName is not stable")
			}
			want := tt.want
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, hash8(tt.slug))
			}
			if got != want {
				t.Errorf("FunctionName = %q, want %q", got, want)
			}
			if slug, ok := schema.SlugFromFunctionName(got, offered); !ok || slug != tt.slug {
				t.Errorf("SlugFromFunctionName(%q) = %q, %v", got, slug, ok)
			}
			n, err := names.Add(tt.slug)
			if err != nil || n != got {
				t.Fatalf("Names.Add = %q, %v", n, err)
			}
			if slug, ok := names.Slug(n); !ok || slug != tt.slug {
				t.Errorf("Names.Slug(%q) = %q, %v", n, slug, ok)
			}
		})
	}
	if _, ok := names.Slug("UNKNOWN"); ok {
		t.Error("Names.Slug of an unknown name reported true")
	}
	if _, err := names.Add(""); !errors.Is(err, schema.ErrInvalidName) {
		t.Errorf("Names.Add(\"\") error = %v", err)
	}
}

func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}
