package cache

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
)

// UsageEvent is one finished tool call as a workspace's record of use keeps it: who made
// it, which action, whether it succeeded, and the analysed terms of the request that led
// to it. It never holds the request's text. It is a plain value.
type UsageEvent struct {
	WorkspaceID string
	// AgentID is the agent that made the call; 0 when unknown.
	AgentID int64
	App     string // the action's app, lower case
	Action  string // the action's slug (Action.Slug), upper case
	// OK reports whether the call succeeded; a failed call counts against the action.
	OK bool
	// Terms are the stemmed content terms of the request (see hint.PromptTerms): lower
	// case, each one word, at most MaxUsageTerms (the rest are dropped), duplicates
	// dropped, in their first order.
	Terms []string
	// At is when the call finished. The zero time means now. Stored in UTC, to the
	// microsecond.
	At time.Time
}

// Limits of the record of use.
const (
	// MaxUsageTerms is the number of terms kept per event.
	MaxUsageTerms = 32
	// MaxUsageTermLen is the longest term, in bytes.
	MaxUsageTermLen = 64
	// DefaultUsageRetention is how long events are kept when UsageLimits.Retention is 0.
	DefaultUsageRetention = 90 * 24 * time.Hour
	// DefaultUsageMaxPerWorkspace is the number of events kept per workspace when
	// UsageLimits.MaxPerWorkspace is 0.
	DefaultUsageMaxPerWorkspace = 5000
)

// UsageLimits bound a workspace's record of use. Zero fields take the defaults. It is plain
// data.
type UsageLimits struct {
	// Retention is how long an event is kept. Optional. Defaults to DefaultUsageRetention.
	Retention time.Duration
	// MaxPerWorkspace is the number of a workspace's newest events kept. Optional. Defaults
	// to DefaultUsageMaxPerWorkspace.
	MaxPerWorkspace int
}

func (l UsageLimits) withDefaults() UsageLimits {
	if l.Retention <= 0 {
		l.Retention = DefaultUsageRetention
	}
	if l.MaxPerWorkspace <= 0 {
		l.MaxPerWorkspace = DefaultUsageMaxPerWorkspace
	}
	return l
}

// UsageStore keeps each workspace's record of use: the finished calls that usage priors
// (hint.UsageConfig) learn from. *Memory and *Postgres implement it; both pass
// cachetest.RunUsage. Implementations are safe for concurrent use.
type UsageStore interface {
	// RecordUsage adds events, all or none: an event with an invalid workspace, app,
	// action or term, or a negative agent, is ErrInvalid and nothing is written. Events
	// older than lim's retention are dropped; afterwards every workspace written to keeps
	// only its events within the retention, and at most lim.MaxPerWorkspace of the newest.
	RecordUsage(ctx context.Context, events []UsageEvent, lim UsageLimits) error
	// Usage returns a workspace's events that finished at or after since (the zero time:
	// all), newest first; events of the same time, the last recorded first.
	Usage(ctx context.Context, workspaceID string, since time.Time) ([]UsageEvent, error)
	// PurgeUsage deletes a workspace's record of use and returns how many events it held.
	PurgeUsage(ctx context.Context, workspaceID string) (int, error)
}

// prepareUsage is the first half of RecordUsage for every store: it checks ctx and the
// events, and returns them in stored form (see normUsage) with the limits and the
// retention cutoff as of at.
func prepareUsage(ctx context.Context, events []UsageEvent, lim UsageLimits, at time.Time) ([]UsageEvent, UsageLimits, time.Time, error) {
	if err := ctx.Err(); err != nil {
		return nil, lim, time.Time{}, err
	}
	lim = lim.withDefaults()
	cutoff := at.Add(-lim.Retention)
	evs, err := normUsage(events, at, cutoff)
	return evs, lim, cutoff, err
}

// normUsage checks events and returns them in stored form: slugs folded, terms lower case
// and deduplicated, times in UTC to the microsecond (now for the zero time), and those
// older than cutoff left out.
func normUsage(events []UsageEvent, at, cutoff time.Time) ([]UsageEvent, error) {
	out := make([]UsageEvent, 0, len(events))
	for i, e := range events {
		if err := checkWorkspace(e.WorkspaceID); err != nil {
			return nil, fmt.Errorf("usage event %d: %w", i, err)
		}
		if e.AgentID < 0 {
			return nil, fmt.Errorf("%w: usage event %d: negative agent id", ErrInvalid, i)
		}
		app, err := normAppSlug(e.App)
		if err != nil {
			return nil, fmt.Errorf("usage event %d: %w", i, err)
		}
		action, err := normActionSlug(e.Action)
		if err != nil {
			return nil, fmt.Errorf("usage event %d: %w", i, err)
		}
		terms := make([]string, 0, min(len(e.Terms), MaxUsageTerms))
		for _, t := range e.Terms {
			if err := CheckUsageTerm(t); err != nil {
				return nil, fmt.Errorf("%w: usage event %d: %v", ErrInvalid, i, err)
			}
			t = strings.ToLower(t)
			if len(terms) < MaxUsageTerms && !slices.Contains(terms, t) {
				terms = append(terms, t)
			}
		}
		ts := at
		if !e.At.IsZero() {
			ts = e.At.UTC().Truncate(time.Microsecond)
		}
		if ts.Before(cutoff) {
			continue
		}
		out = append(out, UsageEvent{WorkspaceID: e.WorkspaceID, AgentID: e.AgentID, App: app, Action: action, OK: e.OK, Terms: terms, At: ts})
	}
	return out, nil
}

// CheckUsageTerm refuses a term a record of use cannot keep: one that is not one short
// word (at most MaxUsageTermLen bytes) of printable UTF-8.
func CheckUsageTerm(t string) error {
	if t == "" {
		return fmt.Errorf("empty term")
	}
	if err := checkText("term", t, MaxUsageTermLen); err != nil {
		return err
	}
	if strings.IndexFunc(t, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		return fmt.Errorf("term %q is not one word", t)
	}
	return nil
}
