package hint

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/cache"
)

// TestExplicitSlugsBounded: a slug the prompt names is found; the prompt's slug-like words
// are looked up once each and at most maxExplicitWords of them, so thousands of them cost
// no more than a few.
func TestExplicitSlugsBounded(t *testing.T) {
	metas := []cache.ActionMeta{{App: "gmail", Action: "GMAIL_SEND_EMAIL"}, {App: "slack", Action: "SLACK_SEND_MESSAGE"}}
	if got := explicitSlugs("run GMAIL_SEND_EMAIL, then GMAIL_SEND_EMAIL again and SLACK_SEND_MESSAGE", metas); !slices.Equal(got, []int32{0, 1}) {
		t.Errorf("named slugs: %v, want [0 1]", got)
	}
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "NOT_A_SLUG_%d ", i)
	}
	b.WriteString("SLACK_SEND_MESSAGE")
	if got := explicitSlugs(b.String(), metas); len(got) != 0 {
		t.Errorf("a slug after %d other slug-like words was looked up: %v", maxExplicitWords, got)
	}
}
