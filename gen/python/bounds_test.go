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
	gentest.CheckBounds(t, "Python", caseScript(t, "bv", "tools-table", "testdata/bounds/bounds.py"))
}

// caseScript generates the front end's case name and the specs it imports
// as package pkg with its runtime, in a directory of its own, and returns
// the command that runs script there with the venv's Python.
func caseScript(t *testing.T, pkg, name, script string) *exec.Cmd {
	t.Helper()
	py := requirePython(t)
	b := Backend{Package: pkg}
	out := t.TempDir()
	gentest.WriteCase(t, out, name, func(r *gen.Resolved) ([]gen.File, error) { return b.Files(r, gen.BesideSpec(r.Spec())) })
	own, err := b.PackageFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range own {
		gentest.WriteFile(t, filepath.Join(out, f.Path), f.Content)
	}
	abs, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, abs)
	cmd.Dir = out
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH="+out)
	return cmd
}
