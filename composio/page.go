package composio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"
	"strconv"
	"strings"
)

// Page is one page of a list endpoint. NextCursor is empty on the last page; pass it to
// the same page method to get the next page.
type Page[T any] struct {
	Items       []T
	NextCursor  string
	TotalPages  int
	CurrentPage int
	TotalItems  int
}

// rawPage is the wire form of a page. The counters are decoded leniently: the API has
// sent them both as integers and as floats.
type rawPage[T any] struct {
	Items       []T     `json:"items"`
	NextCursor  *string `json:"next_cursor"`
	TotalPages  number  `json:"total_pages"`
	CurrentPage number  `json:"current_page"`
	TotalItems  number  `json:"total_items"`
}

func (p rawPage[T]) page() Page[T] {
	out := Page[T]{Items: p.Items, TotalPages: int(p.TotalPages), CurrentPage: int(p.CurrentPage), TotalItems: int(p.TotalItems)}
	if p.NextCursor != nil {
		out.NextCursor = *p.NextCursor
	}
	if out.Items == nil {
		out.Items = []T{}
	}
	return out
}

// number decodes a JSON number (integer or float), a numeric string or null.
type number int

func (n *number) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(bytes.TrimSpace(b), `"`)
	if len(b) == 0 || string(b) == "null" {
		*n = 0
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("not a number: %s", b)
	}
	if f > 1<<53 || f < -(1<<53) {
		return fmt.Errorf("number out of range: %s", b)
	}
	*n = number(f)
	return nil
}

// getPage fetches one page of a list endpoint.
func getPage[T any](ctx context.Context, c *Client, path string, q url.Values, limit int, cursor string) (Page[T], error) {
	q = cloneValues(q)
	if limit <= 0 {
		limit = c.pageSize
	}
	q.Set("limit", strconv.Itoa(limit))
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var raw rawPage[T]
	if err := c.do(ctx, request{method: "GET", path: path, query: q}, &raw); err != nil {
		return Page[T]{}, err
	}
	return raw.page(), nil
}

// paginate iterates over every item of every page fetched by next. It stops at the first
// error, which it yields with the zero item, and refuses a cursor it has already seen.
func paginate[T any](ctx context.Context, next func(ctx context.Context, cursor string) (Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		cursor := ""
		seen := map[string]bool{}
		for {
			p, err := next(ctx, cursor)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, it := range p.Items {
				if !yield(it, nil) {
					return
				}
			}
			if p.NextCursor == "" {
				return
			}
			if seen[p.NextCursor] {
				yield(zero, fmt.Errorf("%w: pagination cursor repeated", ErrInvalidResponse))
				return
			}
			seen[p.NextCursor] = true
			cursor = p.NextCursor
		}
	}
}

// collect gathers an iterator into a slice, stopping at the first error.
func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for it, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

func cloneValues(q url.Values) url.Values {
	out := make(url.Values, len(q)+2)
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}

func setIf(q url.Values, key, value string) {
	if value != "" {
		q.Set(key, value)
	}
}

func setBool(q url.Values, key string, v bool) {
	q.Set(key, strconv.FormatBool(v))
}

// addEach adds one key=value pair per non-empty value (the "repeat" array format).
func addEach(q url.Values, key string, values []string) {
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			q.Add(key, v)
		}
	}
}

// joinComma sets key to the comma-joined non-empty values.
func joinComma(q url.Values, key string, values []string, norm func(string) string) {
	var parts []string
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			parts = append(parts, norm(v))
		}
	}
	if len(parts) > 0 {
		q.Set(key, strings.Join(parts, ","))
	}
}

// rawObject checks that b is a JSON object (or empty, meaning {}).
func rawObject(b json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage(`{}`), nil
	}
	if t[0] != '{' || !json.Valid(t) {
		return nil, fmt.Errorf("%w: arguments must be a JSON object", ErrInvalidArgument)
	}
	return t, nil
}
