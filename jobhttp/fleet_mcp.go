package jobhttp

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httputil"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
)

// ForwardJob is the seam through which a host's own protocol handlers
// (agenttools/mcpserver's WithFleet: an MCP task request) reach
// the host that owns a job of the fleet: it returns a handler that forwards
// r, as it is, to the owner's address in WithPeers (r's path
// joined to that base, so the protocol is mounted at the same path on
// every host), signed for session as follow and kill are, and relays the
// owner's answer under the same rules (decision 0153). The owner's own
// handler must accept the fleet's signature (TrustFleet) and fences the
// request again by that session.
//
// It answers nil, nil when the request is this host's to serve: the job is
// not session's (another session's job and one nobody issued alike, so the
// local handler answers its own "unknown"; a job the fleet's tail has not
// read yet is looked for on session's own stream in the history, so a task
// is found on every host as soon as its creator answered), its host is
// lost (the facts, read locally, say so), or r was forwarded by a fleet
// already (a request is forwarded once at most, so two hosts that each
// place a job on the other cannot pass it back and forth). An error is a
// refusal to tell the caller: the owner is no host the fleet forwards to.
//
// What is forwarded waits for the owner's answer as long as the caller
// does, without the forwarding transport's response-header timeout when
// the fleet made its own transport: a task's result is answered when its
// job settles. The fleet's Close ends it.
func (f *Fleet) ForwardJob(r *http.Request, session jobs.SessionID, id jobs.JobID) (http.Handler, error) {
	if forwarded(r) {
		return nil, nil
	}
	var host jobs.JobHost
	switch e, err := f.view.entry(session, id); {
	case err == nil && e.place.Lost:
		return nil, nil
	case err == nil:
		host = e.host
	default:
		// Not placed: another session's job, one nobody issued, or one
		// registered a moment ago, which the tail has not read yet; the
		// caller's own stream in the history tells them apart.
		var ok bool
		if host, ok = f.registeredHost(r.Context(), session, id); !ok {
			return nil, nil
		}
	}
	target, ok := f.proxy.peers[host.Name]
	if !ok {
		return nil, fmt.Errorf("the job's host %q is not one this fleet forwards to (jobhttp.WithPeers)", host.Name)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.serveForwardedWith(f.proxy.long, w, r, target, session)
	}), nil
}

// forwarded reports whether r carries a fleet's signature headers.
func forwarded(r *http.Request) bool {
	return r.Header.Get(fleetSignatureHeader) != "" || r.Header.Get(fleetSessionHeader) != "" || r.Header.Get(fleetKeyHeader) != ""
}

// longProxy is rp for requests whose answer may take as long as a job:
// the same rewrite, relay and errors, over a transport without a
// response-header timeout when rp's is the fleet's own.
func longProxy(rp *httputil.ReverseProxy, own bool) *httputil.ReverseProxy {
	long := *rp
	if t, ok := rp.Transport.(*http.Transport); ok && own {
		t = t.Clone()
		t.ResponseHeaderTimeout = 0
		long.Transport = t
	}
	return &long
}

// registeredHost is the host whose registration of the job id is on
// session's own stream in the history, if there is one that names a host.
func (f *Fleet) registeredHost(ctx context.Context, session jobs.SessionID, id jobs.JobID) (jobs.JobHost, bool) {
	if session == "" {
		return jobs.JobHost{}, false
	}
	for rec, err := range f.opts.History.ReadStream(ctx, journal.Stream(session), 0) {
		if err != nil {
			f.log.Warn("jobhttp: fleet: reading a session's stream for a job's host failed", "session", session, "job", id, "err", err)
			return jobs.JobHost{}, false
		}
		if reg, ok := readRegistration(rec.Payload); ok && reg.JobID == id {
			return reg.Host, reg.Owner == session && reg.Host.Name != ""
		}
	}
	return jobs.JobHost{}, false
}

// readRegistration is payload's job/registered fact, if it is one.
func readRegistration(payload []byte) (jobs.JobRegistered, bool) {
	if !bytes.Contains(payload, []byte("registered")) {
		return jobs.JobRegistered{}, false
	}
	f, err := jobs.ReadFact(payload)
	if err != nil {
		return jobs.JobRegistered{}, false
	}
	reg, ok := f.(jobs.JobRegistered)
	return reg, ok
}
