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
	if code, stdout, stderr := jobgen(t, verify...); code != exitFail || !strings.Contains(stderr, module+" (stale)") || !strings.Contains(stdout, `+export const TaskOpenedType = "task/opened";`) {
		t.Errorf("verify of a hand-edited module: exit %d\n%s%s", code, stdout, stderr)
	}

	// A renamed package leaves the old module behind, and verify says so.
	renamed := strings.Replace(factSpec, "name: demo", "name: demo2", 1)
	os.WriteFile(spec, []byte(renamed), 0o644)
	if code, _, stderr := jobgen(t, verify...); code != exitFail || !strings.Contains(stderr, module+" (orphan") {
		t.Errorf("verify after a rename: exit %d\n%s", code, stderr)
	}
	if code, stdout, stderr := jobgen(t, "generate", "--spec", spec, "--out", out, "--ts", ts); code != exitOK || !strings.Contains(stdout, "removed "+module) {
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
	if code != exitFail || stderr != spec+":4:3: records.Promise: name Promise shadows the TypeScript global Promise; rename it\n" {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, dir := range []string{out, ts} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s was written for a spec TypeScript refuses", dir)
		}
	}
}
