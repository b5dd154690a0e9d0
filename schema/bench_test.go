package schema_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhint/toolhint/schema"
)

// BenchmarkCatalogAllDialects converts every shared-catalogue schema and renders it for
// OpenAI (strict), Anthropic and Gemini; one op is the whole catalogue (target < 2 s).
func BenchmarkCatalogAllDialects(b *testing.B) {
	rows := loadCatalog(b)
	b.ResetTimer()
	for b.Loop() {
		for _, r := range rows {
			f, err := schema.Convert(r.Action, r.Description, r.Parameters)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := f.OpenAI(true); err != nil {
				b.Fatal(err)
			}
			if _, err := f.Anthropic(); err != nil {
				b.Fatal(err)
			}
			if _, err := f.Gemini(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(rows)), "schemas/op")
}

// BenchmarkCompile compiles one realistic schema, uncached (target < 1 ms).
func BenchmarkCompile(b *testing.B) {
	for b.Loop() {
		if _, err := schema.Compile(json.RawMessage(issueSchema)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileCached hits the Compiler's digest cache.
func BenchmarkCompileCached(b *testing.B) {
	c := schema.NewCompiler(schema.CompilerConfig{})
	for b.Loop() {
		if _, err := c.Compile(json.RawMessage(issueSchema)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate validates a typical argument object with a compiled validator
// (target < 20 µs).
func BenchmarkValidate(b *testing.B) {
	v, err := schema.Compile(json.RawMessage(issueSchema))
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"title":"Crash on start","count":3,"draft":false,"labels":["bug","p1"],"ids":[1,2,3],"meta":{"team":"core"},"state":"open","owner":7,"note":"seen on v1.2"}`)
	for b.Loop() {
		if err := v.Validate(args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCoerceAndValidate is Validate with the coercion pass in front.
func BenchmarkCoerceAndValidate(b *testing.B) {
	v, err := schema.Compile(json.RawMessage(issueSchema))
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"title":"Crash on start","count":"3","labels":"bug","state":"open","owner":null}`)
	for b.Loop() {
		if _, _, err := v.CoerceAndValidate(args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileCatalog compiles a catalogue schema of median size.
func BenchmarkCompileCatalog(b *testing.B) {
	rows := loadCatalog(b)
	p := rows[len(rows)/2].Parameters
	for b.Loop() {
		if _, err := schema.Compile(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateSendEmail validates the arguments of a typical action call (the
// send_email golden schema: five fields, one array).
func BenchmarkValidateSendEmail(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "golden", "send_email", "input.json"))
	if err != nil {
		b.Fatal(err)
	}
	var in goldenInput
	if err := json.Unmarshal(raw, &in); err != nil {
		b.Fatal(err)
	}
	v, err := schema.Compile(in.Parameters)
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"to":["ada@example.com","grace@example.com"],"subject":"Quarterly report","body":"Hi both, the report is attached.","is_html":false,"priority":2}`)
	for b.Loop() {
		if err := v.Validate(args); err != nil {
			b.Fatal(err)
		}
	}
}
