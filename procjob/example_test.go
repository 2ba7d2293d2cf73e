//go:build unix

package procjob_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/procjob"
	"github.com/jobgen/jobgen/registry"
)

// An OS command runs as a recording job: its output is pumped into the job's
// record, and its exit status settles the job.
func Example() {
	ctx := context.Background()
	reg := registry.New()
	defer reg.Close(ctx)

	const session jobs.SessionID = "example-session"
	snap, err := reg.Start(ctx, procjob.Start(procjob.Options{
		Command: []string{"sh", "-c", `echo "checking 3 files"; echo "2 problems"; exit 3`},
		Label:   "lint",
		Owner:   session,
		Poll:    10 * time.Millisecond,
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("started", snap.Kind, snap.Label)
	// The pump may deliver the output in one chunk or several, so it is
	// collected by channel and printed a line at a time.
	var stdout strings.Builder
	for read, err := range reg.Follow(ctx, session, snap.ID, registry.FromEarliest()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, frame := range read.Frames {
			switch f := frame.(type) {
			case jobs.OutputFrame:
				for _, c := range f.Chunks {
					if c.Channel == jobs.ChannelStdout {
						stdout.WriteString(c.Text)
					}
				}
			case jobs.StatusFrame:
				for line := range strings.Lines(stdout.String()) {
					fmt.Print("[stdout] ", line)
				}
				fmt.Println(f.Job.Status+":", f.Job.Detail)
			}
		}
	}
	// Output:
	// started sh lint
	// [stdout] checking 3 files
	// [stdout] 2 problems
	// failed: exit status 3
}

// A command under a pseudo-terminal is a terminal job: the registry's
// StartTerminal returns the handle that types into it, and its output is one
// stream on the terminal channel, with the terminal's echo and CR LF.
func ExampleOptions_terminal() {
	ctx := context.Background()
	reg := registry.New()
	defer reg.Close(ctx)

	const session jobs.SessionID = "example-session"
	snap, term, err := reg.StartTerminal(ctx, procjob.Start(procjob.Options{
		Command:  []string{"sh", "-c", `printf 'name? '; read name; echo "hello, $name"`},
		Owner:    session,
		Terminal: &jobs.TerminalSize{Rows: 24, Cols: 80},
		Poll:     10 * time.Millisecond,
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	// The answer is typed once the prompt is on the screen: typed earlier,
	// the terminal would echo it before the prompt, as a terminal does.
	var screen strings.Builder
	answered := false
	for read, err := range reg.Follow(ctx, session, snap.ID, registry.FromEarliest()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, frame := range read.Frames {
			switch f := frame.(type) {
			case jobs.OutputFrame:
				for _, c := range f.Chunks {
					screen.WriteString(c.Text)
				}
				if !answered && strings.HasSuffix(screen.String(), "name? ") {
					answered = true
					if err := term.Send("Ada\n"); err != nil {
						fmt.Println(err)
						return
					}
				}
			case jobs.StatusFrame:
				fmt.Printf("%q\n", screen.String())
				fmt.Println(f.Job.Status+":", f.Job.Detail)
			}
		}
	}
	// Output:
	// "name? Ada\r\nhello, Ada\r\n"
	// completed: exit status 0
}
