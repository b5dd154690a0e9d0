//go:build race

package schema_test

// raceEnabled is true under the race detector, which slows the catalogue-wide tests
// tenfold; they then sample the catalogue instead of reading all of it.
const raceEnabled = true
