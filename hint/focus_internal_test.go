package hint

import "testing"

// TestAppFocus: an app's focus is the share of the prompt's words (weighted by their IDF
// over the apps) that its touched actions and its name hold, relative to the app that holds
// most: full from half of that (an app that holds the prompt's other word, by name only),
// less below (an app that holds only a word another app holds too), 0 for an app that holds
// none.
func TestAppFocus(t *testing.T) {
	sc := &scratch{
		touched: []int32{0, 1, 2},
		slugM:   []uint64{1 << 0, 0, 1 << 0, 0, 0},
		nameM:   make([]uint64, 5),
		descM:   []uint64{0, 1 << 1, 0, 0, 0},
		paramM:  make([]uint64, 5),
	}
	runs := []run{
		{start: 0, end: 2, tStart: 0, tEnd: 2},                  // words 0 and 1
		{start: 2, end: 3, tStart: 2, tEnd: 3},                  // word 0, which two apps hold
		{start: 3, end: 4, tStart: 3, tEnd: 3, appMask: 1 << 2}, // word 2, in its name only
		{start: 4, end: 5, tStart: 3, tEnd: 3},                  // nothing
	}
	var all clauseInfo
	for k := 0; k < 3; k++ {
		all.w[k] = 1
		all.mask |= 1 << k
	}
	appFocus(runs, sc, &all)
	f := []float32{runs[0].focus, runs[1].focus, runs[2].focus, runs[3].focus}
	if f[0] != 1 || f[2] != 1 || !(f[1] > 0 && f[1] < 1) || f[3] != 0 {
		t.Errorf("focus = %v, want [1 (0,1) 1 0]", f)
	}
}
