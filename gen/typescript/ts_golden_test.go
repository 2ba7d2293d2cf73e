package typescript

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

// TestTSModulesCompile runs the pinned tsc (tools/ts) with the tool
// directory's strictness flags over the TypeScript module of every valid
// golden case, each in a directory of its own beside the modules of the
// specs it imports, so that every construct of the spec language yields
// TypeScript that type-checks, not only jobs.yaml, and so does the README's
// TypeScript example against generated/ts/jobs.ts. TestGolden pins the
// modules themselves (testdata/cases/*/want/). It needs `npm ci` in tools/ts; under
// CI=true it fails without it.
func TestTSModulesCompile(t *testing.T) {
	tsc := requireTSC(t)
	dirs, err := filepath.Glob(gentest.FrontEndCases + "/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	out := t.TempDir()
	n := 0
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, "spec.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		spec, err := gen.LoadFS(os.DirFS(dir), "spec.yaml", data)
		if err != nil || len(Backend{}.Check(spec)) > 0 {
			continue // an error case; TestGolden covers it
		}
		var emit func(r *gen.Resolved)
		emit = func(r *gen.Resolved) {
			f, err := Emit(r)
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			gentest.WriteFile(t, filepath.Join(out, filepath.Base(dir), f.Path), f.Content)
			for _, im := range r.Spec().Imports {
				if im.Imported != nil {
					emit(im.Imported)
				}
			}
		}
		emit(spec)
		n++
	}
	if n < 2 {
		t.Fatalf("only %d valid cases", n)
	}
	// The README's TypeScript consumer, against the committed module.
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, example, ok := strings.Cut(string(readme), "```ts\n")
	example, _, ok2 := strings.Cut(example, "```")
	if !ok || !ok2 {
		t.Fatal("README.md has no ```ts example")
	}
	module, err := os.ReadFile("../../generated/ts/jobs.ts")
	if err != nil {
		t.Fatal(err)
	}
	stubs := `import type { Channel, JobSnapshot, JobStatus } from "./jobs.js";
declare function showJob(job: JobSnapshot): void;
declare function appendOutput(channel: Channel | "", text: string): void;
declare function markGap(): void;
declare function showResult(status: JobStatus): void;
declare const console: { error(message: string): void };
`
	gentest.WriteFile(t, filepath.Join(out, "readme", "jobs.ts"), module)
	gentest.WriteFile(t, filepath.Join(out, "readme", "example.ts"), []byte(stubs+strings.ReplaceAll(example, "./generated/jobs.js", "./jobs.js")))
	tsconfig, err := os.ReadFile("../../tools/ts/tsconfig.json")
	if err != nil {
		t.Fatal(err)
	}
	conf := strings.Replace(string(tsconfig), `"../../generated/ts/*.ts", "*.ts"`, `"*/*.ts"`, 1)
	if conf == string(tsconfig) {
		t.Fatal("tools/ts/tsconfig.json no longer includes what this test replaces")
	}
	gentest.WriteFile(t, filepath.Join(out, "tsconfig.json"), []byte(conf))
	if out, err := exec.Command(tsc, "-p", filepath.Join(out, "tsconfig.json")).CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}

// requireTSC returns the path of tools/ts's tsc, skipping locally and
// failing under CI=true when node or the tool is missing.
func requireTSC(t *testing.T) string {
	t.Helper()
	tsc, _ := filepath.Abs("../../tools/ts/node_modules/.bin/tsc")
	_, nodeErr := exec.LookPath("node")
	_, tscErr := os.Stat(tsc)
	if nodeErr == nil && tscErr == nil {
		return tsc
	}
	msg := "needs node and the pinned TypeScript: install Node.js, then run `make ts-deps` (npm ci in tools/ts)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}
