package cache

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPgPackMetaRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		m    ActionMeta
	}{
		{"zero", ActionMeta{}},
		{"empty lists stay empty", ActionMeta{Capabilities: []string{}, Keywords: []string{}, SlugTerms: []string{},
			NameTerms: []string{}, DescTerms: []string{}, Params: []Param{}}},
		{"full", ActionMeta{
			Capabilities: []string{"message.send", "data.query"},
			Keywords:     []string{"slack", "send", "message", ""},
			Destructive:  true,
			ReadOnly:     true,
			Confidence:   0.8999999999999999,
			SlugTerms:    []string{"slack", "sends"},
			NameTerms:    []string{"send", "a", "message"},
			DescTerms:    []string{"posts", "3:tricky[", "n", "ünïcödé", "12345678901:"},
			Params: []Param{
				{Name: "channel", Type: "string", Required: true, Description: "Channel ID; e.g. C123:"},
				{Name: "", Type: "", Description: "n[0:"},
			},
		}},
		{"extreme confidence", ActionMeta{Confidence: -math.MaxFloat64}},
		{"infinite confidence", ActionMeta{Confidence: math.Inf(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got ActionMeta
			if err := pgUnpackMeta(pgPackMeta(tt.m), &got); err != nil {
				t.Fatalf("unpack: %v", err)
			}
			if diff := cmp.Diff(tt.m, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPgUnpackMetaCorrupt(t *testing.T) {
	good := pgPackMeta(ActionMeta{Capabilities: []string{"a.b"}, Params: []Param{{Name: "x"}}, Confidence: 0.5})
	tests := []struct {
		name   string
		packed string
	}{
		{"empty", ""},
		{"other version", "m9" + good[2:]},
		{"truncated", good[:len(good)-3]},
		{"trailing bytes", good + "x"},
		{"length past end", "m199[3:abc"},
		{"huge count", "m1999999999[" + good[2:]},
		{"negative length", "m11[-1:a"},
		{"bad bool", "m1nnnnn2"},
		{"bad float", "m1nnnnn00x;n"},
		{"nan", "m1nnnnn00NaN;n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m ActionMeta
			if err := pgUnpackMeta(tt.packed, &m); !errors.Is(err, errPgPacked) {
				t.Errorf("pgUnpackMeta(%q) = %v, want errPgPacked", tt.packed, err)
			}
		})
	}
}

func FuzzPgUnpackMeta(f *testing.F) {
	f.Add(pgPackMeta(ActionMeta{Capabilities: []string{"a"}, Params: []Param{{Name: "p"}}}))
	f.Add("m1n0[1[1:xn")
	f.Fuzz(func(t *testing.T, s string) {
		var m ActionMeta
		if err := pgUnpackMeta(s, &m); err != nil {
			return
		}
		// Whatever unpacks packs back to itself.
		var again ActionMeta
		if err := pgUnpackMeta(pgPackMeta(m), &again); err != nil {
			t.Fatalf("repacked form does not unpack: %v", err)
		}
		if diff := cmp.Diff(m, again); diff != "" {
			t.Errorf("(-first +second):\n%s", diff)
		}
	})
}
