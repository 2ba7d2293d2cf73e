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

// TestModulesTypeCheckAndImport writes the module of every valid golden
// case, with the modules of the specs it imports, into a package of its
// own with the package's files and runs mypy --strict, ruff's formatter and
// linter over it and Python's import of each module, which builds every
// pydantic model: every construct of the spec language
// yields Python that type-checks and loads, not only jobs.yaml. TestGolden
// pins the modules themselves. It needs tools/python/venv.sh; under CI=true
// it fails without it.
func TestModulesTypeCheckAndImport(t *testing.T) {
	py := requirePython(t)
	dirs, err := filepath.Glob(gentest.FrontEndCases + "/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	out := t.TempDir()
	var imports []string
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, "spec.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		spec, err := gen.LoadFS(os.DirFS(dir), "spec.yaml", data)
		if err != nil || len(Backend{}.Check(spec)) > 0 {
			continue // an error case; TestGolden covers it
		}
		pkg := "case_" + strings.ReplaceAll(filepath.Base(dir), "-", "_")
		var emit func(r *gen.Resolved)
		emit = func(r *gen.Resolved) {
			files, err := Backend{Package: pkg}.Files(r, gen.BesideSpec(r.Spec()))
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			for _, f := range files {
				gentest.WriteFile(t, filepath.Join(out, f.Path), f.Content)
			}
			for _, im := range r.Spec().Imports {
				if im.Imported != nil {
					emit(im.Imported)
				}
			}
		}
		emit(spec)
		own, err := Backend{Package: pkg}.PackageFiles()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range own {
			if f.Path != "pyproject.toml" {
				gentest.WriteFile(t, filepath.Join(out, f.Path), f.Content)
			}
		}
		imports = append(imports, "import "+pkg+"."+spec.Spec().Package.Name)
	}
	if len(imports) < 2 {
		t.Fatalf("only %d valid cases", len(imports))
	}
	pkgs, _ := filepath.Glob(filepath.Join(out, "case_*"))
	var names []string
	for _, p := range pkgs {
		names = append(names, filepath.Base(p))
	}
	cmd := exec.Command(py, append([]string{"-m", "mypy", "--strict", "--no-incremental", "--cache-dir", filepath.Join(out, ".mypy_cache")}, names...)...)
	cmd.Dir = out
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mypy --strict: %v\n%s", err, b)
	}
	// Laid out as black lays it out, and clean of the lints a careful
	// Python programmer heeds (pycodestyle, pyflakes, isort, naming,
	// pyupgrade, bugbear).
	ruff := filepath.Join(filepath.Dir(py), "ruff")
	for _, args := range [][]string{
		append([]string{"format", "--check", "--no-cache", "--line-length", "88"}, names...),
		append([]string{"check", "--no-cache", "--line-length", "88", "--select", "E,F,W,I,N,UP,B", "--exclude", "runtime.py"}, names...),
	} {
		cmd = exec.Command(ruff, args...)
		cmd.Dir = out
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ruff %s: %v\n%s", args[0], err, b)
		}
	}
	cmd = exec.Command(py, "-c", strings.Join(imports, "\n"))
	cmd.Dir = out
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("importing the modules: %v\n%s", err, b)
	}
}

// requirePython returns the project venv's python, skipping locally and
// failing under CI=true when it is missing.
func requirePython(t *testing.T) string {
	t.Helper()
	py, _ := filepath.Abs("../../tools/python/.venv/bin/python")
	if _, err := os.Stat(py); err == nil {
		return py
	}
	msg := "needs the project's Python venv: run tools/python/venv.sh"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}
