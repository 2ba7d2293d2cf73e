package agenttools

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/registry"
)

// entry is a job as the tools show it.
func entry(snap jobs.JobSnapshot) tools.JobEntry {
	e := tools.JobEntry{
		ID:        snap.ID,
		Name:      snap.Name,
		Kind:      snap.Kind,
		Label:     snap.Label,
		Status:    snap.Status,
		Detail:    snap.Detail,
		StartedAt: time.UnixMilli(snap.StartedAt).UTC(),
		Labels:    snap.Labels,
	}
	if snap.FinishedAt != 0 {
		e.FinishedAt = time.UnixMilli(snap.FinishedAt).UTC()
	}
	return e
}

// jobErr maps a registry error about job id; what is not the registry's is
// internal, logged.
func (s *Toolset) jobErr(tool string, err error, id jobs.JobID) *Error {
	if e, ok := jobError(err, id); ok {
		return e
	}
	s.t.log.Error("agenttools: job tool failed", "tool", tool, "job", id, "session", s.caller.Session, "err", err)
	return internal()
}

// jobList is job_list: the caller's jobs (its own and the unowned), oldest
// first, and the subagents it started.
func (s *Toolset) jobList(_ context.Context, in tools.JobList) (tools.JobListResult, error) {
	snaps := s.t.reg.List(s.caller.Session)
	res := tools.JobListResult{Jobs: make([]tools.JobEntry, 0, len(snaps))}
	listed := make(map[jobs.JobID]bool, len(snaps))
	for _, snap := range snaps {
		listed[snap.ID] = true
		if in.ActiveOnly && snap.Status.Terminal() || !hasLabels(snap.Labels, in.Labels) {
			continue
		}
		res.Jobs = append(res.Jobs, entry(snap))
	}
	s.t.cursors.prune(s.caller.Session, listed)
	res.Subagents = s.subagentEntries()
	return res, nil
}

// hasLabels reports whether labels carry every key=value of want.
func hasLabels(labels, want map[string]string) bool {
	for k, v := range want {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// outputBudget is the byte budget of one job_output call: the model's, or
// the default, and at least a rune, so a call always makes progress. The
// cap is the argument's bound (spec/tools.yaml), which the decoder holds
// it to.
func outputBudget(max uint32) int {
	switch {
	case max == 0:
		return tools.DefaultOutputBytes
	case max < utf8.UTFMax:
		return utf8.UTFMax
	}
	return int(max)
}

// jobOutput is job_output: the consuming cursor. It reads the job
// (Registry.Read, fenced by the caller's session) only when nothing read
// before still waits, so the producer's cursor and the carry never both
// grow; what does not fit the budget waits for the next call.
func (s *Toolset) jobOutput(_ context.Context, in tools.JobOutput) (tools.JobOutputResult, error) {
	budget := outputBudget(in.MaxBytes)
	c := s.t.cursors.get(in.JobID)
	c.mu.Lock()
	defer c.mu.Unlock()
	var snap jobs.JobSnapshot
	var err error
	if c.carry == "" && !c.done {
		var res registry.ReadResult
		res, err = s.t.reg.Read(s.caller.Session, in.JobID)
		if err == nil {
			snap = res.Job
			c.owner, c.done = snap.Owner, snap.Status.Terminal()
			c.take(res.Output, c.done)
			c.result = res.Result // handed once by the registry: it waits here until shown
		}
	} else {
		snap, err = s.t.reg.Get(s.caller.Session, in.JobID) // the fence for what waits
	}
	if err != nil {
		if errors.Is(err, registry.ErrUnknownJob) {
			s.t.cursors.forget(in.JobID)
		}
		return tools.JobOutputResult{}, s.jobErr("job_output", err, in.JobID)
	}
	out, left := c.next(budget)
	res := tools.JobOutputResult{JobID: snap.ID, Name: snap.Name, Status: snap.Status, Output: out}
	if left == 0 && c.result != "" {
		res.Result, c.result = c.result, "" // with the final output, once
	}
	switch {
	case left > 0:
		res.Truncated, res.RemainingBytes = true, int64(left)
		res.Notice = fmt.Sprintf("%d more bytes are waiting: call job_output again to read on.", left)
		if left == 1 {
			res.Notice = "1 more byte is waiting: call job_output again to read on."
		}
	case c.done:
		res.Notice = "The job has finished and you have read all of its output."
	case out == "":
		res.Notice = "No new output yet. Call job_wait to wait for the job to finish, or job_output again later."
	}
	return res, nil
}

// maxKillIDs is the most jobs one job_kill stops by jobIds (the tool's
// description says it; the spec language bounds no list's length).
const maxKillIDs = 100

// jobKill is job_kill: a kill fenced by the caller's session, of one job
// (jobId) or of several with one reason (jobIds, through KillAll).
func (s *Toolset) jobKill(_ context.Context, in tools.JobKill) (tools.JobKillResult, error) {
	reason := in.Reason
	if reason == "" {
		reason = "stopped with job_kill"
	}
	switch {
	case len(in.JobIDs) > 0 && in.JobID != (jobs.JobID{}):
		return tools.JobKillResult{}, fail(tools.ErrorCodeInvalidArguments, "Give either jobId or jobIds, not both.")
	case len(in.JobIDs) > maxKillIDs:
		return tools.JobKillResult{}, fail(tools.ErrorCodeInvalidArguments, "jobIds holds %d ids; job_kill stops at most %d at once.", len(in.JobIDs), maxKillIDs)
	case len(in.JobIDs) > 0:
		return s.jobKillAll(in.JobIDs, reason), nil
	case in.JobID == (jobs.JobID{}):
		return tools.JobKillResult{}, fail(tools.ErrorCodeInvalidArguments, "Give the job to stop as jobId, or several as jobIds.")
	}
	kr, err := s.t.reg.Kill(s.caller.Session, in.JobID, reason)
	if err != nil {
		if e, ok := jobError(err, in.JobID); ok {
			return tools.JobKillResult{}, e
		}
		// Not the fence: the producer's Cancel failed, and the job may run on.
		s.t.log.Warn("agenttools: job_kill: cancel failed", "job", in.JobID, "session", s.caller.Session, "err", err)
		return tools.JobKillResult{}, fail(tools.ErrorCodeKillFailed, "Job %s could not be asked to stop and may still be running. Call job_wait to see whether it ends, or job_kill again.", in.JobID)
	}
	snap, err := s.t.reg.Get(s.caller.Session, in.JobID)
	if err != nil {
		return tools.JobKillResult{}, s.jobErr("job_kill", err, in.JobID)
	}
	outcome := tools.KillOutcomeRequested
	if kr == registry.KillAlreadyFinished {
		outcome = tools.KillOutcomeAlreadyFinished
	}
	return tools.JobKillResult{JobID: snap.ID, Name: snap.Name, Outcome: outcome, Status: snap.Status}, nil
}

// jobKillAll stops ids with one reason and says what happened to each; a
// job the caller may not see reads as unknown, as job_kill of one does.
func (s *Toolset) jobKillAll(ids []jobs.JobID, reason string) tools.JobKillResult {
	each := s.t.reg.KillAll(s.caller.Session, registry.Selection{IDs: ids}, reason)
	res := tools.JobKillResult{Results: make([]tools.JobKillEach, len(each))}
	for i, k := range each {
		e := tools.JobKillEach{JobID: k.ID}
		switch {
		case errors.Is(k.Err, registry.ErrUnknownJob), errors.Is(k.Err, registry.ErrForeignJob):
			e.Error = tools.ErrorCodeUnknownJob
		case k.Err != nil:
			s.t.log.Warn("agenttools: job_kill: cancel failed", "job", k.ID, "session", s.caller.Session, "err", k.Err)
			e.Error = tools.ErrorCodeKillFailed
		case k.Result == registry.KillAlreadyFinished:
			e.Outcome = tools.KillOutcomeAlreadyFinished
		default:
			e.Outcome = tools.KillOutcomeRequested
		}
		if e.Error != tools.ErrorCodeUnknownJob {
			if snap, err := s.t.reg.Get(s.caller.Session, k.ID); err == nil {
				e.Name, e.Status = snap.Name, snap.Status
			}
		}
		res.Results[i] = e
	}
	return res
}

// waitTimeout is how long one job_wait call waits: the model's, or the
// default. The cap is the argument's bound (spec/tools.yaml), which the
// decoder holds it to.
func waitTimeout(seconds uint32) time.Duration {
	if seconds == 0 {
		return tools.DefaultWaitTimeout
	}
	return time.Duration(seconds) * time.Second
}

// jobWait is job_wait: a wait fenced by the caller's session, with the
// settlement's notice once the job has finished.
func (s *Toolset) jobWait(ctx context.Context, in tools.JobWait) (tools.JobWaitResult, error) {
	snap, settled, err := s.t.reg.Wait(ctx, s.caller.Session, in.JobID, waitTimeout(in.TimeoutSeconds))
	if err != nil && !settled {
		return tools.JobWaitResult{}, s.jobErr("job_wait", err, in.JobID)
	}
	res := tools.JobWaitResult{Job: entry(snap), Finished: settled}
	if settled {
		res.Notice = JobNotice(snap, s.t.noticeBytes)
	}
	return res, nil
}
