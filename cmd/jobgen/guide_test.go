package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The guide docs/guides/evolving-a-vocabulary.md is run as written: each
// ```yaml file=PATH block writes PATH (append=PATH appends to it), and each
// line of a ```sh block that starts with "$ " is a command, run with jobgen
// on PATH in one scratch directory, followed by lines its output must hold,
// in order; "# exit N" at the end of a command is the exit status it must
// have (0 otherwise).

// A guideStep is one block of the guide.
type guideStep struct {
	line    int    // where the block starts
	file    string // the file a yaml block writes or appends to
	append  bool
	content string
	cmds    []guideCmd
}

type guideCmd struct {
	line int
	cmd  string
	exit int
	want []string
}

var fence = regexp.MustCompile("^```(\\w*)(?: (file|append)=(\\S+))?\\s*$")

// parseGuide reads the guide's steps.
func parseGuide(t *testing.T, text string) []guideStep {
	t.Helper()
	var steps []guideStep
	var cur *guideStep
	var lang string
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if m := fence.FindStringSubmatch(trimmed); m != nil && strings.HasPrefix(trimmed, "```") {
			if cur != nil || lang != "" {
				if cur != nil {
					steps = append(steps, *cur)
				}
				cur, lang = nil, ""
				continue
			}
			lang = m[1]
			if lang == "" {
				lang = "text"
			}
			switch {
			case lang == "yaml" && m[3] != "":
				cur = &guideStep{line: n, file: m[3], append: m[2] == "append"}
			case lang == "sh":
				cur = &guideStep{line: n}
			}
			continue
		}
		switch {
		case cur == nil:
		case cur.file != "":
			cur.content += line + "\n"
		case strings.HasPrefix(line, "$ "):
			c := guideCmd{line: n, cmd: strings.TrimPrefix(line, "$ ")}
			if cmd, exit, ok := strings.Cut(c.cmd, "  # exit "); ok {
				c.cmd = cmd
				var err error
				if c.exit, err = strconv.Atoi(strings.TrimSpace(exit)); err != nil {
					t.Fatalf("guide line %d: exit %q", n, exit)
				}
			}
			cur.cmds = append(cur.cmds, c)
		case trimmed != "" && len(cur.cmds) > 0:
			last := &cur.cmds[len(cur.cmds)-1]
			last.want = append(last.want, trimmed)
		}
	}
	return steps
}

func TestTheEvolutionGuideRunsAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("builds jobgen and runs the guide's commands")
	}
	requireGit(t)
	data, err := os.ReadFile("../../docs/guides/evolving-a-vocabulary.md")
	if err != nil {
		t.Fatal(err)
	}
	steps := parseGuide(t, string(data))
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "jobgen"), ".").CombinedOutput(); err != nil {
		t.Fatalf("build jobgen: %v\n%s", err, out)
	}
	work := t.TempDir()
	ran, wrote := 0, 0
	for _, s := range steps {
		if s.file != "" {
			p := filepath.Join(work, filepath.FromSlash(s.file))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
			if s.append {
				flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
			}
			f, err := os.OpenFile(p, flags, 0o644)
			if err == nil {
				_, err = f.WriteString(s.content)
				f.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			wrote++
			continue
		}
		for _, c := range s.cmds {
			cmd := exec.Command("sh", "-c", c.cmd)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			code := 0
			if exit, ok := err.(*exec.ExitError); ok {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.exit {
				t.Fatalf("guide line %d: %s: exit %d, the guide says %d\n%s", c.line, c.cmd, code, c.exit, &out)
			}
			rest := out.String()
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("guide line %d: %s printed\n%s\nwhich lacks, in order, what the guide shows:\n%s", c.line, c.cmd, &out, w)
				}
				rest = rest[i+len(w):]
			}
			ran++
		}
	}
	if ran < 10 || wrote < 3 {
		t.Fatalf("the guide ran %d commands and wrote %d files; it walks a change, so both should be more", ran, wrote)
	}
}
