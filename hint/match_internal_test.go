package hint

import (
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMatch: matching touches the actions that hold a term of the prompt, those of an
// implied step included ("close the task" first lists the tasks), and no other; each with
// the terms each of its fields holds.
func TestMatch(t *testing.T) {
	b := New(Config{})
	metas := signalFixture()
	for _, tc := range []struct {
		prompt string
		want   []string // the touched actions, each with the prompt's (stemmed) terms by field
	}{
		{"send an email", []string{"GMAIL_FETCH_EMAILS slug:email", "GMAIL_SEND_EMAIL slug:email,send"}},
		{"close the task", []string{"GMAIL_FETCH_EMAILS desc:list", "TODOIST_CLOSE_TASK slug:clos,task", "TODOIST_CREATE_TASK slug:task"}},
	} {
		t.Run(tc.prompt, func(t *testing.T) {
			sc := &scratch{}
			r := b.rankPrepare(Request{AgentID: 1}, newAnalysis(tc.prompt, []string{"gmail", "todoist"}), metas, sc, nil, nil)
			if r == nil {
				t.Fatal("no ranking")
			}
			var got []string
			for _, i := range sc.touched {
				s := metas[i].Action
				for _, f := range []struct {
					name string
					mask uint64
				}{{"slug", sc.slugM[i]}, {"name", sc.nameM[i]}, {"desc", sc.descM[i]}, {"param", sc.paramM[i]}} {
					var terms []string
					for m := f.mask; m != 0; m &= m - 1 {
						terms = append(terms, r.table[bits.TrailingZeros64(m)])
					}
					if len(terms) > 0 {
						slices.Sort(terms)
						s += " " + f.name + ":" + strings.Join(terms, ",")
					}
				}
				got = append(got, s)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("touched (-want +got):\n%s", diff)
			}
		})
	}
}
