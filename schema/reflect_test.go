package schema_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/schema"
)

type remindArgs struct {
	Text   string   `json:"text" jsonschema:"description=What to remind about."`
	At     string   `json:"at" jsonschema:"format=date-time"`
	Repeat string   `json:"repeat,omitempty" jsonschema:"enum=daily,enum=weekly"`
	Tags   []string `json:"tags,omitempty"`
	Where  place    `json:"where"`
	Secret string   `json:"-"`
}

type place struct {
	City string `json:"city"`
}

func TestFromType(t *testing.T) {
	got, err := schema.FromType[remindArgs]()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"additionalProperties":false,"properties":{"at":{"format":"date-time","type":"string"},"repeat":{"enum":["daily","weekly"],"type":"string"},"tags":{"items":{"type":"string"},"type":"array"},"text":{"description":"What to remind about.","type":"string"},"where":{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}},"required":["at","text","where"],"type":"object"}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
	f, err := schema.Convert("REMIND", "Set a reminder.", got)
	if err != nil {
		t.Fatal(err)
	}
	if f.StrictReason != "" {
		t.Errorf("reflected schema is not strict-ready: %s", f.StrictReason)
	}
	same, err := schema.Reflect(&remindArgs{})
	if err != nil || string(same) != string(got) {
		t.Errorf("Reflect(&v) = %s, %v; want the FromType result", same, err)
	}
	for _, bad := range []any{42, struct{ C chan int }{}, struct{ F func() }{}, nil} {
		if _, err := schema.Reflect(bad); !errors.Is(err, schema.ErrInvalidSchema) {
			t.Errorf("Reflect(%T) error = %v, want ErrInvalidSchema", bad, err)
		}
	}
	v, err := schema.Compile(got)
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(remindArgs{Text: "call", At: "2026-01-02T10:00:00Z", Where: place{City: "Oslo"}})
	if err := v.Validate(args); err != nil {
		t.Errorf("a marshalled value does not validate: %v", err)
	}
}

type treeNode struct {
	Name     string      `json:"name"`
	Children []*treeNode `json:"children,omitempty"`
}

func TestFromTypeRecursive(t *testing.T) {
	got, err := schema.FromType[treeNode]()
	if err != nil {
		t.Fatal(err)
	}
	v, err := schema.Compile(got)
	if err != nil {
		t.Fatalf("Compile(%s): %v", got, err)
	}
	args, _ := json.Marshal(treeNode{Name: "root", Children: []*treeNode{{Name: "leaf"}}})
	if err := v.Validate(args); err != nil {
		t.Errorf("a marshalled tree does not validate against %s: %v", got, err)
	}
	if err := v.Validate(json.RawMessage(`{"name":"r","children":[{"children":[]}]}`)); err == nil {
		t.Errorf("a child without a name validated against %s", got)
	}
	f, err := schema.Convert("TREE", "d", got)
	if err != nil {
		t.Fatal(err)
	}
	if f.StrictReason != "" {
		t.Errorf("recursive type is not strict-ready: %s", f.StrictReason)
	}
}
