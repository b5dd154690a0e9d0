package cache_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
)

func TestDefaultTaxonomyIsValid(t *testing.T) {
	tax, err := cache.NewTaxonomy(cache.DefaultObjects(), cache.DefaultConcepts())
	if err != nil {
		t.Fatalf("NewTaxonomy(defaults): %v", err)
	}
	caps := tax.Capabilities()
	for _, id := range []string{"message.send", "email.read", "email.send", "issue.create",
		"calendar.event.create", "file.upload", "data.query", "channel.create"} {
		if _, ok := tax.Capability(id); !ok {
			t.Errorf("default taxonomy lacks %s", id)
		}
	}
	if !slices.IsSortedFunc(caps, func(a, b cache.Capability) int {
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	}) {
		t.Error("Capabilities() is not ordered by ID")
	}
	if !tax.IsGeneric("data.query") || tax.IsGeneric("message.send") {
		t.Error("IsGeneric: data.query should be generic, message.send not")
	}
}

func TestNewTaxonomyRefusesBadDefinitions(t *testing.T) {
	tests := []struct {
		name     string
		objects  []cache.Object
		concepts []cache.Concept
	}{
		{"object without name", []cache.Object{{Words: []string{"x"}}}, nil},
		{"object without words", []cache.Object{{Name: "x"}}, nil},
		{"unknown verb", []cache.Object{{Name: "x", Words: []string{"x"}, Verbs: []string{"teleport"}}}, nil},
		{"concept with unknown capability", nil, []cache.Concept{{Phrase: "boom", Capabilities: []string{"bomb.explode"}}}},
		{"empty concept", nil, []cache.Concept{{Phrase: " ", Capabilities: []string{"data.query"}}}},
		{"creation sends without a send verb", []cache.Object{{Name: "x", Words: []string{"x"}, CreateSends: true}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := cache.NewTaxonomy(tt.objects, tt.concepts); !errors.Is(err, cache.ErrInvalid) {
				t.Errorf("NewTaxonomy: err = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestTaxonomyExtends(t *testing.T) {
	objs := append(cache.DefaultObjects(), cache.Object{Name: "shipment", Words: []string{"shipment", "parcel"}})
	concepts := append(cache.DefaultConcepts(), cache.Concept{Phrase: "where is my package", Capabilities: []string{"shipment.read"}})
	tax, err := cache.NewTaxonomy(objs, concepts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"shipment.create"}, tax.PromptCapabilities("create a parcel for order 12")[:1]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := tax.PromptCapabilities("where is my package?"); !slices.Contains(got, "shipment.read") {
		t.Errorf("concept: got %v, want shipment.read among them", got)
	}
}

func TestPromptCapabilities(t *testing.T) {
	tax := cache.DefaultTaxonomy()
	tests := []struct {
		prompt string
		want   string // must be among the result
		not    string // must not be
	}{
		{"send a message to #general", "message.send", "channel.create"},
		{"create a new channel called launch", "channel.create", "message.send"},
		{"ping the team that the build is green", "message.send", ""},
		{"check my inbox", "email.read", ""},
		{"file a bug about the login page", "issue.create", ""},
		{"schedule a meeting with Dana tomorrow", "calendar.event.create", ""},
		{"upload the signed pdf to dropbox", "file.upload", ""},
		{"what is going on", "data.query", ""},
		{"cancel the Acme subscription", "subscription.delete", ""},
		{"list the open pull requests", "pull_request.read", "review.read"},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			got := tax.PromptCapabilities(tt.prompt)
			if !slices.Contains(got, tt.want) {
				t.Errorf("PromptCapabilities = %v, want %s among them", got, tt.want)
			}
			if tt.not != "" && slices.Contains(got, tt.not) {
				t.Errorf("PromptCapabilities = %v, want no %s", got, tt.not)
			}
		})
	}
}

func TestTaxonomyObjectsAndVerbs(t *testing.T) {
	tax := cache.DefaultTaxonomy()
	if got := tax.Objects("tickets"); !slices.Contains(got, "issue") {
		t.Errorf("Objects(tickets) = %v, want issue among them", got)
	}
	if got := tax.Objects("zzz"); got != nil {
		t.Errorf("Objects(zzz) = %v, want nil", got)
	}
	for verb, want := range map[string]string{"fetch": cache.CapRead, "reply": cache.CapSend,
		"archive": cache.CapDelete, "schedule": cache.CapCreate, "upload": cache.CapUpload, "blorp": ""} {
		if got := tax.CapabilityVerb(verb); got != want {
			t.Errorf("CapabilityVerb(%q) = %q, want %q", verb, got, want)
		}
	}
}
