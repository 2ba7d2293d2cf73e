package retention

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
)

// A judgement is what the records of one stream say about whether its
// history is over, and how the stream belongs to others.
type judgement struct {
	// parent is the session a child stream names as its parent in its
	// created fact or a checkpoint; empty for a stream that is no child.
	parent jobs.SessionID
	// child is the child a pointer stream (subagent/checkpointed facts)
	// points into; empty for any other stream.
	child jobs.SessionID

	openJobs  map[jobs.JobID]string // jobs registered and not settled, by id: their display names
	openRuns  []subagents.RunID     // residencies started and not ended
	waiting   []subagents.MessageID // messages accepted and neither claimed nor discarded
	leaseEnds time.Time             // for a host's stream: when its last heartbeat's lease ends
	unknown   int                   // records of no vocabulary this package knows
	// newer are the job and subagent facts of the stream a newer build
	// wrote (a version, variant or value this build does not know), each
	// kind once: only that build can judge them.
	newer []string
}

// add takes one record of the stream into the judgement, reading it
// tolerantly (decision 0174): a job or subagent fact this build knows is
// judged; one of those vocabularies a newer build wrote is noted, and keeps
// the stream; a record of another vocabulary is counted; damage is an
// error.
func (j *judgement) add(rec journal.Record) error {
	jf, err := jobs.ReadFact(rec.Payload)
	if err != nil {
		return fmt.Errorf("stream %q seq %d: %w", rec.Stream, rec.Seq, err)
	}
	u, unknown := jf.(jobs.UnknownFact)
	switch {
	case !unknown:
		j.addJob(jf)
		return nil
	case u.Why != codec.UnknownType:
		j.addNewer(u.Unknown)
		return nil
	}
	sf, err := subagents.ReadFact(rec.Payload)
	if err != nil {
		return fmt.Errorf("stream %q seq %d: %w", rec.Stream, rec.Seq, err)
	}
	su, unknown := sf.(subagents.UnknownFact)
	switch {
	case !unknown:
		j.addSubagent(sf)
	case su.Why != codec.UnknownType:
		j.addNewer(su.Unknown)
	default:
		j.unknown++
	}
	return nil
}

// addNewer notes a fact of a vocabulary this package judges that a newer
// build wrote.
func (j *judgement) addNewer(u codec.Unknown) {
	if what := u.String(); !slices.Contains(j.newer, what) {
		j.newer = append(j.newer, what)
	}
}

// addJob takes a job fact: a registration opens a job, its settlement
// closes it, a heartbeat moves the host's lease.
func (j *judgement) addJob(f jobs.Fact) {
	switch f := f.(type) {
	case jobs.JobRegistered:
		if j.openJobs == nil {
			j.openJobs = map[jobs.JobID]string{}
		}
		j.openJobs[f.JobID] = fmt.Sprintf("%s-%d", f.Kind, f.Ordinal)
	case jobs.JobSettled:
		delete(j.openJobs, f.JobID)
	case jobs.HostHeartbeat:
		j.leaseEnds = time.UnixMilli(f.At + f.LeaseMs)
	}
}

// addSubagent takes a subagent fact: residencies open and end, messages
// wait until claimed or discarded, and the created fact and checkpoints
// name the parent.
func (j *judgement) addSubagent(f subagents.Fact) {
	switch f := f.(type) {
	case subagents.SubagentCreated:
		j.parent = f.Header.ParentSession
	case subagents.SubagentCheckpoint:
		j.parent = f.Header.ParentSession
		j.waiting = j.waiting[:0]
		for _, w := range f.Waiting {
			j.waiting = append(j.waiting, w.Message.ID)
		}
	case subagents.SubagentMessageAccepted:
		j.waiting = append(j.waiting, f.Message)
	case subagents.SubagentMessageClaimed:
		j.waiting = slices.DeleteFunc(j.waiting, func(id subagents.MessageID) bool { return id == f.Message })
	case subagents.SubagentMessageDiscarded:
		j.waiting = slices.DeleteFunc(j.waiting, func(id subagents.MessageID) bool { return id == f.Message })
	case subagents.SubagentResidencyStarted:
		j.openRuns = append(j.openRuns, f.Run)
	case subagents.SubagentResidencyEnded:
		j.openRuns = slices.DeleteFunc(j.openRuns, func(r subagents.RunID) bool { return r == f.Run })
	case subagents.SubagentCheckpointed:
		j.child = f.Child
	}
}

// unsettled says why the stream's own history is not over at now, or ""
// when it is: every job it registered settled, every residency ended, no
// message waiting, a host's lease run out, no fact a newer build wrote, and
// (unless allowUnknown) no record of a vocabulary this package does not know.
func (j *judgement) unsettled(now time.Time, allowUnknown bool) string {
	var why []string
	if n := len(j.openJobs); n > 0 {
		names := make([]string, 0, n)
		for _, name := range j.openJobs {
			names = append(names, name)
		}
		slices.Sort(names)
		why = append(why, fmt.Sprintf("%s not settled (%s)", plural(n, "job"), strings.Join(names, ", ")))
	}
	if n := len(j.openRuns); n > 0 {
		why = append(why, fmt.Sprintf("%s not ended", plural(n, "residency", "residencies")))
	}
	if n := len(j.waiting); n > 0 {
		why = append(why, fmt.Sprintf("%s waiting", plural(n, "message")))
	}
	if !j.leaseEnds.IsZero() && !now.After(j.leaseEnds) {
		why = append(why, "its host's lease runs until "+j.leaseEnds.UTC().Format(time.RFC3339))
	}
	if len(j.newer) > 0 {
		why = append(why, "it holds "+strings.Join(j.newer, ", ")+", which only a newer build can judge")
	}
	if j.unknown > 0 && !allowUnknown {
		why = append(why, fmt.Sprintf("%s of a vocabulary this build cannot judge", plural(j.unknown, "record")))
	}
	return strings.Join(why, "; ")
}

// plural writes n and the noun, in the plural unless n is 1; pl is the
// plural when it is not the noun and an s.
func plural(n int, noun string, pl ...string) string {
	if n == 1 {
		return "1 " + noun
	}
	if len(pl) > 0 {
		return fmt.Sprintf("%d %s", n, pl[0])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
