package jobhttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// raw answers a recording job's retained record as text/plain, the chunks'
// text back to back, for a download: what the page shows, without the
// page. X-Record-Earliest and X-Record-Next give the byte window it covers.
func (h *Handler) raw(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	snap, ok := h.lookup(w, r, session)
	if !ok {
		return
	}
	read, err := h.reg.ReadRecord(session, snap.ID, 0)
	if err != nil {
		lookupError(w, err)
		return
	}
	var b strings.Builder
	for _, c := range read.Chunks {
		b.WriteString(c.Text)
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/plain; charset=utf-8")
	hd.Set("Content-Disposition", `attachment; filename="`+snap.Name+`.log"`)
	hd.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Record-Earliest", strconv.FormatInt(read.Earliest, 10))
	hd.Set("X-Record-Next", strconv.FormatInt(read.Next, 10))
	w.Write([]byte(b.String()))
}

// subagentTree answers the continuable children under the caller's roots.
func (h *Handler) subagentTree(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	if h.opts.Subagents == nil {
		httpError(w, http.StatusNotFound, "no subagents are served")
		return
	}
	tree, err := h.opts.Subagents.Tree(r.Context(), session)
	if err != nil {
		h.log.Error("jobhttp: subagent tree", "err", err)
		httpError(w, http.StatusInternalServerError, "subagents unavailable")
		return
	}
	writeJSON(w, tree)
}

// subagentHistory answers one child's history; a child not under the
// caller's roots is the same 404 as one that does not exist.
func (h *Handler) subagentHistory(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	if h.opts.Subagents == nil {
		httpError(w, http.StatusNotFound, "no subagents are served")
		return
	}
	child := jobs.SessionID(r.PathValue("id"))
	events, err := h.opts.Subagents.History(r.Context(), session, child)
	switch {
	case errors.Is(err, ErrNoSuchChild):
		httpError(w, http.StatusNotFound, "no such subagent")
	case err != nil:
		h.log.Error("jobhttp: subagent history", "err", err)
		httpError(w, http.StatusInternalServerError, "subagents unavailable")
	default:
		writeJSON(w, events)
	}
}

// subagentPoll is how often a tree stream looks for changes. The journal
// signals nothing, and a look costs only what was appended since the last.
const subagentPoll = 500 * time.Millisecond

// subagentEvents streams the tree: one "tree" event at once, then one each
// time it differs from the last sent.
func (h *Handler) subagentEvents(w http.ResponseWriter, r *http.Request, session jobs.SessionID) {
	if h.opts.Subagents == nil {
		httpError(w, http.StatusNotFound, "no subagents are served")
		return
	}
	release, ok := h.openStream(w, session)
	if !ok {
		return
	}
	defer release()
	sse, err := h.startSSE(w)
	if err != nil {
		return
	}
	poll := time.NewTicker(subagentPoll)
	defer poll.Stop()
	keepAlive := time.NewTicker(h.opts.KeepAlive)
	defer keepAlive.Stop()
	var last []byte
	for {
		tree, err := h.opts.Subagents.Tree(r.Context(), session)
		if err != nil {
			h.log.Error("jobhttp: subagent tree", "err", err)
			return
		}
		data, err := json.Marshal(tree)
		if err != nil {
			return
		}
		if !bytes.Equal(data, last) {
			if sse.event("tree", "", data) != nil {
				return
			}
			last = data
		}
		select {
		case <-poll.C:
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
