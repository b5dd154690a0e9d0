package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Function is an action ready to be offered to a model: a model-safe name, a description and
// a normalised parameter schema, with its strict and Gemini variants. Build one with
// [Convert]; a Function written by hand (Parameters set, the rest optional)
// also renders, at the cost of parsing Parameters on every call.
//
// A Function is immutable once built and safe for concurrent use.
type Function struct {
	// Name is the model-safe function name ([FunctionName] of Slug).
	Name string
	// Slug is the name Convert was given: the action slug, which tool calls route back to.
	Slug string
	// Description is the function description.
	Description string
	// Parameters is the normalised parameter schema, with hidden parameters removed: sorted
	// keys, nullable folded into type, $defs, and Pydantic oddities repaired. Titles that
	// only restate a property name, and the root's title, are left out to save tokens.
	Parameters json.RawMessage
	// Hidden lists the hidden parameters that were present and removed.
	Hidden []string
	// StrictReason is empty when the schema could be made strict, and otherwise says why
	// not; OpenAI(true) then falls back to non-strict for this function only.
	StrictReason string
	// Fallback is empty normally. With [ConvertOptions].Permissive, it holds the reason the
	// schema was replaced by a permissive {"type":"object"}.
	Fallback string
	// Relaxed lists the required properties the normaliser ([Relax]) made optional in
	// Parameters; empty in [Strict] mode. Hidden parameters are not listed.
	Relaxed []Relaxation

	tree   *Schema
	strict json.RawMessage
}

// ConvertOptions tune [Convert]. The zero value is the default: Lenient, nothing hidden,
// no overrides. It is only read, so one value may be shared by concurrent calls.
type ConvertOptions struct {
	// Hidden names top-level parameters the host fills itself (user id, account id, …); they
	// are removed from what the model sees. Optional.
	Hidden []string
	// Permissive makes a schema that cannot be parsed fall back to {"type":"object"}
	// instead of failing; the reason is kept in Function.Fallback. Optional.
	Permissive bool
	// Limits bound what is accepted. Optional. Defaults to the zero Limits' defaults.
	Limits Limits
	// Mode is the validation mode the definition is rendered for: in [Strict] mode the
	// required lists stay as declared, otherwise they are normalised ([Relax]) as a
	// [Lenient] validator reads them. Optional. Defaults to Lenient.
	Mode Mode
	// Overrides are the host's changes to action schemas; the entry for the name given to
	// Convert, if any, is applied before the schema is parsed. Optional.
	Overrides Overrides
}

// Convert builds the Function for an action from its slug, description and parameter schema
// (empty parameters mean no parameters), normalised as a [Lenient] validator reads it, or
// as opts (at most one) say: hidden parameters, the mode, the host's overrides. It fails
// with an error wrapping [ErrInvalidSchema], [ErrLimit], [ErrRefRefused] or
// [ErrInvalidName], and refuses exactly the schemas [Compile] refuses.
func Convert(name, description string, parameters json.RawMessage, opts ...ConvertOptions) (Function, error) {
	o, err := oneOption("convert", opts)
	if err != nil {
		return Function{}, err
	}
	return convertFunction(name, description, parameters, o)
}

// ConvertWith is [Convert] with options.
//
// Deprecated: use Convert(name, description, parameters, opts).
func ConvertWith(name, description string, parameters json.RawMessage, opts ConvertOptions) (Function, error) {
	return convertFunction(name, description, parameters, opts)
}

func convertFunction(name, description string, parameters json.RawMessage, opts ConvertOptions) (Function, error) {
	if name == "" {
		return Function{}, fmt.Errorf("schema: convert: empty name: %w", ErrInvalidName)
	}
	f := Function{Name: FunctionName(name), Slug: name, Description: description}
	tree, err := convertTree(name, parameters, opts)
	if err != nil {
		if !opts.Permissive {
			return Function{}, fmt.Errorf("schema: convert %s: %w", truncate(name, 80), err)
		}
		f.Fallback = err.Error()
		tree = &Schema{Type: []string{"object"}}
	}
	if opts.Mode != Strict {
		tree, f.Relaxed = Relax(tree)
	}
	if len(opts.Hidden) > 0 {
		tree, f.Hidden = hide(tree, opts.Hidden)
		f.Relaxed = slices.DeleteFunc(f.Relaxed, func(r Relaxation) bool {
			return r.Path == "" && slices.Contains(f.Hidden, r.Property)
		})
	}
	f.tree = tree
	f.Parameters = appendCompact(nil, tree)
	if st, reason := makeStrict(tree); reason != "" {
		f.StrictReason = reason
	} else {
		f.strict = appendSchema(nil, st)
	}
	return f, nil
}

// convertTree applies the override, parses the schema and checks it as [Compile] does.
func convertTree(name string, parameters json.RawMessage, opts ConvertOptions) (*Schema, error) {
	parameters, err := opts.Overrides.Apply(name, parameters)
	if err != nil {
		return nil, err
	}
	if len(parameters) == 0 {
		parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	tree, err := ParseWith(parameters, opts.Limits)
	if err != nil {
		return nil, err
	}
	if _, err := compileProgram(tree, opts.Limits); err != nil {
		return nil, err
	}
	return tree, nil
}

// hide returns a copy of root without the named top-level properties, and the names removed.
func hide(root *Schema, names []string) (*Schema, []string) {
	var removed []string
	for _, h := range names {
		if _, ok := root.Properties[h]; ok {
			removed = append(removed, h)
		}
	}
	if len(removed) == 0 {
		return root, nil
	}
	n := *root
	n.Properties = make(map[string]*Schema, len(root.Properties))
	for k, v := range root.Properties {
		if !slices.Contains(removed, k) {
			n.Properties[k] = v
		}
	}
	n.Required = nil
	for _, r := range root.Required {
		if !slices.Contains(removed, r) {
			n.Required = append(n.Required, r)
		}
	}
	if n.Required == nil && root.Required != nil {
		n.Required = []string{}
	}
	slices.Sort(removed)
	return &n, removed
}

// Schema returns the parsed, normalised parameter schema (hidden parameters removed). The
// tree is shared: do not modify it.
func (f Function) Schema() (*Schema, error) {
	if f.tree != nil {
		return f.tree, nil
	}
	if len(f.Parameters) == 0 {
		return &Schema{Type: []string{"object"}, Properties: map[string]*Schema{}}, nil
	}
	t, err := Parse(f.Parameters)
	if err != nil {
		return nil, fmt.Errorf("schema: function %s: %w", truncate(f.Slug, 80), err)
	}
	return t, nil
}

// StrictParameters returns the strict-mode variant of the parameter schema and true, or nil
// and false when the schema cannot be made strict (see StrictReason).
func (f Function) StrictParameters() (json.RawMessage, bool) {
	if f.tree == nil {
		t, err := f.Schema()
		if err != nil {
			return nil, false
		}
		st, reason := makeStrict(t)
		if reason != "" {
			return nil, false
		}
		return appendSchema(nil, st), true
	}
	return f.strict, f.strict != nil
}

func (f Function) name() string {
	if f.Name != "" {
		return f.Name
	}
	return FunctionName(f.Slug)
}

func (f Function) params() (json.RawMessage, error) {
	if len(f.Parameters) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	if f.tree == nil {
		t, err := f.Schema()
		if err != nil {
			return nil, err
		}
		return appendCompact(nil, t), nil
	}
	return f.Parameters, nil
}

var errNoName = errors.New("schema: function has no name")

// openAIParts returns the parameters to send and whether they are strict.
func (f Function) openAIParts(strict bool) (json.RawMessage, bool, error) {
	if f.name() == "" {
		return nil, false, fmt.Errorf("%w: %w", errNoName, ErrInvalidName)
	}
	if strict {
		if p, ok := f.StrictParameters(); ok {
			return p, true, nil
		}
	}
	p, err := f.params()
	return p, false, err
}

// OpenAI renders the function for the OpenAI Chat Completions API:
// {"type":"function","function":{"name","description","parameters","strict"}}. With strict
// true it sends the strict variant and "strict":true, unless the schema cannot be made strict
// (StrictReason is set), in which case this function alone goes out non-strict.
func (f Function) OpenAI(strict bool) (json.RawMessage, error) {
	p, isStrict, err := f.openAIParts(strict)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(p)+len(f.Description)+96)
	b = append(b, `{"function":{"description":`...)
	b = appendString(b, f.Description)
	b = append(b, `,"name":`...)
	b = appendString(b, f.name())
	b = append(b, `,"parameters":`...)
	b = append(b, p...)
	b = append(b, `,"strict":`...)
	b = appendBool(b, isStrict)
	b = append(b, `},"type":"function"}`...)
	return b, nil
}

// OpenAIResponses renders the function for the OpenAI Responses API:
// {"type":"function","name","description","parameters","strict"}, with the same strict
// fallback as [Function.OpenAI].
func (f Function) OpenAIResponses(strict bool) (json.RawMessage, error) {
	p, isStrict, err := f.openAIParts(strict)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(p)+len(f.Description)+96)
	b = append(b, `{"description":`...)
	b = appendString(b, f.Description)
	b = append(b, `,"name":`...)
	b = appendString(b, f.name())
	b = append(b, `,"parameters":`...)
	b = append(b, p...)
	b = append(b, `,"strict":`...)
	b = appendBool(b, isStrict)
	b = append(b, `,"type":"function"}`...)
	return b, nil
}

// Anthropic renders the function for the Anthropic Messages API:
// {"name","description","input_schema"}.
func (f Function) Anthropic() (json.RawMessage, error) {
	if f.name() == "" {
		return nil, fmt.Errorf("%w: %w", errNoName, ErrInvalidName)
	}
	p, err := f.params()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(p)+len(f.Description)+64)
	b = append(b, `{"description":`...)
	b = appendString(b, f.Description)
	b = append(b, `,"input_schema":`...)
	b = append(b, p...)
	b = append(b, `,"name":`...)
	b = appendString(b, f.name())
	b = append(b, '}')
	return b, nil
}

// Gemini renders the function as a Gemini FunctionDeclaration: {"name","description",
// "parameters"} where parameters is in Gemini's OpenAPI 3.0 subset (upper-case types,
// nullable, no $ref). A function without parameters has no "parameters" key.
func (f Function) Gemini() (json.RawMessage, error) {
	if f.name() == "" {
		return nil, fmt.Errorf("%w: %w", errNoName, ErrInvalidName)
	}
	t, err := f.Schema()
	if err != nil {
		return nil, err
	}
	g := toGemini(t)
	b := make([]byte, 0, len(f.Parameters)+len(f.Description)+64)
	b = append(b, `{"description":`...)
	b = appendString(b, f.Description)
	b = append(b, `,"name":`...)
	b = appendString(b, f.name())
	if g != nil {
		b = append(b, `,"parameters":`...)
		b = appendSchema(b, g)
	}
	b = append(b, '}')
	return b, nil
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}
