package main

import (
	"context"
	"fmt"
	"io"
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
// the terminal shows, colours and all.
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
	var screen strings.Builder
	answered := false
	lineStart := true
	for frame, err := range reg.Follow(ctx, session, snap.ID, registry.FromEarliest()) {
		if err != nil {
			return err
		}
		switch f := frame.(type) {
		case jobs.OutputFrame:
			for _, c := range f.Chunks {
				screen.WriteString(c.Text)
				lineStart = printTerminal(out, c.Text, lineStart)
			}
			if !answered && strings.HasSuffix(screen.String(), "[y/N] ") {
				answered = true
				if err := term.Send("y\n"); err != nil {
					return err
				}
			}
		case jobs.StatusFrame:
			if !lineStart {
				fmt.Fprintln(out)
			}
			fmt.Fprintf(out, "%s %s: %s\n", f.Job.Name, f.Job.Status, f.Job.Detail)
		}
	}
	return nil
}

// printTerminal writes text as the terminal shows it, each line labelled
// with the channel; carriage returns stay, so a progress bar redraws in
// place on a real terminal. It returns whether the next byte starts a line.
func printTerminal(out io.Writer, text string, lineStart bool) bool {
	for _, line := range strings.SplitAfter(text, "\n") {
		if line == "" {
			continue
		}
		if lineStart {
			fmt.Fprint(out, "  [terminal] ")
		}
		fmt.Fprint(out, strings.ReplaceAll(line, "\r\n", "\n"))
		lineStart = strings.HasSuffix(line, "\n")
	}
	return lineStart
}
