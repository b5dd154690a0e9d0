package composio

import (
	"errors"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// RetryPolicy says when and how long a Client waits before sending a request again.
// The zero value retries nothing; DefaultRetryPolicy returns the official SDKs' policy.
// A RetryPolicy is copied by New and not modified afterwards.
type RetryPolicy struct {
	// MaxRetries is how many times a request is sent again after its first attempt.
	// 0 disables retries.
	MaxRetries int
	// InitialDelay is the wait before the first retry; each later retry doubles it, up to
	// MaxDelay, and jitter takes up to a quarter off. Zero means 0.5 s.
	InitialDelay time.Duration
	// MaxDelay caps the computed backoff. Zero means 8 s. A retry-after header between 0
	// and 60 s is honoured as given, even above MaxDelay.
	MaxDelay time.Duration
	// RetryExecute opts executing a tool into the same retries as every other request.
	// When false (the default) an execution is retried only when it provably did not run:
	// the connection was refused (or the host was not found), the status was 429, or the
	// status was 503 with a retry-after header.
	RetryExecute bool
	// OnRetry, when non-nil, is called before each wait, from the goroutine making the
	// call. It must not block for long. A panic in it is logged and the retry goes ahead.
	OnRetry func(RetryEvent)
}

// RetryEvent describes a retry that is about to happen.
type RetryEvent struct {
	Method, Path string
	// Attempt is the number of the retry, from 1.
	Attempt int
	// StatusCode is the status of the failed attempt; 0 for a connection error.
	StatusCode int
	// Wait is how long the client waits before the retry.
	Wait time.Duration
	// Err is the failed attempt's error (an *APIError or a transport error).
	Err error
}

// DefaultRetryPolicy returns the policy of the official SDKs: 2 retries, backoff from
// 0.5 s to 8 s with jitter.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 2, InitialDelay: 500 * time.Millisecond, MaxDelay: 8 * time.Second}
}

func (p *RetryPolicy) normalise() {
	if p.MaxRetries < 0 {
		p.MaxRetries = 0
	}
	if p.InitialDelay <= 0 {
		p.InitialDelay = 500 * time.Millisecond
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 8 * time.Second
	}
}

// retryStatus reports whether a response with this status may be retried.
func (p *RetryPolicy) retryStatus(status int, hdr http.Header, execute bool) bool {
	should := strings.ToLower(strings.TrimSpace(hdr.Get("x-should-retry")))
	if should == "false" {
		return false
	}
	if execute && !p.RetryExecute {
		// The request reached the server; only statuses that say it was not processed.
		return status == http.StatusTooManyRequests ||
			(status == http.StatusServiceUnavailable && (hdr.Get("retry-after") != "" || hdr.Get("retry-after-ms") != ""))
	}
	if should == "true" {
		return true
	}
	return retryableStatus(status)
}

// retryableStatus reports whether a status is one a client retries by default (408, 409,
// 429, 5xx); APIError.Temporary reports the same set.
func retryableStatus(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// retryTransport reports whether a transport error may be retried.
func (p *RetryPolicy) retryTransport(err error, execute bool) bool {
	if errors.Is(err, ErrInvalidResponse) {
		return false
	}
	if execute && !p.RetryExecute {
		return notSent(err)
	}
	return true
}

// notSent reports whether err proves the request never reached the server.
func notSent(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

// delay returns the wait before retry number attempt+1: the server's retry-after-ms or
// retry-after when it lies in (0, 60 s], otherwise the jittered exponential backoff.
func (p *RetryPolicy) delay(attempt int, hdr http.Header) time.Duration {
	if d, ok := retryAfter(hdr, time.Now()); ok {
		return d
	}
	d := float64(p.InitialDelay) * math.Pow(2, float64(attempt))
	if d > float64(p.MaxDelay) {
		d = float64(p.MaxDelay)
	}
	return time.Duration(d * (1 - 0.25*rand.Float64()))
}

// retryAfter reads retry-after-ms, then retry-after (seconds or an HTTP date).
func retryAfter(hdr http.Header, now time.Time) (time.Duration, bool) {
	if hdr == nil {
		return 0, false
	}
	var d time.Duration
	if v := strings.TrimSpace(hdr.Get("retry-after-ms")); v != "" {
		ms, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(ms) || ms <= 0 || ms > 60000 {
			return 0, false
		}
		d = time.Duration(ms * float64(time.Millisecond))
	} else if v := strings.TrimSpace(hdr.Get("retry-after")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			if math.IsNaN(s) || s <= 0 || s > 60 {
				return 0, false
			}
			d = time.Duration(s * float64(time.Second))
		} else if t, err := http.ParseTime(v); err == nil {
			d = t.Sub(now)
		} else {
			return 0, false
		}
	} else {
		return 0, false
	}
	if d <= 0 || d > 60*time.Second {
		return 0, false
	}
	return d, true
}
