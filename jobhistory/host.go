package jobhistory

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
)

// A fleet of hosts shares one history: each host's registrations say which
// run of which host registered the job (job/registered's Host), and each run
// of a host appends host/heartbeat facts to a stream of its own, so that a
// reader of the shared history (jobhttp's fleet view) tells a job whose host
// is alive from one whose host died with it. See decision 0129.

// HostStream returns the stream a run of a host appends its heartbeats to:
// "host/NAME/INCARNATION", one per run, so that the stream of a run that
// ended settles and may be archived while its successor beats on.
func HostStream(h jobs.JobHost) journal.Stream {
	return journal.Stream("host/" + string(h.Name) + "/" + h.Incarnation.String())
}

// NewHostRecorder returns the registry's Recorder over store, as NewRecorder
// does, for a runtime that is one host of a fleet: every job/registered fact
// it records carries host (the registry knows nothing of hosts; the host is
// where its history is recorded).
//
//	host := jobs.JobHost{Name: "web-1", Incarnation: jobs.NewIncarnationID(), Address: "http://10.0.0.7:8080"}
//	reg := registry.New(registry.WithRecorder(jobhistory.NewHostRecorder(store, host)))
func NewHostRecorder(store journal.Store, host jobs.JobHost, opts ...journal.RetryOption) *journal.Recorder[jobs.Fact] {
	encode := func(f jobs.Fact) ([]byte, error) {
		if r, ok := f.(jobs.JobRegistered); ok {
			r.Host = host
			f = r
		}
		return jobs.EncodeFact(f)
	}
	return journal.NewRetryingRecorder(store, encode, StreamOf, RecordID, opts...)
}

// HeartbeatOptions configure Heartbeat.
type HeartbeatOptions struct {
	// Every is how often a heartbeat is appended; zero means
	// DefaultHeartbeatEvery.
	Every time.Duration
	// Lease is how long after a heartbeat the host counts as alive without
	// a newer one; zero means three times Every, so that one late or lost
	// heartbeat does not make the host's jobs look lost.
	Lease time.Duration
	// Now is the clock heartbeats are stamped with; nil means time.Now.
	Now func() time.Time
	// Logger receives the appends that failed (the next heartbeat tries
	// again); nil logs nothing.
	Logger *slog.Logger
}

// DefaultHeartbeatEvery is how often Heartbeat appends unless told.
const DefaultHeartbeatEvery = 5 * time.Second

// Heartbeat appends a host/heartbeat fact for host to store at once and then
// every opts.Every, on HostStream(host), until ctx ends; it returns nil
// then. A failed append is logged and left to the next heartbeat: a host
// that cannot reach the history for longer than its lease looks lost, which
// is what it is to the rest of the fleet.
func Heartbeat(ctx context.Context, store journal.Store, host jobs.JobHost, opts HeartbeatOptions) error {
	every, lease, now, log := opts.Every, opts.Lease, opts.Now, opts.Logger
	if every <= 0 {
		every = DefaultHeartbeatEvery
	}
	if lease <= 0 {
		lease = 3 * every
	}
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	stream := HostStream(host)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		beat := jobs.HostHeartbeat{Host: host, At: now().UnixMilli(), LeaseMs: lease.Milliseconds()}
		payload, err := jobs.EncodeFact(beat)
		if err != nil {
			return fmt.Errorf("jobhistory: heartbeat of %s: %w", stream, err)
		}
		if _, err := store.Append(ctx, stream, journal.Entry{ID: RecordID(beat), Payload: payload}); err != nil && ctx.Err() == nil {
			log.Warn("jobhistory: heartbeat not recorded; the next one tries again", "stream", stream, "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// heartbeatID is the record id of a heartbeat: its type and time, so that
// a retried heartbeat lands once.
func heartbeatID(f jobs.HostHeartbeat) string {
	return f.FactType() + "/" + strconv.FormatInt(f.At, 10)
}
