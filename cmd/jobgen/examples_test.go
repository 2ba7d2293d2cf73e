package main

import (
	"path/filepath"
	"testing"
)

// TestMCPJobsToolsAreGenerated: examples/mcpjobs declares its own tools
// (shell, notices) in a spec of its own, as jobgen declares its built-in
// ones (decision 0207), importing jobgen's job spec by module path from
// within this very module; what it generates is what is committed there.
func TestMCPJobsToolsAreGenerated(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "mcpjobs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, cmd := range []string{"check", "verify"} {
		if code, stdout, stderr := jobgen(t, cmd); code != exitOK {
			t.Fatalf("jobgen %s in examples/mcpjobs: exit %d\n%s%s", cmd, code, stdout, stderr)
		}
	}
}
