package python

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

// loadImportingBase loads gentest.ImportingBase with the base module's
// Python package named pkg ("" for none).
func loadImportingBase(t *testing.T, pkg string) *gen.Resolved {
	t.Helper()
	mods := gentest.BaseModule()
	if pkg != "" {
		mods["example.com/base"].Packages = map[string]string{"python": pkg}
	}
	r, err := gen.LoadFS(fstest.MapFS{}, "app.yaml", []byte(gentest.ImportingBase), gen.WithModules(mods))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAnotherModulesModuleIsImportedFromItsPackage: a spec of another Go
// module is imported from that module's Python package (its python.package,
// which gen.Module.Packages["python"] carries), not from this package, and
// with a Runtime the module imports that package's runtime: the runtime of
// jobgen's package is the one every package shares (decision 0144).
func TestAnotherModulesModuleIsImportedFromItsPackage(t *testing.T) {
	r := loadImportingBase(t, "base_vocab")
	b := Backend{Package: "app_vocab", Runtime: "jobgen_vocab"}
	if errs := b.Check(r); len(errs) > 0 {
		t.Fatal(errs)
	}
	files, err := b.Files(r, gen.BesideSpec(r.Spec()))
	if err != nil {
		t.Fatal(err)
	}
	got := string(files[0].Content)
	for _, want := range []string{"\n\nfrom base_vocab import base\nfrom jobgen_vocab.runtime import "} {
		if !strings.Contains(got, want) {
			t.Errorf("app.py lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "from . import") || strings.Contains(got, "from .runtime") {
		t.Errorf("app.py imports base or the runtime from its own package:\n%s", got)
	}
}

// TestAnotherModulesPackageIsChecked: a spec of another module whose Python
// package has no name, or this package's, cannot be imported; a spec named
// like the runtime module is refused.
func TestAnotherModulesPackageIsChecked(t *testing.T) {
	for _, c := range []struct{ other, own, want string }{
		{"", "app_vocab", "app.yaml:4:18: imports.base.module: the Python package of example.com/base v1.2.0 has no name"},
		{"app_vocab", "app_vocab", "app.yaml:4:18: imports.base.module: the Python package of example.com/base v1.2.0 is app_vocab, as this one is"},
	} {
		errs := Backend{Package: c.own}.Check(loadImportingBase(t, c.other))
		if len(errs) != 1 || !strings.Contains(errs.Error(), c.want) {
			t.Errorf("python package %q: Check = %v, want %s", c.other, errs, c.want)
		}
	}
	spec, err := gen.Load("x.yaml", []byte("jobgen: 1\npackage: {name: runtime}\nids: {A: {kind: string}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if errs := (Backend{}).Check(spec); len(errs) != 1 || errs[0].Pos.Line != 2 || !strings.Contains(errs[0].Msg, "runtime module") {
		t.Errorf("a spec named runtime: %v", errs)
	}
}

// TestAPackageImportsJobgensRuntime: a package with a Runtime writes no
// runtime.py (it is retired, so a copy from before is removed) and its
// pyproject.toml requires the runtime's package and those it imports, each
// once, at the version every package has.
func TestAPackageImportsJobgensRuntime(t *testing.T) {
	files, err := Backend{Package: "deployer_vocab", Runtime: "jobgen_vocab", Requires: []string{"acme_vocab", "jobgen_vocab"}}.PackageFiles()
	if err != nil {
		t.Fatal(err)
	}
	var written, retired []string
	for _, f := range files {
		if f.Retired {
			retired = append(retired, f.Path)
			continue
		}
		written = append(written, f.Path)
		if f.Path == "pyproject.toml" && !strings.Contains(string(f.Content), `dependencies = ["pydantic>=2.11,<3", "acme-vocab==0", "jobgen-vocab==0"]`) {
			t.Errorf("pyproject.toml:\n%s", f.Content)
		}
	}
	if got := strings.Join(written, " "); got != "pyproject.toml deployer_vocab/__init__.py deployer_vocab/py.typed" {
		t.Errorf("files written = %s", got)
	}
	if got := strings.Join(retired, " "); got != "deployer_vocab/runtime.py" {
		t.Errorf("files retired = %s, want the runtime", got)
	}
	if _, err := (Backend{Package: "jobgen_vocab", Runtime: "jobgen_vocab"}).PackageFiles(); err == nil {
		t.Error("a package requiring itself is accepted")
	}
}

// TestAPackageOfAnotherModuleTypeChecks: a module importing another
// module's spec, in a package of its own with jobgen's runtime package
// and the other module's package on the path, passes mypy --strict and
// ruff's import order, and loads.
func TestAPackageOfAnotherModuleTypeChecks(t *testing.T) {
	py := requirePython(t)
	out := t.TempDir()
	r := loadImportingBase(t, "base_vocab")
	write := func(b Backend, dir string, r *gen.Resolved) {
		files, err := b.Files(r, gen.BesideSpec(r.Spec()))
		if err != nil {
			t.Fatal(err)
		}
		own, err := b.PackageFiles()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range own {
			if !f.Retired && f.Path != "pyproject.toml" {
				files = append(files, f.File)
			}
		}
		for _, f := range files {
			gentest.WriteFile(t, filepath.Join(out, dir, f.Path), f.Content)
		}
	}
	write(Backend{Package: "jobgen_vocab"}, "jobgen", r.Spec().Imports[0].Imported) // the runtime's package
	write(Backend{Package: "base_vocab", Runtime: "jobgen_vocab"}, "base", r.Spec().Imports[0].Imported)
	write(Backend{Package: "app_vocab", Runtime: "jobgen_vocab"}, "app", r)
	path := strings.Join([]string{filepath.Join(out, "jobgen"), filepath.Join(out, "base")}, string(os.PathListSeparator))
	env := append(os.Environ(), "PYTHONPATH="+path, "PYTHONDONTWRITEBYTECODE=1")
	ruff := filepath.Join(filepath.Dir(py), "ruff")
	for _, args := range [][]string{
		{py, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", filepath.Join(out, ".mypy_cache"), "app_vocab"},
		{ruff, "check", "--no-cache", "--line-length", "88", "--select", "E,F,W,I,N,UP,B", "app_vocab"},
		{py, "-c", "import app_vocab.app"},
	} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = filepath.Join(out, "app"), env
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args[1:], " "), err, b)
		}
	}
}
