package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
)

// MaxNameLength is the longest function name the model APIs accept.
const MaxNameLength = 64

// validNameByte reports whether c may appear in a function name: [a-zA-Z0-9_-].
func validNameByte(c byte) bool {
	return c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// ValidFunctionName reports whether name is accepted as is by every model API: 1 to 64
// characters of [a-zA-Z0-9_-], starting with a letter or '_' (Gemini's extra rule).
func ValidFunctionName(name string) bool {
	if name == "" || len(name) > MaxNameLength || !validFirstByte(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !validNameByte(name[i]) {
			return false
		}
	}
	return true
}

func validFirstByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// FunctionName maps an action slug to a name the model APIs accept. A valid slug is returned
// unchanged. Otherwise invalid characters become '_', a leading digit or '-' gets a '_' in
// front, and the name is cut to 55 characters followed by '_' and 8 hex digits of the slug's
// SHA-256, so the result is stable across
// processes and distinct slugs practically never share a name. Route a model's tool call back
// with [Names], or with [SlugFromFunctionName] and the slugs that were offered.
func FunctionName(slug string) string {
	if ValidFunctionName(slug) {
		return slug
	}
	const keep = MaxNameLength - 9
	b := make([]byte, 0, MaxNameLength)
	if slug != "" && !validFirstByte(slug[0]) {
		b = append(b, '_')
	}
	for i := 0; i < len(slug) && len(b) < keep; i++ {
		c := slug[i]
		if !validNameByte(c) {
			c = '_'
		}
		b = append(b, c)
	}
	sum := sha256.Sum256([]byte(slug))
	b = append(b, '_')
	b = append(b, hex.EncodeToString(sum[:4])...)
	return string(b)
}

// SlugFromFunctionName returns the slug among offered whose [FunctionName] is name. It
// reports false when none matches. It is the stateless way to route a tool call back; [Names]
// does the same with a map.
func SlugFromFunctionName(name string, offered []string) (string, bool) {
	for _, s := range offered {
		if s == name && ValidFunctionName(s) {
			return s, true
		}
	}
	for _, s := range offered {
		if FunctionName(s) == name {
			return s, true
		}
	}
	return "", false
}

// Names remembers the slug behind every function name it handed out, so a model's tool call
// can be routed back to its action even when the slug had to be shortened. The zero value is
// ready to use. A Names is safe for concurrent use.
type Names struct {
	mu     sync.RWMutex
	bySlug map[string]string
	byName map[string]string
}

// Add returns the function name for slug and remembers the mapping. It fails with
// [ErrInvalidName] for an empty slug, or when another slug already holds the same name.
func (n *Names) Add(slug string) (string, error) {
	if slug == "" {
		return "", fmt.Errorf("schema: empty slug: %w", ErrInvalidName)
	}
	name := FunctionName(slug)
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.byName == nil {
		n.byName = make(map[string]string)
		n.bySlug = make(map[string]string)
	}
	if prev, ok := n.byName[name]; ok && prev != slug {
		return "", fmt.Errorf("schema: slugs %q and %q both map to %q: %w", prev, slug, name, ErrInvalidName)
	}
	n.byName[name] = slug
	n.bySlug[slug] = name
	return name, nil
}

// Slug returns the slug behind a function name handed out by Add, and whether there is one.
func (n *Names) Slug(name string) (string, bool) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	s, ok := n.byName[name]
	return s, ok
}

// Name returns the function name Add handed out for slug, and whether there is one.
func (n *Names) Name(slug string) (string, bool) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	s, ok := n.bySlug[slug]
	return s, ok
}
