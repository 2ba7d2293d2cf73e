package jobhttp

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// follow streams a recording job's frames as SSE; see the package doc. The
// stream is one follower of the job's share (see share): at a frame boundary
// the share has, it writes the share's bytes; anywhere else it reads the
// record itself up to the next boundary.
func (h *Handler) follow(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	snap, from, fromSet, ok := h.followTarget(w, r, session)
	if !ok {
		return
	}
	release, ok := h.openStream(w, session)
	if !ok {
		return
	}
	defer release()
	_, earliest, total, err := h.reg.FollowFrames(session, snap.ID, 0, 0)
	if err != nil {
		lookupError(w, err)
		return
	}
	cursor := earliest
	if fromSet {
		cursor = from
	}
	sh := h.joinShare(session, snap)
	defer h.leaveShare(sh)
	sse, err := h.startSSE(w)
	if err != nil {
		return
	}
	sse.retry(2 * time.Second)
	opened, err := frameEvent(jobs.OpenedFrame{Job: snap, From: cursor, Earliest: earliest, Total: total})
	if err != nil || sse.write(opened) != nil {
		return
	}
	f := &follower{h: h, sh: sh, session: session, id: snap.ID, sse: sse, cursor: cursor}
	if err := f.run(r.Context()); err != nil {
		h.log.Warn("jobhttp: follow", "job", snap.ID, "err", err)
	}
}

// followTarget finds the {id} job to follow and the offset to start at, or
// answers the request with why it cannot be followed: a job that is not
// visible or not recording, or a malformed start. fromSet is false for the
// earliest retained byte.
func (h *Handler) followTarget(w http.ResponseWriter, r *http.Request, session jobs.SessionID) (snap jobs.JobSnapshot, from int64, fromSet, ok bool) {
	snap, ok = h.lookup(w, r, session)
	if !ok {
		return jobs.JobSnapshot{}, 0, false, false
	}
	if !snap.Record {
		httpError(w, http.StatusConflict, "job keeps no record")
		return jobs.JobSnapshot{}, 0, false, false
	}
	from, fromSet, err := followStart(r, snap.OutputBytes)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return jobs.JobSnapshot{}, 0, false, false
	}
	return snap, from, fromSet, true
}

// followStart reads where a follow resumes: Last-Event-ID (what EventSource
// sends on reconnect) wins over ?from=; neither (set false) means the
// earliest retained byte. total is the job's byte count: an offset past it
// is a client bug.
func followStart(r *http.Request, total int64) (offset int64, set bool, err error) {
	raw, name := r.Header.Get("Last-Event-ID"), "Last-Event-ID"
	if raw == "" {
		raw, name = r.URL.Query().Get("from"), "from"
	}
	if raw == "" {
		return 0, false, nil
	}
	off, err := strconv.ParseInt(raw, 10, 64)
	switch {
	case err != nil || !canonicalDecimal(raw):
		return 0, false, errors.New(name + ": not a byte offset")
	case off > total:
		return 0, false, errors.New(name + ": offset past the job's output")
	}
	return off, true, nil
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

// A follower is one follow stream: its cursor in the job's output, and
// whether the next frame it writes must say that bytes before it were lost.
type follower struct {
	h       *Handler
	sh      *share
	session jobs.SessionID
	id      jobs.JobID
	sse     *sseWriter
	cursor  int64
	lossy   bool
	events  [][]byte // reused between steps
}

// run writes the job's frames from the cursor on, with keep-alives, until
// the status frame, the client goes or the handler closes (a "bye"). Its
// error is the registry's, never a write's: a client that went away is no
// failure.
func (f *follower) run(ctx context.Context) error {
	keepAlive := time.NewTicker(f.h.opts.KeepAlive)
	defer keepAlive.Stop()
	for {
		st := f.sh.step(f.cursor, f.lossy, f.events[:0])
		switch {
		case st.status != nil:
			f.sse.write(st.status)
			return nil
		case st.err != nil:
			return st.err
		case len(st.events) > 0:
			f.events = st.events
			if f.sse.write(st.events...) != nil {
				return nil
			}
			f.cursor, f.lossy = st.next, false
			continue
		case st.behind:
			if gone, err := f.catchUp(); gone || err != nil {
				return err
			}
			continue
		case st.readTo > 0:
			if gone, err := f.readPrivately(st.readTo); gone || err != nil {
				return err
			}
			continue
		}
		select {
		case <-st.wait:
		case <-keepAlive.C:
			if f.sse.comment("keep-alive") != nil {
				return nil
			}
		case <-f.h.done:
			f.sse.event("bye", "", []byte(`{}`))
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// catchUp moves a follower whose cursor lies below the share's first frame
// up to it. When every byte between them has been evicted from the record,
// the share's frames are as good as any: it jumps, and its next frame says
// lossy. Otherwise it reads the retained bytes itself. gone reports that
// the client went away meanwhile.
func (f *follower) catchUp() (gone bool, err error) {
	_, earliest, _, err := f.h.reg.FollowFrames(f.session, f.id, f.cursor, f.cursor)
	if err != nil {
		return false, err
	}
	// Eviction only moves forward: a first cursor read after earliest that
	// is still at or below it has nothing retained before it.
	start := f.sh.firstCursor()
	if f.cursor < earliest && start <= earliest {
		f.cursor, f.lossy = start, true
		return false, nil
	}
	return f.readPrivately(start)
}

// readPrivately writes the retained bytes from the cursor up to to, a frame
// boundary of the share, encoded for this follower alone, and moves the
// cursor there. Bytes evicted in between make its first frame lossy, or the
// share's next frame when nothing in between is retained. gone reports that
// the client went away meanwhile.
func (f *follower) readPrivately(to int64) (gone bool, err error) {
	frames, earliest, _, err := f.h.reg.FollowFrames(f.session, f.id, f.cursor, to)
	if err != nil {
		return false, err
	}
	lossy := f.lossy || f.cursor < earliest
	for i, frame := range frames {
		frame.Lossy = frame.Lossy || (i == 0 && lossy)
		ev, err := frameEvent(frame)
		if err != nil {
			return false, err
		}
		if f.sse.write(ev) != nil {
			return true, nil
		}
	}
	f.cursor, f.lossy = to, lossy && len(frames) == 0
	return false, nil
}
