package mcpserver

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
)

// HandlerOptions configure a Handler. Session and Toolset are required.
type HandlerOptions struct {
	// Session returns the jobgen session of a request's caller, as the
	// runtime authenticates it (a bearer token, a cookie, a client
	// certificate). It is asked on every request. An error, or an empty
	// session, answers 401 with the error's text withheld.
	Session func(*http.Request) (jobs.SessionID, error)
	// Toolset returns the Toolset of a session, when an MCP session opens
	// for it: Tools.For(session), or Tools.ForAgent of the runtime's agent
	// for it. An error refuses the MCP session (and is logged).
	Toolset func(ctx context.Context, session jobs.SessionID) (*agenttools.Toolset, error)
	// Server names the server and carries its instructions; nil is the
	// default of NewServer.
	Server *ServerOptions
	// SessionTimeout closes an MCP session idle this long; zero never does.
	SessionTimeout time.Duration
	// Logger receives contained failures; nil logs nothing.
	Logger *slog.Logger
}

// A Handler serves agenttools over streamable HTTP: one MCP server, and so
// one Toolset, per MCP session, bound to the jobgen session that opened it.
// Mount it where clients connect (http.Handle("/mcp", h)). It is safe for
// concurrent use; Close ends every MCP session.
type Handler struct {
	opts  HandlerOptions
	inner http.Handler
	log   *slog.Logger

	mu       sync.Mutex
	sessions map[string]*boundSession // by MCP session id
	closed   bool
	watchers sync.WaitGroup
}

// A boundSession is one MCP session and the jobgen session it serves.
type boundSession struct {
	session jobs.SessionID
	server  *sdk.Server
}

// NewHandler returns a Handler.
func NewHandler(opts HandlerOptions) (*Handler, error) {
	if opts.Session == nil {
		return nil, errors.New("mcpserver: HandlerOptions.Session is required: the runtime decides who the caller is")
	}
	if opts.Toolset == nil {
		return nil, errors.New("mcpserver: HandlerOptions.Toolset is required")
	}
	h := &Handler{opts: opts, log: opts.Logger, sessions: map[string]*boundSession{}}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	streamable := sdk.NewStreamableHTTPHandler(h.serverFor, &sdk.StreamableHTTPOptions{
		SessionTimeout: opts.SessionTimeout,
		Logger:         opts.Logger,
	})
	// A page on another site cannot make a browser call a tool (job_kill)
	// with its user's credentials.
	h.inner = http.NewCrossOriginProtection().Handler(streamable)
	return h, nil
}

// callerKey carries, in a request's context, who the caller is and, once
// serverFor opened an MCP session for the request, which.
type callerKey struct{}

type callerInfo struct {
	session jobs.SessionID
	server  *sdk.Server // made for this request by serverFor, if it was asked
	opened  string      // the MCP session id the request opened, if it did
}

// ServeHTTP resolves the caller's session, refuses a request about an MCP
// session of another jobgen session, and serves the rest with the SDK.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	session, err := h.opts.Session(r)
	if err != nil || session == "" {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		h.mu.Lock()
		b := h.sessions[id]
		h.mu.Unlock()
		if b != nil && b.session != session {
			// As the SDK answers an id it never issued: a session id is
			// no capability.
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
	}
	info := &callerInfo{session: session}
	h.inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, info)))
	if info.opened != "" {
		h.watch(info.opened)
	}
}

// serverFor is the SDK's getServer. The SDK asks for a server on every
// request (for the protocol versions it serves) and again when a request
// opens an MCP session, so serverFor binds nothing itself: it answers a
// request of a bound MCP session with that session's server, and any other
// with one server made for the request (once, however often it is asked),
// whose GetSessionID — which the SDK calls exactly when it opens a session
// — binds the id it issues to the caller's session. A request that opens
// no session leaves nothing behind.
func (h *Handler) serverFor(r *http.Request) *sdk.Server {
	info, _ := r.Context().Value(callerKey{}).(*callerInfo)
	if info == nil {
		return nil
	}
	h.mu.Lock()
	closed := h.closed
	b := h.sessions[r.Header.Get("Mcp-Session-Id")]
	h.mu.Unlock()
	switch {
	case closed:
		return nil
	case b != nil && b.session == info.session:
		return b.server
	case info.server != nil:
		return info.server
	}
	ts, err := h.opts.Toolset(r.Context(), info.session)
	if err != nil || ts == nil {
		h.log.Error("mcpserver: no toolset for the session", "session", info.session, "err", err)
		return nil
	}
	opts := ServerOptions{}
	if h.opts.Server != nil {
		opts = *h.opts.Server
	}
	var s *sdk.Server
	s = newServer(ts, &opts, func() string { return h.bind(info, s) })
	info.server = s
	return s
}

// bind issues the id of an MCP session that s opens for info's caller and
// binds it to the caller's session; after Close it issues none.
func (h *Handler) bind(info *callerInfo, s *sdk.Server) string {
	id := rand.Text()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return "" // the SDK serves the request without a session
	}
	h.sessions[id] = &boundSession{session: info.session, server: s}
	info.opened = id
	return id
}

// watch forgets the binding of MCP session id once the session ends, or at
// once when the request that was to open it did not.
func (h *Handler) watch(id string) {
	h.mu.Lock()
	b := h.sessions[id]
	h.mu.Unlock()
	if b == nil {
		return
	}
	var ss *sdk.ServerSession
	for s := range b.server.Sessions() {
		ss = s
	}
	if ss == nil {
		h.forget(id)
		return
	}
	h.watchers.Add(1)
	go func() {
		defer h.watchers.Done()
		_ = ss.Wait()
		h.forget(id)
	}()
}

func (h *Handler) forget(id string) {
	h.mu.Lock()
	delete(h.sessions, id)
	h.mu.Unlock()
}

// Close ends every MCP session and refuses new ones; it returns once they
// are all gone, or ctx ends. It is a disposer for launcher.Run, to run
// before the registry closes.
func (h *Handler) Close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	var servers []*sdk.Server
	for _, b := range h.sessions {
		servers = append(servers, b.server)
	}
	h.mu.Unlock()
	for _, s := range servers {
		for ss := range s.Sessions() {
			_ = ss.Close()
		}
	}
	done := make(chan struct{})
	go func() { h.watchers.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
