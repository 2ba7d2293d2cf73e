package jobhttp

import (
	"context"
	"net/http"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
)

// FollowJob implements wire.Server: a recording job's frames as SSE; see
// the package doc. The stream is one follower of the job's share (see
// share): at a frame boundary the share has, it writes the share's events;
// anywhere else it reads the record itself up to the next boundary.
func (h *Handler) FollowJob(ctx context.Context, req wire.FollowJobRequest, stream wire.FollowJobStream) error {
	session, snap, cursor, earliest, total, err := h.followable(ctx, req)
	if err != nil {
		return err
	}
	release, err := h.streams.open(session)
	if err != nil {
		return err
	}
	defer release()
	if stream.Retry(2*time.Second) != nil {
		return nil
	}
	h.follow(ctx, session, snap, cursor, earliest, total, stream)
	return nil
}

// followable checks a follow of req: the caller's job, one that keeps a
// record, an offset within its output. It answers where the follow starts
// and the record's bounds, or the refusal.
func (h *Handler) followable(ctx context.Context, req wire.FollowJobRequest) (session jobs.SessionID, snap jobs.JobSnapshot, cursor, earliest, total int64, err error) {
	session, snap, err = h.lookup(ctx, req.ID)
	if err != nil {
		return session, snap, 0, 0, 0, err
	}
	if !snap.Record {
		return session, snap, 0, 0, 0, httproute.Refuse(http.StatusConflict, "job keeps no record")
	}
	if req.From != nil && (*req.From < 0 || *req.From > snap.OutputBytes) {
		return session, snap, 0, 0, 0, httproute.Refusef(http.StatusBadRequest, "offset %d is not one of the job's output, 0 to %d", *req.From, snap.OutputBytes)
	}
	_, earliest, total, err = h.reg.ReadFrames(session, snap.ID, 0, 0)
	if err != nil {
		return session, snap, 0, 0, 0, lookupError(err)
	}
	cursor = earliest
	if req.From != nil {
		cursor = *req.From
	}
	return session, snap, cursor, earliest, total, nil
}

// follow writes a followable job's frames to sink, opened first, until the
// status frame, the client goes or the handler closes: a FollowJob stream,
// or a view of a Watch stream.
func (h *Handler) follow(ctx context.Context, session jobs.SessionID, snap jobs.JobSnapshot, cursor, earliest, total int64, sink followSink) {
	sh := h.joinShare(session, snap)
	defer h.leaveShare(sh)
	opened, err := frameEvent(jobs.OpenedFrame{Job: snap, From: cursor, Earliest: earliest, Total: total})
	if err != nil || sink.Write(opened) != nil {
		return
	}
	f := &follower{h: h, sh: sh, session: session, id: snap.ID, stream: sink, cursor: cursor}
	if err := f.run(ctx); err != nil {
		h.log.Warn("jobhttp: follow", "job", snap.ID, "err", err)
	}
}

// A followSink is where a follower writes its frames, each encoded once:
// a FollowJob stream, or a view of a Watch stream.
type followSink interface {
	Write(events ...wire.FollowJobEvent) error
}

// A follower is one follow stream: its cursor in the job's output, and
// whether the next frame it writes must say that bytes before it were lost.
type follower struct {
	h       *Handler
	sh      *share
	session jobs.SessionID
	id      jobs.JobID
	stream  followSink
	cursor  int64
	lossy   bool
}

// run writes the job's frames from the cursor on until the status frame,
// the client goes or the handler closes (the adapter writes keep-alives
// meanwhile, and the "bye" after). Its error is the registry's, never a
// write's: a client that went away is no failure.
func (f *follower) run(ctx context.Context) error {
	for {
		st := f.sh.step(f.cursor, f.lossy)
		switch {
		case st.ended:
			f.stream.Write(st.status)
			return nil
		case st.err != nil:
			return st.err
		case len(st.events) > 0:
			if f.stream.Write(st.events...) != nil {
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
	_, earliest, _, err := f.h.reg.ReadFrames(f.session, f.id, f.cursor, f.cursor)
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
// boundary of the share, encoded for this follower alone, in one write, and
// moves the cursor there. Bytes evicted in between make its first frame lossy, or the
// share's next frame when nothing in between is retained. gone reports that
// the client went away meanwhile.
func (f *follower) readPrivately(to int64) (gone bool, err error) {
	frames, earliest, _, err := f.h.reg.ReadFrames(f.session, f.id, f.cursor, to)
	if err != nil {
		return false, err
	}
	lossy := f.lossy || f.cursor < earliest
	events := make([]wire.FollowJobEvent, len(frames))
	size := 0
	for i, frame := range frames {
		frame.Lossy = frame.Lossy || (i == 0 && lossy)
		if events[i], err = frameEvent(frame); err != nil {
			return false, err
		}
		size += len(events[i].Bytes())
	}
	if len(events) > 0 {
		// Back to back in one array, they go out as one write.
		buf := make([]byte, 0, size)
		for i := range events {
			buf, events[i].Event = httproute.AppendEvent(buf, events[i].Event)
		}
		if f.stream.Write(events...) != nil {
			return true, nil
		}
	}
	f.cursor, f.lossy = to, lossy && len(frames) == 0
	return false, nil
}
