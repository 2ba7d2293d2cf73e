package jobhttp

import (
	"log/slog"
	"slices"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/jobhistory"
)

// The fleet view's tolerant reading (decision 0174): hosts of two builds
// share one history during a rolling upgrade, so the view meets job facts
// its build does not know — a newer version of job/registered, a settlement
// cause or a fact type added since. It keeps reading: a job fact it knows
// the type of is salvaged (jobhistory.Readable), so the job shows with every
// field this build can read and its interval is marked partial; every such
// fact, and every fact of a type no vocabulary of this build knows, is
// counted (Fleet.Unknown) and its first sight logged. Facts of this build's
// other vocabularies (subagents) are not the view's, and not counted.

// unknownJobFacts counts what the view could not fully read, under the
// view's lock.
type unknownJobFacts struct {
	counts codec.UnknownFacts
	log    *slog.Logger // nil until the fleet sets it
}

// readLocked reads one record's fact: the fact to apply (nil for none) and
// whether it was read only in part.
func (v *fleetView) readLocked(payload []byte) (jobs.Fact, bool) {
	f, err := jobs.ReadFact(payload)
	if err != nil {
		return nil, false // damage: the journal's tools report it
	}
	u, ok := f.(jobs.UnknownFact)
	if !ok {
		return f, false
	}
	if u.Why == codec.UnknownType {
		if _, err := subagents.DecodeFact(payload); err == nil {
			return nil, false // another vocabulary of this build
		}
	}
	kinds, _ := v.unknown.counts.Kinds()
	first := !slices.Contains(kinds, u.Kind())
	v.unknown.counts.Keep(u.Unknown)
	if first && v.unknown.log != nil {
		v.unknown.log.Warn("fleet: a fact this build cannot fully read; its job shows with what it can", "fact", u.Unknown.String())
	}
	return jobhistory.Readable(f)
}

// markPartialLocked marks the interval of the job f (a salvaged fact)
// names as read in part.
func (v *fleetView) markPartialLocked(f jobs.Fact) {
	var id jobs.JobID
	switch f := f.(type) {
	case jobs.JobRegistered:
		id = f.JobID
	case jobs.JobSettled:
		id = f.JobID
	default:
		return
	}
	if j, ok := v.jobs[id]; ok {
		j.iv.Partial = true
	}
}

// Unknown says which facts of the shared history the fleet could not fully
// read, by type and version, and how many of each: job facts a newer build
// wrote (whose jobs it shows with what it could read) and facts of types no
// vocabulary of this build knows. During a rolling upgrade it counts what
// the hosts of the newer build write; once the fleet runs that build too,
// nothing.
func (f *Fleet) Unknown() (kinds []codec.FactKind, counts []int) {
	f.view.mu.Lock()
	defer f.view.mu.Unlock()
	return f.view.unknown.counts.Kinds()
}
