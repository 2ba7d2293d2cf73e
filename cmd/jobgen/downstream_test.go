package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goIn runs the go command in dir, offline: whatever it needs is in the
// module cache (.ci/run downloads this module's graph) or in this
// repository, which the downstream module replaces jobgen with.
func goIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=readonly")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// TestDownstreamModule is issue 25's user: a module of its own,
// examples/downstream, whose spec imports jobgen's spec/jobs.yaml by module
// path and declares its own job kind and facts. What it generates is what is
// committed there; it vets; its runtime records a deploy job and its own
// facts into a journal, which jobgen journal check, run in the module,
// passes: jobgen.yaml names the vocabulary, the import brings jobgen's.
func TestDownstreamModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a module of its own")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "downstream"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if code, stdout, stderr := jobgen(t, "verify"); code != exitOK {
		t.Fatalf("jobgen verify in the downstream module: exit %d\n%s%s", code, stdout, stderr)
	}
	goIn(t, dir, "vet", "./...")
	path := filepath.Join(t.TempDir(), "deploy.journal")
	if out := goIn(t, dir, "run", "./cmd/deployer", "-journal", path); !strings.Contains(out, "deploy-1 completed") {
		t.Fatalf("the deployer did not ship: %s", out)
	}
	code, stdout, stderr := jobgen(t, "journal", "check", path)
	if code != exitOK || !strings.Contains(stdout, "intact: 4 records") {
		t.Fatalf("jobgen journal check in the downstream module: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = jobgen(t, "journal", "cat", "--type", "deploy/approved", path)
	if code != exitOK || !strings.Contains(stdout, `"verdict":"approved"`) || strings.Count(stdout, "\n") != 1 {
		t.Errorf("journal cat --type deploy/approved: exit %d:\n%s", code, stdout)
	}

	// Elsewhere, without the module's jobgen.yaml, its facts are unknown.
	t.Chdir(t.TempDir())
	if code, _, stderr := jobgen(t, "journal", "check", path); code != exitUnknownFacts || !strings.Contains(stderr, "deploy/approved v1 (1), deploy/requested v1 (1)") {
		t.Errorf("jobgen journal check outside the module: exit %d, want %d: %s", code, exitUnknownFacts, stderr)
	}
}
