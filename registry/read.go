package registry

import (
	"context"
	"fmt"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A ReadResult is what Read hands the consuming model.
type ReadResult struct {
	// Job is the job's snapshot at the read.
	Job jobs.JobSnapshot
	// Output is the output not yet consumed: what the producer's ReadOutput
	// returns, or without one the final output once the job is terminal.
	Output string
	// Result is the producer's result (JobOutcome.Result), in the first
	// read after the settlement only: it is handed out once. The snapshot's
	// HasResult and ResultBytes still say there was one.
	Result string
}

// Read is the consuming model cursor of a job visible to caller. It returns
// the producer's ReadOutput if the producer has one, else the final output
// once the job is terminal, and marks a terminal job reported. The first
// Read after the settlement also carries the producer's result, if it
// settled with one; later reads do not.
func (r *Registry) Read(caller jobs.SessionID, id jobs.JobID) (ReadResult, error) {
	j, err := r.lookup(caller, id)
	if err != nil {
		return ReadResult{}, fmt.Errorf("registry: read %s: %w", id, err)
	}
	if j.state == stateSettled {
		j.reported = true
	}
	res := ReadResult{Job: j.snapshot()}
	if j.state == stateSettled && j.pending != nil {
		res.Result, j.pending.result = j.pending.result, "" // handed once
	}
	readOutput := j.hooks.ReadOutput
	if readOutput == nil && j.state == stateSettled {
		res.Output = j.output
	}
	j.sh.mu.Unlock()
	if readOutput != nil {
		res.Output = r.callReadOutput(j, readOutput)
	}
	return res, nil
}

func (r *Registry) callReadOutput(j *job, readOutput func() string) (out string) {
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("registry: ReadOutput panicked", "job", j.id, "panic", v)
			out = ""
		}
	}()
	return readOutput()
}

// ReadRecord reads the record of a recording job visible to caller without
// consuming it: every retained chunk ending after the absolute byte offset
// from, Next = the total bytes ever appended, Earliest = the first retained
// offset, and Lossy when from lies below it. It never marks the job reported.
func (r *Registry) ReadRecord(caller jobs.SessionID, id jobs.JobID, from int64) (jobs.RecordRead, error) {
	if from < 0 {
		return jobs.RecordRead{}, fmt.Errorf("registry: read record %s: offset %d: %w", id, from, ErrNegativeOffset)
	}
	j, err := r.lockRecord(caller, id, nil)
	if err != nil {
		return jobs.RecordRead{}, fmt.Errorf("registry: read record %s: %w", id, err)
	}
	defer j.mu.Unlock()
	return j.record.read(from), nil
}

// readRecordInto is ReadRecord into a caller's buffer: the same chunks and
// window, with the text copied into storage buf keeps, so reads that reuse
// buf allocate nothing once it has grown to their size. buf's previous
// contents are overwritten, also on error. The package's benchmarks measure
// the record's read with it; the external tests reach it through
// export_test.go.
func (r *Registry) readRecordInto(caller jobs.SessionID, id jobs.JobID, from int64, buf *recordBuffer) error {
	buf.Chunks, buf.text = buf.Chunks[:0], buf.text[:0]
	buf.Earliest, buf.Next, buf.Lossy = 0, 0, false
	if from < 0 {
		return fmt.Errorf("registry: read record %s: offset %d: %w", id, from, ErrNegativeOffset)
	}
	j, err := r.lockRecord(caller, id, buf.job)
	if err != nil {
		buf.job = nil
		return fmt.Errorf("registry: read record %s: %w", id, err)
	}
	buf.job = j
	j.record.readInto(from, buf)
	j.mu.Unlock()
	return nil
}

// lookupRecording is lookup for reads of a record: a plain job has none. On
// success it returns with the job's shard's mutex held.
func (r *Registry) lookupRecording(caller jobs.SessionID, id jobs.JobID) (*job, error) {
	j, err := r.lookup(caller, id)
	if err == nil && j.record == nil {
		j.sh.mu.Unlock()
		return nil, ErrNoRecord
	}
	return j, err
}

// lockRecord is lookupRecording holding the job's own lock instead of its
// shard's: a record read, fenced, then takes no lock another job's or
// owner's paths take, and reads the table without one. last is the job a
// buffer read before, if any: when it is id's, it is used without looking
// id up, and if it has been removed since, it is looked up after all (the
// id may have been taken again).
func (r *Registry) lockRecord(caller jobs.SessionID, id jobs.JobID, last *job) (*job, error) {
	j := last
	if j == nil || j.id != id || j.r != r {
		if j = r.ids.get(id); j == nil {
			return nil, ErrUnknownJob
		}
	}
	j.mu.Lock()
	if j.removed && j == last {
		j.mu.Unlock()
		return r.lockRecord(caller, id, nil)
	}
	var err error
	switch {
	case !j.listed():
		err = ErrUnknownJob
	case !j.visibleTo(caller):
		err = ErrForeignJob
	case j.record == nil:
		err = ErrNoRecord
	default:
		return j, nil
	}
	j.mu.Unlock()
	return nil, err
}

// Wait waits for a job visible to caller to settle, for at most timeout (no
// limit when timeout <= 0) and as long as ctx lives.
//
// Settled, it returns the settled snapshot and true, and the job is marked
// reported. On timeout it returns the live snapshot and false, without marking
// reported. When ctx ends first it returns the live snapshot, false and ctx's
// error. A timeout or cancellation racing the settlement never swallows the
// result: if the settlement counted this waiter (and so marked the job
// reported), Wait returns it.
func (r *Registry) Wait(ctx context.Context, caller jobs.SessionID, id jobs.JobID, timeout time.Duration) (jobs.JobSnapshot, bool, error) {
	j, err := r.lookup(caller, id)
	if err != nil {
		return jobs.JobSnapshot{}, false, fmt.Errorf("registry: wait %s: %w", id, err)
	}
	sh := j.sh
	if j.state == stateSettled {
		j.reported = true
		snap := j.snapshot()
		sh.mu.Unlock()
		return snap, true, nil
	}
	j.waiters++
	done := r.doneOf(j)
	sh.mu.Unlock()

	var expire <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expire = t.C
	}
	var abort error
	select {
	case <-done:
	case <-expire:
	case <-ctx.Done():
		abort = ctx.Err()
	}

	sh.mu.Lock()
	defer sh.mu.Unlock()
	if j.state == stateSettled {
		// Counted as a waiter by the settlement (it marked reported), or settled
		// between the wake-up and here: either way the result is delivered.
		j.reported = true
		return j.snapshot(), true, nil
	}
	j.waiters--
	if abort != nil {
		return j.snapshot(), false, fmt.Errorf("registry: wait %s: %w", id, abort)
	}
	return j.snapshot(), false, nil
}
