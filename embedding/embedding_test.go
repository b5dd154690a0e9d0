package embedding_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/embedding"
)

const key = "sk-test-0123456789abcdef"

// server is a fake embeddings endpoint: each input's vector is [len(text), first byte, 1],
// returned in reverse order (the index field says where each belongs).
type server struct {
	mu      sync.Mutex
	batches [][]string
	auth    []string
	models  []string
	dims    []int
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var req struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Dimensions int      `json:"dimensions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.batches = append(s.batches, req.Input)
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.models = append(s.models, req.Model)
	s.dims = append(s.dims, req.Dimensions)
	s.mu.Unlock()
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	}
	var data []item
	for i := len(req.Input) - 1; i >= 0; i-- {
		t := req.Input[i]
		first := 0.0
		if t != "" {
			first = float64(t[0])
		}
		data = append(data, item{"embedding", i, []float64{float64(len(t)), first, 1}})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
}

func newClient(t *testing.T, url string, cfg embedding.Config) *embedding.Client {
	t.Helper()
	cfg.BaseURL = url + "/v1"
	if cfg.Model == "" {
		cfg.Model = "test-embed"
	}
	c, err := embedding.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEmbed(t *testing.T) {
	s := &server{}
	ts := httptest.NewServer(s)
	defer ts.Close()
	c := newClient(t, ts.URL, embedding.Config{APIKey: key, MaxBatch: 2, Dimensions: 3})
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	got, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{1, 'a', 1}, {2, 'b', 1}, {3, 'c', 1}, {4, 'd', 1}, {5, 'e', 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"a", "bb"}, {"ccc", "dddd"}, {"eeeee"}}, s.batches); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
	for i := range s.auth {
		if s.auth[i] != "Bearer "+key || s.models[i] != "test-embed" || s.dims[i] != 3 {
			t.Errorf("request %d: auth %q model %q dimensions %d", i, s.auth[i], s.models[i], s.dims[i])
		}
	}
	if c.Model() != "test-embed" {
		t.Errorf("Model() = %q", c.Model())
	}

	// No key: no Authorization header (local servers).
	s2 := &server{}
	ts2 := httptest.NewServer(s2)
	defer ts2.Close()
	if _, err := newClient(t, ts2.URL, embedding.Config{}).Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if s2.auth[0] != "" {
		t.Errorf("Authorization %q sent without a key", s2.auth[0])
	}
	// Nothing to embed: no request.
	if vs, err := newClient(t, ts2.URL, embedding.Config{}).Embed(context.Background(), nil); err != nil || len(vs) != 0 || len(s2.batches) != 1 {
		t.Errorf("Embed(nil) = %v, %v after %d requests", vs, err, len(s2.batches))
	}
}

func TestEmbedErrors(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		cfg     embedding.Config
		is      error
		api     *embedding.APIError
		wantMsg string
	}{
		{name: "openai error echoing the key", status: 401,
			body: `{"error":{"message":"Incorrect API key provided: ` + key + `.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			api:  &embedding.APIError{StatusCode: 401, Type: "invalid_request_error", Code: "invalid_api_key", Message: "Incorrect API key provided: [redacted]."}},
		{name: "ollama error string", status: 404, body: `{"error":"model \"nomic\" not found, try pulling it first"}`,
			api: &embedding.APIError{StatusCode: 404, Message: `model "nomic" not found, try pulling it first`}},
		{name: "plain text error", status: 503, body: "overloaded " + key,
			api: &embedding.APIError{StatusCode: 503, Message: "overloaded [redacted]"}},
		{name: "not json", status: 200, body: "<html>", is: embedding.ErrResponse},
		{name: "too few vectors", status: 200, body: `{"data":[{"index":0,"embedding":[1,2]}]}`, is: embedding.ErrResponse},
		{name: "ragged vectors", status: 200, body: `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1]}]}`, is: embedding.ErrResponse},
		{name: "repeated index", status: 200, body: `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`, is: embedding.ErrResponse},
		{name: "empty vector", status: 200, body: `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[]}]}`, is: embedding.ErrResponse},
		{name: "not a float32", status: 200, body: `{"data":[{"index":0,"embedding":[1e39]},{"index":1,"embedding":[1]}]}`, is: embedding.ErrResponse},
		{name: "over the size limit", status: 200, body: `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[1]}]}` + strings.Repeat(" ", 100),
			cfg: embedding.Config{MaxResponseBytes: 64}, is: embedding.ErrResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			}))
			defer ts.Close()
			cfg := tt.cfg
			cfg.APIKey, cfg.MaxRetries = key, -1
			_, err := newClient(t, ts.URL, cfg).Embed(context.Background(), []string{"one", "two"})
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), key) {
				t.Errorf("error leaks the key: %v", err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			if tt.api != nil {
				var ae *embedding.APIError
				if !errors.As(err, &ae) {
					t.Fatalf("error %v is not an *APIError", err)
				}
				if diff := cmp.Diff(tt.api, ae); diff != "" {
					t.Errorf("APIError (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestEmbedDeadline: a server slower than the caller's deadline gives the context's error
// when the deadline passes, not when the server answers.
func TestEmbedDeadline(t *testing.T) {
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer ts.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := newClient(t, ts.URL, embedding.Config{APIKey: key}).Embed(ctx, []string{"x"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want a deadline", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("returned after %v", el)
	}
	if strings.Contains(err.Error(), key) {
		t.Errorf("error leaks the key: %v", err)
	}
}

// TestEmbedRetry: rate limits and server errors are retried, as often as configured;
// other errors are not.
func TestEmbedRetry(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int // answers before the fake's vectors
		retries  int
		wantErr  int // the APIError status expected, 0 for success
		requests int
	}{
		{"rate limit then ok", []int{429, 503}, 2, 0, 3},
		{"server errors past the budget", []int{500, 502, 500}, 1, 502, 2},
		{"bad request is final", []int{400}, 2, 400, 1},
		{"no retries", []int{429}, -1, 429, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			n := 0
			fake := &server{}
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				k := n
				n++
				mu.Unlock()
				if k < len(tt.statuses) {
					w.Header().Set("Retry-After", "1")
					w.WriteHeader(tt.statuses[k])
					fmt.Fprint(w, `{"error":{"message":"try later"}}`)
					return
				}
				fake.ServeHTTP(w, r)
			}))
			defer ts.Close()
			c := newClient(t, ts.URL, embedding.Config{MaxRetries: tt.retries, MaxRetryWait: time.Millisecond})
			vs, err := c.Embed(context.Background(), []string{"abc"})
			var ae *embedding.APIError
			switch {
			case tt.wantErr == 0 && (err != nil || len(vs) != 1):
				t.Errorf("Embed = %v, %v", vs, err)
			case tt.wantErr != 0 && (!errors.As(err, &ae) || ae.StatusCode != tt.wantErr):
				t.Errorf("Embed error %v, want status %d", err, tt.wantErr)
			}
			if n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
		})
	}
}

func TestNew(t *testing.T) {
	for _, cfg := range []embedding.Config{
		{Model: "m"},
		{BaseURL: "http://localhost:11434/v1"},
		{BaseURL: "localhost:11434", Model: "m"},
		{BaseURL: "ftp://example.com", Model: "m"},
		{BaseURL: "http://", Model: "m"},
	} {
		if _, err := embedding.New(cfg); !errors.Is(err, embedding.ErrConfig) {
			t.Errorf("New(%+v) = %v, want ErrConfig", cfg, err)
		}
	}
}
