package embedding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Errors of the client.
var (
	// ErrConfig reports a Config New cannot use: no base URL or model, or a base URL that is
	// not an absolute http(s) URL.
	ErrConfig = errors.New("embedding: invalid config")
	// ErrResponse reports a response that is not a valid embeddings answer: not JSON, the
	// wrong number of vectors, vectors of different lengths, values that are not finite.
	ErrResponse = errors.New("embedding: invalid response")
)

// APIError is an error status from the server, with the message it gave (the API key, if
// the server echoed it, replaced by "[redacted]").
type APIError struct {
	StatusCode int
	Type       string // the error type the server named, if any ("invalid_request_error")
	Code       string // the error code the server named, if any
	Message    string
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	return fmt.Sprintf("embedding: server answered %d: %s", e.StatusCode, msg)
}

// Config configures a Client.
type Config struct {
	// BaseURL is the API root that /embeddings is appended to: "https://api.openai.com/v1",
	// "http://localhost:11434/v1" (Ollama), "http://localhost:8000/v1" (vLLM),
	// "http://localhost:1234/v1" (LM Studio). Required.
	BaseURL string
	// Model is the embedding model's name, sent with every request and returned by Model.
	// Required.
	Model string
	// APIKey is sent as a bearer token. Optional: local servers need none.
	APIKey string
	// Dimensions asks models that can shorten their vectors (OpenAI's text-embedding-3) for
	// this many dimensions. Optional. Zero leaves it to the model.
	Dimensions int
	// MaxBatch is the most texts sent in one request; Embed splits longer inputs. Optional.
	// Defaults to 128. Servers differ (OpenAI takes up to 2048 inputs; some local servers
	// far fewer).
	MaxBatch int
	// MaxResponseBytes bounds a response body. Optional. Defaults to 64 MiB.
	MaxResponseBytes int64
	// MaxRetries is how many times a batch is sent again after a rate limit (429) or a
	// server error (5xx), waiting as the server's Retry-After says (at most MaxRetryWait)
	// or backing off from half a second. Optional. Zero means 2; negative means none.
	MaxRetries int
	// MaxRetryWait bounds one wait before a retry. Optional. Defaults to 10s.
	MaxRetryWait time.Duration
	// HTTPClient sends the requests. Optional. Defaults to http.DefaultClient. Deadlines
	// come from the context passed to Embed.
	HTTPClient *http.Client
}

// Client calls an OpenAI-compatible embeddings endpoint. It is safe for concurrent use.
type Client struct {
	url   string
	cfg   Config
	httpc *http.Client
}

// New returns a client for cfg.
func New(cfg Config) (*Client, error) {
	if cfg.Model == "" {
		return nil, fmt.Errorf("%w: no model", ErrConfig)
	}
	u, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: base URL must be an absolute http or https URL", ErrConfig)
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 128
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = 64 << 20
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = 2
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.MaxRetryWait <= 0 {
		cfg.MaxRetryWait = 10 * time.Second
	}
	c := &Client{url: u.String() + "/embeddings", cfg: cfg, httpc: cfg.HTTPClient}
	if c.httpc == nil {
		c.httpc = http.DefaultClient
	}
	return c, nil
}

// Model returns the model's name (Config.Model): vectors of different models are not
// comparable, so stores key them by it.
func (c *Client) Model() string { return c.cfg.Model }

type request struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type response struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
}

type errorBody struct {
	Error json.RawMessage `json:"error"`
}

// Embed returns one vector per text, in order, all of the same length. It sends the texts
// in batches of Config.MaxBatch, one after another, retrying rate limits and server errors
// (Config.MaxRetries), and stops at the first failure: an *APIError for an error status,
// ErrResponse for an answer it cannot use, or the transport's or ctx's error. No text is no
// request and no vector.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += c.cfg.MaxBatch {
		batch := texts[start:min(start+c.cfg.MaxBatch, len(texts))]
		vs, err := c.embedRetrying(ctx, batch)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && len(vs[0]) != len(out[0]) {
			return nil, fmt.Errorf("%w: vectors of %d and %d dimensions", ErrResponse, len(out[0]), len(vs[0]))
		}
		out = append(out, vs...)
	}
	return out, nil
}

// embedRetrying sends one batch, again after a rate limit or a server error.
func (c *Client) embedRetrying(ctx context.Context, texts []string) ([][]float32, error) {
	backoff := 500 * time.Millisecond
	for attempt := 0; ; attempt++ {
		vs, wait, err := c.embed(ctx, texts)
		var ae *APIError
		if err == nil || attempt >= c.cfg.MaxRetries || !errors.As(err, &ae) ||
			ae.StatusCode != http.StatusTooManyRequests && ae.StatusCode < 500 {
			return vs, err
		}
		if wait <= 0 {
			wait = backoff
			backoff *= 2
		}
		t := time.NewTimer(min(wait, c.cfg.MaxRetryWait))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("embedding: %w (after %v)", ctx.Err(), err)
		case <-t.C:
		}
	}
}

// embed sends one batch. wait is what the server's Retry-After asks for, if anything.
func (c *Client) embed(ctx context.Context, texts []string) (vs [][]float32, wait time.Duration, err error) {
	body, err := json.Marshal(request{Model: c.cfg.Model, Input: texts, Dimensions: c.cfg.Dimensions})
	if err != nil {
		return nil, 0, fmt.Errorf("embedding: encoding request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, c.scrub(fmt.Errorf("embedding: %w", err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.httpc.Do(req)
	if err != nil {
		return nil, 0, c.scrub(fmt.Errorf("embedding: %w", err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxResponseBytes+1))
	if err != nil {
		return nil, 0, c.scrub(fmt.Errorf("embedding: reading response: %w", err))
	}
	if int64(len(raw)) > c.cfg.MaxResponseBytes {
		return nil, 0, fmt.Errorf("%w: body over %d bytes", ErrResponse, c.cfg.MaxResponseBytes)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, retryAfter(resp.Header.Get("Retry-After")), c.apiError(resp.StatusCode, raw)
	}
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrResponse, err)
	}
	if len(r.Data) != len(texts) {
		return nil, 0, fmt.Errorf("%w: %d vectors for %d inputs", ErrResponse, len(r.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	dim := len(r.Data[0].Embedding)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= len(texts) || out[d.Index] != nil {
			return nil, 0, fmt.Errorf("%w: index %d out of range or repeated", ErrResponse, d.Index)
		}
		if len(d.Embedding) == 0 || len(d.Embedding) != dim {
			return nil, 0, fmt.Errorf("%w: vectors of %d and %d dimensions", ErrResponse, dim, len(d.Embedding))
		}
		v := make([]float32, dim)
		for i, x := range d.Embedding {
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
				return nil, 0, fmt.Errorf("%w: a value that is not a finite float32", ErrResponse)
			}
			v[i] = float32(x)
		}
		out[d.Index] = v
	}
	return out, 0, nil
}

// apiError makes an *APIError of an error status, reading OpenAI's error object
// ({"error": {"message", "type", "code"}}) or a bare {"error": "..."} (Ollama) when present.
func (c *Client) apiError(status int, raw []byte) error {
	e := &APIError{StatusCode: status}
	var b errorBody
	if json.Unmarshal(raw, &b) == nil && len(b.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		}
		var s string
		switch {
		case json.Unmarshal(b.Error, &s) == nil:
			e.Message = s
		case json.Unmarshal(b.Error, &obj) == nil:
			e.Message, e.Type = obj.Message, obj.Type
			if obj.Code != nil {
				e.Code = fmt.Sprint(obj.Code)
			}
		}
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(raw[:min(len(raw), 512)]))
	}
	e.Message, e.Type, e.Code = c.redact(e.Message), c.redact(e.Type), c.redact(e.Code)
	return e
}

// retryAfter reads a Retry-After header given in seconds; 0 when there is none.
func retryAfter(h string) time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return 0
}

// redact removes the API key from s.
func (c *Client) redact(s string) string {
	if c.cfg.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.cfg.APIKey, "[redacted]")
}

// scrub returns err with the API key removed from its text.
func (c *Client) scrub(err error) error {
	if c.cfg.APIKey == "" || !strings.Contains(err.Error(), c.cfg.APIKey) {
		return err
	}
	return &scrubbed{msg: c.redact(err.Error()), err: err}
}

// scrubbed is an error whose text had the key removed; it still unwraps to the cause
// (context.DeadlineExceeded and the like), whose own text callers should not print.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }
