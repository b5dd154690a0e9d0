package executor

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Truncate cuts a JSON value to at most max characters and reports whether it cut anything.
// The result is always valid JSON and keeps the value's structure: long strings are
// shortened with a note of how many characters were left out, long arrays keep their first
// items followed by a string naming how many items were left out, objects with many fields
// keep the first fields (in key order) plus a "_truncated" field, and a value nested deeper
// than the levels that fit is replaced, at that depth, by a marker object
// {"_truncated":"…"}. A value nested deeper than encoding/json decodes (10,000 levels) is cut
// that way whatever its size. Input that is not valid JSON is treated as text and returned
// as a JSON string. max <= 0 means no limit. A max below about 64 characters cannot hold the
// note itself, so the result may then exceed max by the note's length.
func Truncate(data json.RawMessage, max int) (json.RawMessage, bool) {
	data = bytes.TrimSpace(data)
	if !json.Valid(data) {
		if v, err := decodeDeep(data, truncateDepth); err == nil {
			return shrinkTo(v, data, max), true // deeper than encoding/json reads: always cut
		}
		data = jsonString(string(data))
	}
	if max <= 0 || utf8.RuneCount(data) <= max {
		return data, false
	}
	v, err := decodeValue(data)
	if err != nil {
		return cutText(string(data), max), true
	}
	return shrinkTo(v, data, max), true
}

// decodeValue decodes one JSON value, keeping numbers as written.
func decodeValue(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// shrinkTo renders v, the decoded data, in at most max characters (no limit when max <= 0).
func shrinkTo(v any, data []byte, max int) json.RawMessage {
	if max <= 0 {
		max = int(^uint(0) >> 1)
	}
	lim := limits{arr: 1 << 30, str: max, keys: 1 << 30, depth: truncateDepth}
	for range 64 {
		var seen limits
		out, err := marshal(shrink(v, lim, &seen, 0))
		if err != nil {
			break
		}
		size := utf8.RuneCount(out)
		if size <= max {
			return out
		}
		// Scale one limit by how far over we are, from what the last render kept: long
		// strings first when one alone takes an eighth of the budget, then arrays, then
		// strings, then nesting deeper than a few levels, then objects' fields, then the
		// last levels.
		f := float64(max) / float64(size) * 0.9
		scale := func(n, floor int) int { return max2(min(int(float64(n)*f), n-1), floor) }
		switch {
		case seen.str > 32 && seen.str*8 > max:
			lim.str = scale(seen.str, 32)
		case seen.arr > 1:
			lim.arr = scale(seen.arr, 1)
		case seen.str > 32:
			lim.str = scale(seen.str, 32)
		case seen.depth > 8:
			lim.depth = scale(seen.depth, 8)
		case seen.keys > 1:
			lim.keys = scale(seen.keys, 1)
		case seen.depth > 1:
			lim.depth = seen.depth - 1
		default:
			return cutText(string(data), max)
		}
	}
	return cutText(string(data), max)
}

// truncateDepth is the deepest nesting a truncated value keeps: past a few dozen levels a
// model learns nothing more from a result that had to be cut anyway.
const truncateDepth = 32

type limits struct{ arr, str, keys, depth int }

// deepMarker replaces a value nested deeper than the depth limit.
func deepMarker(limit int) map[string]any {
	return map[string]any{"_truncated": "nested deeper than " + strconv.Itoa(limit) + " levels; not shown"}
}

// shrink applies lim to v, found at the given depth, and records in seen the longest array,
// string and object and the deepest nesting it kept.
func shrink(v any, lim limits, seen *limits, depth int) any {
	switch x := v.(type) {
	case string:
		n := utf8.RuneCountInString(x)
		if n <= lim.str {
			seen.str = max(seen.str, n)
			return x
		}
		seen.str = max(seen.str, lim.str)
		c := 0
		for i := range x {
			if c == lim.str {
				return x[:i] + "…[" + strconv.Itoa(n-c) + " more characters truncated]"
			}
			c++
		}
		return x
	case []any:
		if len(x) > 0 && depth >= lim.depth {
			return deepMarker(lim.depth)
		}
		seen.depth = max(seen.depth, depth+1)
		keep := min(len(x), lim.arr)
		seen.arr = max(seen.arr, keep)
		out := make([]any, 0, keep+1)
		for _, e := range x[:keep] {
			out = append(out, shrink(e, lim, seen, depth+1))
		}
		if left := len(x) - keep; left > 0 {
			out = append(out, "["+strconv.Itoa(left)+" of "+strconv.Itoa(len(x))+" items truncated]")
		}
		return out
	case map[string]any:
		if len(x) > 0 && depth >= lim.depth {
			if _, marker := x["_truncated"]; !marker || len(x) > 1 {
				return deepMarker(lim.depth)
			}
		}
		seen.depth = max(seen.depth, depth+1)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		keep := min(len(keys), lim.keys)
		seen.keys = max(seen.keys, keep)
		out := make(map[string]any, keep+1)
		for _, k := range keys[:keep] {
			out[k] = shrink(x[k], lim, seen, depth+1)
		}
		if left := len(keys) - keep; left > 0 {
			out["_truncated"] = strconv.Itoa(left) + " more fields not shown"
		}
		return out
	}
	return v
}

// decodeDeep decodes one JSON value however deeply it nests (encoding/json stops at 10,000
// levels), replacing every array or object deeper than limit by a marker object. It fails
// on anything that is not exactly one JSON value.
func decodeDeep(data []byte, limit int) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		obj     map[string]any
		arr     []any
		key     string
		wantKey bool // an object's next string is a key
		skip    bool // deeper than limit: consumed, not built
	}
	var stack []frame
	var root any
	done := false
	put := func(v any) {
		if len(stack) == 0 {
			root, done = v, true
			return
		}
		top := &stack[len(stack)-1]
		switch {
		case top.skip:
		case top.obj != nil:
			top.obj[top.key] = v
			top.wantKey = true
		default:
			top.arr = append(top.arr, v)
		}
	}
	for !done {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				skip := len(stack) >= limit || (len(stack) > 0 && stack[len(stack)-1].skip)
				f := frame{skip: skip}
				if !skip {
					if t == '{' {
						f.obj, f.wantKey = map[string]any{}, true
					} else {
						f.arr = []any{}
					}
				}
				stack = append(stack, f)
			default:
				f := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				switch {
				case f.skip && (len(stack) == 0 || !stack[len(stack)-1].skip):
					put(deepMarker(limit))
				case f.skip:
				case f.obj != nil:
					put(f.obj)
				default:
					put(f.arr)
				}
			}
		case string:
			if top := len(stack) - 1; top >= 0 && stack[top].obj != nil && stack[top].wantKey {
				stack[top].key, stack[top].wantKey = t, false
				continue
			}
			put(t)
		default:
			put(t)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("executor: trailing data after a JSON value")
	}
	return root, nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// cutText returns the start of s as a JSON string that fits in max characters.
func cutText(s string, max int) json.RawMessage {
	keep := max - 48
	if keep < 0 {
		keep = 0
	}
	for {
		n, i := 0, 0
		for i < len(s) && n < keep {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			n++
		}
		suffix := ""
		if i < len(s) {
			suffix = "…[" + strconv.Itoa(utf8.RuneCountInString(s[i:])) + " more characters truncated]"
		}
		out := jsonString(s[:i] + suffix)
		if utf8.RuneCount(out) <= max || keep == 0 {
			return out
		}
		// Escapes made the JSON longer than the text; cut harder.
		keep = keep * 3 / 4
	}
}

func jsonString(s string) json.RawMessage {
	out, err := marshal(s)
	if err != nil {
		return json.RawMessage(`""`)
	}
	return out
}

func max2(a, b int) int {
	if a > b {
		return a
	}
	return b
}

func itoa(n int) string { return strconv.Itoa(n) }
