package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestDemo runs the demo as `make demo` does and checks the story it tells:
// the followed job's output with channel labels, the kill, the failed test
// job, the terminal job's coloured output after the prompt it was answered,
// and four complete intervals read back from the journal.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs shell commands for a few seconds")
	}
	var out bytes.Buffer
	if err := run(context.Background(), t.TempDir(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"started sh-1: build",
		"  [stdout] compile\n",
		"  [stderr] warning: 1 deprecated call\n",
		"sh-1 completed: exit status 0",
		"sh-2 killed: terminated by SIGTERM; demo is over",
		"sh-3 failed: exit status 1",
		"  [terminal] \x1b[1mdeploy\x1b[0m to staging? [y/N] y\n",
		"\r\x1b[36m[####################]\x1b[0m 100%\n",
		"  [terminal] \x1b[32mdeployed\x1b[0m\n",
		"sh-4 completed: exit status 0",
		"== execution intervals",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q:\n%s", want, got)
		}
	}
	intervals := got[strings.Index(got, "== execution intervals"):]
	if n := strings.Count(intervals, "demo-session"); n != 4 {
		t.Errorf("%d intervals for the session, want 4:\n%s", n, intervals)
	}
	if strings.Contains(intervals, "incomplete") {
		t.Errorf("an interval is incomplete after an orderly shutdown:\n%s", intervals)
	}
}
