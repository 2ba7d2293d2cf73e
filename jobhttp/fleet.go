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

// FleetOptions configure a Fleet. History, Session and Key are required.
type FleetOptions struct {
	// History is the history the fleet's hosts share (a journal/pgstore
	// Store): the fleet tails it from the start and serves what it holds.
	History journal.Tailer
	// Session returns the session of the request's caller, as the runtime
	// authenticates it, as Options.Session does for one host. The fleet
	// forwards the caller's session to the host that owns a job only under
	// its signature (Key), never the caller's own credentials.
	Session func(*http.Request) (jobs.SessionID, error)
	// Key signs what the fleet forwards to a host; each host's Handler
	// accepts it through TrustFleet with the same key.
	Key FleetKey
	// Hosts lists the Host header values the fleet answers for, as
	// Options.Hosts does.
	Hosts []string
	// Peers is where the fleet forwards a job's follow, raw download, kill
	// and input: the base URL (http or https) of each host's wire, by the
	// host name its registrations carry (jobs.JobHost.Name). A job whose
	// host is not listed is refused with 409 and nothing is forwarded. The
	// address a registration names is never used: anyone who may append to
	// the shared history could name any address, an internal one included
	// (decision 0153). Nil forwards nothing: a view that only reads.
	Peers map[jobs.HostID]string
	// Window is how many jobs that are over, settled or lost with their
	// host, the fleet keeps showing: the most recently over, across every
	// session; zero means 1,000. Every job that runs on a live host is kept
	// besides, so what the fleet holds is what runs and the window, however
	// long the history (decision 0155).
	Window int
	// RunWindow is how many runs of hosts whose lease ended the fleet keeps
	// listing (GET /api/fleet), the most recently ended, besides the runs
	// with a job it keeps unsettled; zero means 100.
	RunWindow int
	// Lease is how long a host's run counts as alive before its first
	// heartbeat is read (after that, each heartbeat says); zero means
	// 3×jobhistory.DefaultHeartbeatEvery.
	Lease time.Duration
	// Transport carries the forwarded requests; nil means one with a 5 s
	// dial and response-header timeout.
	Transport http.RoundTripper
	// MaxStreamsPerSession, WriteTimeout, KeepAlive and Logger are as in
	// Options.
	MaxStreamsPerSession int
	WriteTimeout         time.Duration
	KeepAlive            time.Duration
	Logger               *slog.Logger
	// Now is the clock leases are judged by; nil means time.Now.
	Now func() time.Time
}

// A Fleet serves the page and the API of Handler over the shared history of
// a fleet of hosts, for each caller across every host: the roster of the
// caller's jobs (every host's, live as facts arrive), its intervals, and
// follow, kill, input and raw downloads forwarded to the host that owns the
// job, at the address FleetOptions.Peers gives it, signed with the
// caller's session. A job whose host's lease ran out before it settled is
// lost: the roster and history say so (FleetPlacement.Lost), and the fleet
// forwards nothing to that host. It implements wire.Server as Handler
// does, and declines by name what one host's page serves alone (the
// subagents). Make one with NewFleet; it is safe for concurrent use.
type Fleet struct {
	opts    FleetOptions
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

// NewFleet returns a Fleet and starts tailing opts.History; Close stops it.
func NewFleet(opts FleetOptions) (*Fleet, error) {
	switch {
	case opts.History == nil:
		return nil, errors.New("jobhttp: FleetOptions.History is required")
	case opts.Session == nil:
		return nil, errors.New("jobhttp: FleetOptions.Session is required: the runtime decides who the caller is")
	}
	if err := checkFleetKey(opts.Key); err != nil {
		return nil, err
	}
	hosts, err := newHostSet(opts.Hosts)
	if err != nil {
		return nil, err
	}
	peers, err := parsePeers(opts.Peers)
	if err != nil {
		return nil, err
	}
	if opts.Lease <= 0 {
		opts.Lease = 15 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Window <= 0 {
		opts.Window = 1000
	}
	if opts.RunWindow <= 0 {
		opts.RunWindow = 100
	}
	if opts.MaxStreamsPerSession <= 0 {
		opts.MaxStreamsPerSession = 8
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 30 * time.Second
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = 15 * time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, fmt.Errorf("jobhttp: embedded page: %w", err)
	}
	if static, err = fleetPage(static); err != nil {
		return nil, err
	}
	f := &Fleet{opts: opts, static: static, log: log, hosts: hosts,
		view: newFleetView(opts.Now, opts.Lease, opts.Window, opts.RunWindow), streams: newSessionStreams(opts.MaxStreamsPerSession)}
	f.view.unknown.log = log
	f.proxy = newFleetProxy(f, peers, opts.Transport)
	f.api = wire.NewHandler(f, routeOptions(opts.Session, opts.WriteTimeout, opts.KeepAlive, log))
	ctx, stop := context.WithCancel(context.Background())
	f.stop = stop
	f.running.Add(2)
	go f.tail(ctx)
	go f.judgeLeases(ctx)
	return f, nil
}

// ServeHTTP serves a request for one of FleetOptions.Hosts and refuses
// every other with 403, as Handler does.
func (f *Fleet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !f.hosts.allows(r.Host) {
		httpError(w, http.StatusForbidden, fmt.Sprintf("host %q is not a name this server answers for: add it to jobhttp FleetOptions.Hosts", r.Host))
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

// JobHistory implements wire.Server: declined; a job's page is its host's.
func (f *Fleet) JobHistory(ctx context.Context, req wire.JobHistoryRequest) (wire.JobHistory, error) {
	return wire.JobHistory{}, httproute.Decline("a job's page is served by its host's own page")
}
