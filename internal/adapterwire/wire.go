// Package adapterwire holds what the adapters share in converting to and from the SDKs' types:
// JSON objects as maps, tool-call arguments and failed results in text form.
package adapterwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Decode returns the JSON object raw as a map; empty input and null give an empty map.
// Numbers become float64, as the SDKs' encoders expect (they write a json.Number as a
// string), so integers beyond 2^53 lose precision; schemas do not use such numbers.
func Decode(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]any{}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if m == nil {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}

// Arguments returns raw as tool-call arguments: empty input becomes {}.
func Arguments(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

// IsErrorResult reports whether a tool message's content is a failed executor.Result as
// Result.ForModel writes it ("error (<kind>): …").
func IsErrorResult(content string) bool {
	return strings.HasPrefix(content, "error (")
}
