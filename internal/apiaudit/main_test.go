package main

import (
	"strings"
	"testing"
)

// The audit classes each exported identifier by where it is used: other
// packages (through a renamed import, through a value for a method, and
// from generated code), the package alone, tests of another package, the
// package's own tests, or nothing; generated packages' own API is not
// listed.
func TestTheAuditClassesEachIdentifierByItsUses(t *testing.T) {
	var out strings.Builder
	if err := run(&out, "testdata/mod", nil, false); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Used":            "used outside",
		"T.Method":        "used outside",
		"T":               "used outside",
		"Gen":             "used outside",
		"OwnOnly":         "own package only",
		"TestedElsewhere": "tests only",
		"TestedHere":      "its own tests only",
		"Unused":          "unused in the module",
		"T.Field":         "unused in the module",
		"Run":             "unused in the module",
	}
	got := map[string]string{}
	for line := range strings.SplitSeq(out.String(), "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) != 7 || !strings.HasPrefix(cells[0], "| `") {
			continue
		}
		if strings.Contains(cells[0], "generated") {
			t.Errorf("a generated package's API is listed: %s", line)
		}
		got[strings.Trim(cells[1], "`")] = strings.TrimSuffix(cells[6], " |")
	}
	for name, verdict := range want {
		if got[name] != verdict {
			t.Errorf("%s: %q, want %q", name, got[name], verdict)
		}
	}
	if len(got) != len(want) {
		t.Errorf("listed %v, want exactly %v", got, want)
	}
}
