package composiotest

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Fault changes how the server answers a request. The zero Fault changes nothing.
type Fault struct {
	// Status, when not 2xx, replaces the response with this status and the error
	// envelope (or Body). A 2xx Status only changes the status of the normal answer.
	Status int
	// Header is added to the response (e.g. retry-after, x-should-retry).
	Header http.Header
	// Body, when set, replaces the response body as is.
	Body string
	// ContentType, when set, replaces the Content-Type header.
	ContentType string
	// Delay is waited before answering, or until the client gives up.
	Delay time.Duration
	// Truncate cuts the body in half (with a matching Content-Length), as a proxy that
	// gave up mid-response would.
	Truncate bool
	// Disconnect closes the connection without any response.
	Disconnect bool
}

// RateLimited is a 429 with a retry-after header: whole seconds in retry-after, otherwise
// milliseconds in retry-after-ms. A zero wait sends no header.
func RateLimited(wait time.Duration) Fault {
	f := Fault{Status: http.StatusTooManyRequests, Header: http.Header{}}
	switch {
	case wait <= 0:
	case wait%time.Second == 0:
		f.Header.Set("retry-after", strconv.Itoa(int(wait/time.Second)))
	default:
		f.Header.Set("retry-after-ms", strconv.FormatInt(wait.Milliseconds(), 10))
	}
	return f
}

// ServerError is a response with status (e.g. 500, 502, 503) and the error envelope.
func ServerError(status int) Fault { return Fault{Status: status} }

// Slow answers normally after d.
func Slow(d time.Duration) Fault { return Fault{Delay: d} }

// MalformedJSON answers 200 with a body that is not valid JSON.
func MalformedJSON() Fault { return Fault{Body: `{"items":[{"slug": tru`} }

// TruncatedJSON answers normally but sends only the first half of the body.
func TruncatedJSON() Fault { return Fault{Truncate: true} }

// HTMLError answers status with an HTML page, as a proxy or load balancer would.
func HTMLError(status int) Fault {
	return Fault{Status: status, ContentType: "text/html; charset=utf-8",
		Body: "<html><head><title>" + strconv.Itoa(status) + " " + http.StatusText(status) +
			"</title></head><body><h1>" + http.StatusText(status) + "</h1></body></html>"}
}

// Disconnect drops the connection without answering.
func Disconnect() Fault { return Fault{Disconnect: true} }

// Rule injects a fault into the requests it matches.
type Rule struct {
	// Method matches the request method; "" matches any.
	Method string
	// Path matches the path after the API prefix ("/tools"); a trailing "*" matches a
	// prefix ("/tools/execute/*"); "" matches any.
	Path string
	// Page matches the page number of a paginated request (1 for a request with a limit
	// and no cursor, n for the cursor of page n); 0 matches any.
	Page int
	// Times is how many matching requests get the fault; 0 means every one.
	Times int
	// Fault is what they get.
	Fault Fault
}

type rule struct {
	Rule
	used int
}

// AddFault adds a rule. Rules are tried in the order added; the first that matches and
// has uses left applies.
func (s *Server) AddFault(r Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &rule{Rule: r})
}

// FailNext gives the next n requests, whatever their path, fault f.
func (s *Server) FailNext(n int, f Fault) {
	if n <= 0 {
		return
	}
	s.AddFault(Rule{Times: n, Fault: f})
}

// FailPage gives page page of GET path (e.g. "/tools") fault f, times times (0: always).
func (s *Server) FailPage(path string, page, times int, f Fault) {
	s.AddFault(Rule{Method: http.MethodGet, Path: path, Page: page, Times: times, Fault: f})
}

// ClearFaults removes every rule.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// matchFault returns the fault for req and counts its use; the caller holds mu.
func (s *Server) matchFault(req Request) *Fault {
	for _, r := range s.faults {
		if r.Times > 0 && r.used >= r.Times {
			continue
		}
		if !req.matches(r.Method, r.Path) {
			continue
		}
		if r.Page != 0 && r.Page != req.Page {
			continue
		}
		r.used++
		f := r.Fault
		return &f
	}
	return nil
}

// matches reports whether req has this method and path: "" matches any method or path, the
// method is matched in any case, and a path ending in "*" matches every path with that
// prefix.
func (req Request) matches(method, path string) bool {
	if method != "" && !strings.EqualFold(method, req.Method) {
		return false
	}
	if path == "" {
		return true
	}
	if p, ok := strings.CutSuffix(path, "*"); ok {
		return strings.HasPrefix(req.Path, p)
	}
	return path == req.Path
}
