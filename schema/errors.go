package schema

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
	// element of "to"). A key longer than 64 bytes appears in it as Excerpt quotes it.
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

// excerptBytes is how much of a long name [Excerpt] keeps.
const excerptBytes = 64

// Excerpt returns s in the short, safe form an error text quotes untrusted input in (an
// argument key, an app, tool or file name a model wrote): s itself when it is at most 64
// bytes, otherwise its first 64 bytes, cut at a character boundary, followed by "…(N
// bytes)" with s's full length. Control characters and invalid UTF-8 are written as Go
// escapes (\n, \x00, \u2028), so a quoted name cannot start a line of its own or hide
// text. It is meant for hosts too: a ToolSpec.CheckArgs error that names a value the model
// sent should quote it through Excerpt.
func Excerpt(s string) string {
	cut := s
	if len(s) > excerptBytes {
		n := excerptBytes
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		cut = s[:n]
	}
	if printable(cut) {
		if len(cut) == len(s) {
			return s
		}
		return cut + "…(" + strconv.Itoa(len(s)) + " bytes)"
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(cut); i += w {
		r, size := utf8.DecodeRuneInString(cut[i:])
		w = size
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, cut[i])
		case r != ' ' && !unicode.IsPrint(r):
			q := strconv.QuoteRuneToASCII(r) // '\n', '\x00', '\u2028'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	if len(cut) < len(s) {
		b.WriteString("…(" + strconv.Itoa(len(s)) + " bytes)")
	}
	return b.String()
}

// printable reports whether s is valid UTF-8 of printable characters and spaces only.
func printable(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r != ' ' && !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
