package jobhttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
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

// follow streams a recording job's frames as SSE; see the package doc.
func (h *Handler) follow(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	id, start, ok := h.followTarget(w, r, session)
	if !ok {
		return
	}
	release, ok := h.openStream(w, session)
	if !ok {
		return
	}
	defer release()

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	h.streamFrames(ctx, w, id, h.followFrames(ctx, session, id, start))
}

// followTarget finds the {id} job to follow and the offset to start at, or
// answers the request with why it cannot be followed: a job that is not
// visible or not recording, or a malformed start.
func (h *Handler) followTarget(w http.ResponseWriter, r *http.Request, session jobs.SessionID) (jobs.JobID, registry.FollowStart, bool) {
	snap, ok := h.lookup(w, r, session)
	if !ok {
		return jobs.JobID{}, registry.FollowStart{}, false
	}
	if !snap.Record {
		lookupError(w, registry.ErrNoRecord)
		return jobs.JobID{}, registry.FollowStart{}, false
	}
	start, err := followStart(r, snap.OutputBytes)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return jobs.JobID{}, registry.FollowStart{}, false
	}
	return snap.ID, start, true
}

// followFrames runs the registry's follow iterator of job id until ctx
// ends. The iterator blocks while the job is quiet, so it runs on its own
// goroutine and hands frames over unbuffered: the writer takes frames,
// keep-alives and the shutdown event one at a time. The iterator reads the
// job's bounded record at its own cursor, so while the writer is blocked on
// a slow client nothing queues up; the client resumes lossy.
func (h *Handler) followFrames(ctx context.Context, session jobs.SessionID, id jobs.JobID, start registry.FollowStart) <-chan frameOrErr {
	frames := make(chan frameOrErr)
	go func() {
		defer close(frames)
		for frame, err := range h.reg.Follow(ctx, session, id, start) {
			select {
			case frames <- frameOrErr{frame, err}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return frames
}

// streamFrames writes the frames of job id as SSE, with keep-alives, until
// the frames end, the client goes or the handler shuts down (a "bye"
// event). The event stream starts with the first frame, so an error before
// it is answered as a plain HTTP error.
func (h *Handler) streamFrames(ctx context.Context, w http.ResponseWriter, id jobs.JobID, frames <-chan frameOrErr) {
	var sse *sseWriter
	keepAlive := time.NewTicker(h.opts.KeepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case fe, ok := <-frames:
			if !ok {
				return
			}
			var err error
			if sse, err = h.writeFollowed(w, sse, id, fe); err != nil {
				return
			}
		case <-keepAlive.C:
			if sse != nil && sse.comment("keep-alive") != nil {
				return
			}
		case <-h.done:
			if sse != nil {
				sse.event("bye", "", []byte(`{}`))
			}
			return
		case <-ctx.Done():
			return
		}
	}
}

// writeFollowed writes one frame of the follow iterator, starting the event
// stream at the first, and returns the stream. An error ends the follow: an
// iterator error is answered (as an HTTP error before the stream started,
// logged after unless it is the cancellation) and returned.
func (h *Handler) writeFollowed(w http.ResponseWriter, sse *sseWriter, id jobs.JobID, fe frameOrErr) (*sseWriter, error) {
	if fe.err != nil {
		if sse == nil {
			lookupError(w, fe.err)
		} else if !errors.Is(fe.err, context.Canceled) {
			h.log.Warn("jobhttp: follow", "job", id, "err", fe.err)
		}
		return sse, fe.err
	}
	if sse == nil {
		var err error
		if sse, err = h.startSSE(w); err != nil {
			return nil, err
		}
		sse.retry(2 * time.Second)
	}
	return sse, writeFrame(sse, fe.frame)
}

type frameOrErr struct {
	frame jobs.FollowFrame
	err   error
}

// writeFrame writes one follow frame: its event name is the frame's tag and,
// for output frames, its id is the offset to resume from.
func writeFrame(sse *sseWriter, frame jobs.FollowFrame) error {
	data, err := json.Marshal(frame)
	if err != nil {
		return err
	}
	switch f := frame.(type) {
	case jobs.OpenedFrame:
		return sse.event(jobs.OpenedFrameTag, strconv.FormatInt(f.From, 10), data)
	case jobs.OutputFrame:
		return sse.event(jobs.OutputFrameTag, strconv.FormatInt(f.Next, 10), data)
	case jobs.StatusFrame:
		return sse.event(jobs.StatusFrameTag, "", data)
	}
	return errors.New("unknown frame")
}

// followStart reads where a follow resumes: Last-Event-ID (what EventSource
// sends on reconnect) wins over ?from=; neither means the earliest retained
// byte. total is the job's byte count: an offset past it is a client bug.
func followStart(r *http.Request, total int64) (registry.FollowStart, error) {
	raw, name := r.Header.Get("Last-Event-ID"), "Last-Event-ID"
	if raw == "" {
		raw, name = r.URL.Query().Get("from"), "from"
	}
	if raw == "" {
		return registry.FromEarliest(), nil
	}
	off, err := strconv.ParseInt(raw, 10, 64)
	switch {
	case err != nil || !canonicalDecimal(raw):
		return registry.FollowStart{}, errors.New(name + ": not a byte offset")
	case off < 0:
		return registry.FollowStart{}, errors.New(name + ": negative offset")
	case off > total:
		return registry.FollowStart{}, errors.New(name + ": offset past the job's output")
	}
	return registry.FromOffset(off), nil
}

// canonicalDecimal reports whether s is a number as the server writes one:
// decimal digits without a sign, and without leading zeros unless it is 0.
// An id this server sent is always canonical, so anything else ("+3",
// "007") is a client's own spelling, refused rather than guessed at.
func canonicalDecimal(s string) bool {
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
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
	var body struct {
		Reason string `json:"reason"`
	}
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
	writeJSON(w, struct {
		Result string           `json:"result"`
		Job    jobs.JobSnapshot `json:"job"`
	}{killResult(res), snap})
}

func killResult(k registry.KillResult) string {
	if k == registry.KillAlreadyFinished {
		return "alreadyFinished"
	}
	return "requested"
}

// crossSite refuses a state-changing request that a page on another site
// could have made: a non-JSON body (every simple request is form-encoded,
// multipart or text/plain), or what http.CrossOriginProtection refuses — a
// cross-site Sec-Fetch-Site, or an Origin of another host. Both trust the
// Host header, which ServeHTTP has checked already (see Options.Hosts).
func (h *Handler) crossSite(r *http.Request) (int, string) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return http.StatusUnsupportedMediaType, "Content-Type must be application/json"
	}
	if err := h.cop.Check(r); err != nil {
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
	v, err := h.opts.History(r.Context(), session)
	if err != nil {
		h.log.Error("jobhttp: history", "err", err)
		httpError(w, http.StatusInternalServerError, "history unavailable")
		return
	}
	writeJSON(w, v)
}
