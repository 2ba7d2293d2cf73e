package agenttools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// A runtime gives each agent a Toolset; the model's tool calls go to Call,
// and what Call returns goes back to the model as the tool's result (an
// error as its JSON, flagged as an error).
func ExampleToolset_Call() {
	ctx := context.Background()
	n := 0
	reg := registry.New(
		registry.WithIDs(func() jobs.JobID { n++; return jobID(n) }),
		registry.WithClock(registry.ClockFunc(func() time.Time { return t0 })),
	)
	defer reg.Close(ctx)

	// A job of the session, as a start tool of the runtime would start it.
	var face jobs.RecordingJob
	reg.Start(ctx, jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "sh", Label: "make test", Owner: "agent-1"},
		Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			face = job
			return jobs.Hooks{Cancel: func(string) error { return nil }}, nil
		},
	})
	face.UpdateDetail("running 3 tests")

	tools, _ := agenttools.New(reg)
	ts := tools.For("agent-1")
	show := func(name, args string) {
		out, err := ts.Call(ctx, name, json.RawMessage(args))
		if err != nil {
			fmt.Printf("%s %s\n  -> error %s\n", name, args, err.(*agenttools.Error).JSON())
			return
		}
		fmt.Printf("%s %s\n  -> %s\n", name, args, out)
	}
	show("job_list", `{}`)
	face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "ok", Output: "PASS\n"}, nil)
	show("job_wait", `{"jobId": "00000000-0000-4000-8000-000000000001"}`)
	show("job_output", `{"jobId": "00000000-0000-4000-8000-000000000001"}`)
	show("job_kill", `{"jobId": "00000000-0000-4000-8000-000000000001"}`)
	show("job_output", `{"jobId": "sh-1"}`)
	// Output:
	// job_list {}
	//   -> {"jobs":[{"id":"00000000-0000-4000-8000-000000000001","name":"sh-1","kind":"sh","label":"make test","status":"running","detail":"running 3 tests","startedAt":"2025-01-02T03:04:05Z"}]}
	// job_wait {"jobId": "00000000-0000-4000-8000-000000000001"}
	//   -> {"job":{"id":"00000000-0000-4000-8000-000000000001","name":"sh-1","kind":"sh","label":"make test","status":"completed","detail":"ok","startedAt":"2025-01-02T03:04:05Z","finishedAt":"2025-01-02T03:04:05Z"},"finished":true,"notice":"Job sh-1 \"make test\" (id 00000000-0000-4000-8000-000000000001) completed: ok. Read its output with job_output."}
	// job_output {"jobId": "00000000-0000-4000-8000-000000000001"}
	//   -> {"jobId":"00000000-0000-4000-8000-000000000001","name":"sh-1","status":"completed","output":"PASS\n","notice":"The job has finished and you have read all of its output."}
	// job_kill {"jobId": "00000000-0000-4000-8000-000000000001"}
	//   -> {"jobId":"00000000-0000-4000-8000-000000000001","name":"sh-1","outcome":"alreadyFinished","status":"completed"}
	// job_output {"jobId": "sh-1"}
	//   -> error {"code":"invalidArguments","message":"The argument \"jobId\" of job_output must be an id as job_list shows it: 36 lower-case hexadecimal digits and dashes, such as 0b5c2f1e-7d1a-4c3b-9e8f-2a6b4c8d0e1f."}
}
