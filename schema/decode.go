package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxValueDepth bounds the nesting of decoded JSON values, so hostile input cannot exhaust
// the stack.
const maxValueDepth = 10000

// decodeJSON decodes exactly one JSON value into nil, bool, json.Number, string, []any and
// map[string]any, as encoding/json does with UseNumber: invalid UTF-8 in strings becomes
// U+FFFD and a repeated key keeps its last value. It is a small reflection-free decoder:
// schemas and arguments are decoded on every call, and encoding/json's generic path was
// the largest cost.
func decodeJSON(data []byte) (any, error) {
	d := decoder{data: data}
	d.space()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.pos < len(d.data) {
		return nil, d.errorf("data after the JSON value")
	}
	return v, nil
}

type decoder struct {
	data []byte
	pos  int
}

var errEOF = errors.New("unexpected end of JSON input")

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: "+format, append([]any{d.pos}, args...)...)
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if d.pos >= len(d.data) {
		return nil, errEOF
	}
	if depth > maxValueDepth {
		return nil, d.errorf("nested deeper than %d levels", maxValueDepth)
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.string()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	return nil, d.errorf("invalid character %q looking for a value", d.data[d.pos])
}

func (d *decoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) {
		return errEOF
	}
	if string(d.data[d.pos:d.pos+len(word)]) != word {
		return d.errorf("invalid literal, want %s", word)
	}
	d.pos += len(word)
	return nil
}

func (d *decoder) object(depth int) (any, error) {
	d.pos++ // {
	m := make(map[string]any)
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, nil
	}
	for {
		d.space()
		if d.pos >= len(d.data) {
			return nil, errEOF
		}
		if d.data[d.pos] != '"' {
			return nil, d.errorf("invalid character %q looking for an object key", d.data[d.pos])
		}
		k, err := d.string()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.pos >= len(d.data) {
			return nil, errEOF
		}
		if d.data[d.pos] != ':' {
			return nil, d.errorf("invalid character %q after an object key", d.data[d.pos])
		}
		d.pos++
		d.space()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		d.space()
		if d.pos >= len(d.data) {
			return nil, errEOF
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return m, nil
		default:
			return nil, d.errorf("invalid character %q after an object value", d.data[d.pos])
		}
	}
}

func (d *decoder) array(depth int) (any, error) {
	d.pos++ // [
	a := make([]any, 0, 4)
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return a, nil
	}
	for {
		d.space()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.space()
		if d.pos >= len(d.data) {
			return nil, errEOF
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return a, nil
		default:
			return nil, d.errorf("invalid character %q after an array element", d.data[d.pos])
		}
	}
}

func (d *decoder) number() (any, error) {
	start := d.pos
	p := d.pos
	digits := func() int {
		n := 0
		for p < len(d.data) && d.data[p] >= '0' && d.data[p] <= '9' {
			p++
			n++
		}
		return n
	}
	if p < len(d.data) && d.data[p] == '-' {
		p++
	}
	if p >= len(d.data) {
		return nil, errEOF
	}
	switch {
	case d.data[p] == '0':
		p++
	case d.data[p] >= '1' && d.data[p] <= '9':
		digits()
	default:
		d.pos = p
		return nil, d.errorf("invalid character %q in a number", d.data[p])
	}
	if p < len(d.data) && d.data[p] == '.' {
		p++
		if digits() == 0 {
			d.pos = p
			if p >= len(d.data) {
				return nil, errEOF
			}
			return nil, d.errorf("invalid character %q after a decimal point", d.data[p])
		}
	}
	if p < len(d.data) && (d.data[p] == 'e' || d.data[p] == 'E') {
		p++
		if p < len(d.data) && (d.data[p] == '+' || d.data[p] == '-') {
			p++
		}
		if digits() == 0 {
			d.pos = p
			if p >= len(d.data) {
				return nil, errEOF
			}
			return nil, d.errorf("invalid character %q in an exponent", d.data[p])
		}
	}
	d.pos = p
	return json.Number(d.data[start:p]), nil
}

// string decodes a JSON string starting at the opening quote.
func (d *decoder) string() (string, error) {
	d.pos++ // "
	start := d.pos
	// Fast path: no escapes, valid UTF-8, no control characters.
	for p := start; p < len(d.data); p++ {
		c := d.data[p]
		if c == '"' {
			s := d.data[start:p]
			if utf8.Valid(s) {
				d.pos = p + 1
				return string(s), nil
			}
			break
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	buf := make([]byte, 0, 32)
	for {
		if d.pos >= len(d.data) {
			return "", errEOF
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(buf), nil
		case c < 0x20:
			return "", d.errorf("invalid control character %q in a string", c)
		case c == '\\':
			if d.pos+1 >= len(d.data) {
				return "", errEOF
			}
			e := d.data[d.pos+1]
			d.pos += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, err := d.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
						save := d.pos
						d.pos += 2
						if r2, err = d.hex4(); err != nil {
							return "", err
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							buf = utf8.AppendRune(buf, dec)
							continue
						}
						d.pos = save
					}
					r = utf8.RuneError
				}
				buf = utf8.AppendRune(buf, r)
			default:
				d.pos--
				return "", d.errorf("invalid escape \\%c in a string", e)
			}
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			d.pos += size
			buf = utf8.AppendRune(buf, r)
		}
	}
}

func (d *decoder) hex4() (rune, error) {
	if len(d.data)-d.pos < 4 {
		return 0, errEOF
	}
	n, err := strconv.ParseUint(string(d.data[d.pos:d.pos+4]), 16, 32)
	if err != nil || d.data[d.pos] == '+' || d.data[d.pos] == '-' {
		return 0, d.errorf("invalid \\u escape")
	}
	d.pos += 4
	return rune(n), nil
}
