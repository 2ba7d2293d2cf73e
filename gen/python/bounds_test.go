package python

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

// TestDecodersRefuseWhatIsBeyondABound generates the tools-table case and
// the spec it imports as package bv with its runtime and runs
// testdata/bounds/bounds.py beside it over gentest.BoundDocuments: the
// generated models take and refuse what Go's decoders take and refuse of a
// field's bounds (decision 0208), counting a string's characters in code
// points as Go counts runes. It needs tools/python/venv.sh; under CI=true
// it fails without it.
func TestDecodersRefuseWhatIsBeyondABound(t *testing.T) {
	py := requirePython(t)
	spec := gentest.LoadCase(t, "tools-table")
	b := Backend{Package: "bv"}
	out := t.TempDir()
	for _, r := range []*gen.Resolved{spec, spec.Spec().Imports[0].Imported} {
		files, err := b.Files(r, gen.BesideSpec(r.Spec()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			gentest.WriteFile(t, filepath.Join(out, f.Path), f.Content)
		}
	}
	own, err := b.PackageFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range own {
		gentest.WriteFile(t, filepath.Join(out, f.Path), f.Content)
	}
	script, err := filepath.Abs("testdata/bounds/bounds.py")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, script)
	cmd.Dir = out
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH="+out)
	gentest.CheckBounds(t, "Python", cmd)
}
