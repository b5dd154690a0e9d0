package composiotest

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/toolhint/toolhint/composio"
)

// route answers a request that got no replacing fault.
func (s *Server) route(ctx context.Context, req Request, body []byte) reply {
	if req.Prefix == "" {
		return errorReply(http.StatusNotFound, "no such route: "+req.Path, "use the /api/v3 or /api/v3.1 prefix")
	}
	if subtle.ConstantTimeCompare([]byte(req.Header.Get("x-api-key")), []byte(s.apiKey)) != 1 {
		return errorReply(http.StatusUnauthorized, "invalid or missing API key", "send the project API key in the x-api-key header")
	}
	seg := strings.Split(strings.Trim(req.Path, "/"), "/")
	for i, p := range seg {
		if u, err := url.PathUnescape(p); err == nil {
			seg[i] = u
		}
	}
	m, q := req.Method, req.Query
	switch {
	case m == "GET" && match(seg, "toolkits"):
		return s.listToolkits(q)
	case m == "GET" && match(seg, "toolkits", "categories"):
		return s.listCategories(q)
	case m == "GET" && match(seg, "toolkits", "*"):
		return s.getToolkit(seg[1])
	case m == "GET" && match(seg, "tools"):
		return s.listTools(q)
	case m == "GET" && match(seg, "tools", "enum"):
		return s.toolEnum()
	case m == "GET" && match(seg, "tools", "*"):
		return s.getTool(seg[1])
	case m == "POST" && match(seg, "tools", "execute", "*"):
		return s.execute(ctx, seg[2], body)
	case m == "POST" && match(seg, "tools", "execute", "*", "input"):
		return s.textToArguments(seg[2], body)
	case m == "GET" && match(seg, "auth_configs"):
		return s.listAuthConfigs(q)
	case m == "POST" && match(seg, "auth_configs"):
		return s.createAuthConfig(body)
	case m == "GET" && match(seg, "auth_configs", "*"):
		return s.getAuthConfig(seg[1])
	case m == "DELETE" && match(seg, "auth_configs", "*"):
		return s.deleteAuthConfig(seg[1])
	case m == "GET" && match(seg, "connected_accounts"):
		return s.listAccounts(q)
	case m == "POST" && match(seg, "connected_accounts"):
		return s.createAccount(body)
	case m == "POST" && match(seg, "connected_accounts", "link"):
		return s.link(body)
	case m == "GET" && match(seg, "connected_accounts", "*"):
		return s.getAccount(seg[1])
	case m == "DELETE" && match(seg, "connected_accounts", "*"):
		return s.deleteAccount(seg[1])
	case m == "PATCH" && match(seg, "connected_accounts", "*", "status"):
		return s.setAccountEnabled(seg[1], body)
	case m == "POST" && match(seg, "connected_accounts", "*", "refresh"):
		return s.refreshAccount(seg[1])
	case m == "POST" && match(seg, "tool_router", "session"):
		return s.createSession(body)
	case m == "POST" && match(seg, "tool_router", "session", "*", "search"):
		return s.search(seg[2], body)
	}
	return errorReply(http.StatusNotFound, fmt.Sprintf("no such route: %s %s", m, req.Path), "")
}

func match(seg []string, pattern ...string) bool {
	if len(seg) != len(pattern) {
		return false
	}
	for i, p := range pattern {
		if p == "*" {
			if seg[i] == "" {
				return false
			}
		} else if seg[i] != p {
			return false
		}
	}
	return true
}

// ---- toolkits ----

func (s *Server) listToolkits(q url.Values) reply {
	search := strings.ToLower(q.Get("search"))
	category := strings.ToLower(q.Get("category"))
	managed := q.Get("managed_by")
	s.mu.Lock()
	var out []composio.Toolkit
	for _, slug := range s.toolkitList {
		tk := s.toolkits[slug]
		if search != "" && !strings.Contains(strings.ToLower(tk.Slug+" "+tk.Name+" "+tk.Meta.Description), search) {
			continue
		}
		if category != "" && !hasCategory(tk, category) {
			continue
		}
		if managed == "composio" && len(tk.ComposioManagedAuthSchemes) == 0 {
			continue
		}
		out = append(out, tk)
	}
	s.mu.Unlock()
	if q.Get("sort_by") == "alphabetically" {
		sort.SliceStable(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	}
	return pageOfValues(s, q, out)
}

func hasCategory(tk composio.Toolkit, c string) bool {
	for _, cat := range tk.Meta.Categories {
		if strings.ToLower(cat.ID) == c || strings.ToLower(cat.Name) == c || strings.ToLower(cat.Slug) == c {
			return true
		}
	}
	return false
}

func (s *Server) listCategories(q url.Values) reply {
	s.mu.Lock()
	seen := map[string]composio.Category{}
	for _, tk := range s.toolkits {
		for _, c := range tk.Meta.Categories {
			id := c.ID
			if id == "" {
				id = categoryID(c.Name)
			}
			seen[id] = composio.Category{ID: id, Name: c.Name}
		}
	}
	s.mu.Unlock()
	out := make([]composio.Category, 0, len(seen))
	for _, c := range seen {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return pageOfValues(s, q, out)
}

func (s *Server) getToolkit(slug string) reply {
	s.mu.Lock()
	tk, ok := s.toolkits[composio.NormalizeToolkitSlug(slug)]
	s.mu.Unlock()
	if !ok {
		return errorReply(http.StatusNotFound, "toolkit not found: "+slug, "")
	}
	d := composio.ToolkitDetail{
		Slug: tk.Slug, Name: tk.Name, Enabled: true, AuthSchemes: tk.AuthSchemes,
		ComposioManagedAuthSchemes: tk.ComposioManagedAuthSchemes, NoAuth: tk.NoAuth,
		IsLocalToolkit: tk.IsLocalToolkit, Meta: tk.Meta,
	}
	for _, scheme := range tk.AuthSchemes {
		if strings.EqualFold(scheme, "NO_AUTH") {
			continue
		}
		d.AuthConfigDetails = append(d.AuthConfigDetails, composio.AuthConfigDetail{Mode: scheme, Name: scheme})
	}
	return jsonReply(http.StatusOK, d)
}

// ---- tools ----

func (s *Server) listTools(q url.Values) reply {
	toolSlugs := setOf(list(q, "tool_slugs"), composio.NormalizeToolSlug)
	toolkits := setOf(list(q, "toolkit_slug", "toolkit_slugs"), composio.NormalizeToolkitSlug)
	tags := setOf(list(q, "tags", "tags[]"), strings.ToLower)
	scopes := setOf(list(q, "scopes", "scopes[]"), func(s string) string { return s })
	words := strings.Fields(strings.ToLower(q.Get("query") + " " + q.Get("search")))
	important := q.Get("important") == "true"
	withDeprecated := q.Get("include_deprecated") != "false"

	s.mu.Lock()
	if ids := list(q, "auth_config_ids"); len(ids) > 0 && toolSlugs == nil {
		if toolkits == nil {
			toolkits = map[string]bool{}
		}
		for _, id := range ids {
			if ac, ok := s.authConfigs[id]; ok {
				toolkits[ac.Toolkit.Slug] = true
			}
		}
	}
	s.sortTools()
	var items []int
	for i := range s.tools {
		t := &s.tools[i].tool
		if toolSlugs != nil {
			if toolSlugs[t.Slug] {
				items = append(items, i)
			}
			continue
		}
		if toolkits != nil && !toolkits[t.Toolkit.Slug] {
			continue
		}
		if !withDeprecated && t.IsDeprecated {
			continue
		}
		if important && !hasTag(t, map[string]bool{"important": true}) {
			continue
		}
		if tags != nil && !hasTag(t, tags) {
			continue
		}
		if scopes != nil && !hasScope(t, scopes) {
			continue
		}
		if len(words) > 0 && !matchesAll(t, words) {
			continue
		}
		items = append(items, i)
	}
	page, limit, lo, hi, bad := s.pageBounds(q, len(items))
	if bad != nil {
		s.mu.Unlock()
		return *bad
	}
	enc := make([][]byte, 0, hi-lo)
	for _, i := range items[lo:hi] {
		enc = append(enc, s.tools[i].enc)
	}
	s.mu.Unlock()
	return reply{status: http.StatusOK, body: pageJSON(enc, page, limit, len(items))}
}

func hasTag(t *composio.Tool, want map[string]bool) bool {
	for _, tag := range t.Tags {
		if want[strings.ToLower(tag)] {
			return true
		}
	}
	return false
}

func hasScope(t *composio.Tool, want map[string]bool) bool {
	for _, sc := range t.Scopes {
		if want[sc] {
			return true
		}
	}
	return false
}

func searchText(t *composio.Tool) string {
	return strings.ToLower(strings.ReplaceAll(t.Slug, "_", " ") + " " + t.Name + " " + t.Description)
}

func matchesAll(t *composio.Tool, words []string) bool {
	text := searchText(t)
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

func (s *Server) toolEnum() reply {
	s.mu.Lock()
	s.sortTools()
	out := make([]string, 0, len(s.tools))
	for _, e := range s.tools {
		if !e.tool.IsDeprecated {
			out = append(out, e.tool.Slug)
		}
	}
	s.mu.Unlock()
	return jsonReply(http.StatusOK, out)
}

func (s *Server) lookupTool(slug string) (toolEntry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sortTools()
	i, ok := s.toolIndex[composio.NormalizeToolSlug(slug)]
	if !ok {
		return toolEntry{}, false
	}
	return s.tools[i], true
}

func (s *Server) getTool(slug string) reply {
	e, ok := s.lookupTool(slug)
	if !ok {
		return errorReply(http.StatusNotFound, "tool not found: "+slug, "list tools with GET /tools")
	}
	return reply{status: http.StatusOK, body: e.enc}
}

// ---- execute ----

func (s *Server) execute(ctx context.Context, slug string, body []byte) reply {
	var in struct {
		Arguments          json.RawMessage `json:"arguments"`
		Text               string          `json:"text"`
		UserID             string          `json:"user_id"`
		EntityID           string          `json:"entity_id"`
		ConnectedAccountID string          `json:"connected_account_id"`
		Version            string          `json:"version"`
	}
	if err := decodeBody(body, &in); err != nil {
		return errorReply(http.StatusBadRequest, err.Error(), "")
	}
	args := bytes.TrimSpace(in.Arguments)
	if len(args) > 0 && string(args) != "null" && in.Text != "" {
		return errorReply(http.StatusBadRequest, "arguments and text cannot be combined", "send one of them")
	}
	if len(args) == 0 || string(args) == "null" {
		args = []byte(`{}`)
	}
	if args[0] != '{' {
		return errorReply(http.StatusBadRequest, "arguments must be an object", "")
	}
	e, ok := s.lookupTool(slug)
	if !ok {
		return errorReply(http.StatusNotFound, "tool not found: "+slug, "")
	}
	if e.tool.IsDeprecated {
		return errorReply(http.StatusGone, "tool is deprecated and no longer available: "+e.tool.Slug, "")
	}
	if in.UserID == "" {
		in.UserID = in.EntityID
	}
	s.mu.Lock()
	if in.ConnectedAccountID != "" {
		a, ok := s.accounts[in.ConnectedAccountID]
		if !ok || a.deleted {
			s.mu.Unlock()
			return errorReply(http.StatusNotFound, "connected account not found: "+in.ConnectedAccountID, "")
		}
		if a.Status != composio.StatusActive || a.IsDisabled {
			s.mu.Unlock()
			return errorReply(http.StatusUnprocessableEntity, fmt.Sprintf("connected account %s is %s", a.ID, a.Status), "re-authorise the account")
		}
	}
	fn := s.handlers[e.tool.Slug]
	if fn == nil {
		fn = s.defaultExec
	}
	s.seq++
	logID := fmt.Sprintf("log_%06d", s.seq)
	s.mu.Unlock()
	if fn == nil {
		return errorReply(http.StatusNotImplemented, "composiotest: no execute handler for "+e.tool.Slug, "call Server.HandleExecute")
	}
	data, err := fn(ctx, ExecuteCall{Action: e.tool.Slug, Slug: e.tool.Slug, Arguments: json.RawMessage(args), Text: in.Text,
		UserID: in.UserID, ConnectedAccountID: in.ConnectedAccountID, Version: in.Version})
	var apiErr *composio.APIError
	if errors.As(err, &apiErr) {
		return errorReply(apiErr.StatusCode, apiErr.Message, apiErr.SuggestedFix)
	}
	out := map[string]any{"data": map[string]any{}, "error": nil, "successful": err == nil, "log_id": logID}
	if err != nil {
		out["error"] = err.Error()
	} else if data != nil {
		out["data"] = data
	}
	return jsonReply(http.StatusOK, out)
}

func (s *Server) textToArguments(slug string, body []byte) reply {
	var in struct {
		Text string `json:"text"`
	}
	if err := decodeBody(body, &in); err != nil || strings.TrimSpace(in.Text) == "" {
		return errorReply(http.StatusBadRequest, "text is required", "")
	}
	e, ok := s.lookupTool(slug)
	if !ok {
		return errorReply(http.StatusNotFound, "tool not found: "+slug, "")
	}
	s.mu.Lock()
	fn := s.argsFunc
	s.mu.Unlock()
	if fn == nil {
		return errorReply(http.StatusNotImplemented, "composiotest: no arguments handler", "call Server.HandleArguments")
	}
	args, err := fn(e.tool.Slug, in.Text)
	if err != nil {
		return jsonReply(http.StatusOK, map[string]any{"arguments": map[string]any{}, "error": err.Error()})
	}
	return jsonReply(http.StatusOK, map[string]any{"arguments": args})
}

// ---- auth configs ----

func (s *Server) listAuthConfigs(q url.Values) reply {
	toolkits := setOf(list(q, "toolkit_slug"), composio.NormalizeToolkitSlug)
	search := strings.ToLower(q.Get("search"))
	var out []composio.AuthConfig
	for _, ac := range s.AuthConfigs() {
		if toolkits != nil && !toolkits[ac.Toolkit.Slug] {
			continue
		}
		if q.Get("is_composio_managed") == "true" && !ac.IsComposioManaged {
			continue
		}
		if q.Get("show_disabled") != "true" && ac.Status == "DISABLED" {
			continue
		}
		if search != "" && !strings.Contains(strings.ToLower(ac.Name+" "+ac.ID+" "+ac.Toolkit.Slug), search) {
			continue
		}
		out = append(out, ac)
	}
	return pageOfValues(s, q, out)
}

func (s *Server) createAuthConfig(body []byte) reply {
	var in struct {
		Toolkit struct {
			Slug string `json:"slug"`
		} `json:"toolkit"`
		AuthConfig struct {
			Type       string   `json:"type"`
			AuthScheme string   `json:"authScheme"`
			Name       string   `json:"name"`
			Restrict   []string `json:"restrict_to_following_tools"`
		} `json:"auth_config"`
	}
	if err := decodeBody(body, &in); err != nil {
		return errorReply(http.StatusBadRequest, err.Error(), "")
	}
	slug := composio.NormalizeToolkitSlug(in.Toolkit.Slug)
	s.mu.Lock()
	defer s.mu.Unlock()
	tk, ok := s.toolkits[slug]
	if !ok {
		return errorReply(http.StatusNotFound, "toolkit not found: "+in.Toolkit.Slug, "")
	}
	ac := composio.AuthConfig{Toolkit: composio.ToolkitRef{Slug: slug}, Name: in.AuthConfig.Name, RestrictToFollowingTools: in.AuthConfig.Restrict,
		CreatedAt: time.Now().UTC().Format(time.RFC3339)}
	switch in.AuthConfig.Type {
	case "use_composio_managed_auth", "":
		if len(tk.ComposioManagedAuthSchemes) == 0 {
			return errorReply(http.StatusBadRequest, "toolkit "+slug+" has no composio-managed auth scheme", "create a custom auth config")
		}
		ac.Type, ac.IsComposioManaged, ac.AuthScheme = "default", true, tk.ComposioManagedAuthSchemes[0]
	case "use_custom_auth":
		if in.AuthConfig.AuthScheme == "" {
			return errorReply(http.StatusBadRequest, "authScheme is required for custom auth", "")
		}
		ac.Type, ac.AuthScheme = "custom", in.AuthConfig.AuthScheme
	default:
		return errorReply(http.StatusBadRequest, "unknown auth config type: "+in.AuthConfig.Type, "")
	}
	if ac.Name == "" {
		ac.Name = tk.Name + " auth"
	}
	ac = s.addAuthConfig(ac)
	return jsonReply(http.StatusCreated, map[string]any{"toolkit": map[string]string{"slug": slug},
		"auth_config": map[string]any{"id": ac.ID, "auth_scheme": ac.AuthScheme, "is_composio_managed": ac.IsComposioManaged,
			"restrict_to_following_tools": ac.RestrictToFollowingTools}})
}

func (s *Server) getAuthConfig(id string) reply {
	s.mu.Lock()
	ac, ok := s.authConfigs[id]
	s.mu.Unlock()
	if !ok {
		return errorReply(http.StatusNotFound, "auth config not found: "+id, "")
	}
	return jsonReply(http.StatusOK, ac)
}

func (s *Server) deleteAuthConfig(id string) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.authConfigs[id]; !ok {
		return errorReply(http.StatusNotFound, "auth config not found: "+id, "")
	}
	delete(s.authConfigs, id)
	return jsonReply(http.StatusOK, map[string]any{})
}

// ---- connected accounts ----

func (s *Server) listAccounts(q url.Values) reply {
	toolkits := setOf(list(q, "toolkit_slugs", "toolkit_slugs[]"), composio.NormalizeToolkitSlug)
	statuses := setOf(list(q, "statuses", "statuses[]"), strings.ToUpper)
	users := setOf(list(q, "user_ids", "user_ids[]"), func(s string) string { return s })
	acs := setOf(list(q, "auth_config_ids", "auth_config_ids[]"), func(s string) string { return s })
	ids := setOf(list(q, "connected_account_ids", "connected_account_ids[]"), func(s string) string { return s })
	s.mu.Lock()
	var out []composio.ConnectedAccount
	for _, a := range s.accounts {
		switch {
		case a.deleted,
			toolkits != nil && !toolkits[a.Toolkit.Slug],
			statuses != nil && !statuses[a.Status],
			users != nil && !users[a.UserID],
			acs != nil && !acs[a.AuthConfig.ID],
			ids != nil && !ids[a.ID]:
			continue
		}
		out = append(out, a.ConnectedAccount)
	}
	s.mu.Unlock()
	desc := q.Get("order_direction") != "asc"
	sort.Slice(out, func(i, j int) bool {
		if desc {
			return out[i].ID > out[j].ID
		}
		return out[i].ID < out[j].ID
	})
	return pageOfValues(s, q, out)
}

// newAccount creates an account on an auth config; the caller holds mu.
func (s *Server) newAccount(authConfigID, userID, status string) (*account, *reply) {
	ac, ok := s.authConfigs[authConfigID]
	if !ok {
		r := errorReply(http.StatusNotFound, "auth config not found: "+authConfigID, "")
		return nil, &r
	}
	if userID == "" {
		r := errorReply(http.StatusBadRequest, "user_id is required", "")
		return nil, &r
	}
	now := time.Now().UTC().Format(time.RFC3339)
	a := &account{ConnectedAccount: composio.ConnectedAccount{
		ID: s.nextID("ca_"), UserID: userID, Status: status, CreatedAt: now, UpdatedAt: now,
		Toolkit:    composio.ToolkitRef{Slug: ac.Toolkit.Slug},
		AuthConfig: composio.AccountConfig{ID: ac.ID, AuthScheme: ac.AuthScheme, IsComposioManaged: ac.IsComposioManaged},
	}}
	s.accounts[a.ID] = a
	return a, nil
}

func (s *Server) redirectURL(id string) string {
	return s.URL + "/connect/" + id
}

func (s *Server) createAccount(body []byte) reply {
	var in struct {
		AuthConfig struct {
			ID string `json:"id"`
		} `json:"auth_config"`
		Connection struct {
			UserID string `json:"user_id"`
			State  *struct {
				AuthScheme string `json:"authScheme"`
				Val        struct {
					Status string `json:"status"`
				} `json:"val"`
			} `json:"state"`
		} `json:"connection"`
	}
	if err := decodeBody(body, &in); err != nil {
		return errorReply(http.StatusBadRequest, err.Error(), "")
	}
	status := composio.StatusInitiated
	if st := in.Connection.State; st != nil && (strings.EqualFold(st.Val.Status, composio.StatusActive) ||
		(st.AuthScheme != "" && !strings.HasPrefix(strings.ToUpper(st.AuthScheme), "OAUTH"))) {
		status = composio.StatusActive
	}
	s.mu.Lock()
	a, bad := s.newAccount(in.AuthConfig.ID, in.Connection.UserID, status)
	s.mu.Unlock()
	if bad != nil {
		return *bad
	}
	val := map[string]any{"status": status}
	redirect := ""
	if status != composio.StatusActive {
		redirect = s.redirectURL(a.ID)
		val["redirectUrl"] = redirect
	}
	return jsonReply(http.StatusCreated, map[string]any{"id": a.ID, "status": status, "redirect_url": redirect,
		"connectionData": map[string]any{"authScheme": a.AuthConfig.AuthScheme, "val": val}})
}

func (s *Server) link(body []byte) reply {
	var in struct {
		AuthConfigID string `json:"auth_config_id"`
		UserID       string `json:"user_id"`
	}
	if err := decodeBody(body, &in); err != nil {
		return errorReply(http.StatusBadRequest, err.Error(), "")
	}
	s.mu.Lock()
	a, bad := s.newAccount(in.AuthConfigID, in.UserID, composio.StatusInitiated)
	s.mu.Unlock()
	if bad != nil {
		return *bad
	}
	return jsonReply(http.StatusCreated, map[string]any{"link_token": "lt_" + a.ID, "redirect_url": s.redirectURL(a.ID),
		"expires_at": time.Now().Add(10 * time.Minute).UTC().Format(time.RFC3339), "connected_account_id": a.ID})
}

func (s *Server) account(id string) (*account, *reply) {
	a, ok := s.accounts[id]
	if !ok || a.deleted {
		r := errorReply(http.StatusNotFound, "connected account not found: "+id, "")
		return nil, &r
	}
	return a, nil
}

func (s *Server) getAccount(id string) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, bad := s.account(id)
	if bad != nil {
		return *bad
	}
	return jsonReply(http.StatusOK, a.ConnectedAccount)
}

func (s *Server) deleteAccount(id string) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, bad := s.account(id)
	if bad != nil {
		return *bad
	}
	a.deleted = true
	return jsonReply(http.StatusOK, map[string]any{"success": true})
}

func (s *Server) setAccountEnabled(id string, body []byte) reply {
	var in struct {
		Enabled *bool `json:"enabled"`
	}
	if err := decodeBody(body, &in); err != nil || in.Enabled == nil {
		return errorReply(http.StatusBadRequest, "enabled is required", "")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, bad := s.account(id)
	if bad != nil {
		return *bad
	}
	a.IsDisabled = !*in.Enabled
	return jsonReply(http.StatusOK, map[string]any{"success": true})
}

func (s *Server) refreshAccount(id string) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, bad := s.account(id)
	if bad != nil {
		return *bad
	}
	a.Status = composio.StatusInitiated
	return jsonReply(http.StatusOK, map[string]any{"id": a.ID, "status": a.Status, "redirect_url": s.redirectURL(a.ID)})
}

// ---- tool router ----

func (s *Server) createSession(body []byte) reply {
	var in struct {
		UserID   string `json:"user_id"`
		Toolkits struct {
			Enable []string `json:"enable"`
		} `json:"toolkits"`
	}
	if err := decodeBody(body, &in); err != nil || in.UserID == "" {
		return errorReply(http.StatusBadRequest, "user_id is required", "")
	}
	var tks []string
	for _, t := range in.Toolkits.Enable {
		tks = append(tks, composio.NormalizeToolkitSlug(t))
	}
	s.mu.Lock()
	id := s.nextID("trs_")
	s.sessions[id] = tks
	s.mu.Unlock()
	return jsonReply(http.StatusCreated, map[string]any{"session_id": id,
		"mcp":               map[string]string{"type": "http", "url": s.URL + "/mcp/" + id},
		"tool_router_tools": []string{"COMPOSIO_SEARCH_TOOLS", "COMPOSIO_MULTI_EXECUTE_TOOL", "COMPOSIO_MANAGE_CONNECTIONS", "COMPOSIO_GET_TOOL_SCHEMAS"}})
}

func (s *Server) search(sessionID string, body []byte) reply {
	var in struct {
		Queries []struct {
			UseCase string `json:"use_case"`
		} `json:"queries"`
	}
	if err := decodeBody(body, &in); err != nil || len(in.Queries) == 0 {
		return errorReply(http.StatusBadRequest, "queries are required", "")
	}
	s.mu.Lock()
	tks, ok := s.sessions[sessionID]
	fn := s.searchFunc
	s.mu.Unlock()
	if !ok {
		return errorReply(http.StatusNotFound, "session not found: "+sessionID, "create a session first")
	}
	if fn == nil {
		fn = s.defaultSearch
	}
	results := make([]map[string]any, 0, len(in.Queries))
	for i, q := range in.Queries {
		if strings.TrimSpace(q.UseCase) == "" {
			return errorReply(http.StatusBadRequest, fmt.Sprintf("query %d: use_case is required", i), "")
		}
		primary, related := fn(q.UseCase, tks)
		toolkitSet := map[string]bool{}
		ix := composio.NewToolkitIndex(s.toolkitSlugs())
		for _, sl := range append(append([]string(nil), primary...), related...) {
			if tk, ok := ix.Toolkit(sl); ok {
				toolkitSet[tk] = true
			}
		}
		found := make([]string, 0, len(toolkitSet))
		for tk := range toolkitSet {
			found = append(found, tk)
		}
		sort.Strings(found)
		results = append(results, map[string]any{"index": i + 1, "use_case": q.UseCase,
			"primary_tool_slugs": nonNil(primary), "related_tool_slugs": nonNil(related), "toolkits": found, "error": nil})
	}
	return jsonReply(http.StatusOK, map[string]any{"success": true, "error": nil, "results": results})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (s *Server) toolkitSlugs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.toolkitList...)
}

// defaultSearch ranks tools by the number of the query's words (3+ letters) found in
// their slug, name and description, deprecated tools left out; the best three are primary, the next five related.
func (s *Server) defaultSearch(useCase string, toolkits []string) (primary, related []string) {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(useCase)) {
		w = strings.Trim(w, ".,;:!?\"'()")
		if len(w) >= 3 {
			words = append(words, w)
		}
	}
	allowed := setOf(toolkits, composio.NormalizeToolkitSlug)
	type scored struct {
		slug  string
		score int
	}
	var hits []scored
	s.mu.Lock()
	s.sortTools()
	for _, e := range s.tools {
		if e.tool.IsDeprecated || (allowed != nil && !allowed[e.tool.Toolkit.Slug]) {
			continue
		}
		text := searchText(&e.tool)
		n := 0
		for _, w := range words {
			if strings.Contains(text, w) {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, scored{e.tool.Slug, n})
		}
	}
	s.mu.Unlock()
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	for i, h := range hits {
		switch {
		case i < 3:
			primary = append(primary, h.slug)
		case i < 8:
			related = append(related, h.slug)
		}
	}
	return primary, related
}
