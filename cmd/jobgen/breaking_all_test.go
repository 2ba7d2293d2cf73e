package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// breakingTree is a module's specs as released: base declares an id no fact
// of its own holds, app imports base and holds one in a fact, and gone is a
// vocabulary of its own. ownerKind is base.Owner's kind.
func breakingTree(ownerKind string) map[string]string {
	return map[string]string{
		"go.mod":         "module example.com/rt\n\ngo 1.25\n",
		"jobgen.yaml":    "version: 1\nspecs: [spec/*.yaml]\noutputs: {go: generated}\n",
		"spec/base.yaml": "jobgen: 1\npackage: {name: base, path: example.com/rt/generated/base}\nids:\n  Owner: {kind: " + ownerKind + "}\n",
		"spec/app.yaml":  "jobgen: 1\npackage: {name: app, path: example.com/rt/generated/app}\nimports: {base: {spec: base.yaml}}\nfacts:\n  app/did:\n    versions:\n      v1:\n        fields: {owner: base.Owner}\n",
		"spec/gone.yaml": "jobgen: 1\npackage: {name: gone, path: example.com/rt/generated/gone}\nfacts:\n  gone/happened:\n    versions:\n      v1:\n        fields: {at: int64}\n",
	}
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// proposeChanges changes the released tree at dir: base.Owner becomes a
// UUID, gone.yaml is deleted and fresh.yaml added.
func proposeChanges(t *testing.T, dir string) {
	t.Helper()
	writeTree(t, dir, map[string]string{
		"spec/base.yaml":  breakingTree("uuid")["spec/base.yaml"],
		"spec/fresh.yaml": "jobgen: 1\npackage: {name: fresh, path: example.com/rt/generated/fresh}\nids:\n  X: {kind: string}\n",
	})
	if err := os.Remove(filepath.Join(dir, "spec", "gone.yaml")); err != nil {
		t.Fatal(err)
	}
}

// checkEverySpecCompared fails t unless breaking's output holds the findings
// of the change proposeChanges makes, against oldBase and oldGone.
func checkEverySpecCompared(t *testing.T, code int, stdout, stderr, oldGone string) {
	t.Helper()
	if code != exitFindings {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitFindings, stdout, stderr)
	}
	for _, want := range []string{
		// app's fact holds a base.Owner: the change is durable, though no fact of base holds one.
		"spec/base.yaml:4:3: ID_KIND_CHANGED: ids.Owner: kind changed from string to uuid; values written as free-form strings need not parse as UUIDs; keep kind: string and declare a new id [durable: backward, goapi: backward]",
		oldGone + ":4:3: FACT_DELETED: facts.gone/happened:",
		"spec/fresh.yaml is new against",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %s:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "2 breaking findings in 3 specs against") {
		t.Errorf("stderr = %s, want 2 findings in 3 specs compared", stderr)
	}
}

// TestBreakingComparesEverySpecInOneRun: against a directory, each spec
// jobgen.yaml lists is compared with its namesake there; against git:REF,
// with itself at REF. A spec's imports are read on both sides.
func TestBreakingComparesEverySpecInOneRun(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, breakingTree("string"))
	baseline := filepath.Join(dir, "spec", "baseline")
	for _, name := range []string{"base.yaml", "app.yaml", "gone.yaml"} {
		writeTree(t, baseline, map[string]string{name: breakingTree("string")["spec/"+name]})
	}
	proposeChanges(t, dir)
	t.Chdir(dir)
	code, stdout, stderr := jobgen(t, "breaking", "--against", "spec/baseline")
	checkEverySpecCompared(t, code, stdout, stderr, filepath.Join("spec", "baseline", "gone.yaml"))
	if code, _, stderr := jobgen(t, "breaking", "--against", "spec/baseline/base.yaml"); code != exitUsage || !strings.Contains(stderr, "compare them all against a directory") {
		t.Errorf("a file against 3 specs: exit %d, want %d: %s", code, exitUsage, stderr)
	}
	if code, _, stderr := jobgen(t, "breaking", "--spec", "spec/base.yaml", "--against", "spec/baseline/base.yaml"); code != exitFindings {
		t.Errorf("one spec against its file: exit %d, want %d: %s", code, exitFindings, stderr)
	}
}

func TestBreakingComparesEverySpecAgainstGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed; breaking --against git:REF cannot be tested")
		}
		t.Skip("no git in PATH; install git to test breaking --against git:REF")
	}
	dir := t.TempDir()
	writeTree(t, dir, breakingTree("string"))
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "release"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	proposeChanges(t, dir)
	t.Chdir(dir)
	code, stdout, stderr := jobgen(t, "breaking", "--against", "git:HEAD")
	checkEverySpecCompared(t, code, stdout, stderr, "HEAD:spec/gone.yaml")
	if code, _, stderr := jobgen(t, "breaking", "--against", "git:HEAD:spec/base.yaml"); code != exitUsage {
		t.Errorf("git:REF:path against 3 specs: exit %d, want %d: %s", code, exitUsage, stderr)
	}
}
