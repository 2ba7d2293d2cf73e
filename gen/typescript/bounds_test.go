package typescript

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/jobgen/jobgen/gen/gentest"
)

// TestDecodersRefuseWhatIsBeyondABound generates the tools-table case and
// the spec it imports beside the runtime and runs testdata/bounds/bounds.mjs
// in Node over gentest.BoundDocuments: the generated decoders take and
// refuse what Go's take and refuse of a field's bounds (decision 0208),
// counting a string's characters in code points as Go counts runes.
func TestDecodersRefuseWhatIsBeyondABound(t *testing.T) {
	requireTSC(t)
	out := t.TempDir()
	gentest.WriteCase(t, out, "tools-table", Emit)
	gentest.WriteFile(t, filepath.Join(out, "runtime.mjs"), mustReadFile(t, "runtime.mjs"))
	gentest.WriteFile(t, filepath.Join(out, "bounds.mjs"), mustReadFile(t, "testdata/bounds/bounds.mjs"))
	cmd := exec.Command("node", "bounds.mjs")
	cmd.Dir = out
	gentest.CheckBounds(t, "TypeScript", cmd)
}
