// Package jobhistory writes the job vocabulary's history to a journal and
// reads it back: which stream a job fact belongs to and under which record
// id (NewRecorder, the registry's Recorder), and the execution intervals
// projected from job facts (pgsql: the same as SQL). The journal itself
// knows no vocabulary; this package is where jobs meet it.
//
// The projections read history tolerantly (decision 0174): given facts from
// jobs.ReadFact, a job fact a newer build wrote projects its job with what
// this build can read of it (Readable) and marks the interval Partial; a
// fact this build does not know at all is skipped, for the caller to count.
package jobhistory

import (
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
)

// StreamOf returns the stream a job fact is recorded in: its job owner's
// session (procjob's job/command and job/exited too), and for a heartbeat its host's run (HostStream). The registry
// records facts of owned jobs only, so the stream is never empty for the
// facts it records; a fact of an unowned job has no stream, and a store
// refuses it (journal.ErrInvalid).
//
//	rec := journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf) // or NewRecorder(store), which retries
func StreamOf(f jobs.Fact) journal.Stream {
	switch f := f.(type) {
	case jobs.JobRegistered:
		return journal.Stream(f.Owner)
	case jobs.JobSettled:
		return journal.Stream(f.Registration.Owner)
	case jobs.JobCommand:
		return journal.Stream(f.Owner)
	case jobs.JobExited:
		return journal.Stream(f.Owner)
	case jobs.HostHeartbeat:
		return HostStream(f.Host)
	}
	return ""
}
