package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
)

// A Handler serves agenttools over streamable HTTP, stateless: each
// request is authenticated to its jobgen session and served by the one
// server with the caller's Toolset, whatever protocol version it speaks,
// so the handler keeps nothing per client. Mount it where clients connect
// (http.Handle("/mcp", h)). It is safe for concurrent use; Close ends the
// calls in flight and refuses new ones.
type Handler struct {
	opts  handlerConfig
	inner http.Handler
	log   *slog.Logger

	stop     context.Context // ends at Close: calls in flight end with it
	cancel   context.CancelFunc
	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup
}

// NewHandler returns a Handler.
//
// session returns the jobgen session of a request's caller, as the runtime
// authenticates it (a bearer token, a cookie, a client certificate). It is
// asked on every request: the handler is stateless. An error, or an empty
// session, answers 401 with the error's text withheld and a
// WWW-Authenticate challenge (WithChallenge). toolset returns the Toolset
// of a request's session: Tools.For(session), or Tools.ForAgent of the
// runtime's agent for it. It is asked on every request; an error refuses
// the request (500, logged).
func NewHandler(session func(*http.Request) (jobs.SessionID, error), toolset func(ctx context.Context, session jobs.SessionID) (*agenttools.Toolset, error), opts ...HandlerOption) (*Handler, error) {
	if session == nil {
		return nil, errors.New("mcpserver: NewHandler: the session function is required: the runtime decides who the caller is")
	}
	if toolset == nil {
		return nil, errors.New("mcpserver: NewHandler: the toolset function is required")
	}
	cfg := handlerConfig{Session: session, Toolset: toolset, Challenge: `Bearer realm="jobgen"`}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.applyHandler(&cfg); err != nil {
			return nil, err
		}
	}
	h := &Handler{opts: cfg, log: cfg.server.logger}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.stop, h.cancel = context.WithCancel(context.Background())
	server := newServer(cfg.server, "http", h.toolsetOf, "")
	streamable := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, &sdk.StreamableHTTPOptions{
		Stateless:                    true,
		Logger:                       cfg.server.logger,
		PropagateRequestCancellation: true,
	})
	// A page on another site cannot make a browser call a tool (job_kill)
	// with its user's credentials.
	h.inner = http.NewCrossOriginProtection().Handler(streamable)
	return h, nil
}

// callerKey carries, in a request's context, the caller's Toolset.
type callerKey struct{}

// toolsetOf is the server's toolsetFunc: the Toolset ServeHTTP put in the
// request's context.
func (h *Handler) toolsetOf(ctx context.Context) (*agenttools.Toolset, bool) {
	ts, ok := ctx.Value(callerKey{}).(*agenttools.Toolset)
	return ts, ok && ts != nil
}

// ServeHTTP authenticates the caller, makes its Toolset, and serves the
// request with the SDK, its calls ending at Close.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		http.Error(w, "the server is shutting down", http.StatusServiceUnavailable)
		return
	}
	h.inflight.Add(1)
	h.mu.Unlock()
	defer h.inflight.Done()

	session, err := h.opts.Session(r)
	if err != nil || session == "" {
		w.Header().Set("WWW-Authenticate", h.opts.Challenge)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	ts, err := h.opts.Toolset(r.Context(), session)
	if err != nil || ts == nil {
		h.log.Error("mcpserver: no toolset for the session", "session", session, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	var body []byte
	if r.Method == http.MethodPost && r.Body != nil {
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, sdk.DefaultMaxRequestBodyBytes))
		if err != nil {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
	}
	// The SDK keeps the request context's values for the request's
	// handlers, not its end (before 2026-07-28), so the end travels as a
	// value too: a call ends when its request does, or at Close.
	done, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(h.stop, cancel)
	defer stop()
	if body != nil {
		if req, ok := listenFor(body); ok {
			h.serveListen(w, r.WithContext(done), ts, req)
			return
		}
		if h.opts.Fleet != nil && h.forward(w, r.WithContext(done), session, ts, body) {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(liftBody(body)))
		r.ContentLength = -1
	}
	ctx := context.WithValue(context.WithValue(done, callerKey{}, ts), doneKey{}, done)
	h.inner.ServeHTTP(w, r.WithContext(ctx))
}

// Close refuses new requests and ends the calls in flight (a job_wait, a
// tasks/result: their jobs run on); it returns once they have returned, or
// ctx ends. It is a disposer for launcher.Run, to run before the HTTP
// server's and the registry's.
func (h *Handler) Close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	done := make(chan struct{})
	go func() { h.inflight.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
