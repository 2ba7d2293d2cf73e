package golang

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/jobgen/jobgen/gen/gentest"
)

// TestGeneratedDecodersAreLinearInSize generates the kitchen-sink spec,
// whose Dish holds itself (parent), into a scratch module and runs
// testdata/linear's test there: the generated DecodeFact and UnmarshalJSON
// take time linear in the size of a document of each hostile shape, a
// record nested 1,200 deep included.
func TestGeneratedDecodersAreLinearInSize(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test in a scratch module")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	spec := "../testdata/cases/kitchen-sink/spec.yaml"
	files, err := Generate(spec, mustRead(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	gentest.WriteFile(t, filepath.Join(scratch, "go.mod"), []byte("module linear\n\ngo 1.25\n\n"+
		"require (\n\tgithub.com/google/uuid v1.6.0\n\tgithub.com/jobgen/jobgen v0.0.0\n)\n\n"+
		"replace github.com/jobgen/jobgen => "+root+"\n"))
	gentest.WriteFile(t, filepath.Join(scratch, "go.sum"), mustRead(t, "../../go.sum"))
	for _, f := range files {
		gentest.WriteFile(t, filepath.Join(scratch, filepath.FromSlash(f.Path)), f.Content)
	}
	gentest.WriteFile(t, filepath.Join(scratch, "kitchen", "linear_test.go"), mustRead(t, "testdata/linear/kitchen_linear_test.go"))
	cmd := exec.Command(goBin, "test", "-count=1", "./kitchen")
	cmd.Dir = scratch
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the generated decoders: %v\n%s", err, out)
	}
}
