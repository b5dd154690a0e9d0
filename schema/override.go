package schema

import (
	"encoding/json"
	"fmt"
)

// Override is a host's change to one action's parameter schema, applied to the schema's
// bytes before anything else reads them: before parsing, normalising ([Relax]), rendering
// and compiling. The zero value changes nothing. An Override is a plain value.
type Override struct {
	// Replace, when set, is used instead of the action's schema. Optional.
	Replace json.RawMessage
	// Patch is a JSON merge patch (RFC 7396) applied after Replace: its keys replace the
	// schema's, a null deletes one, objects merge recursively and arrays are replaced whole,
	// so {"required":["to"]} sets the required list and
	// {"properties":{"attachment":{"description":"…"}}} rewrites one description. Optional.
	Patch json.RawMessage
}

// IsZero reports whether o changes nothing.
func (o Override) IsZero() bool { return len(o.Replace) == 0 && len(o.Patch) == 0 }

// Overrides maps action slugs to the host's changes to their schemas. A nil map changes
// nothing. The package only reads it, so one map may be shared by concurrent calls as long
// as nobody writes it meanwhile.
type Overrides map[string]Override

// Apply returns parameters with the override for slug applied, or parameters unchanged (the
// same bytes) when there is none. A Replace or Patch that is not valid JSON is an error
// wrapping [ErrInvalidSchema].
func (o Overrides) Apply(slug string, parameters json.RawMessage) (json.RawMessage, error) {
	ov, ok := o[slug]
	if !ok || ov.IsZero() {
		return parameters, nil
	}
	out, err := ov.Apply(parameters)
	if err != nil {
		return nil, fmt.Errorf("schema: override for %s: %w", truncate(slug, 80), err)
	}
	return out, nil
}

// Apply returns parameters with o applied: Replace first, then Patch. The result has sorted
// keys when a patch was applied. A Replace or Patch that is not valid JSON is an error
// wrapping [ErrInvalidSchema].
func (o Override) Apply(parameters json.RawMessage) (json.RawMessage, error) {
	if len(o.Replace) > 0 {
		if _, err := decodeJSON(o.Replace); err != nil {
			return nil, &SchemaError{Reason: "replacement is not valid JSON: " + err.Error(), Err: ErrInvalidSchema}
		}
		parameters = o.Replace
	}
	if len(o.Patch) == 0 {
		return parameters, nil
	}
	patch, err := decodeJSON(o.Patch)
	if err != nil {
		return nil, &SchemaError{Reason: "patch is not valid JSON: " + err.Error(), Err: ErrInvalidSchema}
	}
	var target any
	if len(parameters) > 0 {
		if target, err = decodeJSON(parameters); err != nil {
			return nil, &SchemaError{Reason: "schema to patch is not valid JSON: " + err.Error(), Err: ErrInvalidSchema}
		}
	}
	return appendValue(nil, mergePatch(target, patch)), nil
}

// mergePatch applies an RFC 7396 merge patch to a decoded value. It modifies target's maps.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = make(map[string]any, len(p))
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}
