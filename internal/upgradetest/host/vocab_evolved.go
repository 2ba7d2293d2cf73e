//go:build evolved

package main

import (
	"context"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/subagent"
)

// The newer vocabulary (internal/upgradetest's evolution of the specs): a
// turn ends handedOff, a StopReason the older build does not know, and a
// runtime may note a job with job/noted, a fact type it does not know.

func turnEnd() error { return subagent.Stop(subagents.StopReasonHandedOff, nil) }

func writeNote(ctx context.Context, store *pgstore.Store, session jobs.SessionID, job string) error {
	id, err := jobs.ParseJobID(job)
	if err != nil {
		return err
	}
	payload, err := jobs.EncodeFact(jobs.JobNoted{JobID: id, At: 1, Note: "noted by the newer build"})
	if err != nil {
		return err
	}
	_, err = store.Append(ctx, journal.Stream(session), journal.Entry{Payload: payload})
	return err
}
