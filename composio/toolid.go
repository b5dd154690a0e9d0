package composio

import (
	"strings"
)

// ToolIDPrefix starts the host-side id of a Composio tool, e.g. "composio-gmail_send_email".
const ToolIDPrefix = "composio-"

// NormalizeToolSlug returns s as a tool slug: trimmed, upper-case, with a leading
// ToolIDPrefix removed. "composio-gmail_send_email" and " gmail_send_email" both give
// "GMAIL_SEND_EMAIL".
func NormalizeToolSlug(s string) string {
	s = strings.TrimSpace(s)
	if hasToolIDPrefix(s) {
		s = s[len(ToolIDPrefix):]
	}
	return strings.ToUpper(s)
}

// NormalizeToolkitSlug returns s as a toolkit slug: trimmed and lower-case ("GMAIL" ->
// "gmail", "_21RISK" -> "_21risk").
func NormalizeToolkitSlug(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}

// IsToolID reports whether id has the host-side form ToolIDPrefix + lower-case slug, e.g.
// "composio-gmail_send_email". The prefix is matched without regard to case.
func IsToolID(id string) bool {
	if !hasToolIDPrefix(id) {
		return false
	}
	return validSlug(id[len(ToolIDPrefix):])
}

// ToolSlugFromID converts a host-side id to a Composio tool slug:
// "composio-gmail_send_email" -> "GMAIL_SEND_EMAIL". It reports false when id is not a
// tool id (see IsToolID).
func ToolSlugFromID(id string) (string, bool) {
	if !IsToolID(id) {
		return "", false
	}
	return strings.ToUpper(id[len(ToolIDPrefix):]), true
}

// ToolID converts a tool slug to its host-side id: "GMAIL_SEND_EMAIL" ->
// "composio-gmail_send_email". A slug that already carries the prefix is normalised.
func ToolID(slug string) string {
	return ToolIDPrefix + strings.ToLower(NormalizeToolSlug(slug))
}

func hasToolIDPrefix(s string) bool {
	return len(s) > len(ToolIDPrefix) && strings.EqualFold(s[:len(ToolIDPrefix)], ToolIDPrefix)
}

// validSlug reports whether s is made of ASCII letters, digits and underscores and has at
// least one letter or digit.
func validSlug(s string) bool {
	alnum := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			alnum = true
		case c == '_':
		default:
			return false
		}
	}
	return alnum
}

// ToolkitIndex finds the toolkit of a tool slug among known toolkits. A tool slug starts
// with its toolkit's slug in upper case followed by "_", but the toolkit is not always the
// first word ("ONE_DRIVE_…" belongs to one_drive, "_21RISK_…" to _21risk), and one
// toolkit's slug can be a prefix of another's ("GOOGLE_…" vs "GOOGLESUPER_…",
// "CLOUDFLARE_…" vs "CLOUDFLARE_API_KEY_…"), so the longest matching toolkit wins.
// A ToolkitIndex is immutable and safe for concurrent use.
type ToolkitIndex struct {
	byUpper map[string]string // "ONE_DRIVE" -> "one_drive"
}

// NewToolkitIndex indexes the given toolkit slugs (any case; empty ones are ignored).
func NewToolkitIndex(toolkits []string) *ToolkitIndex {
	ix := &ToolkitIndex{byUpper: make(map[string]string, len(toolkits))}
	for _, t := range toolkits {
		t = NormalizeToolkitSlug(t)
		if t != "" {
			ix.byUpper[strings.ToUpper(t)] = t
		}
	}
	return ix
}

// Len returns the number of toolkits indexed.
func (ix *ToolkitIndex) Len() int { return len(ix.byUpper) }

// Toolkit returns the lower_snake slug of the longest known toolkit that prefixes slug
// (followed by "_"), and false when none does. slug may be in any case and may carry
// ToolIDPrefix.
func (ix *ToolkitIndex) Toolkit(slug string) (string, bool) {
	s := NormalizeToolSlug(slug)
	best := ""
	for i := 1; i < len(s); i++ {
		if s[i] != '_' {
			continue
		}
		if t, ok := ix.byUpper[s[:i]]; ok {
			best = t
		}
	}
	return best, best != ""
}

// ToolkitOf returns the toolkit of a tool slug among known toolkits; see ToolkitIndex.
// When many slugs are resolved against the same toolkits, build a ToolkitIndex once.
func ToolkitOf(slug string, known []string) (string, bool) {
	return NewToolkitIndex(known).Toolkit(slug)
}
