package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestTheQuickstartsOutputIsWhatGenerateSays holds README.md's "Two
// commands" (its quickstart) to the repository: the line it shows `make
// generate` printing on a fresh clone names as many files and specs as
// jobgen's own config has, which verify counts without writing anything.
func TestTheQuickstartsOutputIsWhatGenerateSays(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	shown := regexp.MustCompile("(?m)^jobgen: ([0-9]+) files from ([0-9]+) specs, 0 changed$").FindSubmatch(readme)
	if shown == nil {
		t.Fatal(`README.md shows no "jobgen: N files from M specs, 0 changed" line`)
	}
	code, stdout, stderr := jobgen(t, "verify", "--config", filepath.Join("..", "..", "jobgen.yaml"))
	if code != exitOK {
		t.Fatalf("verify: exit %d\n%s", code, stderr)
	}
	if want := fmt.Sprintf("jobgen: %s generated files up to date\n", shown[1]); stdout != want {
		t.Errorf("verify printed %q; README.md's Two commands section says generate writes %s files, so want %q", stdout, shown[1], want)
	}
	specs, err := filepath.Glob(filepath.Join("..", "..", "spec", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(len(specs)); got != string(shown[2]) {
		t.Errorf("README.md's Two commands section says %s specs; jobgen.yaml's spec/*.yaml has %s", shown[2], got)
	}
}
