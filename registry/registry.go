package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/toolhint/toolhint/schema"
)

// Sentinel errors. Errors returned by this package wrap these with %w.
var (
	// ErrInvalidTool reports a ToolSpec that cannot be registered: a bad name, a parameter
	// schema that does not compile, or a missing Run function.
	ErrInvalidTool = errors.New("registry: invalid tool")
	// ErrDuplicate reports a second registration under a name already taken.
	ErrDuplicate = errors.New("registry: duplicate tool name")
	// ErrNotFound reports a tool name the registry does not hold.
	ErrNotFound = errors.New("registry: tool not found")
	// ErrInvalidConfig reports a constructor configuration that cannot work, such as a
	// Resolver without a store.
	ErrInvalidConfig = errors.New("registry: invalid config")
)

// Category groups platform tools.
type Category string

// Common categories. Hosts may use any other non-empty value.
const (
	CategoryResearch  Category = "research"
	CategoryDatabase  Category = "database"
	CategoryFile      Category = "file"
	CategoryShell     Category = "shell"
	CategoryHTTP      Category = "http"
	CategoryDocuments Category = "documents"
	CategoryRouter    Category = "router"
	CategoryOther     Category = "other"
)

// SecurityLevel says how much harm a tool can do. SecurityHigh tools are treated as
// destructive by the executor: they run only when the host's confirmation hook allows them.
type SecurityLevel int

// Security levels, lowest first.
const (
	SecurityLow    SecurityLevel = iota // reads data the agent may already see
	SecurityMedium                      // writes or sends, reversibly
	SecurityHigh                        // deletes, pays, runs commands: needs confirmation
)

// String returns "low", "medium" or "high".
func (l SecurityLevel) String() string {
	switch l {
	case SecurityLow:
		return "low"
	case SecurityMedium:
		return "medium"
	case SecurityHigh:
		return "high"
	}
	return fmt.Sprintf("SecurityLevel(%d)", int(l))
}

// Func runs a platform tool. args has been validated against the tool's parameter schema
// (and coerced where the schema allowed it). The returned bytes should be JSON; anything
// else is passed to the model as a JSON string. Func must honour ctx: the executor gives up
// on a tool that outlives its timeout and reports it as timed out.
type Func func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)

// ToolSpec describes one platform tool. A ToolSpec is a value: copy it freely.
type ToolSpec struct {
	// Name is what the model calls: 1 to 64 characters of [A-Za-z0-9_-].
	Name string
	// Description tells the model what the tool does and when to use it.
	Description string
	// Category groups the tool. Optional. Defaults to CategoryOther.
	Category Category
	// Parameters is the JSON Schema of the arguments, an object schema. Optional.
	// Defaults to an object with no properties.
	Parameters json.RawMessage
	// Security is how much harm the tool can do. Optional. Defaults to SecurityLow.
	Security SecurityLevel
	// ReadOnly and Idempotent make transient failures retryable. A tool that is neither
	// is run at most once.
	ReadOnly   bool
	Idempotent bool
	// Destructive marks a tool that deletes or overwrites. The executor refuses it unless
	// the host's confirmation hook allows the call, and never retries it.
	Destructive bool
	// Timeout bounds one run. Optional. Zero uses the executor's default.
	Timeout time.Duration
	// RetryTimeout lets the executor run a retryable tool again after an attempt timed
	// out. Optional. Defaults to false: a tool that timed out once is likely to time out
	// again, and each attempt costs the whole timeout.
	RetryTimeout bool
	// CheckArgs, when set, checks arguments that passed the parameter schema before the
	// tool may run; an error fails the call as invalid arguments, with the error's text
	// for the model. Typed sets it to decoding the arguments into its input type, so that
	// a value the schema allows but the Go type cannot hold (1e20 for an int) is refused
	// before the tool runs. Optional. It must be safe for concurrent use.
	CheckArgs func(args json.RawMessage) error
	// Run executes the tool. Required.
	Run Func
	// Inactive tools stay registered but are left out of active-only listings and exports,
	// and the executor refuses to run them.
	Inactive bool
}

// NeedsConfirmation reports whether the executor must ask the host before running the tool.
func (t ToolSpec) NeedsConfirmation() bool {
	return t.Destructive || t.Security >= SecurityHigh
}

// Retryable reports whether a transient failure of the tool may be retried.
func (t ToolSpec) Retryable() bool {
	return (t.ReadOnly || t.Idempotent) && !t.NeedsConfirmation()
}

// ValidName reports whether name is acceptable as a function name to every model provider:
// 1 to 64 characters of [A-Za-z0-9_-] (schema.ValidFunctionName).
func ValidName(name string) bool { return schema.ValidFunctionName(name) }

var emptyObject = json.RawMessage(`{"type":"object","properties":{}}`)

type entry struct {
	spec      ToolSpec
	validator *schema.Validator
	function  schema.Function
}

// Registry holds platform tools by name. The zero value is not usable; call New.
// A Registry is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]*entry
}

// New returns an empty Registry.
func New() *Registry {
	return &Registry{tools: make(map[string]*entry)}
}

// Register adds a tool. It checks the name, compiles the parameter schema and converts it to
// a function definition, so every registered tool can be exported and validated. It returns
// an error wrapping ErrInvalidTool or ErrDuplicate and leaves the registry unchanged on error.
func (r *Registry) Register(t ToolSpec) error {
	if !ValidName(t.Name) {
		return fmt.Errorf("%w: name %q must be 1-64 characters of A-Z a-z 0-9 _ -", ErrInvalidTool, schema.Excerpt(t.Name))
	}
	if t.Run == nil {
		return fmt.Errorf("%w: %s: Run is nil", ErrInvalidTool, t.Name)
	}
	if len(bytes.TrimSpace(t.Parameters)) == 0 {
		t.Parameters = emptyObject
	}
	t.Parameters = slices.Clone(t.Parameters)
	if t.Category == "" {
		t.Category = CategoryOther
	}
	v, err := schema.Compile(t.Parameters)
	if err != nil {
		return fmt.Errorf("%w: %s: parameters: %w", ErrInvalidTool, t.Name, err)
	}
	fn, err := schema.Convert(t.Name, t.Description, t.Parameters)
	if err != nil {
		return fmt.Errorf("%w: %s: parameters: %w", ErrInvalidTool, t.Name, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[t.Name]; ok {
		return fmt.Errorf("%w: %s", ErrDuplicate, t.Name)
	}
	r.tools[t.Name] = &entry{spec: t, validator: v, function: fn}
	return nil
}

// MustRegister is Register for tools defined in the host's own code at start-up; it panics
// on error, like regexp.MustCompile. Never use it for tools built from untrusted input.
func (r *Registry) MustRegister(t ToolSpec) {
	if err := r.Register(t); err != nil {
		panic(err)
	}
}

// Unregister removes a tool. It returns an error wrapping ErrNotFound when the name is unknown.
func (r *Registry) Unregister(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[name]; !ok {
		return fmt.Errorf("%w: %s", ErrNotFound, schema.Excerpt(name))
	}
	delete(r.tools, name)
	return nil
}

// SetActive turns a tool on or off without unregistering it.
func (r *Registry) SetActive(name string, active bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.tools[name]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotFound, schema.Excerpt(name))
	}
	cp := *e
	cp.spec.Inactive = !active
	r.tools[name] = &cp
	return nil
}

// Get returns the tool registered under name, active or not.
func (r *Registry) Get(name string) (ToolSpec, bool) {
	e, ok := r.lookupEntry(name)
	return e.spec, ok
}

// Validator returns the compiled validator of a tool's parameters, built once at Register.
func (r *Registry) Validator(name string) (*schema.Validator, bool) {
	e, ok := r.lookupEntry(name)
	return e.validator, ok
}

// Lookup returns a tool with its compiled validator in one read.
func (r *Registry) Lookup(name string) (ToolSpec, *schema.Validator, bool) {
	e, ok := r.lookupEntry(name)
	return e.spec, e.validator, ok
}

// All returns the registered tools ordered by name; with activeOnly, inactive tools are
// left out.
func (r *Registry) All(activeOnly bool) []ToolSpec {
	return r.collect(func(t ToolSpec) bool { return !activeOnly || !t.Inactive })
}

// Names returns the names of all registered tools, active or not, ordered.
func (r *Registry) Names() []string {
	r.mu.RLock()
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	r.mu.RUnlock()
	slices.Sort(names)
	return names
}

// ByCategory returns the active tools of one category ordered by name.
func (r *Registry) ByCategory(c Category) []ToolSpec {
	return r.collect(func(t ToolSpec) bool { return !t.Inactive && t.Category == c })
}

// Functions returns the function definitions of the active tools, ordered by name, limited to
// the given categories when any are given. Render them with schema.Function's OpenAI,
// Anthropic or Gemini methods.
func (r *Registry) Functions(categories ...Category) []schema.Function {
	r.mu.RLock()
	var es []*entry
	for _, e := range r.tools {
		if e.spec.Inactive {
			continue
		}
		if len(categories) > 0 && !slices.Contains(categories, e.spec.Category) {
			continue
		}
		es = append(es, e)
	}
	r.mu.RUnlock()
	slices.SortFunc(es, func(a, b *entry) int { return cmpString(a.spec.Name, b.spec.Name) })
	out := make([]schema.Function, len(es))
	for i, e := range es {
		out[i] = e.function
	}
	return out
}

// lookupEntry returns a copy of a tool's entry: its spec, validator and definition from
// one read (the zero entry when there is none). Entries are replaced, never changed in
// place, so the copy is consistent.
func (r *Registry) lookupEntry(name string) (entry, bool) {
	r.mu.RLock()
	e, ok := r.tools[name]
	r.mu.RUnlock()
	if !ok {
		return entry{}, false
	}
	return *e, true
}

// Function returns the function definition of one tool.
func (r *Registry) Function(name string) (schema.Function, bool) {
	e, ok := r.lookupEntry(name)
	return e.function, ok
}

// Len returns the number of registered tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.tools)
}

func (r *Registry) collect(keep func(ToolSpec) bool) []ToolSpec {
	r.mu.RLock()
	var out []ToolSpec
	for _, e := range r.tools {
		if keep(e.spec) {
			out = append(out, e.spec)
		}
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b ToolSpec) int { return cmpString(a.Name, b.Name) })
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
