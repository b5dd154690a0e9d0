package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
)

// Reflect returns the parameter schema of the Go value v's type (a struct or a pointer to
// one), made with invopop/jsonschema and normalised by [Parse], ready for strict mode:
//
//   - every field is required unless its json tag has omitempty: that tag, and only
//     that tag, marks a field optional (strict mode then makes it nullable); a field
//     tagged `json:"-"` is left out;
//   - objects are closed (additionalProperties: false);
//   - nested struct types are inlined, except in a recursive type, whose types go to
//     $defs;
//   - descriptions come from `jsonschema:"description=…"` or `jsonschema_description`
//     tags, enums from `jsonschema:"enum=a,enum=b"`.
//
// It fails with an error wrapping [ErrInvalidSchema] for a type that is not a struct or has
// a field JSON cannot carry (a channel, a function).
func Reflect(v any) (json.RawMessage, error) {
	t := reflect.TypeOf(v)
	if t == nil {
		return nil, fmt.Errorf("schema: reflect nil: %w", ErrInvalidSchema)
	}
	return reflectType(t)
}

// FromType is [Reflect] for the type parameter T.
func FromType[T any]() (json.RawMessage, error) {
	return reflectType(reflect.TypeFor[T]())
}

func reflectType(t reflect.Type) (out json.RawMessage, err error) {
	defer func() {
		// invopop/jsonschema panics on types JSON cannot carry (chan, func, complex);
		// that is an error for the caller, not a crash.
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("schema: reflect %s: %v: %w", t, p, ErrInvalidSchema)
		}
	}()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("schema: reflect %s: a %s is not a struct: %w", t, t.Kind(), ErrInvalidSchema)
	}
	recursive := recursiveType(t, map[reflect.Type]bool{})
	r := &jsonschema.Reflector{
		// A field is required unless marked omitempty: what strict mode needs.
		RequiredFromJSONSchemaTags: false,
		AllowAdditionalProperties:  false,
		// Inline nested types, unless the type refers to itself: then $defs and $ref
		// are the only finite form.
		DoNotReference: !recursive,
		ExpandedStruct: !recursive,
		Anonymous:      true,
	}
	s := r.ReflectFromType(t)
	s.Version = ""
	s.ID = ""
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("schema: reflect %s: %w: %s", t, ErrInvalidSchema, err.Error())
	}
	tree, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("schema: reflect %s: %w", t, err)
	}
	if name, ok := strings.CutPrefix(tree.Ref, "#/$defs/"); ok && isBareRef(tree) && tree.Defs[name] != nil {
		// A recursive type comes back as {"$ref": "#/$defs/T", "$defs": …}; the root of a
		// parameter schema must be the object itself.
		root := *tree.Defs[name]
		root.Defs = tree.Defs
		tree = &root
	}
	return appendSchema(nil, tree), nil
}

// recursiveType reports whether t can contain a value of a type already on the path, which
// invopop/jsonschema can only express with references.
func recursiveType(t reflect.Type, onPath map[reflect.Type]bool) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return recursiveType(t.Elem(), onPath)
	case reflect.Map:
		return recursiveType(t.Key(), onPath) || recursiveType(t.Elem(), onPath)
	case reflect.Struct:
		if onPath[t] {
			return true
		}
		onPath[t] = true
		defer delete(onPath, t)
		for i := 0; i < t.NumField(); i++ {
			if recursiveType(t.Field(i).Type, onPath) {
				return true
			}
		}
	}
	return false
}
