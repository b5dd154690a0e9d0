package schema

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// maxFailures caps how many failing paths a ValidationError lists: past that, the model has
// enough to fix and the rest is noise.
const maxFailures = 20

// schemaURL is the in-memory name the schema is compiled under. Nothing is ever loaded from
// it.
const schemaURL = "mem://toolhint/parameters.json"

// Validator checks model-written arguments against one parameter schema. Build one with
// [Compile] or a [Compiler]. A Validator is immutable and safe for concurrent use.
type Validator struct {
	compiled *jsonschema.Schema
	tree     *Schema
	digest   [32]byte
}

// Compile parses, normalises and compiles a parameter schema with the default [Limits]. The
// schema is compiled from memory: a $ref that leaves the document (remote, file or unknown)
// fails with [ErrRefRefused], and nothing is ever fetched. Compile does not cache; a host
// that compiles the same schemas again and again uses a [Compiler], which caches by digest.
func Compile(parameters json.RawMessage) (*Validator, error) {
	return compile(parameters, Limits{})
}

func compile(parameters json.RawMessage, lim Limits) (*Validator, error) {
	tree, err := ParseWith(parameters, lim)
	if err != nil {
		return nil, fmt.Errorf("schema: compile: %w", err)
	}
	return compileTree(tree, sha256.Sum256(parameters))
}

func compileTree(tree *Schema, digest [32]byte) (*Validator, error) {
	norm := appendSchema(nil, tree)
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema: loading %q: %w", truncate(u, 80), ErrRefRefused)
	}
	if err := c.AddResource(schemaURL, bytes.NewReader(norm)); err != nil {
		return nil, fmt.Errorf("schema: compile: %w: %s", ErrInvalidSchema, err.Error())
	}
	compiled, err := c.Compile(schemaURL)
	if err != nil {
		if errors.Is(err, ErrRefRefused) {
			return nil, fmt.Errorf("schema: compile: %w", err)
		}
		return nil, fmt.Errorf("schema: compile: %w: %s", ErrInvalidSchema, strings.ReplaceAll(err.Error(), "jsonschema "+schemaURL+" ", ""))
	}
	return &Validator{compiled: compiled, tree: tree, digest: digest}, nil
}

// Schema returns the parsed, normalised schema the validator checks against. The tree is
// shared: do not modify it.
func (v *Validator) Schema() *Schema { return v.tree }

// Validate checks arguments (a JSON object written by the model) against the schema. It
// returns nil, or a *ValidationError (wrapping [ErrInvalidArguments]) listing each failing
// path with a one-line reason; arguments that are not JSON are one failure at the root.
// Validate does not coerce; see [Validator.Coerce] and [Validator.CoerceAndValidate].
func (v *Validator) Validate(args json.RawMessage) error {
	val, err := decodeJSON(args)
	if err != nil {
		return &ValidationError{Failures: []Failure{{Reason: "arguments are not valid JSON: " + err.Error()}}}
	}
	return v.validateValue(val)
}

func (v *Validator) validateValue(val any) error {
	err := v.compiled.Validate(val)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &ValidationError{Failures: []Failure{{Reason: err.Error()}}}
	}
	var fails []Failure
	collectFailures(ve, &fails)
	slices.SortStableFunc(fails, func(a, b Failure) int { return strings.Compare(a.Path, b.Path) })
	fails = slices.Compact(fails)
	if len(fails) > maxFailures {
		n := len(fails) - maxFailures
		fails = append(fails[:maxFailures], Failure{Path: "", Reason: fmt.Sprintf("and %d more problems", n)})
	}
	if len(fails) == 0 {
		fails = []Failure{{Reason: ve.Message}}
	}
	return &ValidationError{Failures: fails}
}

// collectFailures flattens the validator's error tree into one failure per leaf, folding the
// branches of a failed anyOf/oneOf into a single line.
func collectFailures(ve *jsonschema.ValidationError, out *[]Failure) {
	kw := ve.KeywordLocation
	if strings.HasSuffix(kw, "/anyOf") || strings.HasSuffix(kw, "/oneOf") {
		var reasons []string
		for _, c := range ve.Causes {
			var sub []Failure
			collectFailures(c, &sub)
			for _, f := range sub {
				r := f.Reason
				if f.Path != ve.InstanceLocation {
					r = strings.TrimPrefix(f.Path, ve.InstanceLocation) + ": " + r
				}
				if !slices.Contains(reasons, r) {
					reasons = append(reasons, r)
				}
			}
		}
		*out = append(*out, Failure{Path: ve.InstanceLocation, Reason: "matches none of the allowed forms (" + truncate(strings.Join(reasons, "; or "), 300) + ")"})
		return
	}
	if len(ve.Causes) == 0 {
		*out = append(*out, Failure{Path: ve.InstanceLocation, Reason: reason(ve.Message)})
		return
	}
	for _, c := range ve.Causes {
		collectFailures(c, out)
	}
}

// reason rewrites the validator's messages into ones a model can act on, on one short line.
func reason(msg string) string {
	msg = truncate(strings.Join(strings.Fields(msg), " "), 300)
	switch {
	case strings.HasPrefix(msg, "missing properties: "):
		return "missing required " + strings.TrimPrefix(msg, "missing ") + "; add them"
	case strings.HasPrefix(msg, "additionalProperties "):
		return "unknown " + strings.TrimPrefix(strings.TrimSuffix(msg, " not allowed"), "additionalProperties ") + "; remove it or use a declared property"
	case strings.HasPrefix(msg, "expected "):
		return "wrong type: " + msg
	}
	return msg
}

// CompilerConfig configures a [Compiler]. The zero value is ready to use. It is a plain
// value, safe to share.
type CompilerConfig struct {
	// MaxEntries bounds the number of validators kept. Optional. Defaults to 4096.
	MaxEntries int
	// Limits bound the schemas accepted. Optional. Defaults to the zero Limits' defaults.
	Limits Limits
}

// Compiler compiles parameter schemas into validators and keeps the most recently used ones,
// keyed by the SHA-256 of the schema bytes, so compiling the same schema again is a map
// lookup. A Compiler is safe for concurrent use.
type Compiler struct {
	cfg   CompilerConfig
	mu    sync.Mutex
	order *list.List // of *Validator, most recently used first
	byKey map[[32]byte]*list.Element
}

// NewCompiler returns a Compiler with the given configuration.
func NewCompiler(cfg CompilerConfig) *Compiler {
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = 4096
	}
	return &Compiler{cfg: cfg, order: list.New(), byKey: make(map[[32]byte]*list.Element)}
}

// Compile returns the validator for parameters, from the cache when the same bytes were
// compiled before. Errors are those of the package-level [Compile] and are not cached.
func (c *Compiler) Compile(parameters json.RawMessage) (*Validator, error) {
	key := sha256.Sum256(parameters)
	c.mu.Lock()
	if e, ok := c.byKey[key]; ok {
		c.order.MoveToFront(e)
		v := e.Value.(*Validator)
		c.mu.Unlock()
		return v, nil
	}
	c.mu.Unlock()
	v, err := compile(parameters, c.cfg.Limits)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok { // compiled concurrently; keep the first
		c.order.MoveToFront(e)
		return e.Value.(*Validator), nil
	}
	c.byKey[key] = c.order.PushFront(v)
	for c.order.Len() > c.cfg.MaxEntries {
		last := c.order.Back()
		delete(c.byKey, last.Value.(*Validator).digest)
		c.order.Remove(last)
	}
	return v, nil
}

// Len returns the number of validators cached.
func (c *Compiler) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
