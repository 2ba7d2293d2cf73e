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

// A fleetView is what a fleet handler knows of the shared history, projected
// from the job facts as they are tailed and the hosts' heartbeats: every job
// that runs on a live host, and of the jobs that are over (settled, or lost
// with their host) the window most recently over, across every session;
// every run of a host that has such a job or whose lease has not ended, and
// of the others the runWindow most recently ended. What it holds is so
// bounded by what runs, however long the history (decision 0155). It is
// safe for concurrent use.
type fleetView struct {
	now       func() time.Time
	lease     time.Duration // a run's lease until its first heartbeat is read
	window    int           // how many jobs that are over it keeps
	runWindow int           // how many runs whose lease ended, and that no kept job names, it keeps

	mu      sync.Mutex
	jobs    map[jobs.JobID]*fleetJob
	open    map[jobs.JobID]*fleetJob       // the jobs not settled
	byOwner map[jobs.SessionID][]*fleetJob // in registration order
	runs    map[jobs.IncarnationID]*fleetRun
	lost    map[jobs.JobID]bool // the jobs judged lost at the last change
	overs   []overMark          // the jobs in the order they were over, oldest first; a mark is stale once its job is over again, or runs again
	marks   uint64              // the marks handed out
	changed chan struct{}       // closed and replaced at every change
	unknown unknownJobFacts     // the job facts a newer build wrote: see fleet_unknown.go
}

// A fleetJob is one job as the history says it: its interval and its host.
type fleetJob struct {
	iv   jobhistory.Interval
	host jobs.JobHost
	over uint64 // its latest mark in overs while it is over; 0 while it runs
}

// An overMark is a job's place among the jobs that are over.
type overMark struct {
	j    *fleetJob
	mark uint64
}

// A fleetRun is one run of a host: its last heartbeat and its lease.
type fleetRun struct {
	host          jobs.JobHost
	beat, expires time.Time
}

func newFleetView(now func() time.Time, lease time.Duration, window, runWindow int) *fleetView {
	return &fleetView{
		now: now, lease: lease, window: window, runWindow: runWindow,
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
		v.trimLocked()
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
		v.markOverLocked(j)
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
				v.markOverLocked(j)
			} else {
				delete(v.lost, id)
				j.over = 0
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
		v.trimLocked()
		v.notifyLocked()
	}
}

// markOverLocked notes that j is over now: settled, or judged lost.
func (v *fleetView) markOverLocked(j *fleetJob) {
	v.marks++
	j.over = v.marks
	v.overs = append(v.overs, overMark{j: j, mark: v.marks})
}

// trimLocked forgets the jobs over longest ago beyond the window, then the
// runs of hosts beyond theirs. A job forgotten is no longer shown, looked
// up or forwarded to; a fact about it read later is taken as about a job
// not seen before (a settlement shows it settled again, from what the fact
// carries).
func (v *fleetView) trimLocked() {
	over := len(v.jobs) - len(v.open) + len(v.lost)
	for over > v.window && len(v.overs) > 0 {
		m := v.overs[0]
		v.overs = v.overs[1:]
		if m.j.over != m.mark {
			continue // it runs again, or was over again since
		}
		v.forgetLocked(m.j)
		over--
	}
	if stale := len(v.overs) - over; stale > over+64 {
		// Jobs lost and back again, again and again, leave stale marks
		// behind that no trim reaches while the window is not full.
		v.overs = slices.DeleteFunc(v.overs, func(m overMark) bool { return m.j.over != m.mark })
	}
	v.trimRunsLocked()
}

// forgetLocked drops j from the view.
func (v *fleetView) forgetLocked(j *fleetJob) {
	id, owner := j.iv.JobID, j.iv.Owner
	delete(v.jobs, id)
	delete(v.open, id)
	delete(v.lost, id)
	list := v.byOwner[owner]
	if i := slices.Index(list, j); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(v.byOwner, owner)
	} else {
		v.byOwner[owner] = list
	}
}

// trimRunsLocked forgets the runs of hosts beyond the runWindow whose lease
// ended longest ago, of those that no job the view keeps unsettled names:
// the view judges such a job by its run's lease.
func (v *fleetView) trimRunsLocked() {
	if len(v.runs) <= v.runWindow {
		return
	}
	named := make(map[jobs.IncarnationID]bool, len(v.open))
	for _, j := range v.open {
		named[j.host.Incarnation] = true
	}
	now := v.now()
	var ended []jobs.IncarnationID
	for inc, r := range v.runs {
		if !named[inc] && !now.Before(r.expires) {
			ended = append(ended, inc)
		}
	}
	if len(ended) <= v.runWindow {
		return
	}
	slices.SortFunc(ended, func(a, b jobs.IncarnationID) int { return v.runs[b].expires.Compare(v.runs[a].expires) })
	for _, inc := range ended[v.runWindow:] {
		delete(v.runs, inc)
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
