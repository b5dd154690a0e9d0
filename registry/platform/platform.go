package platform

import (
	"encoding/base64"
	"errors"
	"unicode/utf8"
)

// Sentinel errors. Errors returned by this package's constructors and tools wrap these
// with %w, so hosts (and tests) can tell a refusal from a failure.
var (
	// ErrInvalidConfig reports a configuration a constructor cannot work with.
	ErrInvalidConfig = errors.New("platform: invalid config")
	// ErrPathRefused reports a path that is absolute, climbs with "..", holds a NUL byte or
	// leads out of the root (through a symlink, for instance).
	ErrPathRefused = errors.New("platform: path refused")
	// ErrNotFound reports a file or directory that does not exist.
	ErrNotFound = errors.New("platform: no such file or directory")
	// ErrExists reports a file that exists where the call would create one.
	ErrExists = errors.New("platform: file exists")
	// ErrNotRegular reports a device, FIFO, socket or directory where a regular file is
	// needed, or a file where a directory is needed.
	ErrNotRegular = errors.New("platform: not a regular file")
	// ErrTooLarge reports content over a configured size limit.
	ErrTooLarge = errors.New("platform: too large")
	// ErrCommandRefused reports a command outside the allow-list, or an argument or working
	// directory the policy refuses.
	ErrCommandRefused = errors.New("platform: command refused")
	// ErrRequestRefused reports an HTTP request whose scheme, host, port, method or header
	// the policy refuses, or a redirect beyond the limit.
	ErrRequestRefused = errors.New("platform: request refused")
	// ErrAddressRefused reports a connection to an address the policy refuses (loopback,
	// private, link-local, metadata, …), found when dialling.
	ErrAddressRefused = errors.New("platform: address refused")
)

// Content encodings of file contents and response bodies.
const (
	EncodingUTF8   = "utf-8"
	EncodingBase64 = "base64"
)

// encodeContent returns b as text when it is valid UTF-8, else as base64.
func encodeContent(b []byte) (string, string) {
	if utf8.Valid(b) {
		return string(b), EncodingUTF8
	}
	return base64.StdEncoding.EncodeToString(b), EncodingBase64
}

// truncText keeps a diagnostic of our own (what a failed child reported) short in error
// text; untrusted input is quoted with schema.Excerpt.
func truncText(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
