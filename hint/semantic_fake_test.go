package hint_test

import (
	"context"
	"errors"
	"hash/fnv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/toolhint/toolhint/cache"
)

// fakeEmbedder is a deterministic stand-in for an embedding model: words of one concept
// (a tiny hand-made thesaurus, as a model would learn one) share a dimension; any other
// word lands in one of a few hashed dimensions with a small weight. It counts its calls.
type fakeEmbedder struct {
	model string
	faults
	short bool // returns one vector too few
	// pad adds dimensions of small hashed values, to give vectors a real model's length.
	pad int

	mu    sync.Mutex
	calls int
}

// fakeConcepts are the fake model's concepts.
var fakeConcepts = [][]string{
	{"remind", "reminder", "nudge", "task", "todo", "chore", "errand"},
	{"email", "mail", "message", "inbox", "mailbox", "write"},
	{"calendar", "event", "meeting", "schedule", "appointment"},
	{"list", "fetch", "show", "find"},
	{"send", "post", "deliver"},
	{"create", "add", "new", "make"},
	{"close", "complete", "done", "finish"},
}

// fakeDims: one dimension per concept, and 16 hashed ones.
var fakeDims = len(fakeConcepts) + 16

func (f *fakeEmbedder) Model() string {
	if f.model == "" {
		return "fake-embed-1"
	}
	return f.model
}

func (f *fakeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if err := f.faults.apply(ctx, "fake embedder broke"); err != nil {
		return nil, err
	}
	out := make([][]float32, 0, len(texts))
	for _, t := range texts {
		out = append(out, fakeVector(t, f.pad))
	}
	if f.short {
		out = out[:len(out)-1]
	}
	return out, nil
}

// faults are the ways a fake model misbehaves: failing, panicking, or being slower than any
// deadline.
type faults struct {
	fail  error // returned by every call
	slow  bool  // calls wait for ctx to end
	panic bool
}

// apply misbehaves as f says; nil means the call goes on.
func (f faults) apply(ctx context.Context, panicMsg string) error {
	switch {
	case f.panic:
		panic(panicMsg)
	case f.fail != nil:
		return f.fail
	case f.slow:
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(30 * time.Second):
			return errors.New("the test's deadline never came")
		}
	}
	return nil
}

// embedCalls returns how many times Embed was called.
func (f *fakeEmbedder) embedCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func fakeVector(text string, pad int) []float32 {
	v := make([]float32, fakeDims, fakeDims+pad)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		w = strings.TrimSuffix(w, "s")
		found := false
		for k, c := range fakeConcepts {
			for _, x := range c {
				if strings.TrimSuffix(x, "s") == w {
					v[k]++
					found = true
				}
			}
		}
		if !found {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[len(fakeConcepts)+int(h.Sum32()%16)] += 0.3
		}
	}
	h := fnv.New64a()
	h.Write([]byte(text))
	x := h.Sum64()
	for range pad {
		x = x*6364136223846793005 + 1442695040888963407
		v = append(v, float32(int64(x>>40)%1000)/1e5)
	}
	return v
}

// semanticStore is a memory store with a few actions of two apps.
func semanticStore(ctx context.Context) (*cache.Memory, error) {
	st := cache.NewMemory()
	b := cache.Batch{
		Apps: []cache.App{
			{Slug: "gmail", DisplayName: "Gmail", Description: "E-mail by Google."},
			{Slug: "todoist", DisplayName: "Todoist", Description: "A to-do list."},
		},
		Actions: []cache.Action{
			{App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email", Description: "Sends an email to one or more recipients.", Parameters: []byte(`{"type":"object"}`)},
			{App: "gmail", Slug: "GMAIL_FETCH_EMAILS", DisplayName: "Fetch emails", Description: "Lists emails in the mailbox.", Parameters: []byte(`{"type":"object"}`)},
			{App: "gmail", Slug: "GMAIL_CREATE_EMAIL_DRAFT", DisplayName: "Create email draft", Description: "Creates a draft.", Parameters: []byte(`{"type":"object"}`)},
			{App: "todoist", Slug: "TODOIST_CREATE_TASK", DisplayName: "Create task", Description: "Creates a task. A reminder can be set.", Parameters: []byte(`{"type":"object"}`)},
			{App: "todoist", Slug: "TODOIST_CLOSE_TASK", DisplayName: "Close task", Description: "Completes a task.", Parameters: []byte(`{"type":"object"}`)},
			{App: "todoist", Slug: "TODOIST_GET_ALL_PROJECTS", DisplayName: "Get all projects", Description: "Lists projects.", Parameters: []byte(`{"type":"object"}`)},
		},
	}
	if _, err := st.Apply(ctx, b); err != nil {
		return nil, err
	}
	return st, nil
}
