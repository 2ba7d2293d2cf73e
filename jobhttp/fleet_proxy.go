package jobhttp

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A fleetProxy forwards a caller's request about a job to the host that
// owns it, at the address the operator configured for it
// (FleetOptions.Peers), signed with the caller's session (see TrustFleet),
// and relays of the host's answer only what the wire answers (see relay).
type fleetProxy struct {
	f     *Fleet
	peers map[jobs.HostID]*url.URL
	rp    *httputil.ReverseProxy
}

// A forwarding is what the proxy needs to know of one request: where it
// goes and on whose behalf.
type forwarding struct {
	target  *url.URL
	session jobs.SessionID
}

type forwardingKey struct{}

func newFleetProxy(f *Fleet, peers map[jobs.HostID]*url.URL, rt http.RoundTripper) *fleetProxy {
	if rt == nil {
		rt = &http.Transport{
			Proxy:                 nil, // hosts are reached directly, never through an environment's proxy
			DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ResponseHeaderTimeout: 5 * time.Second,
			IdleConnTimeout:       90 * time.Second,
			MaxIdleConnsPerHost:   16,
		}
	}
	p := &fleetProxy{f: f, peers: peers}
	p.rp = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      rt,
		FlushInterval:  -1, // event streams: every write reaches the caller at once
		ModifyResponse: relay,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			fw, _ := r.Context().Value(forwardingKey{}).(forwarding)
			var odd *unrelayable
			switch {
			case errors.As(err, &odd):
				f.log.Warn("jobhttp: fleet: a host answered what the wire does not; not relayed", "host", fw.target, "err", err)
				httpError(w, http.StatusBadGateway, "the job's host answered "+odd.what+", which the fleet does not relay")
				return
			case r.Context().Err() == nil:
				f.log.Warn("jobhttp: fleet: forward to a host failed", "host", fw.target, "err", err)
			}
			httpError(w, http.StatusBadGateway, "the job's host did not answer")
		},
	}
	return p
}

// parsePeers checks FleetOptions.Peers: each a host name and the base URL
// of its wire, http or https, with no credentials, query or fragment.
func parsePeers(peers map[jobs.HostID]string) (map[jobs.HostID]*url.URL, error) {
	out := make(map[jobs.HostID]*url.URL, len(peers))
	for name, addr := range peers {
		u, err := url.Parse(addr)
		switch {
		case name == "":
			return nil, fmt.Errorf("jobhttp: FleetOptions.Peers: %q has no host name", addr)
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "":
			return nil, fmt.Errorf("jobhttp: FleetOptions.Peers: host %s: %q is not the http(s) base URL of a wire (scheme, host, port and path only)", name, addr)
		}
		out[name] = u
	}
	return out, nil
}

// The media types of the wire's answers: JSON bodies and refusals, event
// streams, and a raw record's text. A host's answer of any other type is
// not relayed.
var wireMediaTypes = map[string]bool{"application/json": true, "text/event-stream": true, "text/plain": true}

// The headers of a host's answer the fleet relays: those the wire's
// answers carry. Every other (a cookie, a Location or Refresh, a policy of
// the host's) stays behind.
var relayedHeaders = []string{
	"Content-Type", "Content-Length", "Content-Disposition", "Cache-Control", "Retry-After", "Allow",
	"X-Accel-Buffering", "X-Record-Earliest", "X-Record-Next",
}

// An unrelayable is a host's answer the fleet does not relay.
type unrelayable struct{ what string }

func (u *unrelayable) Error() string { return "the host answered " + u.what }

// relay keeps of a host's answer what the wire answers, or refuses it: a
// redirect (the fleet follows none, and relays none for the caller to
// follow) or a body of another media type than the wire's. What it relays
// says nosniff and is sandboxed, so a host cannot make the fleet's origin
// serve a page.
func relay(res *http.Response) error {
	if res.StatusCode >= 300 && res.StatusCode < 400 {
		return &unrelayable{what: fmt.Sprintf("a redirect (%d)", res.StatusCode)}
	}
	ct := res.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || !wireMediaTypes[mt] {
		return &unrelayable{what: fmt.Sprintf("content of type %q", ct)}
	}
	kept := make(http.Header, len(relayedHeaders)+2)
	for _, name := range relayedHeaders {
		if v, ok := res.Header[name]; ok {
			kept[name] = v
		}
	}
	if d := kept.Get("Content-Disposition"); d != "" && !strings.HasPrefix(d, "attachment") {
		kept.Del("Content-Disposition")
	}
	kept.Set("X-Content-Type-Options", "nosniff")
	kept.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	res.Header, res.Trailer = kept, nil
	return nil
}

// rewrite aims the outgoing request at the job's host and signs it. The
// caller's own credentials (cookies, authorization) and anything that
// claims to be a fleet's signature are removed: the host learns the
// caller's session from the fleet's signature alone.
func (p *fleetProxy) rewrite(pr *httputil.ProxyRequest) {
	fw := pr.In.Context().Value(forwardingKey{}).(forwarding)
	pr.SetURL(fw.target)
	pr.Out.Host = fw.target.Host
	h := pr.Out.Header
	for name := range h {
		if strings.HasPrefix(strings.ToLower(name), "jobgen-fleet-") || strings.HasPrefix(strings.ToLower(name), "sec-fetch-") {
			h.Del(name)
		}
	}
	for _, name := range []string{"Cookie", "Authorization", "Proxy-Authorization", "Origin", "Referer"} {
		h.Del(name)
	}
	// The host's answer is relayed as it comes: asked for no encoding, the
	// host sends none the fleet would have to relay or undo.
	h.Set("Accept-Encoding", "identity")
	signFleet(pr.Out, p.f.opts.Key, fw.session, p.f.opts.Now())
}

// forward returns the route that forwards a follow (stream) or a raw
// download of one of the caller's jobs to its host.
func (f *Fleet) forward(stream bool) fleetSessionHandler {
	return func(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
		e, ok := f.lookup(w, r, session)
		if !ok {
			return
		}
		target, ok := f.target(w, e)
		if !ok {
			return
		}
		if stream {
			release, ok := f.streams.open(w, session)
			if !ok {
				return
			}
			defer release()
			w = deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: f.opts.WriteTimeout}
		}
		f.serveForwarded(w, r, target, session)
	}
}

// forwardChange forwards a kill of, or input to, one of the caller's jobs
// to its host, once it passed the same cross-site guard as Handler's.
func (f *Fleet) forwardChange(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	if status, msg := crossSite(f.cop, r); status != 0 {
		httpError(w, status, msg)
		return
	}
	e, ok := f.lookup(w, r, session)
	if !ok {
		return
	}
	if target, ok := f.target(w, e); ok {
		f.serveForwarded(w, r, target, session)
	}
}

// target is the base URL the operator configured for the host that owns
// e, or answers why there is none to forward to: a job whose host is lost,
// or a host the fleet has no address for. The address e's registration
// names is not looked at (see FleetOptions.Peers).
func (f *Fleet) target(w http.ResponseWriter, e fleetEntry) (*url.URL, bool) {
	if e.place.Lost {
		httpError(w, http.StatusServiceUnavailable, fmt.Sprintf("the job's host %s is lost: its lease ended before the job settled", e.host.Name))
		return nil, false
	}
	u, ok := f.proxy.peers[e.host.Name]
	if !ok {
		httpError(w, http.StatusConflict, fmt.Sprintf("the job's host %q is not one this fleet forwards to (jobhttp FleetOptions.Peers)", e.host.Name))
		return nil, false
	}
	return u, true
}

// serveForwarded forwards r to target on behalf of session, until the
// host's answer ends, the caller goes or the fleet closes.
func (f *Fleet) serveForwarded(w http.ResponseWriter, r *http.Request, target *url.URL, session jobs.SessionID) {
	ctx, cancel := context.WithCancel(context.WithValue(r.Context(), forwardingKey{}, forwarding{target: target, session: session}))
	defer cancel()
	go func() {
		select {
		case <-f.streams.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	f.proxy.rp.ServeHTTP(w, r.WithContext(ctx))
}

// A deadlineWriter bounds each write of a forwarded stream, as sseWriter
// bounds the Handler's, so that a caller who stops reading is dropped.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (d deadlineWriter) Write(b []byte) (int, error) {
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout))
	return d.ResponseWriter.Write(b)
}

func (d deadlineWriter) Flush() { _ = d.rc.Flush() }

func (d deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
