package cache

import (
	"errors"
	"testing"
)

func TestLikeEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"gmail", "gmail"},
		{"100%", `100\%`},
		{"e_mail", `e\_mail`},
		{`a\b`, `a\\b`},
		{`%_\`, `\%\_\\`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := likeEscape(tt.in); got != tt.want {
				t.Errorf("likeEscape(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormSlugs(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		app, act   string
		wantErrors bool
	}{
		{"lower", "gmail", "gmail", "GMAIL", false},
		{"upper", "GOOGLE_DRIVE", "google_drive", "GOOGLE_DRIVE", false},
		{"spaces trimmed", "  Slack ", "slack", "SLACK", false},
		{"leading underscore and digits", "_21RISK", "_21risk", "_21RISK", false},
		{"hyphen", "my-app", "my-app", "MY-APP", false},
		{"empty", "", "", "", true},
		{"blank", "   ", "", "", true},
		{"inner space", "my app", "", "", true},
		{"dot", "a.b", "", "", true},
		{"percent", "a%", "", "", true},
		{"non-ASCII", "gmäil", "", "", true},
		{"too long", string(make([]byte, MaxSlugLen+1)), "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app, err1 := normAppSlug(tt.in)
			act, err2 := normActionSlug(tt.in)
			if tt.wantErrors {
				if !errors.Is(err1, ErrInvalid) || !errors.Is(err2, ErrInvalid) {
					t.Errorf("errors %v, %v; want ErrInvalid", err1, err2)
				}
				return
			}
			if err1 != nil || err2 != nil || app != tt.app || act != tt.act {
				t.Errorf("normAppSlug, normActionSlug(%q) = %q, %v; %q, %v; want %q, %q", tt.in, app, err1, act, err2, tt.app, tt.act)
			}
		})
	}
}

func TestPageBounds(t *testing.T) {
	tests := []struct {
		limit, offset     int
		wantLim, wantOffs int
		wantErr           bool
	}{
		{0, 0, defaultPageLimit, 0, false},
		{10, 5, 10, 5, false},
		{maxPageLimit + 1, 0, maxPageLimit, 0, false},
		{-1, 0, 0, 0, true},
		{1, -1, 0, 0, true},
	}
	for _, tt := range tests {
		l, o, err := pageBounds(tt.limit, tt.offset)
		if tt.wantErr {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("pageBounds(%d, %d) error %v, want ErrInvalid", tt.limit, tt.offset, err)
			}
			continue
		}
		if err != nil || l != tt.wantLim || o != tt.wantOffs {
			t.Errorf("pageBounds(%d, %d) = %d, %d, %v; want %d, %d", tt.limit, tt.offset, l, o, err, tt.wantLim, tt.wantOffs)
		}
	}
}
