package registry_test

import (
	"context"
	"fmt"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// A recording job is started, appends a line, is killed, and is followed
// from its first byte to its end: the follow replays the record and ends with
// the job's final status.
func Example() {
	ctx := context.Background()
	reg := registry.New()
	defer reg.Close(ctx)

	const session jobs.SessionID = "example-session"
	stopped := make(chan string, 1)
	snap, err := reg.Start(ctx, jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "build", Label: "make all", Owner: session},
		Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			job.Append("compiling\n", jobs.AppendOptions{Channel: jobs.ChannelStdout})
			return jobs.Hooks{
				// Kill calls Cancel; the producer stops and Done reports it.
				Cancel: func(reason string) error { stopped <- reason; return nil },
				Done: func() (jobs.JobOutcome, error) {
					<-stopped
					return jobs.JobOutcome{Status: jobs.JobStatusKilled}, nil
				},
			}, nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("started", snap.Kind, snap.Status)

	if _, err := reg.Kill(session, snap.ID, "no longer needed"); err != nil {
		fmt.Println(err)
		return
	}
	for read, err := range reg.Follow(ctx, session, snap.ID, registry.FromEarliest()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, frame := range read.Frames {
			switch f := frame.(type) {
			case jobs.OutputFrame:
				for _, c := range f.Chunks {
					fmt.Printf("[%s] %s", c.Channel, c.Text)
				}
			case jobs.StatusFrame:
				fmt.Println(f.Job.Status+":", f.Job.Detail)
			}
		}
	}
	// Output:
	// started build running
	// [stdout] compiling
	// killed: no longer needed
}
