// Package jsonobj decodes the JSON objects the adapters hand to SDKs whose parameter types
// are maps: schemas and tool arguments.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
