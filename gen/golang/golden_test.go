package golang

import (
	"flag"
	"path"
	"testing"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/cases from the current backend")

// TestGolden runs the backend over every case (see gentest.Golden): each
// valid spec among the front end's cases, and the backend's own cases of
// specs it cannot generate. Run with -update to record, then read the diff.
func TestGolden(t *testing.T) {
	gentest.Golden(t, Backend{}, *update, importedPackages)
}

// importedPackages are the Go packages of the specs r imports, so that the
// golden output compiles.
func importedPackages(r *gen.Resolved, file string) ([]gen.File, error) {
	var out []gen.File
	for _, im := range r.Spec().Imports {
		if im.Imported == nil {
			continue
		}
		o, err := gen.NewOrigin("want", path.Join(path.Dir(file), im.Spec))
		if err != nil {
			return nil, err
		}
		more, err := Backend{}.Files(im.Imported, o)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// TestDeterministic: the same spec gives the same bytes, run after run and
// root after root.
func TestDeterministic(t *testing.T) {
	gentest.Deterministic(t, Backend{})
}
