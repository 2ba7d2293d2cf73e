// Command deployer is a runtime built on jobgen with a vocabulary of its
// own: it runs one job of its own kind, deploy, in jobgen's registry, and
// records its own facts, deploy/requested and deploy/approved, in the same
// journal as the registry's job facts.
//
//	go run ./cmd/deployer -journal deploy.journal
//	jobgen journal check deploy.journal   # run here: jobgen.yaml names the spec
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"example.com/deployer/generated/deploy"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
)

// Kind is the kind of the jobs this runtime runs.
const Kind = "deploy"

const owner jobs.SessionID = "release-bot"

func main() {
	path := flag.String("journal", "deploy.journal", "the journal file to write")
	flag.Parse()
	if err := run(context.Background(), *path); err != nil {
		fmt.Fprintln(os.Stderr, "deployer:", err)
		os.Exit(1)
	}
}

// run ships one release: the request, the deploy job, the approval.
func run(ctx context.Context, path string) error {
	store, err := journal.Open(path)
	if err != nil {
		return err
	}
	reg := registry.New(registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)))
	facts := journal.NewRecorder(store, deploy.EncodeFact, func(deploy.Fact) journal.Stream { return journal.Stream(owner) })

	snap, err := reg.Start(ctx, jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: Kind, Label: "api to production", Owner: owner},
		Run: func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			go func() {
				job.Append("rolling out api\n", jobs.AppendOptions{})
				job.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "api is live"}, nil)
			}()
			return jobs.Hooks{Cancel: func(string) error { return nil }}, nil
		},
	})
	if err != nil {
		return err
	}
	release := deploy.NewReleaseID()
	if err := facts.Record(deploy.DeployRequested{Release: release, Service: "api", Job: snap.ID, At: time.Now().UnixMilli()}); err != nil {
		return err
	}
	done, _, err := reg.Wait(ctx, owner, snap.ID, 10*time.Second)
	if err != nil {
		return err
	}
	if err := facts.Record(deploy.DeployApproved{
		Release:  release,
		Approval: deploy.Approval{Approver: owner, Verdict: deploy.VerdictApproved, Note: "green canary"},
		Status:   done.Status,
		At:       time.Now().UnixMilli(),
	}); err != nil {
		return err
	}
	if err := reg.Close(ctx); err != nil {
		return err
	}
	if err := store.Close(ctx); err != nil {
		return err
	}
	fmt.Printf("%s %s: %s; facts in %s\n", done.Name, done.Status, done.Detail, path)
	return nil
}
