package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/jobgen/jobgen/internal/guidetest"
)

// TestTheEvolutionGuideRunsAsWritten runs docs/guides/evolving-a-vocabulary.md
// as written (package guidetest says how a guide is read), with jobgen
// built from this package on PATH, in one scratch directory: a fact walked
// from version 1 to version 2, the breaking check and its allowance.
func TestTheEvolutionGuideRunsAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("builds jobgen and runs the guide's commands")
	}
	requireGit(t)
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "jobgen"), ".").CombinedOutput(); err != nil {
		t.Fatalf("build jobgen: %v\n%s", err, out)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1")
	c := guidetest.Run{Guide: "../../docs/guides/evolving-a-vocabulary.md", Dir: t.TempDir(), Env: env}.Do(t)
	if c.Ran < 10 || c.Wrote < 3 {
		t.Fatalf("the guide ran %d commands and wrote %d files; it walks a change, so both should be more", c.Ran, c.Wrote)
	}
}
