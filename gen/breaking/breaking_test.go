package breaking

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

var update = flag.Bool("update", false, "rewrite want.txt under testdata/cases from the current checker")

// TestBreaking runs every case under testdata/cases. A case is a directory
// with old.yaml, new.yaml, want.txt (the findings, one per line, as jobgen
// breaking prints them) and, optionally, args: --category flags to filter by
// and a --mode (without one, each category's default: full for durable,
// backward for wire and goapi).
// Each rule has a directory named after it, whose findings include that rule,
// and a twin <RULE>-ok whose change is the nearest one that breaks nothing.
// Run with -update to record want.txt, then read the diff.
func TestBreaking(t *testing.T) {
	dirs, err := filepath.Glob("testdata/cases/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no breaking cases: %v", err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			old := parseCase(t, dir, "old.yaml")
			new := parseCase(t, dir, "new.yaml")
			var opts []Option
			if args, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
				fields := strings.Fields(string(args))
				for i := 0; i+1 < len(fields); i += 2 {
					switch fields[i] {
					case "--category":
						opts = append(opts, WithOnly(gen.Category(fields[i+1])))
					case "--mode":
						mode, err := ParseMode(fields[i+1])
						if err != nil {
							t.Fatalf("args: %v", err)
						}
						opts = append(opts, WithMode(mode))
					default:
						t.Fatalf("args: only --category and --mode are supported, found %s", fields[i])
					}
				}
			}
			report := Compare(old, new, opts...)
			var b strings.Builder
			for _, f := range report.Findings {
				b.WriteString(f.String() + "\n")
			}
			got := b.String()
			wantFile := filepath.Join(dir, "want.txt")
			if *update {
				gentest.WriteFile(t, wantFile, []byte(got))
				return
			}
			want, err := os.ReadFile(wantFile)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("findings differ from want.txt:\n%s", gen.UnifiedDiff("want.txt", "got", want, []byte(got)))
			}
			rule, ok := strings.CutSuffix(name, "-ok")
			switch {
			case ok && got != "":
				t.Errorf("a non-breaking twin reported findings")
			case !ok && !slices.ContainsFunc(report.Findings, func(f Finding) bool { return f.Rule == gen.RuleID(rule) }):
				t.Errorf("the case for %s does not report %s", rule, rule)
			}
		})
	}
}

// TestEveryRuleHasACaseAndATwin keeps the catalogue complete: a rule without
// an example of what it catches and of what it lets through is untested.
func TestEveryRuleHasACaseAndATwin(t *testing.T) {
	for _, r := range gen.Rules() {
		for _, dir := range []string{string(r.ID), string(r.ID) + "-ok"} {
			if _, err := os.Stat(filepath.Join("testdata/cases", dir, "want.txt")); err != nil {
				t.Errorf("rule %s: no case testdata/cases/%s", r.ID, dir)
			}
		}
	}
}

func parseCase(t *testing.T, dir, name string) *gen.Spec {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := gen.LoadFS(nil, name, data)
	if err != nil {
		t.Fatalf("%s is not a valid spec:\n%s", name, gentest.ErrorLines(err))
	}
	return spec.Spec()
}

// TestBreakingAgainstItselfFindsNothing: the shipped spec compared with
// itself breaks nothing, and neither does its v2 of job/settled compared with
// the released baseline.
func TestBreakingAgainstItselfFindsNothing(t *testing.T) {
	data := gentest.ReadJobsSpec(t)
	cur, err := gen.LoadFS(nil, "jobs.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	// Against itself the only findings may be its own allowances, which
	// accept breaks relative to the baseline and so match nothing here.
	for _, f := range Compare(cur.Spec(), cur.Spec()).Findings {
		if f.Rule != "ALLOWANCE_UNUSED" {
			t.Errorf("jobs.yaml against itself: %v", f)
		}
	}
	base, err := os.ReadFile("../../spec/baseline/jobs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	old, err := gen.LoadFS(nil, "baseline/jobs.yaml", base)
	if err != nil {
		t.Fatal(err)
	}
	if r := Compare(old.Spec(), cur.Spec()); len(r.Findings) != 0 {
		t.Errorf("jobs.yaml against the baseline: %v", r.Findings)
	}
}
