package schema

import (
	"container/list"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// maxFailures caps how many failing paths a ValidationError lists: past that, the model has
// enough to fix and the rest is noise.
const maxFailures = 20

// Mode chooses how strictly a [Validator] checks arguments. The zero value is [Lenient].
type Mode int

const (
	// Lenient checks the normalised schema ([Relax]): the type, enum and constraints of
	// every value present and the required properties the normaliser kept, and accepts null
	// for every optional property. It is what Composio's own server accepts, and the
	// default.
	Lenient Mode = iota
	// Strict checks the schema as declared (after any [Override]): every property in a
	// required list must be present, and null only where the schema allows it.
	Strict
	// Off checks only the argument limits ([Limits].MaxArgBytes and MaxArgDepth) and that
	// the arguments are JSON.
	Off
)

// String returns "lenient", "strict" or "off".
func (m Mode) String() string {
	switch m {
	case Lenient:
		return "lenient"
	case Strict:
		return "strict"
	case Off:
		return "off"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// CompileOptions tune [Compile] and [Compiler.Compile]. The zero value is the
// default: [Lenient], no overrides. It is only read, so one value may be shared by concurrent calls.
type CompileOptions struct {
	// Mode is the validation mode. Optional. Defaults to Lenient.
	Mode Mode
	// Action is the slug of the action the schema belongs to, used to find its entry in
	// Overrides. Optional.
	Action string
	// Slug is Action's former name, read when Action is empty.
	//
	// Deprecated: use Action.
	Slug string
	// Overrides are the host's changes to action schemas; the entry for Action, if any, is
	// applied before the schema is parsed. Optional.
	Overrides Overrides
}

// action is the action the options name: Action, or the deprecated Slug when it is empty.
func (o CompileOptions) action() string {
	if o.Action != "" {
		return o.Action
	}
	return o.Slug
}

// Validator checks model-written arguments against one parameter schema, in one [Mode].
// Build one with [Compile], or a [Compiler]'s Compile (which caches). A Validator is immutable and safe
// for concurrent use.
//
// Checking costs time linear in the size of the arguments, whatever the schema: values are
// checked once against each schema node, a shared ($ref) node's result being memoised per
// value. Arguments over [Limits].MaxArgBytes or nested deeper than MaxArgDepth are refused
// before they are decoded.
type Validator struct {
	tree     *Schema // the schema checked against: declared (Strict) or normalised
	declared *Schema
	relaxed  []Relaxation
	mode     Mode
	prog     *program
	lim      Limits
	key      cacheKey
}

// Compile parses, normalises and compiles a parameter schema into a validator: a [Lenient]
// one with the default [Limits], or as opts (at most one) say: a validation mode and the
// host's overrides. Empty parameters mean no parameters. The schema is compiled from
// memory: a $ref that leaves the document (remote, file or unknown) fails with
// [ErrRefRefused], and nothing is ever fetched. A schema that breaks the JSON Schema 2020-12
// meta-schema (minLength: -1, a pattern that does not compile, …) fails with
// [ErrInvalidSchema]; [Convert] refuses exactly the same schemas. Compile does not cache; a
// host that compiles the same schemas again and again uses a [Compiler], which does.
func Compile(parameters json.RawMessage, opts ...CompileOptions) (*Validator, error) {
	o, err := oneOption("compile", opts)
	if err != nil {
		return nil, err
	}
	return compile(parameters, o, Limits{})
}

// CompileWith is [Compile] with options.
//
// Deprecated: use Compile(parameters, opts), the one way to compile a schema.
func CompileWith(parameters json.RawMessage, opts CompileOptions) (*Validator, error) {
	return compile(parameters, opts, Limits{})
}

// oneOption returns the options a variadic options argument holds: the zero value for
// none, the one given, or an error naming op for more than one.
func oneOption[T any](op string, opts []T) (T, error) {
	var o T
	switch len(opts) {
	case 0:
		return o, nil
	case 1:
		return opts[0], nil
	}
	return o, fmt.Errorf("schema: %s: %d %T values, want at most one", op, len(opts), o)
}

func compile(parameters json.RawMessage, opts CompileOptions, lim Limits) (*Validator, error) {
	params, err := opts.Overrides.Apply(opts.action(), parameters)
	if err != nil {
		return nil, fmt.Errorf("schema: compile: %w", err)
	}
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	declared, err := ParseWith(params, lim)
	if err != nil {
		return nil, fmt.Errorf("schema: compile: %w", err)
	}
	v := &Validator{tree: declared, declared: declared, mode: opts.Mode, lim: lim.withDefaults()}
	if opts.Mode != Strict {
		v.tree, v.relaxed = Relax(declared)
	}
	if v.prog, err = compileProgram(v.tree, lim); err != nil {
		return nil, fmt.Errorf("schema: compile: %w", err)
	}
	return v, nil
}

// Schema returns the schema the validator checks against, which [Validator.Coerce] also
// reads: the declared one in [Strict] mode, the normalised one ([Relax]) otherwise. The tree
// is shared: do not modify it.
func (v *Validator) Schema() *Schema { return v.tree }

// Declared returns the schema as declared, after any [Override] but before normalisation.
// The tree is shared: do not modify it.
func (v *Validator) Declared() *Schema { return v.declared }

// Mode returns the validation mode.
func (v *Validator) Mode() Mode { return v.mode }

// Relaxations lists the required properties the normaliser made optional; nil in [Strict]
// mode. The slice is shared: do not modify it.
func (v *Validator) Relaxations() []Relaxation { return v.relaxed }

// Validate checks arguments (a JSON object written by the model) against the schema. It
// returns nil, or a *ValidationError (wrapping [ErrInvalidArguments]) listing each failing
// path with a one-line reason; arguments that are not JSON are one failure at the root, and
// arguments over the limits one failure that also wraps [ErrTooLarge] or [ErrTooDeep].
// Validate does not coerce; see [Validator.Coerce] and [Validator.CoerceAndValidate].
func (v *Validator) Validate(args json.RawMessage) error {
	if err := v.CheckLimits(args); err != nil {
		return err
	}
	val, err := decodeJSON(args)
	if err != nil {
		return &ValidationError{Failures: []Failure{{Reason: "arguments are not valid JSON: " + err.Error()}}}
	}
	return v.run(val)
}

// CheckLimits reports whether arguments are within [Limits].MaxArgBytes and MaxArgDepth,
// without decoding them: nil, or a *ValidationError wrapping [ErrInvalidArguments] and
// [ErrTooLarge] or [ErrTooDeep]. [Validator.Validate] runs it first; a caller that does its
// own work on arguments before validating (coercion, logging) runs it before that work.
func (v *Validator) CheckLimits(args json.RawMessage) error {
	if len(args) > v.lim.MaxArgBytes {
		return tooLarge(len(args), v.lim.MaxArgBytes)
	}
	if jsonDepth(args, v.lim.MaxArgDepth) > v.lim.MaxArgDepth {
		return tooDeep(v.lim.MaxArgDepth)
	}
	return nil
}

func tooLarge(n, max int) error {
	return &ValidationError{Failures: []Failure{{Reason: fmt.Sprintf("arguments too large: %d bytes, over the limit of %d; send less", n, max)}}, limit: ErrTooLarge}
}

func tooDeep(max int) error {
	return &ValidationError{Failures: []Failure{{Reason: fmt.Sprintf("arguments too deep: arrays and objects nested more than %d levels; flatten them", max)}}, limit: ErrTooDeep}
}

// jsonDepth returns the deepest nesting of arrays and objects in a JSON text, or stop+1 as
// soon as it passes stop. Text that is not JSON gets some answer; the decoder reports it.
func jsonDepth(data []byte, stop int) int {
	depth, deepest := 0, 0
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > stop {
					return deepest
				}
			}
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// validateValue checks decoded arguments, first against the limits.
func (v *Validator) validateValue(val any) error {
	if err := v.checkValueLimits(val); err != nil {
		return err
	}
	return v.run(val)
}

// checkValueLimits applies the argument limits to a decoded value, estimating its encoded
// size.
func (v *Validator) checkValueLimits(val any) error {
	size := 0
	var walk func(x any, depth int) error
	walk = func(x any, depth int) error {
		switch t := x.(type) {
		case map[string]any:
			if depth >= v.lim.MaxArgDepth {
				return tooDeep(v.lim.MaxArgDepth)
			}
			size += 2
			for k, e := range t {
				size += len(k) + 4
				if err := walk(e, depth+1); err != nil {
					return err
				}
			}
		case []any:
			if depth >= v.lim.MaxArgDepth {
				return tooDeep(v.lim.MaxArgDepth)
			}
			size += 2
			for _, e := range t {
				size++
				if err := walk(e, depth+1); err != nil {
					return err
				}
			}
		case string:
			size += len(t) + 2
		case json.Number:
			size += len(t)
		default:
			size += 5
		}
		if size > v.lim.MaxArgBytes {
			return tooLarge(size, v.lim.MaxArgBytes)
		}
		return nil
	}
	return walk(val, 0)
}

// run checks a decoded value in the validator's mode.
func (v *Validator) run(val any) error {
	if v.mode == Off {
		return nil
	}
	c := checker{lenient: v.mode == Lenient, limit: maxCheckSteps}
	if c.check(v.prog.root, val, nil) {
		return nil
	}
	if c.stopped {
		return &ValidationError{Failures: []Failure{{Reason: fmt.Sprintf("arguments too complex: checking them against this schema takes more than %d steps", maxCheckSteps)}}}
	}
	e := checker{lenient: c.lenient, collect: true, memo: c.memo, limit: maxExplainSteps}
	e.check(v.prog.root, val, nil)
	fails := e.fails
	slices.SortStableFunc(fails, func(a, b Failure) int { return strings.Compare(a.Path, b.Path) })
	fails = slices.Compact(fails)
	if len(fails) > maxFailures {
		n := len(fails) - maxFailures
		fails = append(fails[:maxFailures], Failure{Path: "", Reason: fmt.Sprintf("and %d more problems", n)})
	}
	if e.stopped {
		fails = append(fails, Failure{Reason: "and more problems not listed"})
	}
	if len(fails) == 0 {
		fails = []Failure{{Reason: "arguments do not match the schema"}}
	}
	return &ValidationError{Failures: fails}
}

// CompilerConfig configures a [Compiler]. The zero value is ready to use. It is a plain
// value, safe to share.
type CompilerConfig struct {
	// MaxEntries bounds the number of validators kept. Optional. Defaults to 4096.
	MaxEntries int
	// Limits bound the schemas and arguments accepted. Optional. Defaults to the zero
	// Limits' defaults.
	Limits Limits
}

// cacheKey names a compiled validator: the schema bytes, the mode and the override applied.
type cacheKey struct {
	params   [32]byte
	mode     Mode
	override [32]byte
}

// Compiler compiles parameter schemas into validators and keeps the most recently used ones,
// keyed by the SHA-256 of the schema bytes, the mode and the override applied, so compiling
// the same schema again is a map lookup. A Compiler is safe for concurrent use.
type Compiler struct {
	cfg   CompilerConfig
	mu    sync.Mutex
	order *list.List // of *Validator, most recently used first
	byKey map[cacheKey]*list.Element
}

// NewCompiler returns a Compiler with the given configuration.
func NewCompiler(cfg CompilerConfig) *Compiler {
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = 4096
	}
	return &Compiler{cfg: cfg, order: list.New(), byKey: make(map[cacheKey]*list.Element)}
}

// Compile returns the validator [Compile] would return for parameters and opts (at most
// one), from the cache when the same schema bytes were compiled before with the same mode
// and override. Errors are those of the package-level [Compile] and are not cached. An
// executor calls it on every tool call with the action's schema, the call's mode and the
// host's overrides: after the first call it costs a hash of the schema bytes and a map
// lookup.
func (c *Compiler) Compile(parameters json.RawMessage, opts ...CompileOptions) (*Validator, error) {
	o, err := oneOption("compile", opts)
	if err != nil {
		return nil, err
	}
	return c.compile(parameters, o)
}

// CompileWith is [Compiler.Compile] with options.
//
// Deprecated: use c.Compile(parameters, opts).
func (c *Compiler) CompileWith(parameters json.RawMessage, opts CompileOptions) (*Validator, error) {
	return c.compile(parameters, opts)
}

func (c *Compiler) compile(parameters json.RawMessage, opts CompileOptions) (*Validator, error) {
	key := cacheKey{params: sha256.Sum256(parameters), mode: opts.Mode}
	if ov, ok := opts.Overrides[opts.action()]; ok && !ov.IsZero() {
		h := sha256.New()
		fmt.Fprintf(h, "%d:", len(ov.Replace))
		h.Write(ov.Replace)
		h.Write(ov.Patch)
		copy(key.override[:], h.Sum(nil))
	}
	c.mu.Lock()
	if e, ok := c.byKey[key]; ok {
		c.order.MoveToFront(e)
		v := e.Value.(*Validator)
		c.mu.Unlock()
		return v, nil
	}
	c.mu.Unlock()
	v, err := compile(parameters, opts, c.cfg.Limits)
	if err != nil {
		return nil, err
	}
	v.key = key
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok { // compiled concurrently; keep the first
		c.order.MoveToFront(e)
		return e.Value.(*Validator), nil
	}
	c.byKey[key] = c.order.PushFront(v)
	for c.order.Len() > c.cfg.MaxEntries {
		last := c.order.Back()
		delete(c.byKey, last.Value.(*Validator).key)
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
