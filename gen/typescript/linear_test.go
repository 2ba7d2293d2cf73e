package typescript

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen/gentest"
)

// TestDecodersAreLinearInSize generates the kitchen-sink spec, whose Dish
// holds itself (parent), beside the runtime and runs
// testdata/linear/linear.mjs in Node: the generated decoders take time
// linear in the size of a document of each hostile shape (a record nested
// in itself, many small records, a long string of escapes, many keys).
func TestDecodersAreLinearInSize(t *testing.T) {
	requireTSC(t)
	out := t.TempDir()
	gentest.WriteCase(t, out, "kitchen-sink", Emit)
	gentest.WriteFile(t, filepath.Join(out, "runtime.mjs"), mustReadFile(t, "runtime.mjs"))
	gentest.WriteFile(t, filepath.Join(out, "linear.mjs"), mustReadFile(t, "testdata/linear/linear.mjs"))
	cmd := exec.Command("node", "--expose-gc", "linear.mjs")
	cmd.Dir = out
	log, err := cmd.CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		t.Log(line)
	}
	if err != nil {
		t.Fatalf("the generated decoders: %v", err)
	}
}

func mustReadFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
