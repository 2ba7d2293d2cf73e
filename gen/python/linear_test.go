package python

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

// TestDecodersAreLinearInSize generates the kitchen-sink spec, whose Dish
// holds itself (parent), as package kv with its runtime and runs
// testdata/linear/linear.py beside it: the generated decoders take time
// linear in the size of a document of each hostile shape (a record nested
// in itself, many small records, a long string of escapes, many keys, keys
// given twice). It needs tools/python/venv.sh; under CI=true it fails
// without it.
func TestDecodersAreLinearInSize(t *testing.T) {
	py := requirePython(t)
	spec := gentest.LoadCase(t, "kitchen-sink")
	b := Backend{Package: "kv"}
	files, err := b.Files(spec, gen.BesideSpec(spec.Spec()))
	if err != nil {
		t.Fatal(err)
	}
	own, err := b.PackageFiles()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for _, f := range files {
		gentest.WriteFile(t, filepath.Join(out, f.Path), f.Content)
	}
	for _, f := range own {
		gentest.WriteFile(t, filepath.Join(out, f.Path), f.Content)
	}
	script, err := filepath.Abs("testdata/linear/linear.py")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, script)
	cmd.Dir = out
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH="+out)
	log, err := cmd.CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		t.Log(line)
	}
	if err != nil {
		t.Fatalf("the generated decoders: %v", err)
	}
}
