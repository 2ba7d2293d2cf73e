package jobhistory

import (
	"github.com/jobgen/jobgen/generated/jobs"
)

// Readable is what a reader of job history makes of f, a fact jobs.ReadFact
// returned, under the tolerant reading rule (decision 0174): a fact this
// build knows is itself; an UnknownFact of a job fact type a newer build
// wrote (a newer version, or a value or variant this build does not know) is
// what UnknownFact.Salvage reads of it, with partial set, when that names its
// job (a registration or settlement with a JobID) or its host's run (a
// heartbeat with an incarnation); anything else is nil, to be skipped and
// counted. A salvaged fact is shown, never written.
func Readable(f jobs.Fact) (fact jobs.Fact, partial bool) {
	u, ok := f.(jobs.UnknownFact)
	if !ok {
		return f, false
	}
	s, _ := u.Salvage()
	switch s := s.(type) {
	case jobs.JobRegistered:
		if !s.JobID.IsZero() {
			return s, true
		}
	case jobs.JobSettled:
		if !s.JobID.IsZero() {
			return s, true
		}
	case jobs.HostHeartbeat:
		if !s.Host.Incarnation.IsZero() {
			return s, true
		}
	}
	return nil, false
}
