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

// A HeartbeatOption configures Heartbeat. Without any, a host beats every
// DefaultHeartbeatEvery with a lease of three beats, stamped by time.Now,
// and logs nothing.
type HeartbeatOption func(*heartbeatConfig) error

// heartbeatConfig is Heartbeat's configuration: its options applied to the
// defaults (a lease of 0 is three times every).
type heartbeatConfig struct {
	every time.Duration
	lease time.Duration
	now   func() time.Time
	log   *slog.Logger
}

// WithEvery sets how often Heartbeat appends a heartbeat; without it,
// DefaultHeartbeatEvery. It must be positive.
func WithEvery(d time.Duration) HeartbeatOption {
	return func(c *heartbeatConfig) error {
		if d <= 0 {
			return fmt.Errorf("WithEvery(%v): the interval must be positive", d)
		}
		c.every = d
		return nil
	}
}

// WithLease sets how long after a heartbeat the host counts as alive
// without a newer one; without it, three times the interval, so that one
// late or lost heartbeat does not make the host's jobs look lost. It must be
// positive.
func WithLease(d time.Duration) HeartbeatOption {
	return func(c *heartbeatConfig) error {
		if d <= 0 {
			return fmt.Errorf("WithLease(%v): a lease must be positive", d)
		}
		c.lease = d
		return nil
	}
}

// WithClock sets the clock heartbeats are stamped with. Without it, or with
// nil, time.Now.
func WithClock(now func() time.Time) HeartbeatOption {
	return func(c *heartbeatConfig) error {
		if now != nil {
			c.now = now
		}
		return nil
	}
}

// WithLogger sets where the appends that failed are logged (the next
// heartbeat tries again). Without it, or with nil, nothing is logged: the
// library logs only to a logger it is given.
func WithLogger(l *slog.Logger) HeartbeatOption {
	return func(c *heartbeatConfig) error {
		if l != nil {
			c.log = l
		}
		return nil
	}
}

// DefaultHeartbeatEvery is how often Heartbeat appends unless told.
const DefaultHeartbeatEvery = 5 * time.Second

// Heartbeat appends a host/heartbeat fact for host to store at once and then
// at every interval (WithEvery), on HostStream(host), until ctx ends; it
// returns nil then, and an error at once for an option it cannot beat with.
// A failed append is logged and left to the next heartbeat: a host that
// cannot reach the history for longer than its lease looks lost, which is
// what it is to the rest of the fleet.
func Heartbeat(ctx context.Context, store journal.Store, host jobs.JobHost, opts ...HeartbeatOption) error {
	cfg := heartbeatConfig{every: DefaultHeartbeatEvery, now: time.Now, log: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&cfg); err != nil {
			return fmt.Errorf("jobhistory: heartbeat of %s: %w", HostStream(host), err)
		}
	}
	every, lease, now, log := cfg.every, cfg.lease, cfg.now, cfg.log
	if lease == 0 {
		lease = 3 * every
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
