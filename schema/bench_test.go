package schema_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// BenchmarkValidateLinear validates arguments of growing size against recursive schemas
// whose naive validation is cubic in the nesting depth (the first) or grows with the
// number of branches tried (the second). MB/s stays flat when the cost is linear.
func BenchmarkValidateLinear(b *testing.B) {
	c := schema.NewCompiler(schema.CompilerConfig{Limits: schema.Limits{MaxArgBytes: -1}})
	deep, err := c.Compile(json.RawMessage(`{"type":"object","properties":{"child":{"anyOf":[{"$ref":"#"},{"type":"null"}]},"v":{"type":"integer"}}}`))
	if err != nil {
		b.Fatal(err)
	}
	wide, err := c.Compile(json.RawMessage(`{"type":"object","properties":{"kids":{"type":"array","items":{"anyOf":[{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]},{"$ref":"#"}]}},"v":{"type":"integer"}}}`))
	if err != nil {
		b.Fatal(err)
	}
	for _, depth := range []int{8, 16, 32, 64} {
		args := json.RawMessage(strings.Repeat(`{"v":1,"child":`, depth-1) + `{"v":1}` + strings.Repeat(`}`, depth-1))
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			b.SetBytes(int64(len(args)))
			for b.Loop() {
				if err := deep.Validate(args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	node := `{"v":1}`
	for size := 1 << 10; size <= 1<<20; size <<= 2 {
		var args string
		for n := node; len(args) < size; n = `{"v":2,"kids":[` + n + `,` + n + `]}` {
			args = n
		}
		b.Run(fmt.Sprintf("size=%dKB", len(args)>>10), func(b *testing.B) {
			b.SetBytes(int64(len(args)))
			for b.Loop() {
				if err := wide.Validate(json.RawMessage(args)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
