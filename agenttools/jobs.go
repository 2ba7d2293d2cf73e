package agenttools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
)

// WithHistory lets the Toolsets read jobs the registry no longer holds —
// those of an earlier process over the same journal, or removed — from
// their facts in store (the job/registered and job/settled facts on the
// caller's own stream, so the fence holds there too). Task protocols use
// it: an MCP task outlives the process that started its job.
func WithHistory(store journal.Store) Option { return func(t *Tools) { t.history = store } }

// A JobState is a job as a caller may see it: its snapshot, and whether it
// came from the live registry or from the job's facts in the history (then
// the snapshot has no output, and a job whose settlement was never recorded
// reads as lost).
type JobState struct {
	Snapshot jobs.JobSnapshot
	// FromHistory is set when the registry no longer holds the job.
	FromHistory bool
	// Lost is set for a job the history registered but never settled, read
	// after its process ended: it may have run on, or died with it.
	Lost bool
}

// Job returns the job id as the caller sees it: live from the registry, or
// with WithHistory from its facts; another session's job, and one nobody
// issued, is ErrUnknownJob.
func (s *Toolset) Job(ctx context.Context, id jobs.JobID) (JobState, error) {
	snap, err := s.t.reg.Get(s.caller.Session, id)
	if err == nil {
		return JobState{Snapshot: snap}, nil
	}
	if !errors.Is(err, registry.ErrUnknownJob) || s.t.history == nil {
		return JobState{}, s.jobErr("job", err, id)
	}
	st, ok, err := s.fromHistory(ctx, id)
	if err != nil {
		s.t.log.Error("agenttools: reading the history failed", "job", id, "session", s.caller.Session, "err", err)
		return JobState{}, internal()
	}
	if !ok {
		return JobState{}, unknownJob(id)
	}
	return st, nil
}

// Jobs lists the caller's live jobs, oldest first.
func (s *Toolset) Jobs() []jobs.JobSnapshot { return s.t.reg.List(s.caller.Session) }

// WaitJob waits, at most timeout, for a live job of the caller to settle,
// as job_wait does; settled says whether it did.
func (s *Toolset) WaitJob(ctx context.Context, id jobs.JobID, timeout time.Duration) (snap jobs.JobSnapshot, settled bool, err error) {
	snap, settled, err = s.t.reg.Wait(ctx, s.caller.Session, id, timeout)
	if err != nil && !settled {
		return snap, false, s.jobErr("wait", err, id)
	}
	return snap, settled, nil
}

// KillJob stops a live job of the caller, as job_kill does.
func (s *Toolset) KillJob(id jobs.JobID, reason string) error {
	if _, err := s.t.reg.Kill(s.caller.Session, id, reason); err != nil {
		if e, ok := jobError(err, id); ok {
			return e
		}
		s.t.log.Warn("agenttools: kill: cancel failed", "job", id, "session", s.caller.Session, "err", err)
		return fail(tools.ErrorCodeKillFailed, "Job %s could not be asked to stop and may still be running.", id)
	}
	return nil
}

// Notice is the notice of a job's state, in the Tools' budget.
func (s *Toolset) Notice(snap jobs.JobSnapshot) string { return JobNotice(snap, s.t.noticeBytes) }

// fromHistory projects the job id from the caller's own stream.
func (s *Toolset) fromHistory(ctx context.Context, id jobs.JobID) (JobState, bool, error) {
	if s.caller.Session == "" {
		return JobState{}, false, nil // unowned jobs record no facts
	}
	records := s.t.history.ReadStream(ctx, journal.Stream(s.caller.Session), 0)
	var found *jobhistory.Interval
	for iv, err := range jobhistory.StreamIntervals(journal.Facts(records, jobs.DecodeFact)) {
		if err != nil {
			var de *journal.DecodeError
			if errors.As(err, &de) && errors.Is(err, jobs.ErrUnknownFact) {
				continue
			}
			return JobState{}, false, fmt.Errorf("agenttools: history of %s: %w", s.caller.Session, err)
		}
		if iv.JobID == id {
			found = &iv
		}
	}
	if found == nil || found.Owner != s.caller.Session {
		return JobState{}, false, nil
	}
	snap := jobs.JobSnapshot{
		ID: found.JobID, Name: found.Name(), Kind: found.Kind, Label: found.Label, Ordinal: found.Ordinal,
		Owner: found.Owner, ToolCall: found.ToolCall, Record: found.Record, StartedAt: found.RegisteredAt,
		Status: jobs.JobStatusRunning,
	}
	st := JobState{Snapshot: snap, FromHistory: true}
	if found.Complete {
		st.Snapshot.Status, st.Snapshot.Detail, st.Snapshot.FinishedAt = found.Status, found.Detail, found.SettledAt
	} else {
		st.Lost = true
	}
	return st, true, nil
}

// WaitResult is what job_wait answers for a job in state st.
func (s *Toolset) WaitResult(st JobState) tools.JobWaitResult {
	res := tools.JobWaitResult{Job: entry(st.Snapshot), Finished: st.Snapshot.Status.Terminal() || st.Lost}
	switch {
	case st.Lost:
		res.Notice = fmt.Sprintf("Job %s (id %s) was lost: the process that ran it ended before it did.", st.Snapshot.Name, st.Snapshot.ID)
	case res.Finished:
		res.Notice = s.Notice(st.Snapshot)
	}
	return res
}

// Record returns what the registry keeps of a live job's output (the
// record; once the job has settled, its last tools.DefaultOutputBytes or
// so), without consuming anything: the same text at every call. lossy says
// that earlier output fell out of the record. A job without a record, or
// that the registry no longer holds, has none.
func (s *Toolset) Record(id jobs.JobID) (text string, lossy bool) {
	rd, err := s.t.reg.ReadRecord(s.caller.Session, id, 0)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	for _, c := range rd.Chunks {
		b.WriteString(c.Text)
	}
	return b.String(), rd.Earliest > 0 || rd.Lossy
}

// Instructions tell a model how the caller's tools fit together, for a
// protocol that carries them (MCP's server instructions): start work, then
// wait for it or poll it, read its output, stop it; and message subagents.
func (s *Toolset) Instructions() string {
	var starts []string
	for _, st := range s.t.starts {
		starts = append(starts, st.Name)
	}
	var b strings.Builder
	b.WriteString("These tools run work in the background as jobs and let you watch and steer them. ")
	if len(starts) > 0 {
		fmt.Fprintf(&b, "Start a job with %s: it returns at once with the job's id. ", strings.Join(starts, " or "))
	}
	b.WriteString("Then either wait for the job with job_wait (it returns when the job finishes or its timeout passes, and can be called again), " +
		"or do other work and check it with job_list, which lists your jobs with their status and latest progress line. " +
		"Read what a job wrote with job_output: each call returns only what you have not read yet, so call it again to read on. " +
		"Stop a job you no longer need with job_kill, then job_wait to see it end. " +
		"Ids are the full ids the tools return; a job you cannot see answers unknownJob. " +
		"Every error is a code and a sentence saying what to do next.")
	if s.offers(builtinDef{subagent: true}) {
		b.WriteString(" Start a subagent with subagent_start, send it more work with send_message; its reports and its end reach you as messages. " +
			"A subagent reports to you with report.")
	}
	return b.String()
}
