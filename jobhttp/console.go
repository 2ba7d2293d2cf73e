package jobhttp

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
)

// DownloadRecord implements wire.Server: a recording job's retained record
// as text/plain, the chunks' text back to back, for a download: what the
// page shows, without the page. X-Record-Earliest and X-Record-Next give
// the byte window it covers.
func (h *Handler) DownloadRecord(ctx context.Context, req wire.DownloadRecordRequest) (wire.DownloadRecordResponse, error) {
	session, snap, err := h.lookup(ctx, req.ID)
	if err != nil {
		return wire.DownloadRecordResponse{}, err
	}
	read, err := h.reg.ReadRecord(session, snap.ID, 0)
	if err != nil {
		return wire.DownloadRecordResponse{}, lookupError(err)
	}
	var b bytes.Buffer
	for _, c := range read.Chunks {
		b.WriteString(c.Text)
	}
	return wire.DownloadRecordResponse{
		Body:               b.Bytes(),
		ContentDisposition: `attachment; filename="` + snap.Name + `.log"`,
		XRecordEarliest:    read.Earliest,
		XRecordNext:        read.Next,
	}, nil
}

// noSubagents is the decline of a subagent route without WithSubagents.
func noSubagents() error { return httproute.Decline("no subagents are served") }

// ListSubagents implements wire.Server: the continuable children under
// the caller's roots.
func (h *Handler) ListSubagents(ctx context.Context, req wire.ListSubagentsRequest) ([]wire.SubagentNode, error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	if h.opts.Subagents == nil {
		return nil, noSubagents()
	}
	tree, err := h.opts.Subagents.Tree(ctx, session)
	if err != nil {
		h.log.Error("jobhttp: subagent tree", "err", err)
		return nil, httproute.Refuse(http.StatusInternalServerError, "subagents unavailable")
	}
	return tree, nil
}

// SubagentHistory implements wire.Server: one child's history; a child not
// under the caller's roots is the same 404 as one that does not exist.
func (h *Handler) SubagentHistory(ctx context.Context, req wire.SubagentHistoryRequest) ([]wire.SubagentEvent, error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	if h.opts.Subagents == nil {
		return nil, noSubagents()
	}
	events, err := h.opts.Subagents.History(ctx, session, req.ID)
	switch {
	case errors.Is(err, ErrNoSuchChild):
		return nil, httproute.Refuse(http.StatusNotFound, "no such subagent")
	case err != nil:
		h.log.Error("jobhttp: subagent history", "err", err)
		return nil, httproute.Refuse(http.StatusInternalServerError, "subagents unavailable")
	}
	return events, nil
}

// subagentPoll is how often a tree stream looks for changes. The journal
// signals nothing, and a look costs only what was appended since the last.
const subagentPoll = 500 * time.Millisecond

// WatchSubagents implements wire.Server: the tree as a stream, one "tree"
// event at once, then one each time it differs from the last sent.
func (h *Handler) WatchSubagents(ctx context.Context, req wire.WatchSubagentsRequest, stream wire.WatchSubagentsStream) error {
	session, err := sessionOf(ctx)
	if err != nil {
		return err
	}
	if h.opts.Subagents == nil {
		return noSubagents()
	}
	release, err := h.streams.open(session)
	if err != nil {
		return err
	}
	defer release()
	poll := time.NewTicker(subagentPoll)
	defer poll.Stop()
	var last []byte
	for {
		tree, err := h.opts.Subagents.Tree(ctx, session)
		if err != nil {
			h.log.Error("jobhttp: subagent tree", "err", err)
			return nil
		}
		ev, err := wire.NewWatchSubagentsTreeEvent(tree)
		if err != nil {
			return err
		}
		if !bytes.Equal(ev.Bytes(), last) {
			if stream.Write(ev) != nil {
				return nil
			}
			last = ev.Bytes()
		}
		select {
		case <-poll.C:
		case <-ctx.Done():
			return nil
		}
	}
}
