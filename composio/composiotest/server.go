package composiotest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhint/toolhint/composio"
)

// Defaults of a Server.
const (
	DefaultAPIKey   = "test-api-key"
	DefaultPageSize = 20
	MaxPageSize     = 1000
)

// ExecuteCall is what a Server passes to an ExecuteFunc.
type ExecuteCall struct {
	// Action is the slug of the action executed.
	Action string
	// Slug is Action, under its former name; the fake sets both.
	//
	// Deprecated: use Action.
	Slug               string
	Arguments          json.RawMessage // {} when the request had none
	Text               string
	UserID             string
	ConnectedAccountID string
	Version            string
}

// ExecuteFunc answers an execution. A nil error gives {"successful":true,"data":data}
// (data is encoded with encoding/json; nil means {}). An error that is a
// *composio.APIError becomes a platform failure with its status and the error envelope;
// any other error becomes a tool-level failure: HTTP 200 with successful false and the
// error's text. It may be called concurrently.
type ExecuteFunc func(ctx context.Context, call ExecuteCall) (data any, err error)

// SearchFunc answers one tool-router search query with primary and related slugs.
// toolkits are the session's toolkits (nil: all). It may be called concurrently.
type SearchFunc func(useCase string, toolkits []string) (primary, related []string)

// ArgumentsFunc answers POST /tools/execute/{slug}/input: it turns text into arguments.
type ArgumentsFunc func(slug, text string) (json.RawMessage, error)

// Request is a request the Server received.
type Request struct {
	Method string
	Prefix string // "/api/v3" or "/api/v3.1"; "" for a path outside the API
	Path   string // after the prefix, e.g. "/tools"
	Query  url.Values
	Header http.Header
	Body   []byte
	Page   int // page number from the cursor, from 1; 0 when the request had no cursor or limit
}

// Option configures New and NewServer.
type Option func(*Server)

// WithAPIKey sets the API key the server accepts. Defaults to DefaultAPIKey (also when
// key is empty).
func WithAPIKey(key string) Option { return func(s *Server) { s.apiKey = key } }

// WithCatalog serves c's toolkits and tools (added to any added before).
func WithCatalog(c Catalog) Option {
	return func(s *Server) { s.addToolkits(c.Toolkits...); s.addTools(c.Tools...) }
}

// WithToolkits adds or replaces toolkits by slug, e.g. those read by ReadToolkits.
func WithToolkits(tks ...composio.Toolkit) Option {
	return func(s *Server) { s.addToolkits(tks...) }
}

// WithDefaultPageSize sets the page size used when a request has no limit. Defaults to
// DefaultPageSize.
func WithDefaultPageSize(n int) Option { return func(s *Server) { s.pageSize = n } }

// Server is a fake Composio API. All its methods are safe for concurrent use, also
// while requests are being served.
type Server struct {
	// URL is the server's base URL (scheme and host), to use as composio.Config.BaseURL.
	URL string

	srv      *httptest.Server
	apiKey   string
	pageSize int

	mu          sync.Mutex
	toolkits    map[string]composio.Toolkit
	toolkitList []string // sorted slugs
	tools       []toolEntry
	toolIndex   map[string]int
	sorted      bool
	handlers    map[string]ExecuteFunc
	defaultExec ExecuteFunc
	argsFunc    ArgumentsFunc
	searchFunc  SearchFunc
	authConfigs map[string]composio.AuthConfig
	accounts    map[string]*account
	sessions    map[string][]string
	faults      []*rule
	requests    []Request
	seq         int
}

type toolEntry struct {
	tool composio.Tool
	enc  []byte
}

type account struct {
	composio.ConnectedAccount
	deleted bool
}

// New starts a Server. The caller must call Close.
func New(opts ...Option) *Server {
	s := &Server{
		apiKey: DefaultAPIKey, pageSize: DefaultPageSize,
		toolkits: map[string]composio.Toolkit{}, toolIndex: map[string]int{},
		handlers: map[string]ExecuteFunc{}, authConfigs: map[string]composio.AuthConfig{},
		accounts: map[string]*account{}, sessions: map[string][]string{},
	}
	for _, o := range opts {
		o(s)
	}
	if s.pageSize <= 0 {
		s.pageSize = DefaultPageSize
	}
	if s.apiKey == "" {
		s.apiKey = DefaultAPIKey
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// NewServer starts a Server that is closed when t ends.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := New(opts...)
	t.Cleanup(s.Close)
	return s
}

// Close shuts the server down, closing client connections.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// APIKey returns the API key the server accepts.
func (s *Server) APIKey() string { return s.apiKey }

// Config returns a composio.Config for this server: its URL and API key, the httptest
// client, prefix v3.1, and the default retry policy with delays shortened to milliseconds
// (retry-after headers are still honoured as sent). Change any field before composio.New.
func (s *Server) Config() composio.Config {
	return composio.Config{
		APIKey:     s.apiKey,
		BaseURL:    s.URL,
		PathPrefix: composio.PrefixV31,
		HTTPClient: s.srv.Client(),
		Retry:      &composio.RetryPolicy{MaxRetries: 2, InitialDelay: time.Millisecond, MaxDelay: 8 * time.Millisecond},
	}
}

// Client returns a new client configured with Config.
func (s *Server) Client() *composio.Client {
	c, err := composio.New(s.Config())
	if err != nil {
		// Config always holds a key and the server's URL, so New cannot fail.
		panic("composiotest: " + err.Error())
	}
	return c
}

// AddTools adds or replaces tools by slug. Tools are served ordered by toolkit, then slug.
func (s *Server) AddTools(tools ...composio.Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addTools(tools...)
}

func (s *Server) addTools(tools ...composio.Tool) {
	for _, t := range tools {
		t.Slug = composio.NormalizeToolSlug(t.Slug)
		t.Toolkit.Slug = composio.NormalizeToolkitSlug(t.Toolkit.Slug)
		if t.Toolkit.Slug == "" {
			if tk, ok := composio.NewToolkitIndex(s.toolkitList).Toolkit(t.Slug); ok {
				t.Toolkit.Slug = tk
			}
		}
		if t.Tags == nil {
			t.Tags = []string{}
		}
		enc, err := json.Marshal(t)
		if err != nil {
			// Only invalid raw JSON in the schemas can fail; serve the tool without them.
			t.InputParameters, t.OutputParameters = nil, nil
			enc, _ = json.Marshal(t)
		}
		if i, ok := s.toolIndex[t.Slug]; ok {
			s.tools[i] = toolEntry{t, enc}
		} else {
			s.toolIndex[t.Slug] = len(s.tools)
			s.tools = append(s.tools, toolEntry{t, enc})
		}
		if _, ok := s.toolkits[t.Toolkit.Slug]; !ok && t.Toolkit.Slug != "" {
			s.addToolkits(composio.Toolkit{Slug: t.Toolkit.Slug, Name: t.Toolkit.Name, NoAuth: t.NoAuth})
		}
	}
	s.sorted = false
}

// AddToolkits adds or replaces toolkits by slug.
func (s *Server) AddToolkits(tks ...composio.Toolkit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addToolkits(tks...)
}

func (s *Server) addToolkits(tks ...composio.Toolkit) {
	for _, tk := range tks {
		tk.Slug = composio.NormalizeToolkitSlug(tk.Slug)
		if tk.Slug == "" {
			continue
		}
		if _, ok := s.toolkits[tk.Slug]; !ok {
			s.toolkitList = append(s.toolkitList, tk.Slug)
		}
		if tk.NoAuth && len(tk.AuthSchemes) == 0 {
			tk.AuthSchemes = []string{"NO_AUTH"}
		}
		s.toolkits[tk.Slug] = tk
	}
	sort.Strings(s.toolkitList)
}

// sortTools orders tools by toolkit then slug; the caller holds mu.
func (s *Server) sortTools() {
	if s.sorted {
		return
	}
	sort.SliceStable(s.tools, func(i, j int) bool {
		a, b := s.tools[i].tool, s.tools[j].tool
		if a.Toolkit.Slug != b.Toolkit.Slug {
			return a.Toolkit.Slug < b.Toolkit.Slug
		}
		return a.Slug < b.Slug
	})
	for i, e := range s.tools {
		s.toolIndex[e.tool.Slug] = i
	}
	s.sorted = true
}

// HandleExecute sets the handler of one tool's executions; nil removes it. A known tool
// without a handler (and without a HandleAllExecute handler) answers 501.
func (s *Server) HandleExecute(slug string, fn ExecuteFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	slug = composio.NormalizeToolSlug(slug)
	if fn == nil {
		delete(s.handlers, slug)
		return
	}
	s.handlers[slug] = fn
}

// HandleAllExecute sets the handler of executions of tools without their own handler.
func (s *Server) HandleAllExecute(fn ExecuteFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.defaultExec = fn
}

// HandleArguments sets the handler of POST /tools/execute/{slug}/input.
func (s *Server) HandleArguments(fn ArgumentsFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.argsFunc = fn
}

// HandleSearch sets the handler of tool-router searches. Without one, the server ranks
// the session's tools by how many of the query's words appear in their slug, name and
// description.
func (s *Server) HandleSearch(fn SearchFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.searchFunc = fn
}

// Requests returns a copy of the requests received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// RequestsTo returns the received requests with this method and path (after the prefix),
// oldest first. They match as in [Rule]: "" matches any method or path, the method in any
// case, and a trailing "*" matches a prefix ("/tools/execute/*").
func (s *Server) RequestsTo(method, path string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if r.matches(method, path) {
			out = append(out, r)
		}
	}
	return out
}

// ResetRequests forgets the recorded requests.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// AddAuthConfig stores an auth config as if it had been created; an empty ID gets one.
// It returns the stored config.
func (s *Server) AddAuthConfig(ac composio.AuthConfig) composio.AuthConfig {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addAuthConfig(ac)
}

func (s *Server) addAuthConfig(ac composio.AuthConfig) composio.AuthConfig {
	if ac.ID == "" {
		ac.ID = s.nextID("ac_")
	}
	ac.Toolkit.Slug = composio.NormalizeToolkitSlug(ac.Toolkit.Slug)
	if ac.Status == "" {
		ac.Status = "ENABLED"
	}
	if ac.Type == "" {
		ac.Type = "default"
	}
	s.authConfigs[ac.ID] = ac
	return ac
}

// AuthConfigs returns the stored auth configs ordered by id.
func (s *Server) AuthConfigs() []composio.AuthConfig {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]composio.AuthConfig, 0, len(s.authConfigs))
	for _, ac := range s.authConfigs {
		out = append(out, ac)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// AddAccount stores a connected account; an empty ID gets one, an empty status ACTIVE.
func (s *Server) AddAccount(a composio.ConnectedAccount) composio.ConnectedAccount {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a.ID == "" {
		a.ID = s.nextID("ca_")
	}
	if a.Status == "" {
		a.Status = composio.StatusActive
	}
	a.Toolkit.Slug = composio.NormalizeToolkitSlug(a.Toolkit.Slug)
	s.accounts[a.ID] = &account{ConnectedAccount: a}
	return a
}

// Account returns a connected account by id, deleted ones included.
func (s *Server) Account(id string) (composio.ConnectedAccount, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.accounts[id]
	if !ok {
		return composio.ConnectedAccount{}, false
	}
	return a.ConnectedAccount, true
}

// SetAccountStatus changes a connected account's status, as when the user completes (or
// abandons) authorisation. It reports whether the account exists.
func (s *Server) SetAccountStatus(id, status string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.accounts[id]
	if !ok || a.deleted {
		return false
	}
	a.Status = strings.ToUpper(status)
	a.UpdatedAt = time.Now().UTC().Format(time.RFC3339)
	return true
}

func (s *Server) nextID(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s%06d", prefix, s.seq)
}

// reply is a response before faults are applied.
type reply struct {
	status int
	body   []byte
	header http.Header
}

func jsonReply(status int, v any) reply {
	b, err := json.Marshal(v)
	if err != nil {
		return errorReply(http.StatusInternalServerError, "composiotest: encoding response: "+err.Error(), "")
	}
	return reply{status: status, body: b}
}

// errorReply builds the API's error envelope.
func errorReply(status int, msg, fix string) reply {
	e := map[string]any{"message": msg, "code": status * 10, "status": status}
	if fix != "" {
		e["suggested_fix"] = fix
	}
	return jsonReply(status, map[string]any{"error": e})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	prefix, path := splitPrefix(r.URL.Path)
	q := r.URL.Query()
	req := Request{Method: r.Method, Prefix: prefix, Path: path, Query: q, Header: r.Header.Clone(), Body: body, Page: pageOf(q)}

	s.mu.Lock()
	s.seq++
	reqID := fmt.Sprintf("req_%06d", s.seq)
	s.requests = append(s.requests, req)
	f := s.matchFault(req)
	s.mu.Unlock()

	if f != nil && f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-r.Context().Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
	if f != nil && f.Disconnect {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	var rep reply
	if f != nil && f.Status != 0 && (f.Status < 200 || f.Status > 299) {
		if f.Body != "" {
			rep = reply{status: f.Status, body: []byte(f.Body)}
		} else {
			rep = errorReply(f.Status, "composiotest: injected fault", "")
		}
	} else {
		rep = s.route(r.Context(), req, body)
	}
	if f != nil {
		if f.Status >= 200 && f.Status <= 299 {
			rep.status = f.Status
		}
		if f.Body != "" && rep.status >= 200 && rep.status <= 299 {
			rep.body = []byte(f.Body)
		}
		if f.Truncate {
			rep.body = rep.body[:len(rep.body)/2]
		}
	}
	h := w.Header()
	h.Set("x-request-id", reqID)
	if rep.status >= 400 && bytes.HasPrefix(rep.body, []byte(`{"error":{`)) {
		rep.body = withRequestID(rep.body, reqID)
	}
	if f != nil && f.ContentType != "" {
		h.Set("Content-Type", f.ContentType)
	} else {
		h.Set("Content-Type", "application/json")
	}
	for k, v := range rep.header {
		h[k] = v
	}
	if f != nil {
		for k, v := range f.Header {
			h[http.CanonicalHeaderKey(k)] = v
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(rep.body)))
	w.WriteHeader(rep.status)
	w.Write(rep.body)
}

func withRequestID(body []byte, id string) []byte {
	var env map[string]map[string]any
	if json.Unmarshal(body, &env) != nil || env["error"] == nil {
		return body
	}
	env["error"]["request_id"] = id
	b, err := json.Marshal(env)
	if err != nil {
		return body
	}
	return b
}

func splitPrefix(p string) (prefix, rest string) {
	for _, pre := range []string{composio.PrefixV31, composio.PrefixV3} {
		if p == pre || strings.HasPrefix(p, pre+"/") {
			return pre, strings.TrimPrefix(p, pre)
		}
	}
	return "", p
}

// cursor encodes a page number and limit, like the API's base64 cursors.
func cursor(page, limit int) string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("page=%d&limit=%d", page, limit)))
}

func decodeCursor(c string) (page int, ok bool) {
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	v, err := url.ParseQuery(string(b))
	if err != nil {
		return 0, false
	}
	page, err = strconv.Atoi(v.Get("page"))
	return page, err == nil && page >= 1
}

func pageOf(q url.Values) int {
	if c := q.Get("cursor"); c != "" {
		if p, ok := decodeCursor(c); ok {
			return p
		}
		return 0
	}
	if q.Has("limit") {
		return 1
	}
	return 0
}

// pageBounds parses limit and cursor: the slice bounds of the page within n items.
func (s *Server) pageBounds(q url.Values, n int) (page, limit, lo, hi int, rep *reply) {
	limit = s.pageSize
	if v := q.Get("limit"); v != "" {
		l, err := strconv.Atoi(v)
		if err != nil || l < 0 {
			r := errorReply(http.StatusBadRequest, "limit must be a non-negative integer", "")
			return 0, 0, 0, 0, &r
		}
		if l > 0 {
			limit = min(l, MaxPageSize)
		}
	}
	page = 1
	if c := q.Get("cursor"); c != "" {
		p, ok := decodeCursor(c)
		if !ok {
			r := errorReply(http.StatusBadRequest, "invalid cursor", "pass the next_cursor of the previous page")
			return 0, 0, 0, 0, &r
		}
		page = p
	}
	lo = min((page-1)*limit, n)
	hi = min(lo+limit, n)
	return page, limit, lo, hi, nil
}

// pageJSON writes a page envelope around already-encoded items.
func pageJSON(items [][]byte, page, limit, total int) []byte {
	var b bytes.Buffer
	size := 128
	for _, it := range items {
		size += len(it) + 1
	}
	b.Grow(size)
	b.WriteString(`{"items":[`)
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	pages := (total + limit - 1) / limit
	b.WriteString(`],"next_cursor":`)
	if page < pages {
		b.WriteString(strconv.Quote(cursor(page+1, limit)))
	} else {
		b.WriteString("null")
	}
	fmt.Fprintf(&b, `,"total_pages":%d,"current_page":%d,"total_items":%d}`, pages, page, total)
	return b.Bytes()
}

func pageOfValues[T any](s *Server, q url.Values, all []T) reply {
	page, limit, lo, hi, bad := s.pageBounds(q, len(all))
	if bad != nil {
		return *bad
	}
	items := make([][]byte, 0, hi-lo)
	for _, v := range all[lo:hi] {
		b, err := json.Marshal(v)
		if err != nil {
			return errorReply(http.StatusInternalServerError, "composiotest: "+err.Error(), "")
		}
		items = append(items, b)
	}
	return reply{status: http.StatusOK, body: pageJSON(items, page, limit, len(all))}
}

// list splits comma-joined and repeated query values, trimmed, without empties.
func list(q url.Values, keys ...string) []string {
	var out []string
	for _, k := range keys {
		for _, v := range q[k] {
			for _, p := range strings.Split(v, ",") {
				if p = strings.TrimSpace(p); p != "" {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

func setOf(values []string, norm func(string) string) map[string]bool {
	if len(values) == 0 {
		return nil
	}
	m := make(map[string]bool, len(values))
	for _, v := range values {
		m[norm(v)] = true
	}
	return m
}

var errBadJSON = errors.New("request body is not valid JSON")

func decodeBody(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errBadJSON
	}
	if err := json.Unmarshal(body, v); err != nil {
		return errBadJSON
	}
	return nil
}
