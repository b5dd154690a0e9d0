package composio_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func newHTTPServer(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}
