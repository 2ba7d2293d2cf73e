package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen"
)

const validSpec = `jobgen: 1
package:
  name: demo
enums:
  Color:
    doc: A Color is a color.
    values:
      red: {}
      blue: {}
`

// invalidSpec has two problems, so the test sees that all are reported.
const invalidSpec = `jobgen: 1
package:
  name: demo
enums:
  Color:
    dok: typo
    values:
      red: {}
records:
  Item:
    fields:
      c: Colour
`

// jobgen runs the command and returns its exit status and output.
func jobgen(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// workspace returns a directory holding spec/demo.yaml with the given text.
func workspace(t *testing.T, spec string) (specPath, out string) {
	t.Helper()
	dir := t.TempDir()
	specPath = filepath.Join(dir, "spec", "demo.yaml")
	if err := os.MkdirAll(filepath.Dir(specPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return specPath, filepath.Join(dir, "generated")
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"frobnicate"},
		{"generate", "--bogus"},
		{"generate", "extra-arg"},
		{"verify", "--out"},
		{"check", "--out", "x"},
	} {
		code, _, stderr := jobgen(t, args...)
		if code != exitUsage {
			t.Errorf("jobgen %v exited %d, want %d", args, code, exitUsage)
		}
		if !strings.Contains(stderr, "Usage") && !strings.Contains(stderr, "flag") {
			t.Errorf("jobgen %v: stderr does not explain usage:\n%s", args, stderr)
		}
	}
}

func TestHelpExits0OnStdout(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"generate", "--help"}, {"verify", "-h"}, {"check", "--help"},
		{"breaking", "--help"}, {"schema", "--help"}, {"docs", "-h"}} {
		code, stdout, stderr := jobgen(t, args...)
		if code != exitOK || !strings.Contains(stdout, "Usage") || stderr != "" {
			t.Errorf("jobgen %v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

func TestGenerateWritesThenReportsNothingChanged(t *testing.T) {
	spec, out := workspace(t, validSpec)
	code, stdout, stderr := jobgen(t, "generate", "--spec", spec, "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{"doc.gen.go", "codec.gen.go", "enums.gen.go"} {
		p := filepath.Join(out, "demo", name)
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s not written: %v", p, err)
		}
		if !strings.Contains(stdout, "wrote "+p) {
			t.Errorf("stdout does not name %s:\n%s", p, stdout)
		}
	}
	code, stdout, _ = jobgen(t, "generate", "--spec", spec, "--out", out)
	if code != exitOK || !strings.Contains(stdout, "3 files from 1 spec, 0 changed") || strings.Contains(stdout, "wrote") {
		t.Errorf("second generate: exit %d, stdout:\n%s", code, stdout)
	}
}

func TestInvalidSpecExits1AndWritesNothing(t *testing.T) {
	spec, out := workspace(t, validSpec)
	if code, _, stderr := jobgen(t, "generate", "--spec", spec, "--out", out); code != exitOK {
		t.Fatal(stderr)
	}
	before, _ := os.ReadFile(filepath.Join(out, "demo", "enums.gen.go"))
	if err := os.WriteFile(spec, []byte(invalidSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"generate", "check", "verify"} {
		args := []string{cmd, "--spec", spec}
		if cmd != "check" {
			args = append(args, "--out", out)
		}
		code, stdout, stderr := jobgen(t, args...)
		if code != exitFindings {
			t.Errorf("%s: exit %d, want %d", cmd, code, exitFindings)
		}
		want := spec + ":6:5: enums.Color: unknown key dok; did you mean doc?\n" +
			spec + ":12:10: undeclared type Colour; did you mean Color?\n"
		if stderr != want {
			t.Errorf("%s: stderr =\n%s\nwant\n%s", cmd, stderr, want)
		}
		if stdout != "" {
			t.Errorf("%s: stdout = %q, want nothing", cmd, stdout)
		}
	}
	after, _ := os.ReadFile(filepath.Join(out, "demo", "enums.gen.go"))
	if !bytes.Equal(before, after) {
		t.Error("an invalid spec changed the generated files")
	}
}

func TestVerifyReportsStaleMissingAndOrphanedFiles(t *testing.T) {
	spec, out := workspace(t, validSpec)
	if code, _, stderr := jobgen(t, "generate", "--spec", spec, "--out", out); code != exitOK {
		t.Fatal(stderr)
	}
	if code, stdout, _ := jobgen(t, "verify", "--spec", spec, "--out", out); code != exitOK || !strings.Contains(stdout, "up to date") {
		t.Fatalf("verify of a fresh tree: exit %d\n%s", code, stdout)
	}
	enums := filepath.Join(out, "demo", "enums.gen.go")
	data, _ := os.ReadFile(enums)
	edited := strings.Replace(string(data), `= "red"`, `= "rouge"`, 1)
	if edited == string(data) {
		t.Fatal("test setup: the constant to edit is not in the generated file")
	}
	os.WriteFile(enums, []byte(edited), 0o644)
	os.Remove(filepath.Join(out, "demo", "codec.gen.go"))
	os.WriteFile(filepath.Join(out, "demo", "gone.gen.go"), []byte("// Code generated by jobgen from ../../spec/demo.yaml. DO NOT EDIT.\n\npackage demo\n"), 0o644)
	os.WriteFile(filepath.Join(out, "demo", "handwritten.go"), []byte("package demo\n"), 0o644)

	code, stdout, stderr := jobgen(t, "verify", "--spec", spec, "--out", out)
	if code != exitFindings {
		t.Fatalf("verify exit %d, want %d", code, exitFindings)
	}
	for _, want := range []string{
		"-\tColorRed  Color = \"rouge\"\n+\tColorRed  Color = \"red\"\n",
		"+++ " + filepath.ToSlash(out) + "/demo/codec.gen.go",
		"--- " + filepath.ToSlash(out) + "/demo/gone.gen.go\n+++ /dev/null",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("verify diff lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{"enums.gen.go (stale)", "codec.gen.go (missing)", "gone.gen.go (orphan: its spec ../../spec/demo.yaml no longer generates it)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("verify summary lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stdout+stderr, "handwritten.go") {
		t.Error("verify reported a hand-written file")
	}
	if code, _, stderr := jobgen(t, "generate", "--spec", spec, "--out", out); code != exitOK {
		t.Fatal(stderr)
	}
	if code, _, stderr := jobgen(t, "verify", "--spec", spec, "--out", out); code != exitOK {
		t.Errorf("verify after generate: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "demo", "handwritten.go")); err != nil {
		t.Error("generate removed a hand-written file")
	}
}

func TestCheck(t *testing.T) {
	spec, _ := workspace(t, validSpec)
	if code, stdout, _ := jobgen(t, "check", "--spec", spec); code != exitOK || !strings.Contains(stdout, "valid") {
		t.Errorf("check of a valid spec: exit %d, %q", code, stdout)
	}
	if code, _, stderr := jobgen(t, "check", "--spec", filepath.Join(t.TempDir(), "*.yaml")); code != exitUsage || !strings.Contains(stderr, "no spec matches") {
		t.Errorf("check with no spec: exit %d, %q", code, stderr)
	}
}

func TestTwoSpecsForOnePackageAreRefused(t *testing.T) {
	spec, out := workspace(t, validSpec)
	other := filepath.Join(filepath.Dir(spec), "other.yaml")
	os.WriteFile(other, []byte(validSpec), 0o644)
	code, _, stderr := jobgen(t, "generate", "--spec", filepath.Join(filepath.Dir(spec), "*.yaml"), "--out", out)
	if code != exitFindings || !strings.Contains(stderr, "both generate "+filepath.Join(out, "demo")+"/") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("generate wrote files despite the conflict")
	}
}

// TestRepositoryIsUpToDate is the drift check from inside go test: the
// committed generated/, docs/reference/ and schema/ must be exactly what
// spec/ yields.
func TestRepositoryIsUpToDate(t *testing.T) {
	code, stdout, stderr := jobgen(t, "verify", "--spec", "../../spec/*.yaml", "--out", "../../generated",
		"--docs", "../../docs/reference", "--schema", "../../schema", "--ts", "../../generated/ts", "--python", "../../generated/python")
	if code != exitOK {
		t.Fatalf("generated/ is stale; run make generate\n%s%s", stdout, stderr)
	}
}

// factSpec has a fact, so breaking has history to protect.
const factSpec = `jobgen: 1
package:
  name: demo
ids:
  TaskID: {kind: uuid}
facts:
  task/opened:
    versions:
      v1:
        fields:
          id: TaskID
          note: {type: string, optional: true}
faces:
  Worker:
    methods:
      Report: "func(detail string) error"
`

func TestBreakingReportsFindingsAndExits1(t *testing.T) {
	old, _ := workspace(t, factSpec)
	broken := strings.Replace(factSpec, "          note: {type: string, optional: true}\n", "", 1)
	broken = strings.Replace(broken, `"func(detail string) error"`, `"func(detail string, code int) error"`, 1)
	spec, _ := workspace(t, broken)

	code, stdout, stderr := jobgen(t, "breaking", "--spec", spec, "--against", old)
	if code != exitFindings {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitFindings, stdout, stderr)
	}
	want := old + ":12:11: FIELD_DELETED_NOT_RESERVED: facts.task/opened.versions.v1.fields.note: field note was deleted; list note under the fact's reserved: so it never comes back with another meaning [durable: full, goapi: backward]\n" +
		spec + ":15:16: FACE_METHOD_CHANGED: faces.Worker.methods.Report: method Report changed from func(string) error to func(string, int) error; keep the old method and add one with the new signature under another name [goapi: backward]\n"
	if stdout != want {
		t.Errorf("stdout =\n%s\nwant\n%s", stdout, want)
	}
	if !strings.Contains(stderr, "2 breaking findings against "+old) {
		t.Errorf("stderr = %q", stderr)
	}

	// --category keeps only the findings of the categories named.
	code, stdout, _ = jobgen(t, "breaking", "--spec", spec, "--against", old, "--category", "durable")
	if code != exitFindings || !strings.Contains(stdout, "FIELD_DELETED") || strings.Contains(stdout, "FACE_METHOD_CHANGED") {
		t.Errorf("--category durable: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = jobgen(t, "breaking", "--spec", spec, "--against", old, "--category", "wire")
	if code != exitOK || !strings.Contains(stdout, "no breaking changes") {
		t.Errorf("--category wire: exit %d\n%s", code, stdout)
	}
}

func TestBreakingAcceptsAllowedChangesAndExits0(t *testing.T) {
	old, _ := workspace(t, factSpec)
	allowed := strings.Replace(factSpec, "          note: {type: string, optional: true}\n", "", 1)
	allowed = strings.Replace(allowed, "package:", `allow_breaking:
  - rule: FIELD_DELETED_NOT_RESERVED
    path: facts.task/opened.versions.v1.fields.note
    reason: note was never written by any release.
package:`, 1)
	spec, _ := workspace(t, allowed)
	code, stdout, stderr := jobgen(t, "breaking", "--spec", spec, "--against", old)
	if code != exitOK || stdout != "jobgen: no breaking changes against "+old+" (1 change accepted by allow_breaking)\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestBreakingUsage(t *testing.T) {
	spec, _ := workspace(t, factSpec)
	for _, args := range [][]string{
		{"breaking", "--spec", spec},
		{"breaking", "--spec", spec, "--against", spec, "--category", "wires"},
	} {
		if code, _, stderr := jobgen(t, args...); code != exitUsage {
			t.Errorf("jobgen %v: exit %d, want %d\n%s", args, code, exitUsage, stderr)
		}
	}
	// A missing older spec is not a finding: nothing was compared.
	if code, _, stderr := jobgen(t, "breaking", "--spec", spec, "--against", filepath.Join(t.TempDir(), "none.yaml")); code != exitFailure || !strings.Contains(stderr, "none.yaml") {
		t.Errorf("missing old spec: exit %d (want %d), %q", code, exitFailure, stderr)
	}
}

// TestBreakingAgainstGit reads the old spec from a commit, with the path
// defaulting to the new spec's own path in the repository.
func TestBreakingAgainstGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed; breaking --against git:REF cannot be tested")
		}
		t.Skip("no git in PATH; install git to test breaking --against git:REF")
	}
	spec, _ := workspace(t, factSpec)
	repo := filepath.Dir(filepath.Dir(spec))
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "release"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.WriteFile(spec, []byte(strings.Replace(factSpec, "  task/opened:", "  task/closed:", 1)), 0o644)
	// The deleted fact cannot be shown at HEAD:spec/demo.yaml:7:3, which no
	// editor opens: the finding points into the new file and names the old line.
	code, stdout, stderr := jobgen(t, "breaking", "--spec", spec, "--against", "git:HEAD")
	if code != exitFindings || !strings.HasPrefix(stdout, spec+":3:9: FACT_DELETED: facts.task/opened:") ||
		!strings.Contains(stdout, "(deleted from HEAD:spec/demo.yaml line 7)") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	code, stdout, _ = jobgen(t, "breaking", "--spec", spec, "--against", "git:HEAD:spec/demo.yaml")
	if code != exitFindings || !strings.Contains(stdout, "FACT_DELETED") {
		t.Errorf("explicit path: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := jobgen(t, "breaking", "--spec", spec, "--against", "git:no-such-ref"); code != exitFailure || !strings.Contains(stderr, "git show") {
		t.Errorf("bad ref: exit %d, %q", code, stderr)
	}
}

func TestSchemaAndDocsAreWrittenAndVerified(t *testing.T) {
	spec, out := workspace(t, factSpec)
	root := filepath.Dir(out)
	schema, docs := filepath.Join(root, "schema"), filepath.Join(root, "docs")
	if code, stdout, stderr := jobgen(t, "schema", "--spec", spec, "--out", schema); code != exitOK || !strings.Contains(stdout, "wrote "+filepath.Join(schema, "demo.schema.json")) {
		t.Fatalf("schema: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := jobgen(t, "docs", "--spec", spec, "--out", docs); code != exitOK || !strings.Contains(stdout, "wrote "+filepath.Join(docs, "demo.md")) {
		t.Fatalf("docs: exit %d\n%s%s", code, stdout, stderr)
	}
	verify := []string{"verify", "--spec", spec, "--out", out, "--docs", docs, "--schema", schema}
	if code, _, _ := jobgen(t, verify...); code != exitFindings {
		t.Errorf("verify passed with the Go package missing")
	}
	if code, stdout, stderr := jobgen(t, "generate", "--spec", spec, "--out", out, "--docs", docs, "--schema", schema); code != exitOK || !strings.Contains(stdout, "7 files from 1 spec, 5 changed") {
		t.Fatalf("generate: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := jobgen(t, verify...); code != exitOK {
		t.Fatalf("verify of a fresh tree: exit %d\n%s%s", code, stdout, stderr)
	}
	md := filepath.Join(docs, "demo.md")
	data, _ := os.ReadFile(md)
	os.WriteFile(md, []byte(strings.Replace(string(data), "task/opened", "task/edited", 1)), 0o644)
	code, stdout, stderr := jobgen(t, verify...)
	if code != exitFindings || !strings.Contains(stderr, md+" (stale)") || !strings.Contains(stdout, "+- [Facts](#facts): [task/opened]") {
		t.Errorf("verify of an edited reference: exit %d\n%s%s", code, stdout, stderr)
	}
	// Without the flags verify looks at Go only, for users who want nothing else.
	if code, _, stderr := jobgen(t, "verify", "--spec", spec, "--out", out); code != exitOK {
		t.Errorf("verify without --docs: exit %d\n%s", code, stderr)
	}
}

// TestDefaultSpecGlobSkipsTheBaseline: spec/baseline/ holds the released spec
// for breaking to compare with; it declares the same package, so generating
// from it too would fail, and it must never happen by default.
func TestDefaultSpecGlobSkipsTheBaseline(t *testing.T) {
	spec, _ := workspace(t, validSpec)
	root := filepath.Dir(filepath.Dir(spec))
	baseline := filepath.Join(root, "spec", "baseline", "demo.yaml")
	if err := os.MkdirAll(filepath.Dir(baseline), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(baseline, []byte(validSpec), 0o644)
	t.Chdir(root)
	code, stdout, stderr := jobgen(t, "generate")
	if code != exitOK || !strings.Contains(stdout, "3 files from 1 spec") {
		t.Errorf("generate: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := jobgen(t, "breaking", "--against", "spec/baseline/demo.yaml"); code != exitOK {
		t.Errorf("breaking against the baseline: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestGenerateRefusesToOverwriteAHandWrittenFile: a file
// without jobgen's header where generate would write is named in a clear
// error, and nothing is written at all.
func TestGenerateRefusesToOverwriteAHandWrittenFile(t *testing.T) {
	spec, out := workspace(t, validSpec)
	hand := filepath.Join(out, "demo", "enums.gen.go")
	os.MkdirAll(filepath.Dir(hand), 0o755)
	os.WriteFile(hand, []byte("package demo\n\nconst Mine = 1\n"), 0o644)
	code, stdout, stderr := jobgen(t, "generate", "--spec", spec, "--out", out)
	if code != exitFindings || !strings.Contains(stderr, hand+" was not written by jobgen") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "wrote") {
		t.Errorf("generate reports writing:\n%s", stdout)
	}
	if data, _ := os.ReadFile(hand); string(data) != "package demo\n\nconst Mine = 1\n" {
		t.Errorf("the hand-written file was replaced")
	}
	if _, err := os.Stat(filepath.Join(out, "demo", "codec.gen.go")); !os.IsNotExist(err) {
		t.Error("generate wrote other files despite the conflict")
	}
	if code, _, stderr := jobgen(t, "verify", "--spec", spec, "--out", out); code != exitFindings || !strings.Contains(stderr, hand+" (conflict: was not written by jobgen") {
		t.Errorf("verify: exit %d\n%s", code, stderr)
	}
}

// twoSpecs is a workspace with spec/alpha.yaml and spec/beta.yaml, declaring
// packages alpha and beta.
func twoSpecs(t *testing.T) (root string) {
	t.Helper()
	alpha, _ := workspace(t, strings.Replace(validSpec, "name: demo", "name: alpha", 1))
	root = filepath.Dir(filepath.Dir(alpha))
	os.Rename(alpha, filepath.Join(root, "spec", "alpha.yaml"))
	os.WriteFile(filepath.Join(root, "spec", "beta.yaml"), []byte(strings.Replace(validSpec, "name: demo", "name: beta", 1)), 0o644)
	return root
}

// TestSpecsGeneratedOneAtATimeShareDocsAndSchemaRoots:
// decision 0002 lets specs share roots; generating them one at a time keeps
// each spec's reference and schema, and verify of each passes.
func TestSpecsGeneratedOneAtATimeShareDocsAndSchemaRoots(t *testing.T) {
	root := twoSpecs(t)
	t.Chdir(root)
	for _, name := range []string{"alpha", "beta"} {
		code, stdout, stderr := jobgen(t, "generate", "--spec", "spec/"+name+".yaml", "--docs", "docs", "--schema", "schema")
		if code != exitOK || strings.Contains(stdout, "removed") {
			t.Fatalf("generate %s: exit %d\n%s%s", name, code, stdout, stderr)
		}
	}
	for _, f := range []string{"docs/alpha.md", "docs/beta.md", "schema/alpha.schema.json", "schema/beta.schema.json"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s is gone: %v", f, err)
		}
	}
	for _, name := range []string{"alpha", "beta"} {
		if code, stdout, stderr := jobgen(t, "verify", "--spec", "spec/"+name+".yaml", "--docs", "docs", "--schema", "schema"); code != exitOK {
			t.Errorf("verify %s: exit %d\n%s%s", name, code, stdout, stderr)
		}
	}
}

// TestOverlappingOutputRootsAreRefused: --schema inside
// the Go output (or any two nested roots) is refused before anything is
// written, instead of one output deleting the other's files.
func TestOverlappingOutputRootsAreRefused(t *testing.T) {
	spec, out := workspace(t, validSpec)
	for _, args := range [][]string{
		{"--schema", filepath.Join(out, "demo")},
		{"--docs", out},
		{"--docs", filepath.Join(out, "docs"), "--schema", filepath.Join(out, "docs")},
	} {
		code, _, stderr := jobgen(t, append([]string{"generate", "--spec", spec, "--out", out}, args...)...)
		if code != exitUsage || !strings.Contains(stderr, "overlap") {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
		}
		if code, _, stderr := jobgen(t, append([]string{"verify", "--spec", spec, "--out", out}, args...)...); code != exitUsage || !strings.Contains(stderr, "overlap") {
			t.Errorf("verify %v: exit %d\n%s", args, code, stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("generate wrote files despite overlapping roots")
	}
}

// TestDeletedSpecLeavesNoPackageBehindUnnoticed: verify
// reports the package of a spec that was deleted; generate removes it.
func TestDeletedSpecLeavesNoPackageBehindUnnoticed(t *testing.T) {
	root := twoSpecs(t)
	t.Chdir(root)
	if code, stdout, stderr := jobgen(t, "generate"); code != exitOK {
		t.Fatalf("generate: exit %d\n%s%s", code, stdout, stderr)
	}
	os.Remove("spec/beta.yaml")
	code, _, stderr := jobgen(t, "verify")
	if code != exitFindings || !strings.Contains(stderr, filepath.Join("generated", "beta", "enums.gen.go")+" (orphan: its spec ../../spec/beta.yaml no longer exists)") {
		t.Errorf("verify after deleting a spec: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := jobgen(t, "generate")
	if code != exitOK || !strings.Contains(stdout, "removed "+filepath.Join("generated", "beta", "doc.gen.go")) {
		t.Errorf("generate after deleting a spec: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join("generated", "beta")); !os.IsNotExist(err) {
		t.Error("the package directory is still there")
	}
	if code, _, stderr := jobgen(t, "verify"); code != exitOK {
		t.Errorf("verify after generate: exit %d\n%s", code, stderr)
	}
}

// TestPackageNamesGoCannotImportAreRefused: package.name
// _ or main passes the spec's own rules but yields a package that does not
// build; check and generate refuse it at its position.
func TestPackageNamesGoCannotImportAreRefused(t *testing.T) {
	for _, name := range []string{"_", "main"} {
		spec, out := workspace(t, strings.Replace(validSpec, "name: demo", "name: "+name, 1))
		for _, args := range [][]string{{"check", "--spec", spec}, {"generate", "--spec", spec, "--out", out}} {
			code, _, stderr := jobgen(t, args...)
			if code != exitFindings || !strings.HasPrefix(stderr, spec+":3:9: package.name: "+name+" ") {
				t.Errorf("%s with package %s: exit %d\n%s", args[0], name, code, stderr)
			}
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("generate wrote package %s", name)
		}
	}
}

// TestSpecsOverTheSizeLimitAreRefused: the limit is 1 MiB
// unless --max-spec-size raises it; the error says how.
func TestSpecsOverTheSizeLimitAreRefused(t *testing.T) {
	spec, _ := workspace(t, validSpec+strings.Repeat("# padding\n", 110_000))
	code, _, stderr := jobgen(t, "check", "--spec", spec)
	if code != exitFindings || !strings.Contains(stderr, "over the limit of 1048576; raise it with --max-spec-size") {
		t.Errorf("check of a 1.1 MB spec: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := jobgen(t, "check", "--spec", spec, "--max-spec-size", "2MiB"); code != exitOK {
		t.Errorf("check with the limit raised: exit %d\n%s", code, stderr)
	}
	if code, _, _ := jobgen(t, "check", "--spec", spec, "--max-spec-size", "lots"); code != exitUsage {
		t.Errorf("a bad size: exit %d, want %d", code, exitUsage)
	}
}

// TestExitStatusTellsFindingsFromFailures: a CI step can
// tell "the change is wrong" (1) from "the command line is wrong" (2) and
// "the check could not run" (3).
func TestExitStatusTellsFindingsFromFailures(t *testing.T) {
	spec, out := workspace(t, validSpec)
	bad, _ := workspace(t, invalidSpec)
	unwritable := filepath.Join(t.TempDir(), "file")
	os.WriteFile(unwritable, []byte("not a directory"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"a valid spec", []string{"check", "--spec", spec}, exitOK},
		{"an invalid spec", []string{"check", "--spec", bad}, exitFindings},
		{"breaking findings", []string{"breaking", "--spec", bad, "--against", spec}, exitFindings},
		{"a --spec matching nothing", []string{"check", "--spec", filepath.Join(t.TempDir(), "*.yaml")}, exitUsage},
		{"a missing --against", []string{"breaking", "--spec", spec}, exitUsage},
		{"an --against file that does not exist", []string{"breaking", "--spec", spec, "--against", filepath.Join(t.TempDir(), "gone.yaml")}, exitFailure},
		{"a spec that cannot be read", []string{"check", "--spec", t.TempDir()}, exitFailure},
		{"an output root that cannot be written", []string{"generate", "--spec", spec, "--out", filepath.Join(unwritable, "out")}, exitFailure},
		{"a stale tree", []string{"verify", "--spec", spec, "--out", out}, exitFindings},
	} {
		if code, stdout, stderr := jobgen(t, tc.args...); code != tc.want {
			t.Errorf("%s: jobgen %v exited %d, want %d\n%s%s", tc.name, tc.args, code, tc.want, stdout, stderr)
		}
	}
}

// TestHelpDocumentsExitStatus: the exit statuses are in --help, not only in
// docs/guides/your-own-vocabulary.md.
func TestHelpDocumentsExitStatus(t *testing.T) {
	_, stdout, _ := jobgen(t, "help")
	for _, want := range []string{"Exit status:", "1  findings", "2  usage", "3  failure"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("jobgen help does not say %q:\n%s", want, stdout)
		}
	}
}

// TestErrorFormats: --error-format=json prints one object
// per finding and github-actions prints workflow annotations, both on
// stdout, for check, generate, verify and breaking.
func TestErrorFormats(t *testing.T) {
	bad, out := workspace(t, invalidSpec)
	for _, cmd := range []string{"check", "generate", "verify"} {
		args := []string{cmd, "--spec", bad, "--error-format=github-actions"}
		if cmd != "check" {
			args = append(args, "--out", out)
		}
		code, stdout, stderr := jobgen(t, args...)
		want := "::error file=" + bad + ",line=6,col=5::enums.Color: unknown key dok; did you mean doc?\n" +
			"::error file=" + bad + ",line=12,col=10::undeclared type Colour; did you mean Color?\n"
		if code != exitFindings || stdout != want || stderr != "" {
			t.Errorf("%s: exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", cmd, code, stdout, want, stderr)
		}
		args[3] = "--error-format=json"
		code, stdout, _ = jobgen(t, args...)
		want = `{"path":"` + bad + `","start_line":6,"start_column":5,"type":"SPEC","message":"enums.Color: unknown key dok; did you mean doc?"}` + "\n" +
			`{"path":"` + bad + `","start_line":12,"start_column":10,"type":"SPEC","message":"undeclared type Colour; did you mean Color?"}` + "\n"
		if code != exitFindings || stdout != want {
			t.Errorf("%s json: exit %d\nstdout:\n%s\nwant:\n%s", cmd, code, stdout, want)
		}
	}

	old, _ := workspace(t, factSpec)
	spec, _ := workspace(t, strings.Replace(factSpec, "          note: {type: string, optional: true}\n", "", 1))
	code, stdout, _ := jobgen(t, "breaking", "--spec", spec, "--against", old, "--error-format", "github-actions")
	want := "::error file=" + old + ",line=12,col=11::FIELD_DELETED_NOT_RESERVED: facts.task/opened.versions.v1.fields.note: field note was deleted; list note under the fact's reserved: so it never comes back with another meaning [durable: full, goapi: backward]\n"
	if code != exitFindings || stdout != want {
		t.Errorf("breaking github-actions: exit %d\n%s\nwant\n%s", code, stdout, want)
	}
	code, stdout, _ = jobgen(t, "breaking", "--spec", spec, "--against", old, "--error-format", "json")
	want = `{"path":"` + old + `","start_line":12,"start_column":11,"type":"FIELD_DELETED_NOT_RESERVED","message":"field note was deleted; list note under the fact's reserved: so it never comes back with another meaning","element":"facts.task/opened.versions.v1.fields.note","categories":["durable","goapi"],"modes":["full","backward"]}` + "\n"
	if code != exitFindings || stdout != want {
		t.Errorf("breaking json: exit %d\n%s\nwant\n%s", code, stdout, want)
	}

	// A stale file has no line to point at; the annotation names the file.
	good, out := workspace(t, validSpec)
	code, stdout, _ = jobgen(t, "verify", "--spec", good, "--out", out, "--error-format=github-actions")
	if code != exitFindings || !strings.Contains(stdout, "::error file="+filepath.Join(out, "demo", "enums.gen.go")+"::MISSING: generated file is missing; run jobgen generate\n") || strings.Contains(stdout, "+++") {
		t.Errorf("verify github-actions: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := jobgen(t, "check", "--spec", good, "--error-format=xml"); code != exitUsage || !strings.Contains(stderr, "unknown error format") {
		t.Errorf("--error-format=xml: exit %d\n%s", code, stderr)
	}
}

func TestAnnotationsEscapeWhatTheRunnerReads(t *testing.T) {
	var out bytes.Buffer
	r := newReporter(formatGitHubActions, &out, &out)
	r.finding(diagnostic{Pos: genPos("a,b:c.yaml", 1, 2), Type: "SPEC", Msg: "100% wrong\nsecond line"}, &out)
	if want := "::error file=a%2Cb%3Ac.yaml,line=1,col=2::100%25 wrong%0Asecond line\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func genPos(file string, line, col int) gen.Pos { return gen.Pos{File: file, Line: line, Col: col} }

// TestHelpCommand: jobgen help CMD prints CMD's own help,
// not the top-level usage.
func TestHelpCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "generate"}, "Usage: jobgen generate [flags]"},
		{[]string{"help", "breaking"}, "-against"},
		{[]string{"help", "journal"}, "Usage: jobgen journal <command>"},
		{[]string{"help", "journal", "intervals"}, "Usage: jobgen journal intervals"},
		{[]string{"help", "version"}, "Usage: jobgen version"},
		{[]string{"help"}, "Commands:"},
	} {
		code, stdout, stderr := jobgen(t, tc.args...)
		if code != exitOK || !strings.Contains(stdout, tc.want) || stderr != "" {
			t.Errorf("jobgen %v: exit %d, stdout %q, stderr %q; want %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if code, _, stderr := jobgen(t, "help", "frobnicate"); code != exitUsage || !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Errorf("help of an unknown command: exit %d, %q", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := jobgen(t, "version")
	if code != exitOK || !strings.HasPrefix(stdout, "jobgen ") || !strings.Contains(stdout, "go1.") {
		t.Errorf("jobgen version: exit %d, %q", code, stdout)
	}
	for _, tc := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{&debug.BuildInfo{GoVersion: "go1.25.0", Main: debug.Module{Version: "v1.2.0"}}, "jobgen v1.2.0 (go1.25.0)"},
		{&debug.BuildInfo{GoVersion: "go1.25.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "99bb5ec0123456789abcdef"}, {Key: "vcs.time", Value: "2026-12-01T09:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			"jobgen (devel) (99bb5ec01234+dirty, 2026-12-01T09:00:00Z, go1.25.0)"},
		{nil, "jobgen (unknown version: built without module information)"},
	} {
		if got := versionText(tc.info, tc.info != nil); got != tc.want {
			t.Errorf("versionText = %q, want %q", got, tc.want)
		}
	}
}

// TestBreakingFindsWhatBreaksGoCallers: a field deleted
// from a record nothing sends, a removed enum constant and a widened field
// type break go build downstream; --category goapi reports each, with a fix.
func TestBreakingFindsWhatBreaksGoCallers(t *testing.T) {
	const before = `jobgen: 1
package:
  name: demo
enums:
  Level:
    values: {low: {}, high: {}}
records:
  Artifact:
    fields:
      name: string
      digest: string
      size: int32
`
	old, _ := workspace(t, before)
	after := strings.Replace(before, "      digest: string\n", "", 1)
	after = strings.Replace(after, "high: {}", "max: {}", 1)
	after = strings.Replace(after, "size: int32", "size: int64", 1)
	spec, _ := workspace(t, after)
	code, stdout, stderr := jobgen(t, "breaking", "--spec", spec, "--against", old, "--category", "goapi")
	want := old + ":6:23: ENUM_VALUE_DELETED: enums.Level.values.high: value high was deleted or renamed; Go code naming LevelHigh no longer compiles; keep the value (say in its doc that it is no longer used) [goapi: backward]\n" +
		old + ":11:7: FIELD_DELETED: records.Artifact.fields.digest: field digest was deleted; Go code naming Digest no longer compiles; keep it (optional: true, and stop setting it) [goapi: backward]\n" +
		spec + ":11:13: FIELD_TYPE_CHANGED: records.Artifact.fields.size: type changed from int32 to int64; old JSON still decodes, but Go code using the field as int32 no longer compiles; keep int32, or accept the break in allow_breaking [goapi: backward]\n"
	if code != exitFindings || stdout != want {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", code, stdout, want, stderr)
	}
}

// TestSummaryCountsFilesAndSpecs: the summary counts the
// spec files read, not the --spec patterns, and says "1 file".
func TestSummaryCountsFilesAndSpecs(t *testing.T) {
	root := twoSpecs(t)
	t.Chdir(root)
	code, stdout, stderr := jobgen(t, "generate")
	if code != exitOK || !strings.Contains(stdout, "jobgen: 6 files from 2 specs, 6 changed\n") {
		t.Errorf("generate of two specs through one pattern: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = jobgen(t, "schema", "--spec", "spec/alpha.yaml")
	if code != exitOK || !strings.Contains(stdout, "jobgen: 1 file from 1 spec, 1 changed\n") {
		t.Errorf("schema of one spec: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestUpcasterWithSourcesMatchingNothingIsOneProblem: a
// package.sources pattern that matches nothing is reported there, and the
// upcaster is not also said to be missing because "the spec lists none".
func TestUpcasterWithSourcesMatchingNothingIsOneProblem(t *testing.T) {
	spec, _ := workspace(t, `jobgen: 1
package:
  name: demo
  sources: [upcast/*.go]
ids:
  TaskID: {kind: uuid}
facts:
  task/opened:
    versions:
      v1:
        upcast: upcastTaskOpenedV1
        fields:
          id: TaskID
      v2:
        fields:
          id: {type: TaskID, since: v1}
          note: {type: string, optional: true}
`)
	code, _, stderr := jobgen(t, "check", "--spec", spec)
	if want := spec + ":4:13: package.sources: upcast/*.go matches no file\n"; code != exitFindings || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
}

// TestGeneratedCodeSpeaksTheSpecsVocabulary: nothing the
// generator writes on its own speaks of jobs; only the spec's own docs may.
func TestGeneratedCodeSpeaksTheSpecsVocabulary(t *testing.T) {
	vocabulary := strings.Replace(factSpec, "  TaskID: {kind: uuid}\n", "  TaskID: {kind: uuid}\n  OwnerID: {kind: string}\n", 1) + `enums:
  Color:
    values: {red: {}, blue: {}}
records:
  Item:
    fields:
      c: Color
      owner: {type: OwnerID, optional: true}
unions:
  Event:
    discriminator: kind
    variants:
      Moved:
        tag: moved
        fields:
          to: string
`
	spec, out := workspace(t, vocabulary)
	if code, stdout, stderr := jobgen(t, "generate", "--spec", spec, "--out", out, "--docs", filepath.Join(filepath.Dir(out), "docs"), "--schema", filepath.Join(filepath.Dir(out), "schema"), "--ts", filepath.Join(filepath.Dir(out), "ts")); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	job := regexp.MustCompile(`(?i)\bjobs?\b`)
	filepath.WalkDir(filepath.Dir(out), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".yaml") {
			return err
		}
		data, _ := os.ReadFile(p)
		for i, line := range strings.Split(string(data), "\n") {
			if job.MatchString(line) {
				t.Errorf("%s:%d speaks of jobs: %s", p, i+1, line)
			}
		}
		return nil
	})
}

// downstream is a module example.com/down with jobgen.yaml listing
// jobs/demo.yaml and writing Go under internal/gen; pkgPath is the spec's
// package.path.
func downstream(t *testing.T, pkgPath string) (root string) {
	t.Helper()
	root = t.TempDir()
	files := map[string]string{
		"go.mod":           downstreamGoMod(t),
		"jobgen.yaml":      "version: 1\nspecs: [jobs/*.yaml]\noutputs:\n  go: internal/gen\n  schema: schema\n",
		"jobs/demo.yaml":   strings.Replace(validSpec, "  name: demo\n", "  name: demo\n  path: "+pkgPath+"\n", 1),
		"cmd/tool/main.go": "package main\n\nfunc main() {}\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// downstreamGoMod is the go.mod of module example.com/down, which
// requires jobgen as this repository (whose packages carry the runtime its
// TypeScript and Python packages import).
func downstreamGoMod(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return "module example.com/down\n\ngo 1.25\n\nrequire github.com/jobgen/jobgen v0.0.0\n\nreplace github.com/jobgen/jobgen => " + repo + "\n"
}

// TestConfigFileIsFoundUpward: in a module with a
// jobgen.yaml, generate and verify with no flags, run from any directory of
// the module, do what the file lists.
func TestConfigFileIsFoundUpward(t *testing.T) {
	root := downstream(t, "example.com/down/internal/gen/demo")
	t.Chdir(filepath.Join(root, "cmd", "tool"))
	code, stdout, stderr := jobgen(t, "generate")
	if code != exitOK || !strings.Contains(stdout, "wrote "+filepath.Join("..", "..", "internal", "gen", "demo", "enums.gen.go")) ||
		!strings.Contains(stdout, "4 files from 1 spec") {
		t.Fatalf("generate from a subdirectory: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "schema", "demo.schema.json")); err != nil {
		t.Errorf("the schema output jobgen.yaml lists was not written: %v", err)
	}
	t.Chdir(root)
	if code, stdout, stderr := jobgen(t, "verify"); code != exitOK || !strings.Contains(stdout, "4 generated files up to date") {
		t.Errorf("verify at the root: exit %d\n%s%s", code, stdout, stderr)
	}
	// A flag still wins over the file.
	if code, stdout, stderr := jobgen(t, "generate", "--out", "elsewhere"); code != exitFindings || !strings.Contains(stderr, "package.path is example.com/down/internal/gen/demo, but the package is written to "+filepath.Join("elsewhere", "demo")+", whose import path is example.com/down/elsewhere/demo") {
		t.Errorf("generate --out elsewhere: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestPackagePathMustBeWhereTheOutputLands: a package.path
// that is not the import path of the directory written is an error naming
// both, before anything is written.
func TestPackagePathMustBeWhereTheOutputLands(t *testing.T) {
	root := downstream(t, "example.com/down/gen/demo")
	t.Chdir(root)
	code, stdout, stderr := jobgen(t, "generate")
	want := filepath.Join("jobs", "demo.yaml") + ":3:9: package.path is example.com/down/gen/demo, but the package is written to " +
		filepath.Join("internal", "gen", "demo") + ", whose import path is example.com/down/internal/gen/demo; set package.path: example.com/down/internal/gen/demo, or write the package where its path says\n"
	if code != exitFindings || stderr != want || stdout != "" {
		t.Errorf("exit %d\nstdout %q\nstderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(root, "internal")); !os.IsNotExist(err) {
		t.Error("generate wrote files despite the mismatch")
	}
}

func TestBadConfigFileIsAUsageError(t *testing.T) {
	root := downstream(t, "example.com/down/internal/gen/demo")
	t.Chdir(root)
	for _, tc := range []struct{ text, want string }{
		{"version: 1\nspecs: [jobs/*.yaml]\noutput:\n  go: x\n", "jobgen.yaml: line 3: key output not found"},
		{"version: 2\nspecs: [jobs/*.yaml]\n", "jobgen.yaml: version: want 1"},
		{"version: 1\n", "jobgen.yaml: specs: list the spec files"},
	} {
		os.WriteFile("jobgen.yaml", []byte(tc.text), 0o644)
		if code, _, stderr := jobgen(t, "check"); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, %q; want %q", tc.text, code, stderr, tc.want)
		}
	}
	if code, _, stderr := jobgen(t, "check", "--config", "missing.yaml"); code != exitFailure || !strings.Contains(stderr, "missing.yaml") {
		t.Errorf("--config missing.yaml: exit %d, %q", code, stderr)
	}
}

// TestRootConfigDoesWhatMakeGenerateDid: jobgen.yaml at the repository root
// lists exactly the outputs TestRepositoryIsUpToDate names by flag, TypeScript and
// Python included (the packages' settings, which no flag sets, come from the file).
func TestRootConfigDoesWhatMakeGenerateDid(t *testing.T) {
	_, explicit, _ := jobgen(t, "verify", "--config", "../../jobgen.yaml", "--spec", "../../spec/*.yaml", "--out", "../../generated",
		"--docs", "../../docs/reference", "--schema", "../../schema", "--ts", "../../generated/ts", "--python", "../../generated/python")
	t.Chdir("../..")
	code, stdout, stderr := jobgen(t, "verify")
	if code != exitOK || stdout != explicit {
		t.Errorf("verify with no flags at the root: exit %d\n%s%s\nwant %s", code, stdout, stderr, explicit)
	}
}

// TestJSONStdoutHoldsOnlyFindings: under --error-format=json, stdout is a
// stream of JSON objects jq can read; progress and summaries go to stderr.
func TestJSONStdoutHoldsOnlyFindings(t *testing.T) {
	spec, out := workspace(t, factSpec)
	for _, args := range [][]string{
		{"generate", "--spec", spec, "--out", out},
		{"verify", "--spec", spec, "--out", out},
		{"check", "--spec", spec},
		{"breaking", "--spec", spec, "--against", spec},
	} {
		code, stdout, stderr := jobgen(t, append(args, "--error-format=json")...)
		if code != exitOK || stdout != "" || !strings.Contains(stderr, "jobgen: ") {
			t.Errorf("jobgen %v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// TestEveryOutputIsInEveryList: generate's and verify's
// help name every output flag they take, and jobgen.yaml takes each under
// its key, because one table lists the outputs.
func TestEveryOutputIsInEveryList(t *testing.T) {
	for _, cmd := range []string{"generate", "verify"} {
		_, stdout, _ := jobgen(t, cmd, "--help")
		summary, flags, _ := strings.Cut(stdout, "Flags:")
		for _, flag := range []string{"docs", "schema", "ts", "python"} {
			if !strings.Contains(flags, "-"+flag+" ") {
				t.Errorf("%s takes no --%s", cmd, flag)
			}
			if !strings.Contains(summary, "--"+flag) {
				t.Errorf("%s's help does not say what --%s does:\n%s", cmd, flag, summary)
			}
		}
	}
	root := downstream(t, "example.com/down/internal/gen/demo")
	t.Chdir(root)
	os.WriteFile("jobgen.yaml", []byte("version: 1\nspecs: [jobs/*.yaml]\noutputs:\n  go: internal/gen\n  docs: ref\n  schema: sch\n  ts: internal/gen/ts\n  python: py\npython: {package: down_vocab}\n"), 0o644)
	if code, stdout, stderr := jobgen(t, "generate"); code != exitOK || !strings.Contains(stdout, "ref") || !strings.Contains(stdout, "sch") || !strings.Contains(stdout, "demo.ts") || !strings.Contains(stdout, filepath.Join("py", "down_vocab", "demo.py")) {
		t.Errorf("generate from a jobgen.yaml naming every output: exit %d\n%s%s", code, stdout, stderr)
	}
	os.WriteFile("jobgen.yaml", []byte("version: 1\nspecs: [jobs/*.yaml]\noutputs:\n  go: internal/gen\n  rust: rs\n"), 0o644)
	if code, _, stderr := jobgen(t, "check"); code != exitUsage || !strings.Contains(stderr, "rust") || !strings.Contains(stderr, "go, docs, schema, ts, python") {
		t.Errorf("an unknown output key: exit %d, %q", code, stderr)
	}
}

// TestPythonPackageBesideTheGoPackages: --python directly inside --out puts
// the package in that directory, three elements deep (py/down_vocab/demo.py),
// with the package's own files but the runtime, which it imports from
// jobgen's package, and verify then finds them up to date; a python.package
// Python cannot import is a usage error.
func TestPythonPackageBesideTheGoPackages(t *testing.T) {
	root := downstream(t, "example.com/down/internal/gen/demo")
	t.Chdir(root)
	os.WriteFile("jobgen.yaml", []byte("version: 1\nspecs: [jobs/*.yaml]\noutputs:\n  go: internal/gen\n  python: internal/gen/py\npython: {package: down_vocab}\n"), 0o644)
	if code, stdout, stderr := jobgen(t, "generate"); code != exitOK {
		t.Fatalf("generate: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, name := range []string{"py/pyproject.toml", "py/down_vocab/__init__.py", "py/down_vocab/py.typed", "py/down_vocab/demo.py"} {
		if _, err := os.Stat(filepath.Join("internal", "gen", filepath.FromSlash(name))); err != nil {
			t.Errorf("the package lacks %s: %v", name, err)
		}
	}
	// Its runtime is jobgen's package's, which it requires.
	if _, err := os.Stat(filepath.Join("internal", "gen", "py", "down_vocab", "runtime.py")); !os.IsNotExist(err) {
		t.Errorf("the package carries a runtime of its own: %v", err)
	}
	if toml, _ := os.ReadFile(filepath.Join("internal", "gen", "py", "pyproject.toml")); !strings.Contains(string(toml), `"jobgen-vocab==0"`) {
		t.Errorf("pyproject.toml does not require jobgen-vocab:\n%s", toml)
	}
	if code, stdout, stderr := jobgen(t, "verify"); code != exitOK {
		t.Errorf("verify after generate: exit %d\n%s%s", code, stdout, stderr)
	}
	os.WriteFile("jobgen.yaml", []byte("version: 1\nspecs: [jobs/*.yaml]\noutputs:\n  go: internal/gen\n  python: py\npython: {package: down-vocab}\n"), 0o644)
	if code, _, stderr := jobgen(t, "verify"); code != exitUsage || !strings.Contains(stderr, `python.package: "down-vocab" is not a Python package name`) {
		t.Errorf("verify with a bad name: exit %d\n%s", code, stderr)
	}
}
