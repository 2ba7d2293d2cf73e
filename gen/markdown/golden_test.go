package markdown

import (
	"flag"
	"testing"

	"github.com/jobgen/jobgen/gen/gentest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/cases from the current backend")

// TestGolden runs the backend over every case (see gentest.Golden): each
// valid spec among the front end's cases, and the backend's own cases of
// specs it cannot generate. Run with -update to record, then read the diff.
func TestGolden(t *testing.T) {
	gentest.Golden(t, Backend{}, *update, nil)
}

// TestDeterministic: the same spec gives the same bytes, run after run and
// root after root.
func TestDeterministic(t *testing.T) {
	gentest.Deterministic(t, Backend{})
}
