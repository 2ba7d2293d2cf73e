package registry

import "github.com/jobgen/jobgen/generated/jobs"

// An Observer receives the registry's metric events, for a metrics adapter
// such as package otelmetrics. The registry calls it without any lock held,
// on the goroutine of the event (a start's caller, a settlement's source, a
// fact's recorder), so it may be called concurrently and must return
// promptly; it may read the registry. Without WithObserver the registry
// makes no call at all, so metrics cost nothing to a registry that does not
// ask for them.
//
// The gauges (jobs running, stopping, waiting for a slot) are read, not
// pushed: see [Registry.Load].
type Observer interface {
	// JobStarted reports a registration commit: a job of kind is running.
	JobStarted(kind string)
	// JobSettled reports a settlement as it becomes visible: its status and
	// the source that settled it (the settled fact's cause).
	JobSettled(kind string, status jobs.JobStatus, cause jobs.SettlementCause)
	// FactRecordFailed reports a lifecycle fact the Recorder refused (an
	// error or a panic), by its fact type ("job/settled"); the commit went
	// ahead without it.
	FactRecordFailed(factType string)
}

// WithObserver sets the Observer that receives metric events; the default
// is none.
func WithObserver(o Observer) Option {
	return func(r *Registry) { r.obs = o }
}

// A Load counts the registry's live jobs, for gauges.
type Load struct {
	// Running counts registered jobs that are running.
	Running int
	// Stopping counts jobs a kill, a deadline or a teardown asked to stop
	// that have not settled yet; each still holds its owner's slot.
	Stopping int
	// Waiting counts StartWait callers queued for an owner's slot.
	Waiting int
}

// Load returns how many jobs are running and stopping and how many starts
// wait for a slot, at one moment. The registry keeps the counts per owner as
// jobs move; Load adds them up holding every owner's lock at once, so it
// costs a lock per owner with jobs, and briefly holds up their starts.
func (r *Registry) Load() Load {
	r.shards.lockAll() // no owner's first start until the counts are read
	shards := r.allShards(true)
	var l Load
	for _, sh := range shards {
		sh.mu.Lock()
	}
	for _, sh := range shards {
		l.Running += sh.running
		l.Stopping += sh.stopping
		l.Waiting += len(sh.queue)
		sh.mu.Unlock()
	}
	r.shards.unlockAll()
	return l
}
