package jobhttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
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
// caller's session. A job whose host's lease ran out before
// it settled is lost: the roster and history say so (FleetPlacement.Lost),
// and the fleet forwards nothing to that host. Make one with NewFleet; it is
// safe for concurrent use.
type Fleet struct {
	opts    FleetOptions
	mux     *http.ServeMux
	table   routeTable // mux, with the wire's refusals
	log     *slog.Logger
	hosts   hostSet
	cop     *http.CrossOriginProtection
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
	f := &Fleet{opts: opts, mux: http.NewServeMux(), log: log, hosts: hosts, cop: http.NewCrossOriginProtection(),
		view: newFleetView(opts.Now, opts.Lease, opts.Window, opts.RunWindow), streams: newSessionStreams(opts.MaxStreamsPerSession)}
	f.view.unknown.log = log
	f.proxy = newFleetProxy(f, peers, opts.Transport)
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, fmt.Errorf("jobhttp: embedded page: %w", err)
	}
	f.table = routeTable{mux: f.mux, page: static}
	f.mux.Handle(pagePattern, pageHandler(static))
	f.mux.HandleFunc("GET /api/fleet", f.withSession(f.fleetHosts))
	f.mux.HandleFunc("GET /api/jobs", f.withSession(f.roster))
	f.mux.HandleFunc("GET /api/jobs/events", f.withSession(f.rosterEvents))
	f.mux.HandleFunc("GET /api/jobs/{id}", f.withSession(f.job))
	f.mux.HandleFunc("GET /api/jobs/{id}/follow", f.withSession(f.forward(true)))
	f.mux.HandleFunc("GET /api/jobs/{id}/raw", f.withSession(f.forward(false)))
	f.mux.HandleFunc("POST /api/jobs/{id}/kill", f.withSession(f.forwardChange))
	f.mux.HandleFunc("POST /api/jobs/{id}/input", f.withSession(f.forwardChange))
	f.mux.HandleFunc("GET /api/history", f.withSession(f.history))
	f.mux.HandleFunc("GET /api/subagents", f.notServed)
	f.mux.HandleFunc("GET /api/subagents/events", f.notServed)
	f.mux.HandleFunc("GET /api/subagents/{id}/history", f.notServed)
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
	f.table.ServeHTTP(w, r)
}

// Close ends every open stream, forwarded ones included, stops tailing
// the history and waits, bounded by ctx; it may be called again.
func (f *Fleet) Close(ctx context.Context) error {
	f.streams.close()
	f.stop()
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

type fleetSessionHandler func(w http.ResponseWriter, r *http.Request, session jobs.SessionID)

// withSession resolves the caller's session before the route runs.
func (f *Fleet) withSession(next fleetSessionHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		session, err := f.opts.Session(r)
		if err != nil {
			httpError(w, http.StatusUnauthorized, "no session")
			return
		}
		next(w, r, session)
	}
}

// notServed answers the routes of a single host's handler the fleet does
// not serve, the subagents: a 404 that says so, whatever the caller.
func (f *Fleet) notServed(w http.ResponseWriter, r *http.Request) {
	httpError(w, http.StatusNotFound, "the fleet view serves no subagents: open the host's own page")
}

// fleetHosts answers the runs of the fleet's hosts, without addresses.
func (f *Fleet) fleetHosts(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	writeJSON(w, f.view.hosts())
}

// roster answers the caller's jobs on every host.
func (f *Fleet) roster(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	body, err := fleetRoster(f.view.entries(session))
	if err != nil {
		httpError(w, http.StatusInternalServerError, "internal error")
		return
	}
	writeBody(w, body)
}

// job answers one of the caller's jobs.
func (f *Fleet) job(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	e, ok := f.lookup(w, r, session)
	if !ok {
		return
	}
	body, err := withPlacement(e.snap, e.place)
	if err != nil {
		httpError(w, http.StatusInternalServerError, "internal error")
		return
	}
	writeBody(w, body)
}

// history answers the caller's intervals on every host, oldest
// registration first.
func (f *Fleet) history(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	entries := f.view.entries(session)
	body := []byte{'['}
	for i, e := range entries {
		obj, err := withPlacement(e.iv, e.place)
		if err != nil {
			httpError(w, http.StatusInternalServerError, "internal error")
			return
		}
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, obj...)
	}
	writeBody(w, append(body, ']'))
}

// rosterEvents streams the caller's roster: one "roster" event at once and
// one after each change of the view, coalesced while one is written.
func (f *Fleet) rosterEvents(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	release, ok := f.streams.open(w, session)
	if !ok {
		return
	}
	defer release()
	sse, err := startSSE(w, f.opts.WriteTimeout, f.log)
	if err != nil {
		return
	}
	keepAlive := time.NewTicker(f.opts.KeepAlive)
	defer keepAlive.Stop()
	var last []byte
	for {
		changed := f.view.wait()
		body, err := fleetRoster(f.view.entries(session))
		if err != nil {
			return
		}
		if string(body) != string(last) {
			if sse.event("roster", "", body) != nil {
				return
			}
			last = body
		}
		select {
		case <-changed:
		case <-keepAlive.C:
			if sse.comment("keep-alive") != nil {
				return
			}
		case <-f.streams.done:
			sse.event("bye", "", []byte(`{}`))
			return
		case <-r.Context().Done():
			return
		}
	}
}

// lookup finds the {id} job of session, or answers 404: unknown and
// foreign jobs alike.
func (f *Fleet) lookup(w http.ResponseWriter, r *http.Request, session jobs.SessionID) (fleetEntry, bool) {
	id, ok := jobID(r)
	if !ok {
		httpError(w, http.StatusNotFound, "no such job")
		return fleetEntry{}, false
	}
	e, err := f.view.entry(session, id)
	if err != nil {
		httpError(w, http.StatusNotFound, "no such job")
		return fleetEntry{}, false
	}
	return e, true
}

// fleetRoster is the JSON array of entries, each a job with its placement.
func fleetRoster(entries []fleetEntry) ([]byte, error) {
	body := []byte{'['}
	for i, e := range entries {
		obj, err := withPlacement(e.snap, e.place)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, obj...)
	}
	return append(body, ']'), nil
}

// withPlacement writes v (a JSON object) with the keys of place added to
// it: the shape a reader of one host's wire reads, with the fleet's column.
func withPlacement(v any, place wire.FleetPlacement) ([]byte, error) {
	obj, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	extra, err := json.Marshal(place)
	if err != nil {
		return nil, err
	}
	if len(extra) <= 2 { // {}
		return obj, nil
	}
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' || extra[0] != '{' {
		return nil, fmt.Errorf("jobhttp: %T is not a JSON object", v)
	}
	if len(obj) > 2 {
		obj[len(obj)-1] = ','
	} else {
		obj = obj[:1]
	}
	return append(obj, extra[1:]...), nil
}

// writeBody writes body, JSON, as a 200.
func writeBody(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(body)
}
