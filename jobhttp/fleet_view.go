package jobhttp

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
)

// A fleetView is what a fleet handler knows of the shared history: every
// job of every host, projected from the job facts as they are tailed, and
// every run of a host, from its heartbeats. It is safe for concurrent use.
type fleetView struct {
	now   func() time.Time
	lease time.Duration // a run's lease until its first heartbeat is read

	mu      sync.Mutex
	jobs    map[jobs.JobID]*fleetJob
	open    map[jobs.JobID]*fleetJob       // the jobs not settled
	byOwner map[jobs.SessionID][]*fleetJob // in registration order
	runs    map[jobs.IncarnationID]*fleetRun
	lost    map[jobs.JobID]bool // the jobs judged lost at the last change
	changed chan struct{}       // closed and replaced at every change
	unknown unknownJobFacts     // the job facts a newer build wrote: see fleet_unknown.go
}

// A fleetJob is one job as the history says it: its interval and its host.
type fleetJob struct {
	iv   jobhistory.Interval
	host jobs.JobHost
}

// A fleetRun is one run of a host: its last heartbeat and its lease.
type fleetRun struct {
	host          jobs.JobHost
	beat, expires time.Time
}

func newFleetView(now func() time.Time, lease time.Duration) *fleetView {
	return &fleetView{
		now: now, lease: lease,
		jobs: map[jobs.JobID]*fleetJob{}, open: map[jobs.JobID]*fleetJob{}, byOwner: map[jobs.SessionID][]*fleetJob{},
		runs: map[jobs.IncarnationID]*fleetRun{}, lost: map[jobs.JobID]bool{},
		changed: make(chan struct{}),
	}
}

// apply takes the records of the history the tail delivered, in order,
// as the tolerant reading rule says (readLocked): facts of other
// vocabularies are skipped, and a job fact a newer build wrote shows its job
// with what this build can read of it.
func (v *fleetView) apply(recs []journal.Record) {
	v.mu.Lock()
	defer v.mu.Unlock()
	touched := false
	for _, rec := range recs {
		f, partial := v.readLocked(rec.Payload)
		if f == nil {
			continue
		}
		touched = v.applyLocked(f) || touched
		if partial {
			v.markPartialLocked(f)
		}
	}
	if touched {
		v.judgeLocked()
		v.notifyLocked()
	}
}

// applyLocked takes one job fact and reports whether it changed the view.
func (v *fleetView) applyLocked(f jobs.Fact) bool {
	switch f := f.(type) {
	case jobs.JobRegistered:
		if _, ok := v.jobs[f.JobID]; ok {
			return false
		}
		j := &fleetJob{iv: jobhistory.OpenInterval(f), host: f.Host}
		v.jobs[f.JobID], v.open[f.JobID] = j, j
		v.byOwner[f.Owner] = append(v.byOwner[f.Owner], j)
	case jobs.JobSettled:
		j, ok := v.jobs[f.JobID]
		if !ok {
			j = &fleetJob{iv: jobhistory.CarriedInterval(f)}
			v.jobs[f.JobID] = j
			v.byOwner[f.Registration.Owner] = append(v.byOwner[f.Registration.Owner], j)
		} else if j.iv.Complete {
			return false
		}
		j.iv.Settle(f)
		delete(v.open, f.JobID)
	case jobs.HostHeartbeat:
		r, ok := v.runs[f.Host.Incarnation]
		if !ok {
			r = &fleetRun{host: f.Host}
			v.runs[f.Host.Incarnation] = r
		}
		at := time.UnixMilli(f.At)
		if at.Before(r.beat) {
			return false
		}
		r.host, r.beat, r.expires = f.Host, at, at.Add(time.Duration(f.LeaseMs)*time.Millisecond)
	default:
		return false
	}
	return true
}

// expiresLocked is when the run that registered j stops counting as
// alive: its last heartbeat's lease, or, before one is read, the default
// lease from the registration.
func (v *fleetView) expiresLocked(j *fleetJob) time.Time {
	if r, ok := v.runs[j.host.Incarnation]; ok {
		return r.expires
	}
	return time.UnixMilli(j.iv.RegisteredAt).Add(v.lease)
}

// lostLocked reports whether j is lost with its host: it has not settled,
// it names a host, and that run's lease has ended.
func (v *fleetView) lostLocked(j *fleetJob, now time.Time) bool {
	return !j.iv.Complete && j.host.Name != "" && !now.Before(v.expiresLocked(j))
}

// judgeLocked judges every unsettled job lost or not at now, forgets the
// settled ones, and reports whether that changed anything.
func (v *fleetView) judgeLocked() bool {
	now := v.now()
	changed := false
	for id := range v.lost {
		if _, open := v.open[id]; !open {
			delete(v.lost, id)
			changed = true
		}
	}
	for id, j := range v.open {
		lost := v.lostLocked(j, now)
		if lost != v.lost[id] {
			changed = true
			if lost {
				v.lost[id] = true
			} else {
				delete(v.lost, id)
			}
		}
	}
	return changed
}

// rejudge judges the jobs again, as time passes, and wakes the watchers
// when one became lost (or came back).
func (v *fleetView) rejudge() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.judgeLocked() {
		v.notifyLocked()
	}
}

// nextExpiry is the earliest lease end after now among the runs of jobs
// that have not settled: when rejudge has something to find; zero when
// none will end.
func (v *fleetView) nextExpiry() time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.now()
	var next time.Time
	for _, j := range v.open {
		if j.host.Name == "" {
			continue
		}
		if e := v.expiresLocked(j); e.After(now) && (next.IsZero() || e.Before(next)) {
			next = e
		}
	}
	return next
}

func (v *fleetView) notifyLocked() {
	close(v.changed)
	v.changed = make(chan struct{})
}

// wait returns the channel the next change closes.
func (v *fleetView) wait() <-chan struct{} {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.changed
}

// A fleetEntry is one job of a session, as the fleet serves it.
type fleetEntry struct {
	snap     jobs.JobSnapshot
	iv       wire.Interval
	place    wire.FleetPlacement
	host     jobs.JobHost // with its address, for the proxy
	complete bool
}

// entries returns the jobs of session, in registration order.
func (v *fleetView) entries(session jobs.SessionID) []fleetEntry {
	v.mu.Lock()
	defer v.mu.Unlock()
	list := v.byOwner[session]
	out := make([]fleetEntry, len(list))
	for i, j := range list {
		out[i] = v.entryLocked(j)
	}
	return out
}

// errNoFleetJob is a job the session has no job of that id, its own or
// none: the same 404.
var errNoFleetJob = errors.New("no such job")

// entry returns the job id of session.
func (v *fleetView) entry(session jobs.SessionID, id jobs.JobID) (fleetEntry, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	j, ok := v.jobs[id]
	if !ok || j.iv.Owner != session {
		return fleetEntry{}, errNoFleetJob
	}
	e := v.entryLocked(j)
	// judged now, not at the last change: a lease may have ended since,
	// before the timer that rejudges the roster fired
	e.place.Lost = v.lostLocked(j, v.now())
	return e, nil
}

// entryLocked is j as the fleet serves it. A host's address stays inside
// the fleet: the caller gets the host's name and run.
func (v *fleetView) entryLocked(j *fleetJob) fleetEntry {
	iv := j.iv
	snap := jobs.JobSnapshot{
		ID: iv.JobID, Name: iv.Name(), Kind: iv.Kind, Label: iv.Label, Ordinal: iv.Ordinal,
		Owner: iv.Owner, ToolCall: iv.ToolCall, Record: iv.Record, Status: jobs.JobStatusRunning,
		StartedAt: iv.RegisteredAt,
	}
	if iv.Complete {
		snap.Status, snap.Detail, snap.FinishedAt, snap.ProducerReported = iv.Status, iv.Detail, iv.SettledAt, iv.ProducerReported
	}
	place := wire.FleetPlacement{Host: jobs.JobHost{Name: j.host.Name, Incarnation: j.host.Incarnation}, Lost: v.lost[iv.JobID]}
	return fleetEntry{snap: snap, iv: wire.Interval(iv), place: place, host: j.host, complete: iv.Complete}
}

// hosts returns every run of a host the heartbeats named, without
// addresses, most recent heartbeat first.
func (v *fleetView) hosts() []wire.FleetHost {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.now()
	out := make([]wire.FleetHost, 0, len(v.runs))
	for _, r := range v.runs {
		out = append(out, wire.FleetHost{
			Host:        jobs.JobHost{Name: r.host.Name, Incarnation: r.host.Incarnation},
			HeartbeatAt: r.beat.UnixMilli(), LeaseEndsAt: r.expires.UnixMilli(), Lost: !now.Before(r.expires),
		})
	}
	sortHosts(out)
	return out
}

// sortHosts orders hosts by name, then the most recent heartbeat first.
func sortHosts(hs []wire.FleetHost) {
	slices.SortFunc(hs, func(a, b wire.FleetHost) int {
		if c := strings.Compare(string(a.Host.Name), string(b.Host.Name)); c != 0 {
			return c
		}
		return cmp.Compare(b.HeartbeatAt, a.HeartbeatAt)
	})
}
