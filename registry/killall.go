package registry

import (
	"fmt"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A Selection names the jobs [Registry.KillAll] stops: the jobs of IDs when
// it is not empty (each at most once, in the order given), else every live
// job visible to the caller that Match accepts (every live one when Match
// is nil), in registration order. A selection by filter never holds a
// settled job or another session's: it is drawn from what List shows the
// caller.
type Selection struct {
	IDs   []jobs.JobID
	Match func(jobs.JobSnapshot) bool
}

// A KillEach is what KillAll did to one selected job: the Result of its
// Kill, or the error that refused it (ErrUnknownJob, ErrForeignJob, or its
// Cancel's error), with Result zero.
type KillEach struct {
	ID     jobs.JobID
	Result KillResult
	Err    error
}

// KillAll asks every job of sel to stop with the one reason, as Kill asks
// one: fenced by caller (an id of another session is refused with
// ErrForeignJob and its job is left alone), each Cancel called once with
// reason, and a job whose Cancel fails left running. It returns one KillEach
// per selected job, in selection order. The kills run one after another on
// the caller's goroutine, so a Cancel that blocks holds up the rest; a
// producer's Cancel only asks its work to stop, which is prompt (decision
// 0211).
func (r *Registry) KillAll(caller jobs.SessionID, sel Selection, reason string) []KillEach {
	ids := sel.IDs
	if len(ids) == 0 {
		ids = r.selectLive(caller, sel.Match)
	} else {
		ids = distinct(ids)
	}
	out := make([]KillEach, len(ids))
	for i, id := range ids {
		res, err := r.Kill(caller, id, reason)
		out[i] = KillEach{ID: id, Result: res, Err: err}
	}
	return out
}

// selectLive lists the live jobs visible to caller that match accepts.
func (r *Registry) selectLive(caller jobs.SessionID, match func(jobs.JobSnapshot) bool) []jobs.JobID {
	var ids []jobs.JobID
	for _, s := range r.List(caller) {
		if s.Status.Terminal() || (match != nil && !match(s)) {
			continue
		}
		ids = append(ids, s.ID)
	}
	return ids
}

// distinct returns ids without repeats, first occurrences in order.
func distinct(ids []jobs.JobID) []jobs.JobID {
	seen := make(map[jobs.JobID]bool, len(ids))
	out := make([]jobs.JobID, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// String spells one result as logs and tests do: the id and the result, or
// the error.
func (k KillEach) String() string {
	if k.Err != nil {
		return fmt.Sprintf("%s: %v", k.ID, k.Err)
	}
	return fmt.Sprintf("%s: %s", k.ID, k.Result)
}
