package schema

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MarshalJSON encodes the schema with sorted keys and no insignificant space.
func (s *Schema) MarshalJSON() ([]byte, error) { return appendSchema(nil, s), nil }

// appendValue encodes a value decoded by decodeJSON (or built from the same kinds).
func appendValue(b []byte, v any) []byte {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, t)
	case json.Number:
		return append(b, t...)
	case float64:
		return strconv.AppendFloat(b, t, 'g', -1, 64)
	case int:
		return strconv.AppendInt(b, int64(t), 10)
	case string:
		return appendString(b, t)
	case json.RawMessage:
		return append(b, t...)
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	case map[string]any:
		b = append(b, '{')
		for i, k := range sortedKeys(t) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendValue(b, t[k])
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

const hexDigits = "0123456789abcdef"

// appendString encodes s as a JSON string without HTML escaping: the output is read by
// models, and \u003c costs tokens.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// schemaKeys are the keyword names appendSchema writes for the typed fields.
const (
	kDefs     = "$defs"
	kRef      = "$ref"
	kAddl     = "additionalProperties"
	kAllOf    = "allOf"
	kAnyOf    = "anyOf"
	kConst    = "const"
	kDefault  = "default"
	kDesc     = "description"
	kEnum     = "enum"
	kExamples = "examples"
	kFormat   = "format"
	kItems    = "items"
	kNot      = "not"
	kOneOf    = "oneOf"
	kPattern  = "pattern"
	kPrefix   = "prefixItems"
	kProps    = "properties"
	kRequired = "required"
	kTitle    = "title"
	kType     = "type"
)

// appendSchema encodes s with sorted keys. A single type is written as a string, several as
// an array.
func appendSchema(b []byte, s *Schema) []byte { return appendNode(b, s, false, "") }

// rootName marks the root for appendNode.
const rootName = "\x00root"

// appendCompact is appendSchema for what a model reads: the root's title (a Pydantic class
// name) and titles that only restate their property or definition name are left out, since
// they cost tokens and say nothing.
func appendCompact(b []byte, s *Schema) []byte { return appendNode(b, s, true, rootName) }

// redundantTitle reports whether title says no more than name: the same letters and digits,
// ignoring case ("Recipient Email" for recipient_email).
func redundantTitle(title, name string) bool {
	if name == rootName {
		return true
	}
	i, j := 0, 0
	for {
		for i < len(title) && !isAlnum(title[i]) {
			i++
		}
		for j < len(name) && !isAlnum(name[j]) {
			j++
		}
		if i == len(title) || j == len(name) {
			return i == len(title) && j == len(name) && name != ""
		}
		if lower(title[i]) != lower(name[j]) {
			return false
		}
		i++
		j++
	}
}

func isAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= utf8.RuneSelf
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// appendNode encodes s; name is the property or definition name s is written under ("" in a
// list, rootName at the root), used by compact mode.
func appendNode(b []byte, s *Schema, compact bool, name string) []byte {
	if s == nil {
		return append(b, "true"...)
	}
	if s.Bool != nil {
		return strconv.AppendBool(b, *s.Bool)
	}
	keys := make([]string, 0, 8+len(s.Extra))
	add := func(ok bool, k string) {
		if ok {
			keys = append(keys, k)
		}
	}
	add(s.Defs != nil, kDefs)
	add(s.Ref != "", kRef)
	add(s.AdditionalProperties != nil, kAddl)
	add(len(s.AllOf) > 0, kAllOf)
	add(len(s.AnyOf) > 0, kAnyOf)
	add(s.Const != nil, kConst)
	add(s.Default != nil, kDefault)
	add(s.Description != "", kDesc)
	add(s.Enum != nil, kEnum)
	add(len(s.Examples) > 0, kExamples)
	add(s.Format != "", kFormat)
	add(s.Items != nil, kItems)
	add(s.Not != nil, kNot)
	add(len(s.OneOf) > 0, kOneOf)
	add(s.Pattern != "", kPattern)
	add(s.PrefixItems != nil, kPrefix)
	add(s.Properties != nil, kProps)
	add(s.Required != nil, kRequired)
	add(s.Title != "" && !(compact && redundantTitle(s.Title, name)), kTitle)
	add(len(s.Type) > 0, kType)
	sorted := true
	for k := range s.Extra {
		if typedKeyword(k) {
			continue
		}
		keys = append(keys, k)
		sorted = false
	}
	if !sorted {
		slices.Sort(keys)
	}
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		switch k {
		case kDefs:
			b = appendSchemaMap(b, s.Defs, compact)
		case kRef:
			b = appendString(b, s.Ref)
		case kAddl:
			b = appendNode(b, s.AdditionalProperties, compact, "")
		case kAllOf:
			b = appendSchemaList(b, s.AllOf, compact)
		case kAnyOf:
			b = appendSchemaList(b, s.AnyOf, compact)
		case kConst:
			b = append(b, s.Const...)
		case kDefault:
			b = append(b, s.Default...)
		case kDesc:
			b = appendString(b, s.Description)
		case kEnum:
			b = appendRawList(b, s.Enum)
		case kExamples:
			b = appendRawList(b, s.Examples)
		case kFormat:
			b = appendString(b, s.Format)
		case kItems:
			b = appendNode(b, s.Items, compact, "")
		case kNot:
			b = appendNode(b, s.Not, compact, "")
		case kOneOf:
			b = appendSchemaList(b, s.OneOf, compact)
		case kPattern:
			b = appendString(b, s.Pattern)
		case kPrefix:
			b = appendSchemaList(b, s.PrefixItems, compact)
		case kProps:
			b = appendSchemaMap(b, s.Properties, compact)
		case kRequired:
			b = appendStrings(b, s.Required)
		case kTitle:
			b = appendString(b, s.Title)
		case kType:
			if len(s.Type) == 1 {
				b = appendString(b, s.Type[0])
				break
			}
			b = appendStrings(b, s.Type)
		default:
			b = append(b, s.Extra[k]...)
		}
	}
	return append(b, '}')
}

// typedKeyword reports whether k has its own Schema field; an Extra entry under one of these
// names (possible only for hand-built trees) is ignored.
func typedKeyword(k string) bool {
	switch k {
	case kDefs, kRef, kAddl, kAllOf, kAnyOf, kConst, kDefault, kDesc, kEnum, kExamples, kFormat,
		kItems, kNot, kOneOf, kPattern, kPrefix, kProps, kRequired, kTitle, kType:
		return true
	}
	return false
}

func appendStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, v := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, v)
	}
	return append(b, ']')
}

func appendSchemaList(b []byte, list []*Schema, compact bool) []byte {
	b = append(b, '[')
	for i, c := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendNode(b, c, compact, "")
	}
	return append(b, ']')
}

func appendSchemaMap(b []byte, m map[string]*Schema, compact bool) []byte {
	b = append(b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendNode(b, m[k], compact, k)
	}
	return append(b, '}')
}

func appendRawList(b []byte, list []json.RawMessage) []byte {
	b = append(b, '[')
	for i, r := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, r...)
	}
	return append(b, ']')
}
