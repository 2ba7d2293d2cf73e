package httproute

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// An Option configures NewHandler. Without any, a Handler asks no caller,
// guards state-changing routes with http.NewCrossOriginProtection(), drops
// a stream after 30 s without a write taken, keeps streams alive every
// 15 s, and logs nothing (decision 0229). NewHandler returns no error, so
// an option given a value it cannot work with panics, as NewHandler does
// for serves that do not match the table: both are mistakes of the code
// that calls it, not of a request.
type Option func(*config)

// config is a Handler's configuration: its options applied to the
// defaults.
type config struct {
	Caller       func(r *http.Request) (context.Context, error)
	CrossOrigin  *http.CrossOriginProtection
	WriteTimeout time.Duration
	KeepAlive    time.Duration
	Logger       *slog.Logger
}

// WithCaller decides who calls, for every route that is not public: caller
// returns the context the route's method runs in (the caller put in it),
// or an error: a *Refusal is answered as it is, any other error is a 401
// whose text is withheld. Without it, or with nil, nothing is asked.
func WithCaller(caller func(r *http.Request) (context.Context, error)) Option {
	return func(c *config) { c.Caller = caller }
}

// WithCrossOrigin guards every route whose method changes state against
// other sites' pages with p. Without it, or with nil,
// http.NewCrossOriginProtection().
func WithCrossOrigin(p *http.CrossOriginProtection) Option {
	return func(c *config) {
		if p != nil {
			c.CrossOrigin = p
		}
	}
}

// WithWriteTimeout drops a stream whose client has not taken a write for
// d; without it, 30 s. It panics if d is not positive.
func WithWriteTimeout(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("httproute: WithWriteTimeout(%v): the timeout must be positive", d))
	}
	return func(c *config) { c.WriteTimeout = d }
}

// WithKeepAlive sets how often a stream writes a comment line, so proxies
// and clients see it is alive; without it, every 15 s. It panics if d is
// not positive.
func WithKeepAlive(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("httproute: WithKeepAlive(%v): the interval must be positive", d))
	}
	return func(c *config) { c.KeepAlive = d }
}

// WithLogger sets where what fails where no client hears of it is logged.
// Without it, or with nil, nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.Logger = l
		}
	}
}

// A Serve decodes one route's request, calls the server's method and
// answers with what it returns; the generated code has one per route.
type Serve func(c *Call) error

// A Handler serves a Table: the http.Handler the generated NewHandler
// returns. It is safe for concurrent use.
type Handler struct {
	table  Table
	routes []compiled
	opts   config
	log    *slog.Logger

	closing context.Context // done once Close began: every stream watches it
	close   context.CancelFunc

	mu      sync.Mutex
	closed  bool
	streams sync.WaitGroup
}

// A compiled route is a route of the table with its segments and serve.
type compiled struct {
	route *Route
	segs  []segment
	serve Serve
}

// NewHandler returns the handler of table, with serves[i] serving
// table.Routes[i]. The generated NewHandler calls it.
func NewHandler(table Table, serves []Serve, opts ...Option) *Handler {
	if len(serves) != len(table.Routes) {
		panic(fmt.Sprintf("httproute: %d serves for the %d routes of %s", len(serves), len(table.Routes), table.Package))
	}
	cfg := config{WriteTimeout: 30 * time.Second, KeepAlive: 15 * time.Second, Logger: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if cfg.CrossOrigin == nil {
		cfg.CrossOrigin = http.NewCrossOriginProtection()
	}
	log := cfg.Logger
	h := &Handler{table: table, opts: cfg, log: log}
	h.closing, h.close = context.WithCancel(context.Background())
	for i := range h.table.Routes {
		r := &h.table.Routes[i]
		h.routes = append(h.routes, compiled{route: r, segs: r.segments(), serve: serves[i]})
	}
	return h
}

// Table returns the table the handler serves.
func (h *Handler) Table() Table { return h.table }

// Close ends every open stream, each with a final "bye" event once its
// method has returned, and waits for them, bounded by ctx. A stream opened
// later runs with its context already ended. Close may be called again.
func (h *Handler) Close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.close()
	waited := make(chan struct{})
	go func() { h.streams.Wait(); close(waited) }()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("httproute: %s: close: streams still open: %w", h.table.Package, ctx.Err())
	}
}

// track counts a stream Close waits for; false once Close began.
func (h *Handler) track() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.streams.Add(1)
	return true
}

// ServeHTTP answers a request with the route it matches, or a refusal:
// 404 for a path no route has, 405 with Allow for a method the path's
// routes do not take; then, in this order, the caller (401), for a method
// that changes state the body's Content-Type (415) and the cross-origin
// guard (403), and the route's own decoding and method (see Call).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, values, allow, ok := h.match(w, r)
	if !ok {
		if allow != "" {
			w.Header().Set("Allow", allow)
			h.refuse(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s is not a method of %s: it answers %s", r.Method, r.URL.Path, allow), nil)
			return
		}
		h.refuse(w, http.StatusNotFound, fmt.Sprintf("no route answers %s %s", r.Method, r.URL.Path), nil)
		return
	}
	c := &Call{h: h, route: rt.route, w: w, r: r, ctx: r.Context(), path: values}
	if err := h.admit(c); err != nil {
		c.finish(err)
		return
	}
	if rt.route.Answer == AnswerStream {
		h.serveStream(c, rt.serve)
		return
	}
	c.finish(rt.serve(c))
}

// admit asks the caller and guards a state change, before the route's
// own decoding.
func (h *Handler) admit(c *Call) error {
	rt := c.route
	if !rt.Public && h.opts.Caller != nil {
		ctx, err := h.opts.Caller(c.r)
		if err != nil {
			var ref *Refusal
			if errors.As(err, &ref) {
				return ref
			}
			h.log.Debug("httproute: caller refused", "route", rt.Name, "err", err)
			return Refuse(http.StatusUnauthorized, "no authenticated caller")
		}
		c.ctx = ctx
	}
	if rt.Method == "GET" {
		return nil
	}
	if rt.Body != nil {
		mt, _, err := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			return Refuse(http.StatusUnsupportedMediaType, "Content-Type must be application/json")
		}
	}
	if err := h.opts.CrossOrigin.Check(c.r); err != nil {
		return Refuse(http.StatusForbidden, "cross-origin request refused")
	}
	return nil
}

// serveStream runs a stream route's method in a context that Close and a
// failed write end, writes bye after it when Close ended it, and lets
// Close wait for all of it.
func (h *Handler) serveStream(c *Call, serve Serve) {
	if h.track() {
		defer h.streams.Done()
	}
	parent := c.r.Context() // the client's: done when it goes
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	stop := context.AfterFunc(h.closing, cancel)
	defer stop()
	c.ctx = ctx
	c.stream = &Stream{c: c, cancel: cancel, turn: make(chan struct{}, 1)}
	err := serve(c)
	s := c.stream
	s.stopKeepAlive()
	if !s.started {
		c.finish(err)
		return
	}
	if err != nil {
		h.log.Warn("httproute: stream ended with an error", "route", c.route.Name, "err", err)
	}
	if h.closing.Err() != nil && s.broken == nil && parent.Err() == nil {
		s.bye()
	}
}

// match finds the route a request's method and path name: among the
// routes whose path matches, those of the method (GET also answering
// HEAD), the most specific. With none of the method, allow lists the
// methods the path's routes take; a files route takes a path only where
// its directory has a file (see has), so a path it lacks is a 404 whatever
// the method.
func (h *Handler) match(w http.ResponseWriter, r *http.Request) (rt *compiled, values []pathValue, allow string, ok bool) {
	path, ok := splitPath(r.URL.EscapedPath())
	if !ok {
		return nil, nil, "", false
	}
	method := r.Method
	if method == "HEAD" {
		method = "GET"
	}
	var others []*Route
	for i := range h.routes {
		c := &h.routes[i]
		v, hit := matches(c.segs, path)
		switch {
		case !hit:
		case c.route.Method != method && (c.route.Answer != AnswerFiles || h.has(c, w, r, v)):
			others = append(others, c.route)
		case c.route.Method != method:
		case rt == nil || rank(c.segs, rt.segs) > 0:
			rt, values = c, v
		}
	}
	if rt == nil {
		if len(others) > 0 {
			return nil, nil, allowed(others), false
		}
		return nil, nil, "", false
	}
	return rt, values, "", true
}

// has reports whether the files route c has the file a request's path
// names: its method is asked for its directory, and nothing is written.
func (h *Handler) has(c *compiled, w http.ResponseWriter, r *http.Request, values []pathValue) bool {
	call := &Call{h: h, route: c.route, w: w, r: r, ctx: r.Context(), path: values, probe: true}
	return c.serve(call) == nil && call.found
}

// splitPath splits an escaped request path into its unescaped segments;
// false for a path that is not one (no leading slash, a bad escape).
func splitPath(p string) ([]string, bool) {
	if !strings.HasPrefix(p, "/") {
		return nil, false
	}
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		u, err := url.PathUnescape(s)
		if err != nil {
			return nil, false
		}
		parts[i] = u
	}
	return parts, true
}
