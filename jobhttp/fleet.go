package jobhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
	"github.com/jobgen/jobgen/journal"
)

// A Fleet serves the page and the API of Handler over the shared history of
// a fleet of hosts, for each caller across every host: the roster of the
// caller's jobs (every host's, live as facts arrive), its intervals, and
// follow, kill, input and raw downloads forwarded to the host that owns the
// job, at the address WithPeers gives it, signed with the
// caller's session. A job whose host's lease ran out before it settled is
// lost: the roster and history say so (FleetPlacement.Lost), and the fleet
// forwards nothing to that host. It implements wire.Server as Handler
// does, and declines by name what one host's page serves alone (the
// subagents). Make one with NewFleet; it is safe for concurrent use.
type Fleet struct {
	opts    fleetConfig
	api     *httproute.Handler // the generated adapter over the route table
	static  fs.FS              // the page
	log     *slog.Logger
	hosts   hostSet
	view    *fleetView
	proxy   *fleetProxy
	streams *sessionStreams

	stop    context.CancelFunc
	running sync.WaitGroup // the tail and the lease timer
}

// NewFleet returns a Fleet over history, the history the fleet's hosts
// share (a journal/pgstore Store), and starts tailing it from the start;
// Close stops it.
//
// session returns the session of the request's caller, as the runtime
// authenticates it, as New's does for one host. The fleet forwards the
// caller's session to the host that owns a job only under key's signature,
// never the caller's own credentials; each host's Handler accepts it
// through TrustFleet with the same key.
func NewFleet(history journal.Tailer, session func(*http.Request) (jobs.SessionID, error), key FleetKey, opts ...FleetOption) (*Fleet, error) {
	switch {
	case history == nil:
		return nil, errors.New("jobhttp: NewFleet: the shared history is required")
	case session == nil:
		return nil, errors.New("jobhttp: NewFleet: the session function is required: the runtime decides who the caller is")
	}
	if err := checkFleetKey(key); err != nil {
		return nil, err
	}
	cfg, err := newFleetConfig(opts)
	if err != nil {
		return nil, err
	}
	cfg.History, cfg.Key = history, key
	hosts, err := newHostSet(cfg.Hosts)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, fmt.Errorf("jobhttp: embedded page: %w", err)
	}
	if static, err = fleetPage(static); err != nil {
		return nil, err
	}
	f := &Fleet{opts: cfg, static: static, log: log, hosts: hosts,
		view: newFleetView(cfg.Now, cfg.Lease, cfg.Window, cfg.RunWindow), streams: newSessionStreams(cfg.MaxStreamsPerSession)}
	f.view.unknown.log = log
	f.proxy = newFleetProxy(f, cfg.Peers, cfg.Transport)
	f.api = wire.NewHandler(f, routeOptions(session, cfg.WriteTimeout, cfg.KeepAlive, log)...)
	ctx, stop := context.WithCancel(context.Background())
	f.stop = stop
	f.running.Add(2)
	go f.tail(ctx)
	go f.judgeLeases(ctx)
	return f, nil
}

// ServeHTTP serves a request for one of the names WithHosts gave and refuses
// every other with 403, as Handler does.
func (f *Fleet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !f.hosts.allows(r.Host) {
		httpError(w, http.StatusForbidden, fmt.Sprintf("host %q is not a name this server answers for: add it to jobhttp.WithHosts", r.Host))
		return
	}
	f.api.ServeHTTP(w, r)
}

// Close ends every open stream, forwarded ones included, stops tailing
// the history and waits, bounded by ctx; it may be called again.
func (f *Fleet) Close(ctx context.Context) error {
	f.streams.close()
	f.stop()
	if err := f.api.Close(ctx); err != nil {
		return fmt.Errorf("jobhttp: fleet close: %w", err)
	}
	waited := make(chan struct{})
	go func() { f.streams.wait(); f.running.Wait(); close(waited) }()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("jobhttp: fleet close: streams still open: %w", ctx.Err())
	}
}

// tail applies the shared history to the view: what the tail delivers is
// taken in batches of what has arrived (so that catching up with a long
// history judges the jobs once a batch, not once a record), and the tail
// starts again from where it stopped if it ends with an error.
func (f *Fleet) tail(ctx context.Context) {
	defer f.running.Done()
	var after journal.Position
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		recs := make(chan journal.Record, fleetBatch)
		failed := make(chan error, 1)
		go func() {
			defer close(recs)
			for rec, err := range f.opts.History.Tail(ctx, after) {
				if err != nil {
					failed <- err
					return
				}
				recs <- rec
			}
		}()
		for rec := range recs {
			batch := []journal.Record{rec}
		drain:
			for len(batch) < fleetBatch {
				select {
				case more, ok := <-recs:
					if !ok {
						break drain
					}
					batch = append(batch, more)
				default:
					break drain
				}
			}
			f.view.apply(batch)
			after = batch[len(batch)-1].Pos
			backoff = 100 * time.Millisecond
		}
		select {
		case err := <-failed:
			f.log.Warn("jobhttp: fleet: tail of the history failed; tailing again", "after", after.String(), "in", backoff, "err", err)
		default:
		}
		if sleep(ctx, backoff) != nil {
			return
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// fleetBatch is how many records of the history the view takes at once.
const fleetBatch = 256

// judgeLeases rejudges the jobs when the next lease of a run with
// unsettled jobs ends, or when the view changes.
func (f *Fleet) judgeLeases(ctx context.Context) {
	defer f.running.Done()
	for {
		changed := f.view.wait()
		var due <-chan time.Time
		if next := f.view.nextExpiry(); !next.IsZero() {
			t := time.NewTimer(next.Sub(f.opts.Now()) + time.Millisecond)
			defer t.Stop()
			due = t.C
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-due:
			f.view.rejudge()
		}
	}
}

// A route that the spec adds and Fleet neither serves nor declines does
// not compile.
var _ wire.Server = (*Fleet)(nil)

// Page implements wire.Server: the embedded console, as one host serves it.
func (f *Fleet) Page(ctx context.Context, req wire.PageRequest) (fs.FS, error) { return f.static, nil }

// ListFleetHosts implements wire.Server: the runs of the fleet's hosts,
// without addresses.
func (f *Fleet) ListFleetHosts(ctx context.Context, req wire.ListFleetHostsRequest) ([]wire.FleetHost, error) {
	if _, err := sessionOf(ctx); err != nil {
		return nil, err
	}
	return f.view.hosts(), nil
}

// placed is a session's entries as the roster answers them: each job with
// its placement.
func placed(entries []fleetEntry) []httproute.With[jobs.JobSnapshot, wire.FleetPlacement] {
	out := make([]httproute.With[jobs.JobSnapshot, wire.FleetPlacement], len(entries))
	for i, e := range entries {
		out[i] = httproute.With[jobs.JobSnapshot, wire.FleetPlacement]{Item: e.snap, Extra: e.place}
	}
	return out
}

// ListJobs implements wire.Server: the caller's jobs on every host.
func (f *Fleet) ListJobs(ctx context.Context, req wire.ListJobsRequest) ([]httproute.With[jobs.JobSnapshot, wire.FleetPlacement], error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	return placed(f.view.entries(session)), nil
}

// GetJob implements wire.Server: one of the caller's jobs.
func (f *Fleet) GetJob(ctx context.Context, req wire.GetJobRequest) (httproute.With[jobs.JobSnapshot, wire.FleetPlacement], error) {
	_, e, err := f.lookup(ctx, req.ID)
	return httproute.With[jobs.JobSnapshot, wire.FleetPlacement]{Item: e.snap, Extra: e.place}, err
}

// ListHistory implements wire.Server: the caller's intervals on every
// host, oldest registration first.
func (f *Fleet) ListHistory(ctx context.Context, req wire.ListHistoryRequest) ([]httproute.With[wire.Interval, wire.FleetPlacement], error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	entries := f.view.entries(session)
	out := make([]httproute.With[wire.Interval, wire.FleetPlacement], len(entries))
	for i, e := range entries {
		out[i] = httproute.With[wire.Interval, wire.FleetPlacement]{Item: e.iv, Extra: e.place}
	}
	return out, nil
}

// WatchJobs implements wire.Server: the caller's roster as a stream, one
// "roster" event at once and one after each change of the view that
// changes it, coalesced while one is written.
func (f *Fleet) WatchJobs(ctx context.Context, req wire.WatchJobsRequest, stream wire.WatchJobsStream) error {
	session, err := sessionOf(ctx)
	if err != nil {
		return err
	}
	release, err := f.streams.open(session)
	if err != nil {
		return err
	}
	defer release()
	var last []byte
	for {
		changed := f.view.wait()
		ev, err := wire.NewWatchJobsRosterEvent(placed(f.view.entries(session)))
		if err != nil {
			return err
		}
		if !bytes.Equal(ev.Bytes(), last) {
			if stream.Write(ev) != nil {
				return nil
			}
			last = ev.Bytes()
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil
		}
	}
}

// notServedBy is the reason the fleet declines what one host's page serves
// alone.
const notServedBy = "the fleet view serves no %s: open the host's own page"

// ListSubagents implements wire.Server: declined.
func (f *Fleet) ListSubagents(ctx context.Context, req wire.ListSubagentsRequest) ([]wire.SubagentNode, error) {
	return nil, httproute.Decline(fmt.Sprintf(notServedBy, "subagents"))
}

// WatchSubagents implements wire.Server: declined.
func (f *Fleet) WatchSubagents(ctx context.Context, req wire.WatchSubagentsRequest, stream wire.WatchSubagentsStream) error {
	return httproute.Decline(fmt.Sprintf(notServedBy, "subagents"))
}

// ArchivedHistory implements wire.Server: declined, since the fleet's
// history is the shared history's tail, which yields no archived fact and
// so names no archived run; ListHistory answers its intervals.
func (f *Fleet) ArchivedHistory(ctx context.Context, req wire.ArchivedHistoryRequest) (wire.History, error) {
	return wire.History{}, httproute.Decline("the fleet view's history is the shared history's tail, which keeps no archived runs: use ListHistory, or a host's own page")
}

// SubagentHistory implements wire.Server: declined.
func (f *Fleet) SubagentHistory(ctx context.Context, req wire.SubagentHistoryRequest) ([]wire.SubagentEvent, error) {
	return nil, httproute.Decline(fmt.Sprintf(notServedBy, "subagents"))
}

// lookup finds the job id of the caller's session, or returns the one 404:
// unknown and foreign jobs alike.
func (f *Fleet) lookup(ctx context.Context, id jobs.JobID) (jobs.SessionID, fleetEntry, error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return "", fleetEntry{}, err
	}
	e, err := f.view.entry(session, id)
	if err != nil {
		return "", fleetEntry{}, noSuchJob()
	}
	return session, e, nil
}

// notMultiplexed is the reason the fleet declines the Watch routes: each
// view it would carry is a host's (a follow is forwarded to its host), and
// a fleet multiplexes none of them yet; the page falls back to the per-view
// routes (decision 0198).
const notMultiplexed = "the fleet view multiplexes no streams: use the per-view routes (WatchJobs, FollowJob)"

// Watch implements wire.Server: declined.
func (f *Fleet) Watch(ctx context.Context, req wire.WatchRequest, stream wire.WatchStream) error {
	return httproute.Decline(notMultiplexed)
}

// OpenView implements wire.Server: declined.
func (f *Fleet) OpenView(ctx context.Context, req wire.OpenViewRequest) (wire.WatchViewResponse, error) {
	return wire.WatchViewResponse{}, httproute.Decline(notMultiplexed)
}

// CloseView implements wire.Server: declined.
func (f *Fleet) CloseView(ctx context.Context, req wire.CloseViewRequest) (wire.WatchViewResponse, error) {
	return wire.WatchViewResponse{}, httproute.Decline(notMultiplexed)
}

// JobHistory implements wire.Server: a job's page from the shared history
// (WithJobFacts), whichever host ran the job, fenced as a Handler's is: the
// caller's own facts alone. Without WithJobFacts it is declined.
func (f *Fleet) JobHistory(ctx context.Context, req wire.JobHistoryRequest) (wire.JobHistory, error) {
	return jobHistory(ctx, f.opts.JobFacts, f.log, req)
}
