// Package adaptertest holds the fixtures the adapter modules' tests and examples share: a
// fake model API (an httptest server that records each request and answers from a script),
// a registry of two platform tools, a two-action catalogue with an executor over it, and a
// check that an adapter's hint helper offers what the resolver allows.
//
// It lives in the core module, under internal/, so that every adapter module (each with its
// own go.mod, under github.com/toolhint/toolhint/adapters/) can import it without importing
// one another. Production code never imports it.
package adaptertest
