package schema

import (
	"errors"
	"strings"
)

// ErrInvalidSchema reports a parameter schema that is not valid JSON, whose root is not an
// object schema, or that uses a keyword in a way that cannot be understood. Errors wrapping
// it are usually a *SchemaError naming the offending location.
var ErrInvalidSchema = errors.New("schema: invalid schema")

// ErrLimit reports a schema over one of the [Limits]: size, nesting depth, node count or enum
// length.
var ErrLimit = errors.New("schema: limit exceeded")

// ErrRefRefused reports a $ref that does not point inside the schema itself (a remote, file
// or otherwise unknown reference), or one that points at nothing. Such schemas are never
// loaded from anywhere.
var ErrRefRefused = errors.New("schema: $ref refused")

// ErrInvalidArguments reports model-written arguments that are not valid JSON or do not
// satisfy the schema. Errors wrapping it from [Validator.Validate] are a *ValidationError.
var ErrInvalidArguments = errors.New("schema: invalid arguments")

// ErrTooLarge reports arguments over [Limits].MaxArgBytes. It comes inside a
// *ValidationError, together with [ErrInvalidArguments]: errors.Is finds both.
var ErrTooLarge = errors.New("schema: arguments too large")

// ErrTooDeep reports arguments nested deeper than [Limits].MaxArgDepth. It comes inside a
// *ValidationError, together with [ErrInvalidArguments]: errors.Is finds both.
var ErrTooDeep = errors.New("schema: arguments too deep")

// ErrInvalidName reports a function name that cannot be mapped (empty), or two slugs that
// would map to the same function name in one [Names].
var ErrInvalidName = errors.New("schema: invalid function name")

// SchemaError is a problem at one location of a schema. It wraps [ErrInvalidSchema],
// [ErrLimit] or [ErrRefRefused]. It is immutable once returned and safe to share.
type SchemaError struct {
	// Path is a JSON Pointer to the offending schema node ("" is the root).
	Path string
	// Reason says what is wrong, in a few words.
	Reason string
	// Err is the sentinel this error wraps.
	Err error
}

// Error implements error.
func (e *SchemaError) Error() string {
	p := e.Path
	if p == "" {
		p = "/"
	}
	return e.Err.Error() + " at " + p + ": " + e.Reason
}

// Unwrap returns the sentinel.
func (e *SchemaError) Unwrap() error { return e.Err }

// Failure is one reason a value failed validation. It is a plain value.
type Failure struct {
	// Path is a JSON Pointer into the arguments ("" is the whole object, "/to/0" the first
	// element of "to").
	Path string
	// Reason is a one-line explanation a model can act on.
	Reason string
}

// ValidationError lists every failing location of a set of arguments. It wraps
// [ErrInvalidArguments], and also [ErrTooLarge] or [ErrTooDeep] when the arguments were
// refused for their size before being checked. It is immutable once returned and safe to
// share.
type ValidationError struct {
	// Failures holds one entry per failing location, sorted by path.
	Failures []Failure

	limit error // ErrTooLarge, ErrTooDeep or nil
}

// Error implements error: every failure on its own line, so that the text can be returned to
// the model as is.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("schema: invalid arguments:")
	for _, f := range e.Failures {
		b.WriteString("\n- ")
		if f.Path == "" {
			b.WriteString("(root)")
		} else {
			b.WriteString(f.Path)
		}
		b.WriteString(": ")
		b.WriteString(f.Reason)
	}
	return b.String()
}

// Unwrap returns [ErrInvalidArguments], and the limit exceeded if any.
func (e *ValidationError) Unwrap() []error {
	if e.limit != nil {
		return []error{ErrInvalidArguments, e.limit}
	}
	return []error{ErrInvalidArguments}
}
