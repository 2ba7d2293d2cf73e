package docscheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// makeTarget is a rule of the Makefile: a target name at the start of a
// line, followed by a colon that does not assign.
var makeTarget = regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):(?:[^=]|$)`)

// targetRow is a row of the contributing guide's table of make targets.
var targetRow = regexp.MustCompile("(?m)^\\| `make ([a-z0-9-]+)` \\| (.+) \\| (.+) \\| (.+) \\|$")

// TestTheContributingGuideTimesEveryTarget holds the make targets table of
// docs/guides/contributing.md to the Makefile: the table sits between the
// markers tools/targets-doc.sh writes between, with one row per target and
// none for a target that is gone, so a target added without rerunning the
// script fails here.
func TestTheContributingGuideTimesEveryTarget(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "guides", "contributing.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "<!-- targets:begin")
	table, _, closed := strings.Cut(rest, "<!-- targets:end")
	if !ok || !closed {
		t.Fatal("docs/guides/contributing.md has no targets:begin … targets:end markers for tools/targets-doc.sh to write between")
	}
	want := map[string]bool{}
	for _, m := range makeTarget.FindAllStringSubmatch(string(mk), -1) {
		want[m[1]] = true
	}
	if len(want) < 20 {
		t.Fatalf("found %d targets in the Makefile; the pattern is wrong", len(want))
	}
	rows := map[string]int{}
	for _, m := range targetRow.FindAllStringSubmatch(table, -1) {
		rows[m[1]]++
		if !want[m[1]] {
			t.Errorf("the table has a row for make %s, which the Makefile no longer has: run tools/targets-doc.sh", m[1])
		}
	}
	for name := range want {
		if rows[name] != 1 {
			t.Errorf("the table has %d rows for make %s, want 1: run tools/targets-doc.sh", rows[name], name)
		}
	}
}
