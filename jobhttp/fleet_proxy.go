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
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
)

// A fleetProxy forwards a caller's request about a job to the host that
// owns it, at the address the operator configured for it
// (WithPeers), signed with the caller's session (see TrustFleet),
// and relays of the host's answer only what the wire answers (see relay).
type fleetProxy struct {
	f     *Fleet
	peers map[jobs.HostID]*url.URL
	rp    *httputil.ReverseProxy
	long  *httputil.ReverseProxy // rp for answers that wait on a job (see ForwardJob)
}

// A forwarding is what the proxy needs to know of one request: where it
// goes and on whose behalf.
type forwarding struct {
	target  *url.URL
	session jobs.SessionID
}

type forwardingKey struct{}

func newFleetProxy(f *Fleet, peers map[jobs.HostID]*url.URL, rt http.RoundTripper) *fleetProxy {
	own := rt == nil
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
	p.long = longProxy(p.rp, own)
	return p
}

// parsePeers checks what WithPeers gave: each a host name and the base URL
// of its wire, http or https, with no credentials, query or fragment.
func parsePeers(peers map[jobs.HostID]string) (map[jobs.HostID]*url.URL, error) {
	out := make(map[jobs.HostID]*url.URL, len(peers))
	for name, addr := range peers {
		u, err := url.Parse(addr)
		switch {
		case name == "":
			return nil, fmt.Errorf("jobhttp: WithPeers: %q has no host name", addr)
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "":
			return nil, fmt.Errorf("jobhttp: WithPeers: host %s: %q is not the http(s) base URL of a wire (scheme, host, port and path only)", name, addr)
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

// SendInput implements wire.Server: input to one of the caller's jobs,
// forwarded to its host as a kill is.
func (f *Fleet) SendInput(ctx context.Context, req wire.SendInputRequest) (wire.InputResponse, error) {
	return wire.InputResponse{}, f.forward(ctx, req.ID)
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

// target is the base URL the operator configured for the host that owns
// e, or the refusal saying why there is none to forward to: a job whose
// host is lost, or a host the fleet has no address for. The address e's
// registration names is not looked at (see WithPeers).
func (f *Fleet) target(e fleetEntry) (*url.URL, error) {
	if e.place.Lost {
		return nil, httproute.Refusef(http.StatusServiceUnavailable, "the job's host %s is lost: its lease ended before the job settled", e.host.Name)
	}
	u, ok := f.proxy.peers[e.host.Name]
	if !ok {
		return nil, httproute.Refusef(http.StatusConflict, "the job's host %q is not one this fleet forwards to (jobhttp.WithPeers)", e.host.Name)
	}
	return u, nil
}

// serveForwarded forwards r to target on behalf of session, until the
// host's answer ends, the caller goes or the fleet closes.
func (f *Fleet) serveForwarded(w http.ResponseWriter, r *http.Request, target *url.URL, session jobs.SessionID) {
	f.serveForwardedWith(f.proxy.rp, w, r, target, session)
}

// serveForwardedWith is serveForwarded through rp.
func (f *Fleet) serveForwardedWith(rp *httputil.ReverseProxy, w http.ResponseWriter, r *http.Request, target *url.URL, session jobs.SessionID) {
	ctx, cancel := context.WithCancel(context.WithValue(r.Context(), forwardingKey{}, forwarding{target: target, session: session}))
	defer cancel()
	go func() {
		select {
		case <-f.streams.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	rp.ServeHTTP(w, r.WithContext(ctx))
}

// A deadlineWriter bounds each write of a forwarded stream, as the adapter
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

// KillJobs implements wire.Server: declined, since a bulk stop is a host's
// registry's (Registry.KillAll, fenced there); a fleet forwards one job's
// kill to its host but does not split a selection across hosts.
func (f *Fleet) KillJobs(ctx context.Context, req wire.KillJobsRequest) (wire.KillAllResponse, error) {
	return wire.KillAllResponse{}, httproute.Decline("a bulk stop is served by each host's own page")
}

// ListWaiting implements wire.Server: declined, since a start waits in one
// host's registry and the shared history records none until it registers.
func (f *Fleet) ListWaiting(ctx context.Context, req wire.ListWaitingRequest) ([]wire.WaitingStart, error) {
	return nil, httproute.Decline("starts waiting for a slot are shown by each host's own page")
}
