package python

import (
	"flag"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/cases from the current backend")

// moduleOnly is the backend without the files the package shares, which
// TestSharedFiles holds to their goldens once rather than in every case.
type moduleOnly struct{ Backend }

func (b moduleOnly) Files(r *gen.Resolved, o gen.Origin) ([]gen.File, error) {
	files, err := b.Backend.Files(r, o)
	var out []gen.File
	for _, f := range files {
		if !f.Shared {
			out = append(out, f)
		}
	}
	return out, err
}

// TestGolden runs the backend over every case (see gentest.Golden): each
// valid spec among the front end's cases, and the backend's own cases of
// specs it cannot generate. Run with -update to record, then read the diff.
func TestGolden(t *testing.T) {
	gentest.Golden(t, moduleOnly{Backend{}}, *update, nil)
}

// TestDeterministic: the same spec gives the same bytes, run after run and
// root after root.
func TestDeterministic(t *testing.T) {
	gentest.Deterministic(t, Backend{})
}

// TestSharedFiles: every spec yields the package's shared files alike, each
// opening with the shared marker: the runtime as pyruntime.py holds it,
// py.typed, __init__.py and a pyproject.toml that installs the package
// under its name; beside the Go packages they go in Dir.
func TestSharedFiles(t *testing.T) {
	spec, err := gen.Load(gentest.JobsSpecPath(), gentest.ReadJobsSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Backend{Package: "vocab", Dir: "python"}.Files(spec, gen.BesideSpec(spec.Spec()))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range files {
		if f.Shared {
			got[f.Path] = string(f.Content)
		}
	}
	mark := gen.SharedMark(Backend{})
	want := map[string]string{
		"python/vocab/_runtime.py": mark + Runtime(),
		"python/vocab/py.typed":    mark,
	}
	for p, content := range want {
		if got[p] != content {
			t.Errorf("%s = %.80q..., want %.80q...", p, got[p], content)
		}
	}
	if s := got["python/pyproject.toml"]; !strings.HasPrefix(s, mark) || !strings.Contains(s, `name = "vocab"`) || !strings.Contains(s, `packages = ["vocab"]`) || !strings.Contains(s, "pydantic") {
		t.Errorf("pyproject.toml:\n%s", s)
	}
	if s := got["python/vocab/__init__.py"]; !strings.HasPrefix(s, mark) || !strings.Contains(s, "from vocab import jobs") {
		t.Errorf("__init__.py:\n%s", s)
	}
	if len(got) != 4 {
		t.Errorf("shared files: %v", got)
	}
}
