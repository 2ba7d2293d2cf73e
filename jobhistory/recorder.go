package jobhistory

import (
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
)

// NewRecorder returns the registry's Recorder over store: each job fact goes
// to its owner's stream (StreamOf) under its RecordID, and an append that
// fails in a way a retry may mend is retried with that id until it lands or
// the bound passes, after which the Recorder fails for good and says so (see
// journal.NewRetryingRecorder). Register its Flush as the sessions' flush
// listener.
//
//	reg := registry.New(registry.WithRecorder(jobhistory.NewRecorder(store, journal.RetryLogger(logger))))
func NewRecorder(store journal.Store, opts ...journal.RetryOption) *journal.Recorder[jobs.Fact] {
	return journal.NewRetryingRecorder(store, jobs.EncodeFact, StreamOf, RecordID, opts...)
}

// RecordID returns the record id a job fact is stored under: its type and
// its job's id ("job/settled/0193…"). A job has at most one fact of each
// type, so recording a fact again — a retry after an append whose outcome
// was unknown — appends nothing, and a retried registration and settlement
// of one job each land once. The version is not part of it: a fact is the
// same fact whichever version wrote it. A heartbeat's id is its type and
// time on its host's stream.
func RecordID(f jobs.Fact) string {
	switch f := f.(type) {
	case jobs.JobRegistered:
		return f.FactType() + "/" + f.JobID.String()
	case jobs.JobSettled:
		return f.FactType() + "/" + f.JobID.String()
	case jobs.JobCommand:
		return f.FactType() + "/" + f.JobID.String()
	case jobs.JobExited:
		return f.FactType() + "/" + f.JobID.String()
	case jobs.HostHeartbeat:
		return heartbeatID(f)
	}
	return ""
}
