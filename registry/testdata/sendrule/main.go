// Command sendrule must not compile: TestSendOnAJobWithoutATerminalDoesNotCompile
// requires each of its three calls to fail, each for its own reason.
package main

import (
	"context"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// A producer holds its job's RecordingJob, which has no Send: input comes
// from the runtime's side, never from the producer.
func producerSends(job jobs.RecordingJob) error {
	return job.Send("ls\n")
}

// A job started with Start hands back a snapshot, which has no Send: only
// StartTerminal hands back a jobs.TerminalJob.
func runtimeSends(ctx context.Context, r *registry.Registry, start jobs.RecordingJobStart) error {
	snap, err := r.Start(ctx, start)
	if err != nil {
		return err
	}
	return snap.Send("ls\n")
}

// A TerminalJob writes to the terminal, never to the producer's record.
func runtimeAppends(term jobs.TerminalJob) {
	term.Append("forged output", jobs.AppendOptions{})
}

func main() {}
