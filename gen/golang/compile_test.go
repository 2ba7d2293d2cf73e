package golang

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

// TestGoldenOutputCompiles builds and vets the output of every valid golden
// case, so a generator change that emits broken Go fails here and not in a
// user's build. The output is copied into a scratch module that borrows this
// module's go.sum, and checked offline: a case's package dir lands in
// goldencompile/<case>/<dir>, the import path a spec a case imports declares.
func TestGoldenOutputCompiles(t *testing.T) {
	goBin, scratch := goldenModule(t)
	cmd := exec.Command(goBin, "vet", "./...")
	cmd.Dir = scratch
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of golden output failed: %v\n%s", err, out)
	}
}

// goldenModule writes the output of every valid golden case into a
// scratch module and returns the go command and the module's directory.
func goldenModule(t *testing.T) (goBin, scratch string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the go command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dirs, _ := filepath.Glob("testdata/cases/*/want/*")
	if len(dirs) == 0 {
		t.Fatal("no golden output to compile")
	}
	scratch = t.TempDir()
	sum, err := os.ReadFile("../../go.sum")
	if err != nil {
		t.Fatal(err)
	}
	gentest.WriteFile(t, filepath.Join(scratch, "go.sum"), sum)
	// Generated code imports this module's runtime, package codec.
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	gentest.WriteFile(t, filepath.Join(scratch, "go.mod"), []byte("module goldencompile\n\ngo 1.25\n\n"+
		"require (\n\tgithub.com/google/uuid v1.6.0\n\tgithub.com/jobgen/jobgen v0.0.0\n)\n\n"+
		"replace github.com/jobgen/jobgen => "+root+"\n"))
	for _, dir := range dirs {
		caseName := filepath.Base(filepath.Dir(filepath.Dir(dir)))
		files, _ := filepath.Glob(filepath.Join(dir, "*.golden"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			gentest.WriteFile(t, filepath.Join(scratch, caseName, filepath.Base(dir), strings.TrimSuffix(filepath.Base(f), ".golden")), data)
		}
	}
	return goBin, scratch
}

// TestGeneratedCodeRefusesARuntimeThatDropsItsVersion: generated code carries
// a compile-time guard, so building it against a runtime that no longer
// supports the version it was generated for (or does not yet support it)
// fails, instead of running with a mismatched envelope or errors.
func TestGeneratedCodeRefusesARuntimeThatDropsItsVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	runtime, sum := mustRead(t, "../../codec/codec.go"), mustRead(t, "../../go.sum")
	files, err := Generate("../testdata/cases/minimal/spec.yaml", mustRead(t, "../testdata/cases/minimal/spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, from, to string }{
		{"newer runtime", "MinVersion = 1", fmt.Sprintf("MinVersion = %d", codec.MaxVersion+1)},
		{"older runtime", fmt.Sprintf("MaxVersion = %d", codec.MaxVersion), fmt.Sprintf("MaxVersion = %d", codec.MaxVersion-1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(string(runtime), c.from) {
				t.Fatalf("codec.go has no %q to change", c.from)
			}
			scratch := t.TempDir()
			gentest.WriteFile(t, filepath.Join(scratch, "codec", "go.mod"), []byte("module github.com/jobgen/jobgen\n\ngo 1.25\n\nrequire github.com/google/uuid v1.6.0\n"))
			gentest.WriteFile(t, filepath.Join(scratch, "go.sum"), sum)
			gentest.WriteFile(t, filepath.Join(scratch, "codec", "codec", "codec.go"), []byte(strings.Replace(string(runtime), c.from, c.to, 1)))
			gentest.WriteFile(t, filepath.Join(scratch, "go.mod"), []byte("module guard\n\ngo 1.25\n\nrequire github.com/jobgen/jobgen v0.0.0\n\nreplace github.com/jobgen/jobgen => ./codec\n"))
			for _, f := range files {
				gentest.WriteFile(t, filepath.Join(scratch, filepath.FromSlash(f.Path)), f.Content)
			}
			cmd := exec.Command(goBin, "build", "./tiny")
			cmd.Dir = scratch
			cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatal("the package built against a runtime that does not support its version")
			}
			if !strings.Contains(string(out), "EnforceVersion") {
				t.Errorf("the build failed, but not at the guard:\n%s", out)
			}
		})
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestEmitTakesOnlyAValidatedSpec: the backends take a Resolved, which only
// Validate makes, so emitting a spec that was loaded but never validated does
// not compile, and the zero Resolved is refused at run time.
func TestEmitTakesOnlyAValidatedSpec(t *testing.T) {
	if _, err := Emit(&gen.Resolved{}); !errors.Is(err, gen.ErrNotResolved) {
		t.Errorf("Emit(&Resolved{}): err = %v, want ErrNotResolved", err)
	}
	spec, loadErrs := gen.Parse("bad.yaml", []byte("jobgen: 1\npackage: {name: p}\nrecords: {R: {fields: {a: \"[]\"}}}\n"))
	if len(loadErrs) == 0 {
		t.Fatal("the spec meant to fail loading loaded")
	}
	if r, errs := gen.Validate(spec); r != nil {
		t.Errorf("Validate resolved a spec Parse reported problems in (its own errors: %v)", errs)
	}
	if testing.Short() {
		t.Skip("the compile check runs go build")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	gentest.WriteFile(t, filepath.Join(scratch, "go.mod"), []byte("module emitcheck\n\ngo 1.25\n\nrequire github.com/jobgen/jobgen v0.0.0\n\nreplace github.com/jobgen/jobgen => "+root+"\n"))
	gentest.WriteFile(t, filepath.Join(scratch, "go.sum"), mustRead(t, "../../go.sum"))
	gentest.WriteFile(t, filepath.Join(scratch, "main.go"), []byte(`package main

import (
	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/golang"
)

func main() {
	spec, _ := gen.Parse("spec.yaml", nil)
	golang.Emit(spec)
}
`))
	cmd := exec.Command(goBin, "build", "-o", os.DevNull, ".")
	cmd.Dir = scratch
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("golang.Emit(gen.Parse(...)) compiled")
	}
	if !strings.Contains(string(out), "cannot use spec") {
		t.Errorf("the build failed, but not at Emit's argument:\n%s", out)
	}
}
