package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepositoryTSIsUpToDate is the drift check of generated/ts/: the
// committed TypeScript must be exactly what spec/ yields.
func TestRepositoryTSIsUpToDate(t *testing.T) {
	code, stdout, stderr := jobgen(t, "verify", "--spec", "../../spec/*.yaml", "--out", "../../generated", "--ts", "../../generated/ts")
	if code != exitOK {
		t.Fatalf("generated/ts is stale; run make generate\n%s%s", stdout, stderr)
	}
}

func TestTSIsWrittenVerifiedAndOrphanedLikeGo(t *testing.T) {
	spec, out := workspace(t, factSpec)
	ts := filepath.Join(filepath.Dir(out), "ts")
	verify := []string{"verify", "--spec", spec, "--out", out, "--ts", ts}
	if code, stdout, stderr := jobgen(t, "generate", "--spec", spec, "--out", out, "--ts", ts); code != exitOK || !strings.Contains(stdout, "wrote "+filepath.Join(ts, "demo.ts")) {
		t.Fatalf("generate: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := jobgen(t, verify...); code != exitOK {
		t.Fatalf("verify of a fresh tree: exit %d\n%s%s", code, stdout, stderr)
	}

	module := filepath.Join(ts, "demo.ts")
	data, _ := os.ReadFile(module)
	os.WriteFile(module, []byte(strings.Replace(string(data), `"task/opened"`, `"task/edited"`, 1)), 0o644)
	if code, stdout, stderr := jobgen(t, verify...); code != exitFindings || !strings.Contains(stderr, module+" (stale)") || !strings.Contains(stdout, `+export const TaskOpenedType = "task/opened";`) {
		t.Errorf("verify of a hand-edited module: exit %d\n%s%s", code, stdout, stderr)
	}

	// A renamed package leaves the old module behind, and verify says so.
	renamed := strings.Replace(factSpec, "name: demo", "name: demo2", 1)
	os.WriteFile(spec, []byte(renamed), 0o644)
	if code, _, stderr := jobgen(t, verify...); code != exitFindings || !strings.Contains(stderr, module+" (orphan") {
		t.Errorf("verify after a rename: exit %d\n%s", code, stderr)
	}
	if code, stdout, stderr := jobgen(t, "generate", "--spec", spec, "--out", out, "--ts", ts); code != exitOK || !strings.Contains(stdout, "removed "+module) ||
		!strings.Contains(stdout, "removed "+filepath.Join(ts, "demo.mjs")) || !strings.Contains(stdout, "removed "+filepath.Join(ts, "demo.d.mts")) {
		t.Errorf("generate after a rename: exit %d\n%s%s", code, stdout, stderr)
	}
	// A hand-written module beside the generated ones is never touched.
	own := filepath.Join(ts, "mine.ts")
	os.WriteFile(own, []byte("export const mine = 1;\n"), 0o644)
	if code, _, stderr := jobgen(t, verify...); code != exitOK {
		t.Errorf("verify with a hand-written module beside: exit %d\n%s", code, stderr)
	}
}

func TestTSNamingErrorsArePositionedAndWriteNothing(t *testing.T) {
	spec, out := workspace(t, "jobgen: 1\npackage: {name: demo}\nrecords:\n  Promise:\n    fields: {a: string}\n")
	ts := filepath.Join(filepath.Dir(out), "ts")
	code, _, stderr := jobgen(t, "generate", "--spec", spec, "--out", out, "--ts", ts)
	if code != exitFindings || stderr != spec+":4:3: records.Promise: name Promise shadows the TypeScript global Promise; rename it\n" {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, dir := range []string{out, ts} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s was written for a spec TypeScript refuses", dir)
		}
	}
}

// TestTSPackageIsWhatTheConfigSays: jobgen.yaml's
// typescript: key names the package, its version and the hand-written
// modules it carries; generate writes package.json, which declares
// jobgen's package as a peer (its runtime is the package's), and copies
// each module (JavaScript and declarations) under a marker naming its
// file, verify finds a stale copy, and a module whose file is gone is
// removed.
func TestTSPackageIsWhatTheConfigSays(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":              downstreamGoMod(t),
		"jobgen.yaml":         "version: 1\nspecs: [spec/*.yaml]\noutputs:\n  go: gen\n  ts: web/vocab\ntypescript:\n  package: \"@down/vocab\"\n  version: 1.2.0\n  modules: [web/src/extra.mjs]\n",
		"spec/demo.yaml":      factSpec,
		"web/src/extra.mjs":   "export const extra = 1;\n",
		"web/src/extra.d.mts": "export declare const extra = 1;\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	t.Chdir(root)
	if code, stdout, stderr := jobgen(t, "generate"); code != exitOK {
		t.Fatalf("generate: exit %d\n%s%s", code, stdout, stderr)
	}
	manifest, _ := os.ReadFile("web/vocab/package.json")
	if !strings.Contains(string(manifest), `"name": "@down/vocab"`) || !strings.Contains(string(manifest), `"version": "1.2.0"`) ||
		!strings.Contains(string(manifest), "\"peerDependencies\": {\n    \"@jobgen/jobgen\": \"^0.0.0\"\n  }") {
		t.Errorf("package.json:\n%s", manifest)
	}
	for _, name := range []string{"demo.ts", "demo.mjs", "demo.d.mts"} {
		if _, err := os.Stat(filepath.Join("web/vocab", name)); err != nil {
			t.Errorf("the package lacks %s: %v", name, err)
		}
	}
	for _, name := range []string{"runtime.ts", "runtime.mjs", "runtime.d.mts"} {
		if _, err := os.Stat(filepath.Join("web/vocab", name)); !os.IsNotExist(err) {
			t.Errorf("the package carries a runtime of its own, %s: it imports jobgen's", name)
		}
	}
	copied, _ := os.ReadFile("web/vocab/extra.mjs")
	if string(copied) != "// Code generated by jobgen from ../src/extra.mjs. DO NOT EDIT.\nexport const extra = 1;\n" {
		t.Errorf("extra.mjs = %q", copied)
	}
	os.WriteFile("web/src/extra.mjs", []byte("export const extra = 2;\n"), 0o644)
	if code, _, stderr := jobgen(t, "verify"); code != exitFindings || !strings.Contains(stderr, filepath.Join("web", "vocab", "extra.mjs")+" (stale)") {
		t.Errorf("verify after the module changed: exit %d\n%s", code, stderr)
	}
	os.Remove("web/src/extra.mjs")
	if code, _, stderr := jobgen(t, "verify"); code != exitUsage || !strings.Contains(stderr, "typescript.modules") || !strings.Contains(stderr, "compile the module first") {
		t.Errorf("verify with the module's file gone: exit %d\n%s", code, stderr)
	}
	os.WriteFile("jobgen.yaml", []byte("version: 1\nspecs: [spec/*.yaml]\noutputs:\n  go: gen\n  ts: web/vocab\n"), 0o644)
	code, stdout, stderr := jobgen(t, "generate")
	if code != exitOK || !strings.Contains(stdout, "removed "+filepath.Join("web", "vocab", "extra.mjs")) {
		t.Errorf("generate once the module is gone: exit %d\n%s%s", code, stdout, stderr)
	}
	// Without the key, the package is named after the module.
	if manifest, _ := os.ReadFile("web/vocab/package.json"); !strings.Contains(string(manifest), `"name": "down"`) {
		t.Errorf("package.json without typescript.package:\n%s", manifest)
	}
	os.WriteFile("jobgen.yaml", []byte("version: 1\nspecs: [spec/*.yaml]\noutputs:\n  ts: web/vocab\ntypescript: {package: Down}\n"), 0o644)
	if code, _, stderr := jobgen(t, "verify"); code != exitUsage || !strings.Contains(stderr, `typescript.package "Down" is not an npm package name`) {
		t.Errorf("verify with a bad name: exit %d\n%s", code, stderr)
	}
}

func TestTSPackageNameOfAModule(t *testing.T) {
	for path, want := range map[string]string{
		"github.com/jobgen/jobgen":         "@jobgen/jobgen",
		"github.com/Acme/Deploy-Tool/v2":   "@acme/deploy-tool",
		"example.com/mono/services/orders": "@mono/orders",
		"example.com/down":                 "down",
		"tool":                             "tool",
		"":                                 "",
	} {
		if got := tsPackageName(path); got != want {
			t.Errorf("tsPackageName(%q) = %q, want %q", path, got, want)
		}
	}
}
