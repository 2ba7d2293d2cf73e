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
	"github.com/jobgen/jobgen/httproute"
	"github.com/jobgen/jobgen/registry"
)

// A HistoryFunc returns a session's history: its execution intervals,
// oldest first, and the runs of its stream that retention archived, with
// where each went (StoreHistory reads them from a journal). ListHistory
// answers the intervals alone, ArchivedHistory both.
type HistoryFunc func(ctx context.Context, session jobs.SessionID) (wire.History, error)

// A JobFactsFunc returns the facts of job id in session's history, in
// journal order, with the payloads as written; none when it holds none.
type JobFactsFunc func(ctx context.Context, session jobs.SessionID, id jobs.JobID) ([]wire.JobFact, error)

// An AllHistoryFunc returns the execution intervals of every session,
// oldest first.
type AllHistoryFunc func(ctx context.Context) ([]wire.Interval, error)

// A Handler serves one registry over HTTP: it implements wire.Server, the
// route table of spec/wire.yaml, one method per route, and serves it
// through the adapter generated from the same table (wire.NewHandler).
// Make one with New; it is safe for concurrent use.
//
// Its route methods read the caller's session from their context, where
// the adapter puts what New's session function returns; an in-process
// caller puts one there with WithSession.
type Handler struct {
	opts   handlerConfig
	reg    *registry.Registry
	api    *httproute.Handler // the generated adapter over the route table
	log    *slog.Logger
	hosts  hostSet
	static fs.FS // the page

	streams *sessionStreams

	mu      sync.Mutex
	shares  map[jobs.JobID]*share // the followed jobs' shares (see share)
	watches map[string]*watch     // the open Watch streams, by name
	sharing sync.WaitGroup        // the shares' goroutines
}

// A route that the spec adds and Handler neither serves nor declines does
// not compile.
var _ wire.Server = (*Handler)(nil)

// New returns a Handler serving reg, with opts applied to the defaults.
//
// session returns the session of the request's caller, as the runtime
// authenticates it; an error answers 401 with the error's text withheld.
// It runs only for a request whose Host header is one WithHosts allows
// (by default the loopback names): every other request is a 403 before
// anything else is looked at. There is no default: the runtime decides who
// the caller is.
func New(reg *registry.Registry, session func(*http.Request) (jobs.SessionID, error), opts ...Option) (*Handler, error) {
	if reg == nil {
		return nil, errors.New("jobhttp: New: the registry is required")
	}
	if session == nil {
		return nil, errors.New("jobhttp: New: the session function is required: the runtime decides who the caller is")
	}
	cfg, err := newHandlerConfig(opts)
	if err != nil {
		return nil, err
	}
	hosts, err := newHostSet(cfg.Hosts)
	if err != nil {
		return nil, err
	}
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, fmt.Errorf("jobhttp: embedded page: %w", err)
	}
	h := &Handler{
		opts:    cfg,
		reg:     reg,
		log:     cfg.Logger,
		hosts:   hosts,
		static:  static,
		streams: newSessionStreams(cfg.MaxStreamsPerSession),
		shares:  make(map[jobs.JobID]*share),
	}
	h.api = wire.NewHandler(h, routeOptions(session, cfg.WriteTimeout, cfg.KeepAlive, cfg.Logger))
	return h, nil
}

// routeOptions configure the generated adapter of a Handler or a Fleet:
// the caller is the session the runtime's function returns.
func routeOptions(session func(*http.Request) (jobs.SessionID, error), writeTimeout, keepAlive time.Duration, log *slog.Logger) httproute.Options {
	return httproute.Options{
		Caller: func(r *http.Request) (context.Context, error) {
			s, err := session(r)
			if err != nil {
				log.Debug("jobhttp: session refused", "err", err)
				return nil, httproute.Refuse(http.StatusUnauthorized, "no session")
			}
			return WithSession(r.Context(), s), nil
		},
		WriteTimeout: writeTimeout,
		KeepAlive:    keepAlive,
		Logger:       log,
	}
}

// ServeHTTP serves the page and the API to a request for one of the names
// WithHosts gave, and refuses every other request with 403.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.hosts.allows(r.Host) {
		h.log.Debug("jobhttp: host refused", "host", r.Host)
		httpError(w, http.StatusForbidden, fmt.Sprintf("host %q is not a name this server answers for: add it to jobhttp.WithHosts", r.Host))
		return
	}
	h.api.ServeHTTP(w, r)
}

// Close ends every open stream (each with a final "bye") and waits, bounded
// by ctx, for their handlers to return; later streams are refused with 503.
// Plain requests are not affected: shut the http.Server down for those.
// Close may be called again.
func (h *Handler) Close(ctx context.Context) error {
	h.streams.close()
	if err := h.api.Close(ctx); err != nil {
		return fmt.Errorf("jobhttp: close: %w", err)
	}
	waited := make(chan struct{})
	go func() { h.streams.wait(); h.sharing.Wait(); close(waited) }()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("jobhttp: close: streams still open: %w", ctx.Err())
	}
}

// sessionKey is the context key of the caller's session.
type sessionKey struct{}

// WithSession returns ctx carrying session, the caller a Handler's or a
// Fleet's route methods serve: what the adapter does with the session the
// session function given to New returns, for a call of a route method in
// process.
func WithSession(ctx context.Context, session jobs.SessionID) context.Context {
	return context.WithValue(ctx, sessionKey{}, session)
}

// sessionOf is the caller's session a route method serves, or a 401 when
// the context carries none.
func sessionOf(ctx context.Context) (jobs.SessionID, error) {
	s, ok := ctx.Value(sessionKey{}).(jobs.SessionID)
	if !ok {
		return "", httproute.Refuse(http.StatusUnauthorized, "no session")
	}
	return s, nil
}

// Page implements wire.Server: the embedded console.
func (h *Handler) Page(ctx context.Context, req wire.PageRequest) (fs.FS, error) {
	return h.static, nil
}

// ListFleetHosts implements wire.Server: one host's handler has no fleet.
func (h *Handler) ListFleetHosts(ctx context.Context, req wire.ListFleetHostsRequest) ([]wire.FleetHost, error) {
	return nil, httproute.Decline("this is one host's handler, not a fleet view: it knows no other hosts")
}

// noSuchJob is the one answer for a job that is not the caller's, unknown
// and foreign alike, so a client cannot tell another session's job from none.
func noSuchJob() error { return httproute.Refuse(http.StatusNotFound, "no such job") }

// lookupError is the refusal of an error from the registry: unknown and
// foreign jobs both as 404.
func lookupError(err error) error {
	switch {
	case errors.Is(err, registry.ErrUnknownJob), errors.Is(err, registry.ErrForeignJob):
		return noSuchJob()
	case errors.Is(err, registry.ErrNoRecord):
		return httproute.Refuse(http.StatusConflict, "job keeps no record")
	case errors.Is(err, registry.ErrNegativeOffset):
		return httproute.Refuse(http.StatusBadRequest, "negative offset")
	}
	return err // the adapter logs it and answers 500
}

// httpError writes the error body of a refusal made before the route
// table is consulted (a Host this server does not answer for), a
// wire.ErrorBody as every refusal is.
func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(wire.ErrorBody{Error: msg})
}

// plain is items as a route that may carry a fleet's placement answers
// them from one host: with no placement.
func plain[T any](items []T) []httproute.With[T, wire.FleetPlacement] {
	out := make([]httproute.With[T, wire.FleetPlacement], len(items))
	for i, it := range items {
		out[i].Item = it
	}
	return out
}
