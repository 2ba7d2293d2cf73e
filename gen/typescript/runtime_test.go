package typescript

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen"
)

// runtimeTSCFlags are how runtime.ts is compiled: every strictness flag the
// package promises its consumers, as an ES2022 module with declarations.
var runtimeTSCFlags = []string{
	"--strict", "--noUnusedLocals", "--noUnusedParameters", "--noPropertyAccessFromIndexSignature",
	"--exactOptionalPropertyTypes", "--noUncheckedIndexedAccess", "--noImplicitOverride", "--verbatimModuleSyntax",
	"--target", "es2022", "--module", "es2022", "--lib", "es2022,dom", "--declaration",
}

// TestRuntimeIsCompiled: runtime.mjs and runtime.d.mts, the runtime module
// as the package ships it, are what the pinned tsc makes of runtime.ts. Run
// with -update after editing runtime.ts.
func TestRuntimeIsCompiled(t *testing.T) {
	tsc := requireTSC(t)
	out := t.TempDir()
	args := append(append([]string{}, runtimeTSCFlags...), "--outDir", out, "runtime.ts")
	if msg, err := exec.Command(tsc, args...).CombinedOutput(); err != nil {
		t.Fatalf("tsc runtime.ts: %v\n%s", err, msg)
	}
	for compiled, shipped := range map[string]string{"runtime.js": "runtime.mjs", "runtime.d.ts": "runtime.d.mts"} {
		got, err := os.ReadFile(filepath.Join(out, compiled))
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(shipped, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(shipped)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what tsc makes of runtime.ts (run go test -run TestRuntimeIsCompiled -update):\n%s", shipped, gen.UnifiedDiff(shipped, "tsc", want, got))
		}
	}
}

// TestRuntimeExports: what the generated modules import from the runtime is
// what it exports, values and types apart, and nothing the runtime keeps to
// itself.
func TestRuntimeExports(t *testing.T) {
	for _, name := range []string{"DecodeError", "EncodeError", "_obj", "_str", "_zeroUUID", "_zeroTime", "_emap"} {
		if !strings.Contains(" "+strings.Join(runtimeValues, " ")+" ", " "+name+" ") {
			t.Errorf("runtime values %v lack %s", runtimeValues, name)
		}
	}
	if strings.Join(runtimeTypes, " ") != "JSONValue JSONObject DecodeErrorKind UnknownReason UnknownFact ToolDefinition ToolAnnotations ClientOptions StreamOptions With ServerEvent" {
		t.Errorf("runtime types = %v", runtimeTypes)
	}
	for _, private := range []string{"_walk", "_kind", "_wellFormed"} {
		if strings.Contains(" "+strings.Join(runtimeValues, " ")+" ", " "+private+" ") {
			t.Errorf("the runtime exports its own %s", private)
		}
	}
}
