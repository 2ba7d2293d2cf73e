package typescript

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

// TestDecodersRefuseWhatIsBeyondABound generates the tools-table case and
// the spec it imports beside the runtime and runs testdata/bounds/bounds.mjs
// in Node over gentest.BoundDocuments: the generated decoders take and
// refuse what Go's take and refuse of a field's bounds (decision 0208),
// counting a string's characters in code points as Go counts runes.
func TestDecodersRefuseWhatIsBeyondABound(t *testing.T) {
	requireTSC(t)
	spec := gentest.LoadCase(t, "tools-table")
	out := t.TempDir()
	for _, r := range []*gen.Resolved{spec, spec.Spec().Imports[0].Imported} {
		files, err := Emit(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			gentest.WriteFile(t, filepath.Join(out, f.Path), f.Content)
		}
	}
	gentest.WriteFile(t, filepath.Join(out, "runtime.mjs"), mustReadFile(t, "runtime.mjs"))
	gentest.WriteFile(t, filepath.Join(out, "bounds.mjs"), mustReadFile(t, "testdata/bounds/bounds.mjs"))
	cmd := exec.Command("node", "bounds.mjs")
	cmd.Dir = out
	gentest.CheckBounds(t, "TypeScript", cmd)
}
