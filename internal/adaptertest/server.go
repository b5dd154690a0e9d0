package adaptertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
)

// Request is one request the server received.
type Request struct {
	Method, Path string
	Header       http.Header
	// Body is the request body decoded as JSON.
	Body map[string]any
	// Raw is the request body as sent.
	Raw []byte
}

// Reply returns the JSON body to answer turn (0 for the first request) with; the request is
// given so the fake model can answer from what it was sent.
type Reply func(turn int, req Request) any

// Server is a fake model API. It is safe for concurrent use.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []Request
}

// Start starts a server answering with reply; the caller closes it. A request body that is
// not a JSON object gets a 400, and a turn the reply answers with nil a 500, so the client
// under test fails.
func Start(reply Reply) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
		if err := json.Unmarshal(raw, &req.Body); err != nil {
			http.Error(w, "adaptertest: body is not a JSON object: "+err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		turn := len(s.requests)
		s.requests = append(s.requests, req)
		s.mu.Unlock()
		out := reply(turn, req)
		if out == nil {
			http.Error(w, fmt.Sprintf("adaptertest: no reply for turn %d", turn), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}))
	return s
}

// Requests returns the requests received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Script answers turn i with replies[i], and any later turn with nil.
func Script(replies ...any) Reply {
	return func(turn int, _ Request) any {
		if turn < len(replies) {
			return replies[turn]
		}
		return nil
	}
}

// JSON decodes s, for writing replies as JSON text; it panics on invalid JSON, which is a
// bug in the test.
func JSON(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(fmt.Sprintf("adaptertest.JSON: %v in %s", err, s))
	}
	return v
}
