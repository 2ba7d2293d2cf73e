package jobhttp

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
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

// FollowJob implements wire.Server: the follow of one of the caller's
// jobs, forwarded to its host, counted against the caller's cap of
// streams and bounded by the write timeout as the Handler's streams are.
func (f *Fleet) FollowJob(ctx context.Context, req wire.FollowJobRequest, stream wire.FollowJobStream) error {
	session, e, err := f.lookup(ctx, req.ID)
	if err != nil {
		return err
	}
	target, err := f.target(e)
	if err != nil {
		return err
	}
	release, err := f.streams.open(session)
	if err != nil {
		return err
	}
	return httproute.Handoff(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer release()
		f.serveForwarded(deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: f.opts.WriteTimeout}, r, target, session)
	}))
}

// DownloadRecord implements wire.Server: the raw record of one of the
// caller's jobs, forwarded to its host.
func (f *Fleet) DownloadRecord(ctx context.Context, req wire.DownloadRecordRequest) (wire.DownloadRecordResponse, error) {
	return wire.DownloadRecordResponse{}, f.forward(ctx, req.ID)
}

// KillJob implements wire.Server: the kill of one of the caller's jobs,
// forwarded to its host once the adapter let it through the same
// cross-site guard as Handler's kill.
func (f *Fleet) KillJob(ctx context.Context, req wire.KillJobRequest) (wire.KillResponse, error) {
	return wire.KillResponse{}, f.forward(ctx, req.ID)
}

// forward is the handoff that forwards a request about the job id, the
// caller's, to its host.
func (f *Fleet) forward(ctx context.Context, id jobs.JobID) error {
	session, e, err := f.lookup(ctx, id)
	if err != nil {
		return err
	}
	target, err := f.target(e)
	if err != nil {
		return err
	}
	return httproute.Handoff(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.serveForwarded(w, r, target, session)
	}))
}

// target is the base URL of the host that owns e, or the refusal saying why
// there is none to forward to: a job whose host is lost, or serves no wire.
func (f *Fleet) target(e fleetEntry) (*url.URL, error) {
	switch {
	case e.place.Lost:
		return nil, httproute.Refusef(http.StatusServiceUnavailable, "the job's host %s is lost: its lease ended before the job settled", e.host.Name)
	case e.host.Address == "":
		return nil, httproute.Refuse(http.StatusConflict, "the job's host serves no wire the fleet can forward to")
	}
	u, err := url.Parse(e.host.Address)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		f.log.Warn("jobhttp: fleet: a host's address is not an http(s) URL", "host", e.host.Name, "address", e.host.Address)
		return nil, httproute.Refuse(http.StatusBadGateway, "the job's host has no address the fleet can forward to")
	}
	return u, nil
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
