package composio_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/composio"
)

func TestToolIDConversions(t *testing.T) {
	tests := []struct {
		name   string
		id     string
		isID   bool
		slug   string
		backID string
	}{
		{"plain", "composio-gmail_send_email", true, "GMAIL_SEND_EMAIL", "composio-gmail_send_email"},
		{"upper prefix", "COMPOSIO-gmail_send_email", true, "GMAIL_SEND_EMAIL", "composio-gmail_send_email"},
		{"leading underscore", "composio-_21risk_get_items", true, "_21RISK_GET_ITEMS", "composio-_21risk_get_items"},
		{"mixed case slug", "composio-Gmail_Send_Email", true, "GMAIL_SEND_EMAIL", "composio-gmail_send_email"},
		{"no prefix", "gmail_send_email", false, "", ""},
		{"prefix only", "composio-", false, "", ""},
		{"bad chars", "composio-gmail send", false, "", ""},
		{"underscores only", "composio-___", false, "", ""},
		{"other tool", "platform-read_file", false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := composio.IsToolID(tt.id); got != tt.isID {
				t.Errorf("IsToolID(%q) = %v, want %v", tt.id, got, tt.isID)
			}
			slug, ok := composio.ToolSlugFromID(tt.id)
			if ok != tt.isID || slug != tt.slug {
				t.Errorf("ToolSlugFromID(%q) = %q, %v; want %q, %v", tt.id, slug, ok, tt.slug, tt.isID)
			}
			if tt.isID {
				if got := composio.ToolID(slug); got != tt.backID {
					t.Errorf("ToolID(%q) = %q, want %q", slug, got, tt.backID)
				}
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, tool, toolkit string }{
		{" gmail_send_email ", "GMAIL_SEND_EMAIL", "gmail_send_email"},
		{"composio-github_star", "GITHUB_STAR", "composio-github_star"},
		{"_21RISK", "_21RISK", "_21risk"},
		{"One_Drive", "ONE_DRIVE", "one_drive"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := composio.NormalizeToolSlug(tt.in); got != tt.tool {
				t.Errorf("NormalizeToolSlug(%q) = %q, want %q", tt.in, got, tt.tool)
			}
			if got := composio.NormalizeToolkitSlug(tt.in); got != tt.toolkit {
				t.Errorf("NormalizeToolkitSlug(%q) = %q, want %q", tt.in, got, tt.toolkit)
			}
		})
	}
}

func TestToolkitOf(t *testing.T) {
	known := []string{"gmail", "one_drive", "one", "_21risk", "google", "googlesuper", "cloudflare", "CLOUDFLARE_API_KEY", "github"}
	tests := []struct {
		slug, want string
		ok         bool
	}{
		{"GMAIL_SEND_EMAIL", "gmail", true},
		{"ONE_DRIVE_LIST_ITEMS", "one_drive", true},
		{"ONE_THING", "one", true},
		{"_21RISK_GET_ITEMS", "_21risk", true},
		{"GOOGLESUPER_SEND_EMAIL", "googlesuper", true},
		{"GOOGLE_DRIVE_FIND", "google", true},
		{"CLOUDFLARE_API_KEY_LIST", "cloudflare_api_key", true},
		{"CLOUDFLARE_LIST_ZONES", "cloudflare", true},
		{"gmail_send_email", "gmail", true},
		{"composio-github_create_issue", "github", true},
		{"GMAIL", "", false},
		{"SLACK_SEND", "", false},
		{"", "", false},
		{"_", "", false},
	}
	ix := composio.NewToolkitIndex(known)
	if ix.Len() != len(known) {
		t.Fatalf("Len() = %d, want %d", ix.Len(), len(known))
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			got, ok := ix.Toolkit(tt.slug)
			if diff := cmp.Diff([]any{tt.want, tt.ok}, []any{got, ok}); diff != "" {
				t.Errorf("Toolkit(%q) (-want +got):\n%s", tt.slug, diff)
			}
			got2, ok2 := composio.ToolkitOf(tt.slug, known)
			if got2 != got || ok2 != ok {
				t.Errorf("ToolkitOf(%q) = %q, %v; index says %q, %v", tt.slug, got2, ok2, got, ok)
			}
		})
	}
}
