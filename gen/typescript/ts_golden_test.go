package typescript

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

// TestTSModulesCompile runs the pinned tsc (tools/ts) with the tool
// directory's strictness flags over the module of every valid golden case,
// each in a directory of its own beside the runtime and the modules of the
// specs it imports, so that every construct of the spec language yields
// TypeScript that type-checks, not only jobs.yaml; so does the TypeScript guide's page
// example against the committed package, and each module's
// declarations (.d.mts), which must also describe its source: a check file
// assigns each source module to the type of its declarations. Node then
// imports each JavaScript module (.mjs), so that it parses and links.
// TestGolden pins the modules themselves (testdata/cases/*/want/). It needs
// `npm ci` in tools/ts; under CI=true it fails without it.
func TestTSModulesCompile(t *testing.T) {
	tsc := requireTSC(t)
	dirs, err := filepath.Glob(gentest.FrontEndCases + "/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	out := t.TempDir()
	var jsModules []string
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, "spec.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		spec, err := gen.LoadFS(os.DirFS(dir), "spec.yaml", data)
		if err != nil || len(Backend{}.Check(spec)) > 0 {
			continue // an error case; TestGolden covers it
		}
		caseDir := filepath.Join(out, filepath.Base(dir))
		for _, f := range RuntimeFiles() {
			gentest.WriteFile(t, filepath.Join(caseDir, f.Path), f.Content)
		}
		var check []string
		var emit func(r *gen.Resolved)
		emit = func(r *gen.Resolved) {
			files, err := Emit(r)
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			for _, f := range files {
				gentest.WriteFile(t, filepath.Join(caseDir, f.Path), f.Content)
			}
			name := r.Spec().Package.Name
			if line := "import * as " + name + "_source from \"./" + name + ".js\";"; !slices.Contains(check, line) {
				check = append(check, line,
					"import type * as "+name+"_declared from \"./"+name+".mjs\";",
					"export const "+name+"_check: typeof "+name+"_declared = "+name+"_source;")
				jsModules = append(jsModules, filepath.Join(caseDir, name+".mjs"))
			}
			for _, im := range r.Spec().Imports {
				if im.Imported != nil {
					emit(im.Imported)
				}
			}
		}
		emit(spec)
		gentest.WriteFile(t, filepath.Join(caseDir, "declarations_check.ts"), []byte(strings.Join(check, "\n")+"\n"))
	}
	if len(jsModules) < 2 {
		t.Fatalf("only %d valid cases", len(jsModules))
	}
	writeGuideExample(t, filepath.Join(out, "guide"))
	tsconfig, err := os.ReadFile("../../tools/ts/tsconfig.json")
	if err != nil {
		t.Fatal(err)
	}
	conf := strings.Replace(string(tsconfig), `"include": ["../../generated/ts/*.ts", "../../generated/ts/*.mts", "*.ts"]`, `"include": ["*/*.ts", "*/*.mts"]`, 1)
	if conf == string(tsconfig) {
		t.Fatal("tools/ts/tsconfig.json no longer includes what this test replaces")
	}
	gentest.WriteFile(t, filepath.Join(out, "tsconfig.json"), []byte(conf))
	if out, err := exec.Command(tsc, "-p", filepath.Join(out, "tsconfig.json")).CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
	var imports strings.Builder
	for _, m := range jsModules {
		imports.WriteString("await import(" + strconv.Quote("file://"+filepath.ToSlash(m)) + ");\n")
	}
	node := exec.Command("node", "--input-type=module", "-e", imports.String())
	if out, err := node.CombinedOutput(); err != nil {
		t.Fatalf("node could not import a module's JavaScript: %v\n%s", err, out)
	}
}

// writeGuideExample writes the TypeScript guide's page consumer (its
// ```ts block) into dir, with the committed package's jobs module and
// runtime it imports.
func writeGuideExample(t *testing.T, dir string) {
	t.Helper()
	const guide = "../../docs/guides/typescript.md"
	text, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	_, example, ok := strings.Cut(string(text), "```ts\n")
	example, _, ok2 := strings.Cut(example, "```")
	if !ok || !ok2 {
		t.Fatalf("%s has no ```ts example", guide)
	}
	const from = `"@jobgen/jobgen/jobs"`
	if !strings.Contains(example, from) {
		t.Fatalf("%s's example does not import %s", guide, from)
	}
	for _, name := range []string{"jobs.ts", "runtime.ts"} {
		module, err := os.ReadFile("../../generated/ts/" + name)
		if err != nil {
			t.Fatal(err)
		}
		gentest.WriteFile(t, filepath.Join(dir, name), module)
	}
	stubs := `import type { Channel, JobSnapshot, JobStatus } from "./jobs.js";
declare function showJob(job: JobSnapshot): void;
declare function appendOutput(channel: Channel | "", text: string): void;
declare function markGap(): void;
declare function showResult(status: JobStatus): void;
declare const console: { error(message: string): void };
`
	example = strings.ReplaceAll(example, from, `"./jobs.js"`)
	example = strings.ReplaceAll(example, `"@jobgen/jobgen/runtime"`, `"./runtime.js"`)
	gentest.WriteFile(t, filepath.Join(dir, "example.ts"), []byte(stubs+example))
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
