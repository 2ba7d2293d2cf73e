package jobhttp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/registry"
)

// roster answers the caller's jobs as a JSON array, in registration order.
func (h *Handler) roster(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	list := h.reg.List(session)
	if list == nil {
		list = []jobs.JobSnapshot{}
	}
	writeJSON(w, list)
}

// lookup finds the {id} job visible to session, or answers the request with
// the error (the same 404 for a malformed, unknown or foreign id).
func (h *Handler) lookup(w http.ResponseWriter, r *http.Request, session jobs.SessionID) (jobs.JobSnapshot, bool) {
	id, ok := jobID(r)
	if !ok {
		httpError(w, http.StatusNotFound, "no such job")
		return jobs.JobSnapshot{}, false
	}
	snap, err := h.reg.Get(session, id)
	if err != nil {
		lookupError(w, err)
		return jobs.JobSnapshot{}, false
	}
	return snap, true
}

// job answers one job's snapshot.
func (h *Handler) job(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	if snap, ok := h.lookup(w, r, session); ok {
		writeJSON(w, snap)
	}
}

// rosterEvents streams the roster: one "roster" event at once, then one
// after each lifecycle change. Changes that arrive while an event is being
// written are coalesced into the next one, so a burst of changes costs one
// frame and a slow client costs no memory.
func (h *Handler) rosterEvents(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	release, ok := h.openStream(w, session)
	if !ok {
		return
	}
	defer release()
	changed := make(chan struct{}, 1)
	changed <- struct{}{} // the first frame is the roster as it is now
	unsubscribe := h.reg.OnJobsChanged(func() {
		select {
		case changed <- struct{}{}:
		default: // a frame is already due; it will carry this change too
		}
	})
	defer unsubscribe()

	sse, err := h.startSSE(w)
	if err != nil {
		return
	}
	keepAlive := time.NewTicker(h.opts.KeepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case <-changed:
			list := h.reg.List(session)
			if list == nil {
				list = []jobs.JobSnapshot{}
			}
			data, err := json.Marshal(list)
			if err != nil {
				h.log.Error("jobhttp: roster encode", "err", err)
				return
			}
			if sse.event("roster", "", data) != nil {
				return
			}
		case <-keepAlive.C:
			if sse.comment("keep-alive") != nil {
				return
			}
		case <-h.done:
			sse.event("bye", "", []byte(`{}`))
			return
		case <-r.Context().Done():
			return
		}
	}
}

// kill asks a job to stop. It is refused unless it is a JSON POST from this
// site (see the package doc), so no cross-site form can trigger it.
func (h *Handler) kill(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	if status, msg := h.crossSite(r); status != 0 {
		httpError(w, status, msg)
		return
	}
	id, ok := jobID(r)
	if !ok {
		httpError(w, http.StatusNotFound, "no such job")
		return
	}
	var body wire.KillRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, 4<<10))
	if err := dec.Decode(&body); err != nil && !errors.Is(err, io.EOF) {
		httpError(w, http.StatusBadRequest, "body: want {\"reason\": \"...\"}")
		return
	}
	reason := strings.TrimSpace(body.Reason)
	if reason == "" {
		reason = "killed from the jobs page"
	}
	res, err := h.reg.Kill(session, id, reason)
	if err != nil {
		if errors.Is(err, registry.ErrUnknownJob) || errors.Is(err, registry.ErrForeignJob) {
			lookupError(w, err)
			return
		}
		// The producer's Cancel failed: the job runs on, and the client
		// learns no more than that; the operator learns why.
		h.log.Error("jobhttp: kill", "job", id, "session", session, "err", err)
		httpError(w, http.StatusBadGateway, "the job could not be asked to stop")
		return
	}
	snap, err := h.reg.Get(session, id)
	if err != nil {
		lookupError(w, err)
		return
	}
	writeJSON(w, wire.KillResponse{Result: killResult(res), Job: snap})
}

func killResult(k registry.KillResult) wire.KillResult {
	if k == registry.KillAlreadyFinished {
		return wire.KillResultAlreadyFinished
	}
	return wire.KillResultRequested
}

// crossSite refuses a state-changing request that a page on another site
// could have made: a non-JSON body (every simple request is form-encoded,
// multipart or text/plain), or what http.CrossOriginProtection refuses — a
// cross-site Sec-Fetch-Site, or an Origin of another host. Both trust the
// Host header, which ServeHTTP has checked already (see Options.Hosts).
func (h *Handler) crossSite(r *http.Request) (int, string) { return crossSite(h.cop, r) }

// crossSite is the guard of a state-changing request: JSON, and what cop
// lets through.
func crossSite(cop *http.CrossOriginProtection, r *http.Request) (int, string) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return http.StatusUnsupportedMediaType, "Content-Type must be application/json"
	}
	if err := cop.Check(r); err != nil {
		return http.StatusForbidden, "cross-origin request refused"
	}
	return 0, ""
}

// history answers the session's history from Options.History.
func (h *Handler) history(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	if h.opts.History == nil {
		httpError(w, http.StatusNotFound, "no history is kept")
		return
	}
	with := r.URL.Query().Get("with")
	if with != "" && with != "archived" {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("with=%s: the history answers with=archived, or the intervals alone without with", with))
		return
	}
	hist, err := h.opts.History(r.Context(), session)
	if err != nil {
		h.log.Error("jobhttp: history", "err", err)
		httpError(w, http.StatusInternalServerError, "history unavailable")
		return
	}
	if hist.Intervals == nil {
		hist.Intervals = []wire.Interval{}
	}
	if with == "archived" {
		writeJSON(w, hist) // a wire.History
		return
	}
	writeJSON(w, hist.Intervals) // the list every client has read since the first release
}
