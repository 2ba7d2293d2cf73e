package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/procjob"
	"github.com/jobgen/jobgen/registry"
)

// deployScript asks before it deploys, then draws a coloured progress bar
// in place (each step rewrites the line after a carriage return), as
// programs do only on a terminal.
const deployScript = `printf '\033[1mdeploy\033[0m to staging? [y/N] '
read answer
[ "$answer" = y ] || { echo aborted; exit 1; }
for step in '#####|25' '##########|50' '###############|75' '####################|100'; do
	printf '\r\033[36m[%-20s]\033[0m %3s%%' "${step%|*}" "${step#*|}"
	sleep 0.2
done
printf '\n\033[32mdeployed\033[0m\n'`

// terminalDemo runs a job under a pseudo-terminal: it follows the job's one
// stream, answers its prompt through the job's TerminalJob, and prints what
// the terminal shows (see screen).
func terminalDemo(ctx context.Context, reg *registry.Registry, out io.Writer) error {
	snap, term, err := reg.StartTerminal(ctx, procjob.Start(procjob.Options{
		Command:  []string{"sh", "-c", deployScript},
		Kind:     "sh",
		Label:    "deploy",
		Owner:    session,
		Terminal: &jobs.TerminalSize{Rows: 24, Cols: 80},
		Poll:     50 * time.Millisecond,
	}))
	if err != nil {
		fmt.Fprintf(out, "\n== no terminal job here: %v\n", err)
		return nil
	}
	fmt.Fprintf(out, "\n== %s runs under a terminal (%s); following it, answering its prompt\n", snap.Name, snap.Label)
	var shown strings.Builder
	answered := false
	scr := &screen{out: out, tty: isTerminal(out)}
	for read, err := range reg.Follow(ctx, session, snap.ID, registry.FromEarliest()) {
		if err != nil {
			return err
		}
		for _, frame := range read.Frames {
			switch f := frame.(type) {
			case jobs.OutputFrame:
				for _, c := range f.Chunks {
					shown.WriteString(c.Text)
					scr.write(c.Text)
				}
				if !answered && strings.HasSuffix(shown.String(), "[y/N] ") {
					answered = true
					if err := term.Send("y\n"); err != nil {
						return err
					}
				}
			case jobs.StatusFrame:
				scr.end()
				fmt.Fprintf(out, "%s %s: %s\n", f.Job.Name, f.Job.Status, f.Job.Detail)
			}
		}
	}
	return nil
}

// A screen writes a terminal job's output labelled line by line, as the
// person running the demo sees it best. On a terminal the bytes go out as
// the program wrote them, colours and all, and each carriage return is
// followed by the label again, so a progress bar redraws in place without
// wiping it. Anywhere else (a pipe, a file, a test) a line is written once
// it ends, as the terminal would finally show it: the text after its last
// carriage return, without escape sequences.
type screen struct {
	out     io.Writer
	tty     bool
	started bool            // on a terminal: the current line has its label
	line    strings.Builder // elsewhere: the current line so far
}

const label = "  [terminal] "

// escape matches the control sequences a program writes for a terminal:
// CSI (colours, cursor moves) and OSC (titles, marks) sequences.
var escape = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)`)

func (s *screen) write(text string) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if s.tty {
		for _, part := range strings.SplitAfter(text, "\n") {
			if part == "" {
				continue
			}
			if !s.started {
				fmt.Fprint(s.out, label)
				s.started = true
			}
			fmt.Fprint(s.out, strings.ReplaceAll(part, "\r", "\r"+label))
			s.started = !strings.HasSuffix(part, "\n")
		}
		return
	}
	for _, part := range strings.SplitAfter(text, "\n") {
		s.line.WriteString(strings.TrimSuffix(part, "\n"))
		if strings.HasSuffix(part, "\n") {
			s.flush()
		}
	}
}

// end finishes a line the program left open.
func (s *screen) end() {
	if s.tty {
		if s.started {
			fmt.Fprintln(s.out)
			s.started = false
		}
		return
	}
	if s.line.Len() > 0 {
		s.flush()
	}
}

func (s *screen) flush() {
	shown := s.line.String()
	shown = shown[strings.LastIndex(shown, "\r")+1:]
	fmt.Fprintln(s.out, label+escape.ReplaceAllString(shown, ""))
	s.line.Reset()
}

// isTerminal reports whether w is a character device, a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
