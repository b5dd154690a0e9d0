package composiotest_test

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
)

var catalogPath = flag.String("catalog", os.Getenv("TOOLHINT_CATALOG"), "path of the shared JSONL action catalogue (default $TOOLHINT_CATALOG)")

const rows = `{"app":"GMAIL","action":"GMAIL_SEND_EMAIL","display_name":"Send email","description":"Send an email","parameters":{"type":"object","properties":{"to":{"type":"string"}}},"tags":["important"],"no_auth":false}
{"app":"_21RISK","action":"_21RISK_GET_ITEMS","description":"Get items","parameters":{"type":"object"},"tags":[]}

{"app":"HACKERNEWS","action":"HACKERNEWS_GET_USER","display_name":"Get user","description":"Get a user","parameters":{"type":"object"},"no_auth":true}
`

func TestReadCatalog(t *testing.T) {
	cat, err := composiotest.ReadCatalog(strings.NewReader(rows))
	if err != nil {
		t.Fatal(err)
	}
	var tks, tools []string
	for _, tk := range cat.Toolkits {
		tks = append(tks, tk.Slug)
	}
	for _, tool := range cat.Tools {
		tools = append(tools, tool.Slug+"@"+tool.Toolkit.Slug)
	}
	if diff := cmp.Diff([]string{"_21risk", "gmail", "hackernews"}, tks); diff != "" {
		t.Errorf("toolkits (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"GMAIL_SEND_EMAIL@gmail", "_21RISK_GET_ITEMS@_21risk", "HACKERNEWS_GET_USER@hackernews"}, tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if !cat.Toolkits[2].NoAuth || cat.Toolkits[1].NoAuth || !cat.Tools[2].NoAuth {
		t.Error("no_auth not carried to toolkits and tools")
	}
	if cat.Tools[1].Name != "_21RISK_GET_ITEMS" || cat.Tools[0].Name != "Send email" {
		t.Errorf("names = %q, %q", cat.Tools[0].Name, cat.Tools[1].Name)
	}

	bad := []struct{ name, in string }{
		{"not JSON", "{\"app\":\n"},
		{"missing action", `{"app":"GMAIL"}`},
		{"wrong type", `{"app":"GMAIL","action":"GMAIL_X","tags":"x"}`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := composiotest.ReadCatalog(strings.NewReader(tt.in)); err == nil || !strings.Contains(err.Error(), "line 1") {
				t.Errorf("error = %v, want one naming line 1", err)
			}
		})
	}
}

func TestReadToolkits(t *testing.T) {
	in := `{"app":"GMAIL","display_name":"Gmail","description":"Mail","categories":["collaboration & communication"],"auth_schemes":["OAUTH2"],"composio_managed_auth_schemes":["OAUTH2"],"latest_version":"20260108_00"}
{"app":"HACKERNEWS","display_name":"Hacker News","auth_schemes":["NO_AUTH"]}`
	got, err := composiotest.ReadToolkits(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []composio.Toolkit{
		{Slug: "gmail", Name: "Gmail", AuthSchemes: []string{"OAUTH2"}, ComposioManagedAuthSchemes: []string{"OAUTH2"},
			Meta: composio.ToolkitMeta{Description: "Mail", Version: "20260108_00", Categories: []composio.Category{{ID: "collaboration-&-communication", Name: "collaboration & communication"}}}},
		{Slug: "hackernews", Name: "Hacker News", AuthSchemes: []string{"NO_AUTH"}, NoAuth: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("toolkits (-want +got):\n%s", diff)
	}
}

// get sends a raw request and decodes the JSON answer.
func get(t *testing.T, srv *composiotest.Server, path, key string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%s: body is not JSON: %s", path, body)
	}
	return resp.StatusCode, out
}

func TestServerBasics(t *testing.T) {
	cat, err := composiotest.ReadCatalog(strings.NewReader(rows))
	if err != nil {
		t.Fatal(err)
	}
	srv := composiotest.NewServer(t, composiotest.WithCatalog(cat), composiotest.WithDefaultPageSize(2))
	key := srv.APIKey()
	tests := []struct {
		name, path, key string
		status          int
		check           func(t *testing.T, body map[string]any)
	}{
		{"v3 prefix", "/api/v3/tools", key, 200, func(t *testing.T, b map[string]any) {
			if n := len(b["items"].([]any)); n != 2 {
				t.Errorf("default page size: %d items, want 2", n)
			}
			if b["next_cursor"] == nil || b["total_items"].(float64) != 3 || b["total_pages"].(float64) != 2 {
				t.Errorf("envelope = %v", b)
			}
		}},
		{"v3.1 prefix", "/api/v3.1/tools?limit=5000", key, 200, func(t *testing.T, b map[string]any) {
			if n := len(b["items"].([]any)); n != 3 || b["next_cursor"] != nil {
				t.Errorf("limit clamped to 1000: %d items, cursor %v", n, b["next_cursor"])
			}
		}},
		{"no key", "/api/v3/tools", "", 401, nil},
		{"wrong key", "/api/v3/tools", "nope", 401, nil},
		{"no prefix", "/tools", key, 404, nil},
		{"unknown route", "/api/v3/nothing", key, 404, nil},
		{"bad cursor", "/api/v3/tools?cursor=not-a-cursor", key, 400, nil},
		{"bad limit", "/api/v3/tools?limit=x", key, 400, nil},
		{"unknown tool", "/api/v3/tools/NOPE_X", key, 404, nil},
		{"toolkit", "/api/v3/toolkits/HACKERNEWS", key, 200, func(t *testing.T, b map[string]any) {
			if b["slug"] != "hackernews" || b["no_auth"] != true {
				t.Errorf("toolkit = %v", b)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := get(t, srv, tt.path, tt.key)
			if status != tt.status {
				t.Fatalf("status = %d, want %d (%v)", status, tt.status, body)
			}
			if status >= 400 {
				e, ok := body["error"].(map[string]any)
				if !ok || e["message"] == "" || e["status"].(float64) != float64(status) || e["request_id"] == "" {
					t.Errorf("error envelope = %v", body)
				}
			}
			if tt.check != nil {
				tt.check(t, body)
			}
		})
	}
	if n := len(srv.Requests()); n != len(tests) {
		t.Errorf("recorded %d requests, want %d", n, len(tests))
	}
}

// TestRequestsTo matches recorded requests the way fault rules match them.
func TestRequestsTo(t *testing.T) {
	cat, err := composiotest.ReadCatalog(strings.NewReader(rows))
	if err != nil {
		t.Fatal(err)
	}
	srv := composiotest.NewServer(t, composiotest.WithCatalog(cat))
	for _, p := range []string{"/api/v3/tools", "/api/v3/tools/GMAIL_SEND_EMAIL", "/api/v3/toolkits/gmail", "/api/v3/tools/HACKERNEWS_GET_USER"} {
		get(t, srv, p, srv.APIKey())
	}
	tests := []struct {
		name, method, path string
		want               []string
	}{
		{"exact", "GET", "/tools", []string{"/tools"}},
		{"prefix", "GET", "/tools/*", []string{"/tools/GMAIL_SEND_EMAIL", "/tools/HACKERNEWS_GET_USER"}},
		{"prefix without slash", "GET", "/tool*", []string{"/tools", "/tools/GMAIL_SEND_EMAIL", "/toolkits/gmail", "/tools/HACKERNEWS_GET_USER"}},
		{"any path", "GET", "", []string{"/tools", "/tools/GMAIL_SEND_EMAIL", "/toolkits/gmail", "/tools/HACKERNEWS_GET_USER"}},
		{"any method", "", "/toolkits/*", []string{"/toolkits/gmail"}},
		{"method in any case", "get", "/toolkits/gmail", []string{"/toolkits/gmail"}},
		{"other method", "POST", "/tools/*", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range srv.RequestsTo(tt.method, tt.path) {
				got = append(got, r.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("RequestsTo(%q, %q) (-want +got):\n%s", tt.method, tt.path, diff)
			}
		})
	}
}

func TestFaultRules(t *testing.T) {
	cat, err := composiotest.ReadCatalog(strings.NewReader(rows))
	if err != nil {
		t.Fatal(err)
	}
	srv := composiotest.NewServer(t, composiotest.WithCatalog(cat))
	srv.FailPage("/tools", 2, 1, composiotest.ServerError(503))
	srv.AddFault(composiotest.Rule{Method: "GET", Path: "/toolkits/*", Times: 2, Fault: composiotest.RateLimited(1500 * 1e6)})
	key := srv.APIKey()
	steps := []struct {
		path   string
		status int
	}{
		{"/api/v3/tools?limit=1", 200},
		{"/api/v3/tools?limit=1&cursor=" + "cGFnZT0yJmxpbWl0PTE=", 503}, // page=2&limit=1
		{"/api/v3/tools?limit=1&cursor=" + "cGFnZT0yJmxpbWl0PTE=", 200},
		{"/api/v3/toolkits/gmail", 429},
		{"/api/v3/toolkits/gmail", 429},
		{"/api/v3/toolkits/gmail", 200},
	}
	for i, st := range steps {
		status, body := get(t, srv, st.path, key)
		if status != st.status {
			t.Errorf("step %d %s: status %d, want %d (%v)", i, st.path, status, st.status, body)
		}
	}
	reqs := srv.Requests()
	if reqs[1].Page != 2 || reqs[0].Page != 1 {
		t.Errorf("pages recorded = %d, %d", reqs[0].Page, reqs[1].Page)
	}
	srv.ClearFaults()
	srv.FailNext(1, composiotest.RateLimited(2e9))
	req, _ := http.NewRequest("GET", srv.URL+"/api/v3/tools", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("retry-after") != "2" {
		t.Errorf("rate limit = %d retry-after %q", resp.StatusCode, resp.Header.Get("retry-after"))
	}
}

func TestSharedCatalogPages(t *testing.T) {
	if *catalogPath == "" {
		t.Skip("shared catalogue not given: set -catalog or TOOLHINT_CATALOG")
	}
	cat, err := composiotest.LoadCatalog(*catalogPath)
	if err != nil {
		t.Fatal(err)
	}
	srv := composiotest.NewServer(t, composiotest.WithCatalog(cat))
	status, body := get(t, srv, "/api/v3/tools?limit=1000", srv.APIKey())
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	total := int(body["total_items"].(float64))
	pages := int(body["total_pages"].(float64))
	if total != len(cat.Tools) || pages != (total+999)/1000 {
		t.Errorf("total_items %d, total_pages %d; catalogue has %d tools", total, pages, len(cat.Tools))
	}
	t.Logf("%d tools in %d toolkits, %d pages of 1000", total, len(cat.Toolkits), pages)
	if _, err := composiotest.LoadCatalog(t.TempDir() + "/missing.jsonl"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error = %v", err)
	}
}
