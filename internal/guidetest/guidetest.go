package guidetest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A Step is one block of a guide that the runner acts on: a file to write
// or commands to run.
type Step struct {
	Line    int    // the guide's line where the block starts
	File    string // the file a block writes or appends to, slash-separated
	Append  bool
	Content string
	Cmds    []Cmd
}

// A Cmd is one command of a sh block and what it must print.
type Cmd struct {
	Line       int
	Cmd        string
	Exit       int
	Background bool     // the command ended in " &": it runs on beside the rest
	Want       []string // lines its output holds in order; "…" is any text
}

// fence opens or closes a block: a language, and an optional file= or
// append= attribute.
var fence = regexp.MustCompile("^```(\\w*)(?: (file|append)=(\\S+))?\\s*$")

// Parse reads the steps of a guide's text.
func Parse(text string) ([]Step, error) {
	var steps []Step
	var cur *Step
	open := false
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if m := fence.FindStringSubmatch(trimmed); m != nil {
			if open {
				if cur != nil {
					steps = append(steps, *cur)
				}
				cur, open = nil, false
				continue
			}
			open = true
			switch {
			case m[3] != "":
				cur = &Step{Line: n, File: m[3], Append: m[2] == "append"}
			case m[1] == "sh":
				cur = &Step{Line: n}
			}
			continue
		}
		switch {
		case cur == nil:
		case cur.File != "":
			cur.Content += line + "\n"
		case strings.HasPrefix(trimmed, "$ "):
			c := Cmd{Line: n, Cmd: strings.TrimPrefix(trimmed, "$ ")}
			if cmd, exit, ok := strings.Cut(c.Cmd, "  # exit "); ok {
				c.Cmd = cmd
				var err error
				if c.Exit, err = strconv.Atoi(strings.TrimSpace(exit)); err != nil {
					return nil, fmt.Errorf("line %d: exit %q is not a number", n, exit)
				}
			}
			if cmd, ok := strings.CutSuffix(c.Cmd, " &"); ok {
				c.Cmd, c.Background = cmd, true
			}
			cur.Cmds = append(cur.Cmds, c)
		case trimmed != "" && len(cur.Cmds) > 0:
			last := &cur.Cmds[len(cur.Cmds)-1]
			last.Want = append(last.Want, trimmed)
		}
	}
	if open {
		return nil, errors.New("the guide ends inside a fenced block")
	}
	return steps, sc.Err()
}

// A Run says where and how a guide's steps run.
type Run struct {
	Guide string   // the guide's path, for reading and for messages
	Dir   string   // the scratch directory the files and commands share
	Env   []string // the commands' environment; nil means the test's own
}

// Counts are what a run did: files written and commands run.
type Counts struct{ Wrote, Ran int }

// Do runs every step of the guide in order and fails t at the first command
// whose exit status or output is not what the guide says.
func (r Run) Do(t testing.TB) Counts {
	t.Helper()
	data, err := os.ReadFile(r.Guide)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := Parse(string(data))
	if err != nil {
		t.Fatalf("%s: %v", r.Guide, err)
	}
	var c Counts
	for _, s := range steps {
		if s.File != "" {
			if err := writeStep(r.Dir, s); err != nil {
				t.Fatalf("%s:%d: %v", r.Guide, s.Line, err)
			}
			c.Wrote++
			continue
		}
		for _, cmd := range s.Cmds {
			if cmd.Background {
				r.start(t, cmd)
			} else {
				r.run(t, cmd)
			}
			c.Ran++
		}
	}
	return c
}

// writeStep writes or appends a block's file.
func writeStep(dir string, s Step) error {
	p := filepath.Join(dir, filepath.FromSlash(s.File))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if s.Append {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(p, flags, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s.Content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// run runs one command and checks its exit status and output.
func (r Run) run(t testing.TB, c Cmd) {
	t.Helper()
	cmd := exec.Command("sh", "-c", c.Cmd)
	cmd.Dir, cmd.Env = r.Dir, r.Env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s:%d: %s: %v", r.Guide, c.Line, c.Cmd, err)
	}
	if code != c.Exit {
		t.Fatalf("%s:%d: %s: exit %d, the guide says %d\n%s", r.Guide, c.Line, c.Cmd, code, c.Exit, &out)
	}
	if w, ok := Holds(out.String(), c.Want); !ok {
		t.Fatalf("%s:%d: %s printed\n%s\nwhich lacks, in order, what the guide shows:\n%s", r.Guide, c.Line, c.Cmd, &out, w)
	}
}

// Holds reports whether out holds each wanted line in order, each on a
// line of its own, "…" in a wanted line standing for any text; when it does
// not, it returns the first line it lacks.
func Holds(out string, want []string) (string, bool) {
	lines := strings.Split(out, "\n")
	next := 0
	for _, w := range want {
		found := false
		for next < len(lines) && !found {
			found = lineHolds(lines[next], w)
			next++
		}
		if !found {
			return w, false
		}
	}
	return "", true
}

// lineHolds reports whether line holds the pieces of w between its "…", in
// order.
func lineHolds(line, w string) bool {
	for _, p := range strings.Split(w, "…") {
		p = strings.TrimSpace(p)
		j := strings.Index(line, p)
		if j < 0 {
			return false
		}
		line = line[j+len(p):]
	}
	return true
}
