package gen

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoldenOutputCompiles builds and vets the output of every valid golden
// case, so a generator change that emits broken Go fails here and not in a
// user's build. The output is copied into a scratch module that borrows this
// module's go.sum, and checked offline: a case's package dir lands in
// goldencompile/<case>/<dir>, the import path a spec a case imports declares.
func TestGoldenOutputCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dirs, _ := filepath.Glob("testdata/cases/*/want/*")
	if len(dirs) == 0 {
		t.Fatal("no golden output to compile")
	}
	scratch := t.TempDir()
	sum, err := os.ReadFile("../go.sum")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(scratch, "go.sum"), sum)
	writeFile(t, filepath.Join(scratch, "go.mod"), []byte("module goldencompile\n\ngo 1.25\n\nrequire github.com/google/uuid v1.6.0\n"))
	for _, dir := range dirs {
		caseName := filepath.Base(filepath.Dir(filepath.Dir(dir)))
		files, _ := filepath.Glob(filepath.Join(dir, "*.golden"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(scratch, caseName, filepath.Base(dir), strings.TrimSuffix(filepath.Base(f), ".golden")), data)
		}
	}
	cmd := exec.Command(goBin, "vet", "./...")
	cmd.Dir = scratch
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of golden output failed: %v\n%s", err, out)
	}
}
