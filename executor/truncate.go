package executor

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Truncate cuts a JSON value to at most max characters and reports whether it cut anything.
// The result is always valid JSON: long strings are shortened with a note of how many
// characters were left out, long arrays keep their first items followed by a string naming
// how many items were left out, and objects with many fields keep the first fields (in key
// order) plus a "_truncated" field. Input that is not valid JSON is treated as text and
// returned as a JSON string. max <= 0 means no limit. A max below about 64 characters
// cannot hold the note itself, so the result may then exceed max by the note's length.
func Truncate(data json.RawMessage, max int) (json.RawMessage, bool) {
	data = bytes.TrimSpace(data)
	if !json.Valid(data) {
		data = jsonString(string(data))
	}
	if max <= 0 || utf8.RuneCount(data) <= max {
		return data, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return cutText(string(data), max), true
	}
	lim := limits{arr: 1 << 30, str: max, keys: 1 << 30}
	for range 64 {
		var seen limits
		out, err := marshal(shrink(v, lim, &seen))
		if err != nil {
			break
		}
		size := utf8.RuneCount(out)
		if size <= max {
			return out, true
		}
		// Scale one limit by how far over we are, from what the last render kept: long
		// strings first when one alone takes an eighth of the budget, then arrays, then
		// strings, then objects' fields.
		f := float64(max) / float64(size) * 0.9
		scale := func(n, floor int) int { return max2(min(int(float64(n)*f), n-1), floor) }
		switch {
		case seen.str > 32 && seen.str*8 > max:
			lim.str = scale(seen.str, 32)
		case seen.arr > 1:
			lim.arr = scale(seen.arr, 1)
		case seen.str > 32:
			lim.str = scale(seen.str, 32)
		case seen.keys > 1:
			lim.keys = scale(seen.keys, 1)
		default:
			return cutText(string(data), max), true
		}
	}
	return cutText(string(data), max), true
}

type limits struct{ arr, str, keys int }

// shrink applies lim to v and records in seen the longest array, string and object it kept.
func shrink(v any, lim limits, seen *limits) any {
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
		keep := min(len(x), lim.arr)
		seen.arr = max(seen.arr, keep)
		out := make([]any, 0, keep+1)
		for _, e := range x[:keep] {
			out = append(out, shrink(e, lim, seen))
		}
		if left := len(x) - keep; left > 0 {
			out = append(out, "["+strconv.Itoa(left)+" of "+strconv.Itoa(len(x))+" items truncated]")
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		keep := min(len(keys), lim.keys)
		seen.keys = max(seen.keys, keep)
		out := make(map[string]any, keep+1)
		for _, k := range keys[:keep] {
			out[k] = shrink(x[k], lim, seen)
		}
		if left := len(keys) - keep; left > 0 {
			out["_truncated"] = strconv.Itoa(left) + " more fields not shown"
		}
		return out
	}
	return v
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
