package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDemo runs the demo as `make demo` does and checks the story it tells:
// the followed job's output with channel labels, the kill, the failed test
// job, the terminal job's output after the prompt it was answered (as a
// file shows it: each line's last state, no escape sequences), and four
// complete intervals read back from the journal; and that README.md's
// transcript of `make demo` is what the demo prints.
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
		"  [terminal] deploy to staging? [y/N] y\n",
		"  [terminal] [####################] 100%\n",
		"  [terminal] deployed\n",
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
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	shown, ok := transcript(string(readme))
	if !ok {
		t.Fatalf("README.md has no %s followed by a ``` block", transcriptMarker)
	}
	if want, have := comparable(got), comparable(shown); want != have {
		t.Errorf("README.md's transcript of make demo is not what the demo prints (ids, times and durations aside); replace it with:\n%s", got)
	}
}

// transcriptMarker precedes README.md's transcript of `make demo`.
const transcriptMarker = "<!-- transcript of make demo, checked by examples/shelljobs's TestDemo -->"

// transcript returns the ``` block after transcriptMarker.
func transcript(readme string) (string, bool) {
	_, after, ok := strings.Cut(readme, transcriptMarker)
	if !ok {
		return "", false
	}
	_, block, ok := strings.Cut(after, "```\n")
	if !ok {
		return "", false
	}
	block, _, ok = strings.Cut(block, "```")
	return block, ok
}

// variable matches what differs from one run of the demo to the next: job
// ids, times and durations.
var variable = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d\d-\d\dT[0-9:.]+Z|\b\d+(\.\d+)?(ms|s)\b`)

// comparable is a transcript with what varies replaced, the table's column
// padding squeezed, and the intervals (whose order follows settlement
// times) sorted.
func comparable(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(variable.ReplaceAllString(l, "_")), " ")
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "JOB ") {
			slices.Sort(lines[i+1:])
			break
		}
	}
	return strings.Join(lines, "\n")
}

// TestAScreenRedrawsInPlaceOnATerminalAndShowsTheLastStateElsewhere holds
// the terminal job's rendering: a carriage return keeps the label on a
// terminal, and a pipe gets each line once, as it ends up.
func TestAScreenRedrawsInPlaceOnATerminalAndShowsTheLastStateElsewhere(t *testing.T) {
	chunks := []string{"\x1b[1mgo\x1b[0m? ", "y\r\n", "\r[#  ] 33%", "\r[## ] 66%\r[###] 99", "%\r\n", "done"}
	for _, tc := range []struct {
		tty  bool
		want string
	}{
		{true, label + "\x1b[1mgo\x1b[0m? y\n" + label + "\r" + label + "[#  ] 33%\r" + label + "[## ] 66%\r" + label + "[###] 99%\n" + label + "done\n"},
		{false, label + "go? y\n" + label + "[###] 99%\n" + label + "done\n"},
	} {
		var out strings.Builder
		s := &screen{out: &out, tty: tc.tty}
		for _, c := range chunks {
			s.write(c)
		}
		s.end()
		if out.String() != tc.want {
			t.Errorf("tty=%v:\n got %q\nwant %q", tc.tty, out.String(), tc.want)
		}
	}
}
