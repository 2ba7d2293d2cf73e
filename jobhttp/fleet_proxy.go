package jobhttp

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A fleetProxy forwards a caller's request about a job to the host that
// owns it, signed with the caller's session (see TrustFleet).
type fleetProxy struct {
	f  *Fleet
	rp *httputil.ReverseProxy
}

// A forwarding is what the proxy needs to know of one request: where it
// goes and on whose behalf.
type forwarding struct {
	target  *url.URL
	session jobs.SessionID
}

type forwardingKey struct{}

func newFleetProxy(f *Fleet, rt http.RoundTripper) *fleetProxy {
	if rt == nil {
		rt = &http.Transport{
			Proxy:                 nil, // hosts are reached directly, never through an environment's proxy
			DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ResponseHeaderTimeout: 5 * time.Second,
			IdleConnTimeout:       90 * time.Second,
			MaxIdleConnsPerHost:   16,
		}
	}
	p := &fleetProxy{f: f}
	p.rp = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      rt,
		FlushInterval:  -1, // event streams: every write reaches the caller at once
		ModifyResponse: func(res *http.Response) error { res.Header.Del("Set-Cookie"); return nil },
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			fw, _ := r.Context().Value(forwardingKey{}).(forwarding)
			if r.Context().Err() == nil {
				f.log.Warn("jobhttp: fleet: forward to a host failed", "host", fw.target, "err", err)
			}
			httpError(w, http.StatusBadGateway, "the job's host did not answer")
		},
	}
	return p
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

// kill forwards a kill of one of the caller's jobs to its host, once it
// passed the same cross-site guard as Handler's kill.
func (f *Fleet) kill(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
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

// target is the base URL of the host that owns e, or answers why there is
// none to forward to: a job whose host is lost, or serves no wire.
func (f *Fleet) target(w http.ResponseWriter, e fleetEntry) (*url.URL, bool) {
	switch {
	case e.place.Lost:
		httpError(w, http.StatusServiceUnavailable, fmt.Sprintf("the job's host %s is lost: its lease ended before the job settled", e.host.Name))
		return nil, false
	case e.host.Address == "":
		httpError(w, http.StatusConflict, "the job's host serves no wire the fleet can forward to")
		return nil, false
	}
	u, err := url.Parse(e.host.Address)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		f.log.Warn("jobhttp: fleet: a host's address is not an http(s) URL", "host", e.host.Name, "address", e.host.Address)
		httpError(w, http.StatusBadGateway, "the job's host has no address the fleet can forward to")
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
