// Command shelljobs shows the runtime at work: it starts three shell commands
// as owned recording jobs with a file journal in a temporary directory,
// follows one live to the end with its output labelled by channel, kills
// another, waits for the rest, runs a fourth under a pseudo-terminal (a
// coloured progress bar, after a prompt the demo answers through the job's
// TerminalJob), shuts down in order, and prints the execution intervals read
// back from the journal.
//
//	go run ./examples/shelljobs
//
// Interrupted (Ctrl-C), it shuts down in order all the same and exits with
// status 0: Ctrl-C is how a person ends a demo (see internal/demo).
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/demo"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/launcher"
	"github.com/jobgen/jobgen/procjob"
	"github.com/jobgen/jobgen/registry"
)

const session jobs.SessionID = "demo-session"

func main() { demo.Main("shelljobs", shelljobs) }

// shelljobs runs the demo in a temporary directory.
func shelljobs() error {
	dir, err := os.MkdirTemp("", "shelljobs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	return run(context.Background(), dir, os.Stdout)
}

// run is the whole demo, writing what it does to out and its journal to dir.
// A signal ends it early with an error that is launcher.ErrInterrupted.
func run(ctx context.Context, dir string, out io.Writer) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	path := filepath.Join(dir, "jobs.journal")
	store, err := journal.Open(path, journal.WithLogger(logger))
	if err != nil {
		return err
	}
	reg := registry.New(registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)), registry.WithLogger(logger))

	// Shutdown order: the registry settles every job (and records the facts),
	// then the journal flushes and closes.
	shutdown := launcher.New(launcher.WithBound(jobs.DefaultTeardownBound), launcher.WithLogger(logger))
	shutdown.AddDisposer("registry", reg.Close)
	shutdown.AddProvider("journal", func(ctx context.Context) error { return store.Close(ctx) })

	err = shutdown.Run(ctx, func(ctx context.Context) error {
		return story(ctx, reg, out)
	})
	if err != nil {
		return err
	}

	fmt.Fprintf(out, "\n== execution intervals, read back from %s\n", filepath.Base(path))
	return jobhistory.WriteIntervals(out, journal.Facts(journal.ReadFile(path), jobs.DecodeFact))
}

func story(ctx context.Context, reg *registry.Registry, out io.Writer) error {
	start := func(label, script string) (jobs.JobSnapshot, error) {
		snap, err := reg.Start(ctx, procjob.Start(procjob.Options{
			Command: []string{"sh", "-c", script},
			Kind:    "sh",
			Label:   label,
			Owner:   session,
			Poll:    50 * time.Millisecond,
		}))
		if err == nil {
			fmt.Fprintf(out, "started %s: %s\n", snap.Name, label)
		}
		return snap, err
	}
	build, err := start("build", `for step in fetch compile link; do echo "$step"; sleep 0.3; done; echo "warning: 1 deprecated call" >&2; sleep 0.3; echo "built ./app"`)
	if err != nil {
		return err
	}
	server, err := start("serve", `echo "listening on :8080"; exec sleep 60`)
	if err != nil {
		return err
	}
	tests, err := start("test", `echo "running 3 tests"; sleep 0.4; echo "--- FAIL: TestCheckout" >&2; exit 1`)
	if err != nil {
		return err
	}

	fmt.Fprintf(out, "\n== following %s live\n", build.Name)
	for read, err := range reg.Follow(ctx, session, build.ID, registry.FromEarliest()) {
		if err != nil {
			return err
		}
		for _, frame := range read.Frames {
			switch f := frame.(type) {
			case jobs.OpenedFrame:
				fmt.Fprintf(out, "reading from offset %d, the earliest it keeps\n", f.From)
			case jobs.OutputFrame:
				for _, c := range f.Chunks {
					for _, line := range strings.SplitAfter(c.Text, "\n") {
						if line != "" {
							fmt.Fprintf(out, "  [%s] %s", c.Channel, strings.TrimSuffix(line, "\n")+"\n")
						}
					}
				}
			case jobs.StatusFrame:
				fmt.Fprintf(out, "%s %s: %s\n", f.Job.Name, f.Job.Status, f.Job.Detail)
			}
		}
	}

	fmt.Fprintf(out, "\n== killing %s\n", server.Name)
	if _, err := reg.Kill(session, server.ID, "demo is over"); err != nil {
		return err
	}
	for _, id := range []jobs.JobID{server.ID, tests.ID} {
		snap, _, err := reg.Wait(ctx, session, id, 10*time.Second)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s %s: %s\n", snap.Name, snap.Status, snap.Detail)
	}
	return terminalDemo(ctx, reg, out)
}
