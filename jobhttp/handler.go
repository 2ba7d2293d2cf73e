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
	"github.com/jobgen/jobgen/registry"
)

// Options configure a Handler. Registry and Session are required.
type Options struct {
	// Registry is the registry served.
	Registry *registry.Registry
	// Session returns the session of the request's caller, as the runtime
	// authenticates it. An error answers 401 with the error's text withheld.
	//
	// Session runs only for a request whose Host header is one of Hosts:
	// every other request, page and API, reads and writes alike, is a 403
	// before anything else is looked at. A browser sends cookies and the
	// same-origin markers to whatever host name a page was loaded from, so
	// after a DNS rebinding (attacker.example re-pointed at this server) a
	// page of the attacker's is "same-origin" with it; only the Host header
	// still says which name the browser thinks it talks to.
	Session func(*http.Request) (jobs.SessionID, error)
	// Hosts lists the Host header values the handler answers for: a name or
	// address ("jobs.example.com", "10.0.0.7", "[fd00::7]") allows any port,
	// host:port allows that port alone. Names are compared without case and
	// without a trailing dot. Empty means the loopback names localhost,
	// 127.0.0.1 and [::1] on any port, which is right for a server listening
	// on a loopback address; a server reachable under other names must list
	// them. A listed name is trusted as this server's own: list no name
	// another party controls.
	Hosts []string
	// History, when set, answers /api/history with the caller's execution
	// intervals; without it that route is a 404.
	History HistoryFunc
	// Subagents, when set, answers /api/subagents with the continuable
	// children under the caller's roots and their histories
	// (NewJournalSubagents reads them from the manager's journal); without
	// it those routes are a 404.
	Subagents Subagents
	// MaxStreamsPerSession caps the event streams one session holds open at
	// once; zero means 8. A page holds one roster stream and one follow per
	// expanded row, so one person rarely needs more than a few; a session
	// that several people or many tabs share needs a higher cap. A stream
	// past the cap is a 429 with Retry-After and a body saying what to do,
	// and the page retries by itself.
	MaxStreamsPerSession int
	// WriteTimeout drops a stream whose client has not taken a write for this
	// long; zero means 30 s.
	WriteTimeout time.Duration
	// KeepAlive is how often an idle stream sends a comment line, so proxies
	// and clients see it is alive; zero means 15 s.
	KeepAlive time.Duration
	// Logger receives contained failures. Nil, the default, logs nothing:
	// the library logs only to a logger it is given.
	Logger *slog.Logger
}

// A HistoryFunc returns what /api/history answers for a session: its
// execution intervals, oldest first, and the runs of its history that
// retention archived, with where each went (StoreHistory reads them from a
// journal). The route answers the intervals alone unless the client asks
// with=archived.
type HistoryFunc func(ctx context.Context, session jobs.SessionID) (wire.History, error)

// A Handler serves one registry over HTTP. Make one with New; it is safe for
// concurrent use.
type Handler struct {
	opts  Options
	reg   *registry.Registry
	mux   *http.ServeMux
	log   *slog.Logger
	hosts hostSet
	cop   *http.CrossOriginProtection // guards kill against other sites' pages

	// done is closed by Close; every stream watches it.
	done    <-chan struct{}
	streams *sessionStreams

	mu      sync.Mutex
	shares  map[jobs.JobID]*share // the followed jobs' shares (see share)
	sharing sync.WaitGroup        // the shares' goroutines
}

// New returns a Handler serving opts.Registry.
func New(opts Options) (*Handler, error) {
	if opts.Registry == nil {
		return nil, errors.New("jobhttp: Options.Registry is required")
	}
	if opts.Session == nil {
		return nil, errors.New("jobhttp: Options.Session is required: the runtime decides who the caller is")
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
	hosts, err := newHostSet(opts.Hosts)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{
		opts:    opts,
		reg:     opts.Registry,
		mux:     http.NewServeMux(),
		log:     log,
		hosts:   hosts,
		cop:     http.NewCrossOriginProtection(),
		streams: newSessionStreams(opts.MaxStreamsPerSession),
		shares:  make(map[jobs.JobID]*share),
	}
	h.done = h.streams.done
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, fmt.Errorf("jobhttp: embedded page: %w", err)
	}
	h.mux.Handle("GET /", pageHandler(static))
	h.mux.HandleFunc("GET /api/jobs", h.withSession(h.roster))
	h.mux.HandleFunc("GET /api/jobs/events", h.withSession(h.rosterEvents))
	h.mux.HandleFunc("GET /api/jobs/{id}", h.withSession(h.job))
	h.mux.HandleFunc("GET /api/jobs/{id}/follow", h.withSession(h.follow))
	h.mux.HandleFunc("POST /api/jobs/{id}/kill", h.withSession(h.kill))
	h.mux.HandleFunc("POST /api/jobs/{id}/input", h.withSession(h.input))
	h.mux.HandleFunc("GET /api/history", h.withSession(h.history))
	h.mux.HandleFunc("GET /api/jobs/{id}/raw", h.withSession(h.raw))
	h.mux.HandleFunc("GET /api/subagents", h.withSession(h.subagentTree))
	h.mux.HandleFunc("GET /api/subagents/events", h.withSession(h.subagentEvents))
	h.mux.HandleFunc("GET /api/subagents/{id}/history", h.withSession(h.subagentHistory))
	return h, nil
}

// ServeHTTP serves the page and the API to a request for one of
// Options.Hosts, and refuses every other request with 403.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.hosts.allows(r.Host) {
		h.log.Debug("jobhttp: host refused", "host", r.Host)
		httpError(w, http.StatusForbidden, fmt.Sprintf("host %q is not a name this server answers for: add it to jobhttp Options.Hosts", r.Host))
		return
	}
	h.mux.ServeHTTP(w, r)
}

// Close ends every open stream and waits, bounded by ctx, for their handlers
// to return; later streams are refused with 503. Plain requests are not
// affected: shut the http.Server down for those. Close may be called again.
func (h *Handler) Close(ctx context.Context) error {
	h.streams.close()
	waited := make(chan struct{})
	go func() { h.streams.wait(); h.sharing.Wait(); close(waited) }()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("jobhttp: close: streams still open: %w", ctx.Err())
	}
}

type sessionHandler func(w http.ResponseWriter, r *http.Request, session jobs.SessionID)

// withSession resolves the caller's session before the route runs.
func (h *Handler) withSession(next sessionHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		session, err := h.opts.Session(r)
		if err != nil {
			h.log.Debug("jobhttp: session refused", "err", err)
			httpError(w, http.StatusUnauthorized, "no session")
			return
		}
		next(w, r, session)
	}
}

// openStream counts a stream against its session's cap; see
// sessionStreams.open.
func (h *Handler) openStream(w http.ResponseWriter, session jobs.SessionID) (release func(), ok bool) {
	return h.streams.open(w, session)
}

// jobID reads the {id} path value; a malformed id is as unknown as a missing one.
func jobID(r *http.Request) (jobs.JobID, bool) {
	id, err := jobs.ParseJobID(r.PathValue("id"))
	return id, err == nil
}

// lookupError answers an error from the registry: unknown and foreign jobs
// both as 404, so a client cannot tell another session's job from none.
func lookupError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, registry.ErrUnknownJob), errors.Is(err, registry.ErrForeignJob):
		httpError(w, http.StatusNotFound, "no such job")
	case errors.Is(err, registry.ErrNoRecord):
		httpError(w, http.StatusConflict, "job keeps no record")
	case errors.Is(err, registry.ErrNegativeOffset):
		httpError(w, http.StatusBadRequest, "negative offset")
	default:
		httpError(w, http.StatusInternalServerError, "internal error")
	}
}

// httpError writes the error body of a refusal, a wire.ErrorBody.
func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(wire.ErrorBody{Error: msg})
}

// writeJSON writes v as a 200 JSON body.
func writeJSON(w http.ResponseWriter, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		httpError(w, http.StatusInternalServerError, "internal error")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(body)
}
