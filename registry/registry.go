package registry

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// Errors callers can test for with errors.Is. Every error the registry returns
// wraps at most one of them, with the operation and the job id as context.
var (
	// ErrUnknownJob reports an id the registry does not hold (never issued,
	// removed, or still inside its starter).
	ErrUnknownJob = errors.New("unknown job")
	// ErrForeignJob reports a job owned by a session other than the caller's.
	ErrForeignJob = errors.New("job belongs to another session")
	// ErrNoRecord reports a record read on a plain job, which keeps no record.
	ErrNoRecord = errors.New("job keeps no record")
	// ErrTooManyJobs reports a start refused by admission: the owner already has
	// the maximum number of running and stopping jobs.
	ErrTooManyJobs = errors.New("too many jobs")
	// ErrInvalidStart reports a JobStart that fails validation, or a starter
	// that returned unusable Hooks.
	ErrInvalidStart = errors.New("invalid job start")
	// ErrClosed reports a start on a closed registry.
	ErrClosed = errors.New("registry closed")
	// ErrNegativeOffset reports a record read from a negative offset.
	ErrNegativeOffset = errors.New("negative record offset")
)

// A Clock tells the registry the time for its timestamps (StartedAt,
// FinishedAt, a fact's At and a chunk's At). Timers and waits do not use it:
// they use package time, so tests fake both with testing/synctest.
type Clock interface {
	Now() time.Time
}

// ClockFunc adapts a function to a Clock.
type ClockFunc func() time.Time

// Now returns f().
func (f ClockFunc) Now() time.Time { return f() }

// A Recorder receives the lifecycle facts of owned jobs: a [jobs.JobRegistered]
// at the registration commit and a [jobs.JobSettled] at settlement, each once.
//
// Record is called synchronously, without any registry lock held, before the
// commit becomes visible to readers, waiters or listeners. It may be called
// from several goroutines at once (commits of different jobs), must return
// promptly (a commit and everything waiting on it waits for it) and may read
// the registry, where it sees the job as it was before the commit. An error or
// a panic is logged and contained: the commit goes ahead.
type Recorder interface {
	Record(f jobs.Fact) error
}

// Limits are the registry's tunables. A zero (or negative) field means the
// spec's default: [jobs.DefaultMaxConcurrentJobsPerOwner],
// [jobs.DefaultRetainBytes], [jobs.DefaultSettledRetainBytes],
// [jobs.DefaultTeardownBound], [jobs.DefaultObserveFlush],
// [jobs.DefaultObserveMaxFrameBytes].
type Limits struct {
	// MaxPerOwner caps running plus stopping jobs (and starts in progress) per
	// owner; unowned jobs share one bucket.
	MaxPerOwner int
	// RetainBytes caps a live job's retained record unless its JobStart sets
	// OutputLimitBytes.
	RetainBytes int
	// SettledRetainBytes caps a record once its job settles.
	SettledRetainBytes int
	// TeardownBound bounds how long DisposeOwner and Close wait for producers.
	TeardownBound time.Duration
	// ObserveFlush is the shortest interval between two output flushes of a
	// follow stream.
	ObserveFlush time.Duration
	// ObserveMaxFrameBytes splits a follow stream's output into frames.
	ObserveMaxFrameBytes int
}

func (l Limits) withDefaults() Limits {
	if l.MaxPerOwner <= 0 {
		l.MaxPerOwner = jobs.DefaultMaxConcurrentJobsPerOwner
	}
	if l.RetainBytes <= 0 {
		l.RetainBytes = jobs.DefaultRetainBytes
	}
	if l.SettledRetainBytes <= 0 {
		l.SettledRetainBytes = jobs.DefaultSettledRetainBytes
	}
	if l.TeardownBound <= 0 {
		l.TeardownBound = jobs.DefaultTeardownBound
	}
	if l.ObserveFlush <= 0 {
		l.ObserveFlush = jobs.DefaultObserveFlush
	}
	if l.ObserveMaxFrameBytes <= 0 {
		l.ObserveMaxFrameBytes = jobs.DefaultObserveMaxFrameBytes
	}
	return l
}

// An Option configures a Registry.
type Option func(*Registry)

// WithClock sets the clock used for timestamps; the default is the system
// clock, read with one monotonic clock read per timestamp (see systemMillis).
func WithClock(c Clock) Option {
	return func(r *Registry) {
		if c != nil {
			r.clock = c
		}
	}
}

// withCoarseChunkClock stamps record chunks from a millisecond clock that a
// goroutine refreshes while appends flow (and that stops after 100 ms
// without one), instead of reading the clock on every append: on a machine
// where a clock read is a system call, that read is most of an append's
// cost. Chunk times may then lag the clock by a millisecond or so; facts and
// snapshots keep their exact times. It has no effect with WithClock. Do not
// use it inside a testing/synctest bubble: the refreshing goroutine may
// still run when the bubble's main goroutine returns. Only the package's
// benchmarks ask for it (the scoreboard's coarse-clock append goal, decision
// 0081): no caller of the registry has.
func withCoarseChunkClock() Option {
	return func(r *Registry) { r.coarseChunks = true }
}

// WithLogger sets where contained failures are logged. Without it, or with nil, nothing is logged: the library logs only to a logger it is given.
func WithLogger(l *slog.Logger) Option {
	return func(r *Registry) {
		if l != nil {
			r.log = l
		}
	}
}

// WithRecorder sets the Recorder that receives lifecycle facts; the default
// records nothing.
func WithRecorder(rec Recorder) Option {
	return func(r *Registry) { r.rec = rec }
}

// WithLimits sets the registry's limits; zero fields keep the defaults.
func WithLimits(l Limits) Option {
	return func(r *Registry) { r.limits = l.withDefaults() }
}

// WithIDs sets the JobID generator; the default issues random version 4
// UUIDs like [jobs.NewJobID], from a buffer of crypto/rand bytes. Tests use
// it for deterministic ids.
func WithIDs(next func() jobs.JobID) Option {
	return func(r *Registry) {
		if next != nil {
			r.newID = next
		}
	}
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// A Registry holds the live and settled jobs of one process. It is safe for
// concurrent use. The zero value is not usable; call New.
type Registry struct {
	clock  Clock
	millis *systemMillis // the time, when clock is the system clock
	// coarse stamps chunks when withCoarseChunkClock asked for it and clock
	// is the system clock.
	coarse       *coarseClock
	coarseChunks bool
	log          *slog.Logger
	rec          Recorder
	obs          Observer // nil: no metrics, and no calls
	limits       Limits
	newID        func() jobs.JobID

	// ids finds every job from the registration commit until it is removed
	// (while its registered fact is recorded it is there but unknown to
	// readers), without a lock; each job's bookkeeping is guarded by its
	// owner's shard's mutex (see shard).
	ids *index[jobs.JobID, job]
	// shards holds each owner's shard ("" for the unowned jobs, whose shard
	// is also unowned).
	shards     *index[jobs.SessionID, shard]
	unowned    *shard
	shardOrder atomic.Uint64
	kinds      *index[string, kindCounter] // the ordinals issued, per kind
	// closed is set once by Close, before it lists the shards to close them;
	// a shard made later starts closed.
	closed atomic.Bool

	settledDone chan struct{} // closed: what doneOf returns for a settled job

	// lmu guards the listener sets' lists; firings load them without it.
	lmu     sync.Mutex
	changed listenerSet[func()]
	output  listenerSet[func(jobs.JobID)]
	done    listenerSet[func(jobs.JobSnapshot)]
	removed listenerSet[func(Removal)]
}

// New returns an empty registry.
func New(opts ...Option) *Registry {
	hashString := stringHasher()
	r := &Registry{
		clock:  systemClock{},
		log:    slog.New(slog.DiscardHandler),
		limits: Limits{}.withDefaults(),
		newID:  newIDSource().next,
		ids:    newIndex(6, func(j *job) jobs.JobID { return j.id }, hashJobID),
		shards: newIndex(4, func(sh *shard) jobs.SessionID { return sh.owner },
			func(s jobs.SessionID) uint64 { return hashString(string(s)) }),
		kinds:       newIndex(2, func(c *kindCounter) string { return c.kind }, hashString),
		settledDone: make(chan struct{}),
	}
	close(r.settledDone)
	r.unowned = r.shards.getOrInsert("", func() *shard { return r.newShard("") })
	for _, opt := range opts {
		opt(r)
	}
	if _, system := r.clock.(systemClock); system {
		r.millis = &systemMillis{}
		if r.coarseChunks {
			r.coarse = &coarseClock{}
		}
	}
	return r
}

// Get returns a snapshot of one job visible to caller.
func (r *Registry) Get(caller jobs.SessionID, id jobs.JobID) (jobs.JobSnapshot, error) {
	j, err := r.lookup(caller, id)
	if err != nil {
		return jobs.JobSnapshot{}, fmt.Errorf("registry: get %s: %w", id, err)
	}
	defer j.sh.mu.Unlock()
	return j.snapshot(), nil
}

// List returns snapshots of the jobs visible to caller (its own and the
// unowned ones), in registration order. It costs what the caller sees, not
// what the registry holds.
func (r *Registry) List(caller jobs.SessionID) []jobs.JobSnapshot {
	// The unowned shard's lock first, as Load takes them.
	r.unowned.mu.Lock()
	defer r.unowned.mu.Unlock()
	shared, own := r.unowned.list, []*job(nil)
	if caller != "" {
		if sh := r.shards.get(caller); sh != nil {
			sh.mu.Lock()
			defer sh.mu.Unlock()
			own = sh.list
		}
	}
	out := make([]jobs.JobSnapshot, len(own)+len(shared))
	for i := range out { // merge the two lists by registration order
		var j *job
		// An owned job registered before the unowned jobs whose seq is
		// above the unowned seq it saw at its registration.
		if len(shared) == 0 || (len(own) > 0 && own[0].after < shared[0].seq) {
			j, own = own[0], own[1:]
		} else {
			j, shared = shared[0], shared[1:]
		}
		j.mu.Lock()
		j.snapshotInto(&out[i])
		j.mu.Unlock()
	}
	return out
}

// Remove forgets a settled job visible to caller and fires jobs-changed. A
// live job cannot be removed: kill it and wait first.
func (r *Registry) Remove(caller jobs.SessionID, id jobs.JobID) error {
	j, err := r.lookup(caller, id)
	if err != nil {
		return fmt.Errorf("registry: remove %s: %w", id, err)
	}
	sh := j.sh
	if j.state != stateSettled {
		sh.mu.Unlock()
		return fmt.Errorf("registry: remove %s: job is %s, not settled", id, j.status)
	}
	r.ids.delete(j)
	sh.unlist(j)
	j.mu.Lock()
	j.removed = true
	j.mu.Unlock()
	sh.mu.Unlock()
	r.fireChanged(r.changed.load())
	r.fireRemoved(Removal{Owner: sh.owner, Jobs: []jobs.JobID{id}})
	return nil
}

// lookup finds id and applies the fence. On success it returns with the
// job's shard's mutex held.
func (r *Registry) lookup(caller jobs.SessionID, id jobs.JobID) (*job, error) {
	j := r.ids.get(id)
	if j == nil {
		return nil, ErrUnknownJob
	}
	j.sh.mu.Lock()
	if !j.listed() {
		j.sh.mu.Unlock()
		return nil, ErrUnknownJob
	}
	if !j.visibleTo(caller) {
		j.sh.mu.Unlock()
		return nil, ErrForeignJob
	}
	return j, nil
}

// now returns the clock's time in Unix milliseconds. It calls user code, so
// it is never called with a lock held.
func (r *Registry) now() int64 {
	if r.millis != nil {
		return r.millis.nowMilli()
	}
	return r.clock.Now().UnixMilli()
}

// chunkNow returns the time for a chunk's timestamp, in Unix milliseconds.
// It is never called with a shard's lock held.
func (r *Registry) chunkNow() int64 {
	if r.coarse != nil {
		return r.coarse.nowMilli()
	}
	return r.now()
}

// record hands f to the Recorder, containing an error or a panic. It is never
// called with a lock held.
func (r *Registry) record(f jobs.Fact, id jobs.JobID) {
	if r.rec == nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("registry: recorder panicked", "job", id, "fact", f.FactType(), "panic", v)
			if r.obs != nil {
				r.obs.FactRecordFailed(f.FactType())
			}
		}
	}()
	if err := r.rec.Record(f); err != nil {
		r.log.Error("registry: recorder failed", "job", id, "fact", f.FactType(), "err", err)
		if r.obs != nil {
			r.obs.FactRecordFailed(f.FactType())
		}
	}
}

// retainFor returns the live retention of a job that asked for limit bytes.
func (r *Registry) retainFor(limit int64) int {
	switch {
	case limit <= 0:
		return r.limits.RetainBytes
	case limit > math.MaxInt32:
		return math.MaxInt32
	}
	return int(limit)
}
