package gen

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBreaking runs every case under testdata/breaking. A case is a directory
// with old.yaml, new.yaml, want.txt (the findings, one per line, as jobgen
// breaking prints them) and, optionally, args: --category flags to filter by.
// Each rule has a directory named after it, whose findings include that rule,
// and a twin <RULE>-ok whose change is the nearest one that breaks nothing.
// Run with -update to record want.txt, then read the diff.
func TestBreaking(t *testing.T) {
	dirs, err := filepath.Glob("testdata/breaking/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no breaking cases: %v", err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			old := parseCase(t, dir, "old.yaml")
			new := parseCase(t, dir, "new.yaml")
			var only []Category
			if args, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
				fields := strings.Fields(string(args))
				for i := 0; i+1 < len(fields); i += 2 {
					if fields[i] != "--category" {
						t.Fatalf("args: only --category is supported, found %s", fields[i])
					}
					only = append(only, Category(fields[i+1]))
				}
			}
			report := Breaking(old, new, only...)
			var b strings.Builder
			for _, f := range report.Findings {
				b.WriteString(f.String() + "\n")
			}
			got := b.String()
			wantFile := filepath.Join(dir, "want.txt")
			if *update {
				writeFile(t, wantFile, []byte(got))
				return
			}
			want, err := os.ReadFile(wantFile)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("findings differ from want.txt:\n%s", unifiedDiff("want.txt", "got", want, []byte(got)))
			}
			rule, ok := strings.CutSuffix(name, "-ok")
			switch {
			case ok && got != "":
				t.Errorf("a non-breaking twin reported findings")
			case !ok && !slices.ContainsFunc(report.Findings, func(f Finding) bool { return f.Rule == RuleID(rule) }):
				t.Errorf("the case for %s does not report %s", rule, rule)
			}
		})
	}
}

// TestEveryRuleHasACaseAndATwin keeps the catalogue complete: a rule without
// an example of what it catches and of what it lets through is untested.
func TestEveryRuleHasACaseAndATwin(t *testing.T) {
	for _, r := range Rules() {
		for _, dir := range []string{string(r.ID), string(r.ID) + "-ok"} {
			if _, err := os.Stat(filepath.Join("testdata/breaking", dir, "want.txt")); err != nil {
				t.Errorf("rule %s: no case testdata/breaking/%s", r.ID, dir)
			}
		}
	}
}

func parseCase(t *testing.T, dir, name string) *Spec {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := LoadFS(nil, name, data)
	if err != nil {
		t.Fatalf("%s is not a valid spec:\n%s", name, errorLines(err))
	}
	return spec.Spec()
}

// TestBreakingAgainstItselfFindsNothing: the shipped spec compared with
// itself breaks nothing, and neither does its v2 of job/settled compared with
// the released baseline.
func TestBreakingAgainstItselfFindsNothing(t *testing.T) {
	data := readJobsSpec(t)
	cur, err := LoadFS(nil, "jobs.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	// Against itself the only findings may be its own allowances, which
	// accept breaks relative to the baseline and so match nothing here.
	for _, f := range Breaking(cur.Spec(), cur.Spec()).Findings {
		if f.Rule != "ALLOWANCE_UNUSED" {
			t.Errorf("jobs.yaml against itself: %v", f)
		}
	}
	base, err := os.ReadFile("../spec/baseline/jobs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	old, err := LoadFS(nil, "baseline/jobs.yaml", base)
	if err != nil {
		t.Fatal(err)
	}
	if r := Breaking(old.Spec(), cur.Spec()); len(r.Findings) != 0 {
		t.Errorf("jobs.yaml against the baseline: %v", r.Findings)
	}
}
