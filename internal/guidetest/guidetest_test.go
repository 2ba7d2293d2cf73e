package guidetest

import (
	"slices"
	"testing"
)

func TestHoldsWantsLinesInOrderWithWildcards(t *testing.T) {
	out := "jobgen: specs are valid\n61a7-uuid  backup-1  nightly  2026-12-03T18:01Z  completed\nlast line\n"
	cases := []struct {
		name string
		want []string
		ok   bool
	}{
		{"a whole line", []string{"jobgen: specs are valid"}, true},
		{"part of a line", []string{"specs are"}, true},
		{"in order", []string{"specs are valid", "last line"}, true},
		{"out of order", []string{"last line", "specs are valid"}, false},
		{"a wildcard for what differs", []string{"… backup-1  nightly  …  completed"}, true},
		{"wildcard pieces on one line only", []string{"backup-1 … last line"}, false},
		{"pieces in order on the line", []string{"completed … backup-1"}, false},
		{"absent", []string{"failed"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := Holds(out, c.want); ok != c.ok {
				t.Errorf("Holds(%q) = %v, want %v", c.want, ok, c.ok)
			}
		})
	}
}

func TestParseReadsFilesCommandsExitsAndProse(t *testing.T) {
	guide := "# A guide\n\n" +
		"```yaml file=spec/a.yaml\njobgen: 1\n```\n\n" +
		"```go append=main.go\npackage main\n```\n\n" +
		"```sh\nexport DSN=postgres://…\n$ jobgen check\njobgen: specs are valid\n$ jobgen breaking  # exit 1\n```\n\n" +
		"```text\n$ not run\n```\n"
	steps, err := Parse(guide)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 {
		t.Fatalf("got %d steps, want 3 (two files, one sh block): %+v", len(steps), steps)
	}
	if steps[0].File != "spec/a.yaml" || steps[0].Append || steps[0].Content != "jobgen: 1\n" {
		t.Errorf("yaml file step: %+v", steps[0])
	}
	if steps[1].File != "main.go" || !steps[1].Append {
		t.Errorf("go append step: %+v", steps[1])
	}
	cmds := steps[2].Cmds
	if len(cmds) != 2 || cmds[0].Cmd != "jobgen check" || !slices.Equal(cmds[0].Want, []string{"jobgen: specs are valid"}) ||
		cmds[1].Cmd != "jobgen breaking" || cmds[1].Exit != 1 {
		t.Errorf("sh step: %+v", cmds)
	}
}

func TestParseRefusesAnUnclosedBlock(t *testing.T) {
	if _, err := Parse("```sh\n$ jobgen check\n"); err == nil {
		t.Fatal("an unclosed block parsed")
	}
}

func TestDoRunsCommandsAndChecksTheirOutput(t *testing.T) {
	dir := t.TempDir()
	guide := dir + "/guide.md"
	text := "```sh file=hello.sh\necho hello\n```\n\n```sh\n$ sh hello.sh\nhello\n$ false  # exit 1\n```\n"
	if err := writeStep(dir, Step{File: "guide.md", Content: text}); err != nil {
		t.Fatal(err)
	}
	c := Run{Guide: guide, Dir: dir}.Do(t)
	if c != (Counts{Wrote: 1, Ran: 2}) {
		t.Errorf("counts %+v, want 1 written and 2 run", c)
	}
}

func TestABackgroundCommandRunsBesideTheRest(t *testing.T) {
	dir := t.TempDir()
	// The background command writes a file once it is ready, and the next
	// command reads it while the first still runs.
	text := "```sh\n$ echo started; echo up > state; sleep 60 &\nstarted\n$ cat state\nup\n```\n"
	if err := writeStep(dir, Step{File: "guide.md", Content: text}); err != nil {
		t.Fatal(err)
	}
	steps, err := Parse(text)
	if err != nil || len(steps) != 1 || !steps[0].Cmds[0].Background || steps[0].Cmds[1].Background {
		t.Fatalf("Parse: %+v, %v; want the first command in the background and the second not", steps, err)
	}
	c := Run{Guide: dir + "/guide.md", Dir: dir}.Do(t)
	if c != (Counts{Ran: 2}) {
		t.Errorf("counts %+v, want 2 run", c)
	}
}
