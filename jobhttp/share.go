package jobhttp

import (
	"context"
	"errors"
	"sync"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
	"github.com/jobgen/jobgen/registry"
)

// A share is the follow stream of one job as this handler serves it, read
// from the registry once and encoded once for all of its followers. One
// goroutine follows the job in the registry (as a single follower would) and
// appends each output frame, encoded as its SSE event, to a bounded list of
// entries; a follower whose cursor is where an entry begins writes that
// entry's bytes, the same bytes every other follower at that cursor writes.
// The producer therefore sees one follower however many there are, and a
// frame costs one encoding. The entries' events lie back to back in one
// array (see add), so what a follower is owed goes out in one write of its
// connection, however many frames it holds. A follower elsewhere (a resume, a join in the
// middle of an entry, one that fell behind the list) reads the record itself
// up to the next entry boundary, so no retained byte is skipped or repeated.
//
// Memory is bounded per job, not per follower: the list keeps as much text
// as the job's record retains (the largest window the share has seen), so
// that a follower below the list's first entry has lost those bytes from the
// record too, and can jump instead of reading the record itself; a follower
// holds at most the events it is writing.
type share struct {
	id     jobs.JobID
	refs   int // followers using it; guarded by Handler.mu
	cancel context.CancelFunc

	mu      sync.Mutex
	opened  bool                  // the registry's stream has begun; job, start and end are set
	job     jobs.JobSnapshot      // the job as the stream opened on it
	entries []*entry              // each begins where the previous ends
	events  []wire.FollowJobEvent // the entries' events back to back, from entries[0].off
	buf     []byte                // the bytes of events, back to back (see add)
	text    int                   // text bytes in entries
	keep    int                   // text bytes to keep: the largest window of the record seen
	start   int64                 // the cursor entries[0] begins at; end when there are none
	end     int64                 // the cursor after the last entry
	gone    int64                 // the record's earliest offset at the last read: below it, nothing is retained
	status  wire.FollowJobEvent   // the status event, once the stream ended with it
	ended   bool                  // status is set
	err     error                 // why the stream ended without a status
	changed chan struct{}
}

// An entry is one output frame of a share: the cursor it is read at, the
// cursor after it, the frame, and where its SSE event, encoded once, lies in
// the share's events. Its lossy variant, for a follower that jumped to it,
// is encoded once when first needed.
type entry struct {
	from, next int64
	frame      jobs.OutputFrame
	off        int // its event's index in share.events
	lossyOnce  sync.Once
	lossy      wire.FollowJobEvent
}

// lossyEvent returns the entry's event with the frame marked lossy.
func (e *entry) lossyEvent() wire.FollowJobEvent {
	e.lossyOnce.Do(func() {
		f := e.frame
		f.Lossy = true
		e.lossy, _ = frameEvent(f) // the frame encoded once already, so it does again
	})
	return e.lossy
}

// joinShare returns the share of the job snap describes, starting one
// (following as session, which the caller has checked sees the job) when
// there is none, the one there failed, or it follows an earlier job of the
// same id, removed since, that a slow follower still holds on to.
func (h *Handler) joinShare(session jobs.SessionID, snap jobs.JobSnapshot) *share {
	h.mu.Lock()
	defer h.mu.Unlock()
	id := snap.ID
	sh := h.shares[id]
	if sh == nil || !sh.serves(snap) {
		ctx, cancel := context.WithCancel(context.Background())
		sh = &share{id: id, cancel: cancel, changed: make(chan struct{})}
		h.shares[id] = sh
		h.sharing.Add(1)
		go func() {
			defer h.sharing.Done()
			sh.run(ctx, h.reg, session)
		}()
	}
	sh.refs++
	return sh
}

// leaveShare drops a follower from sh; the last one out stops it.
func (h *Handler) leaveShare(sh *share) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if sh.refs--; sh.refs > 0 {
		return
	}
	if h.shares[sh.id] == sh {
		delete(h.shares, sh.id)
	}
	sh.cancel()
}

// run follows the job in the registry until the stream ends or ctx does,
// publishing every read.
func (sh *share) run(ctx context.Context, reg *registry.Registry, session jobs.SessionID) {
	for read, err := range reg.Follow(ctx, session, sh.id, registry.FromEarliest()) {
		if err != nil {
			sh.fail(err)
			return
		}
		if err := sh.publish(read); err != nil {
			sh.fail(err)
			return
		}
	}
	sh.fail(errors.New("the registry's follow stream ended without a status"))
}

// publish encodes the frames of one read and appends them, waking the
// followers once.
func (sh *share) publish(read registry.FollowRead) error {
	events := make([]wire.FollowJobEvent, len(read.Frames))
	for i, f := range read.Frames {
		if _, ok := f.(jobs.OpenedFrame); ok {
			continue // each follower writes its own
		}
		ev, err := frameEvent(f)
		if err != nil {
			return err
		}
		events[i] = ev
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.gone = max(sh.gone, read.Earliest)
	sh.keep = max(sh.keep, int(read.Next-read.Earliest))
	for i, f := range read.Frames {
		switch f := f.(type) {
		case jobs.OpenedFrame:
			sh.opened, sh.job, sh.start, sh.end = true, f.Job, f.From, f.From
		case jobs.OutputFrame:
			sh.add(f, events[i])
		case jobs.StatusFrame:
			sh.status, sh.ended = events[i], true
		}
	}
	sh.signal()
	return nil
}

// add appends an output frame and its event, dropping the oldest entries
// while the others hold sh.keep bytes of text. Events are appended to
// sh.events, and their bytes to sh.buf, behind the events followers may be
// writing, never over them: when either is full, the live events move to
// new arrays, encoded bytes back to back as before, and the old ones stay
// as they are for as long as a follower holds them. Since the live events'
// bytes always lie back to back in one array, a follower writes every
// event it is owed in one write (httproute.WriteEvents). sh.mu must be
// held.
func (sh *share) add(f jobs.OutputFrame, ev wire.FollowJobEvent) {
	if len(sh.events) == cap(sh.events) || len(sh.buf)+len(ev.Bytes()) > cap(sh.buf) {
		live := 0
		if len(sh.entries) > 0 {
			live = sh.entries[0].off
		}
		size := len(ev.Bytes())
		for _, e := range sh.events[live:] {
			size += len(e.Bytes())
		}
		grown := make([]wire.FollowJobEvent, len(sh.events)-live, max(2*(len(sh.events)-live+1), 64))
		buf := make([]byte, 0, max(2*size, 4<<10))
		for i, e := range sh.events[live:] {
			buf, grown[i].Event = httproute.AppendEvent(buf, e.Event)
		}
		for _, e := range sh.entries {
			e.off -= live
		}
		sh.events, sh.buf = grown, buf
	}
	sh.buf, ev.Event = httproute.AppendEvent(sh.buf, ev.Event)
	sh.entries = append(sh.entries, &entry{from: sh.end, next: f.Next, frame: f, off: len(sh.events)})
	sh.events = append(sh.events, ev)
	sh.end, sh.text = f.Next, sh.text+textBytes(f)
	for len(sh.entries) > 1 && sh.text-textBytes(sh.entries[0].frame) >= sh.keep {
		sh.text -= textBytes(sh.entries[0].frame)
		sh.entries[0] = nil
		sh.entries = sh.entries[1:]
	}
	sh.start = sh.entries[0].from
}

// fail ends the share without a status; its followers end with err.
func (sh *share) fail(err error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if !sh.ended && sh.err == nil {
		sh.err = err
		sh.signal()
	}
}

// signal wakes every follower waiting for a change. sh.mu must be held.
func (sh *share) signal() {
	close(sh.changed)
	sh.changed = make(chan struct{})
}

// serves reports whether sh can serve a new follower of the job snap
// describes: its stream has not failed, and it follows that job (a job's
// name and start time tell it from an earlier one with the same id).
func (sh *share) serves(snap jobs.JobSnapshot) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.err == nil && (!sh.opened || sh.job.Name == snap.Name && sh.job.StartedAt == snap.StartedAt)
}

// firstCursor is the cursor the share's first retained entry begins at.
func (sh *share) firstCursor() int64 {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.start
}

// A step is what a follower at a cursor does next: write events shared with
// other followers (and move to next), read the record itself up to readTo,
// catch up from below the share (behind), write the status and end (ended),
// end with an error, or wait for a change.
type step struct {
	events []wire.FollowJobEvent // the share's own, to write and never to change
	next   int64
	readTo int64
	behind bool
	status wire.FollowJobEvent
	ended  bool
	err    error
	wait   <-chan struct{}
}

// step says what a follower at cursor does next; lossy asks for the first
// shared event to say that bytes before it were lost.
func (sh *share) step(cursor int64, lossy bool) step {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if !sh.opened {
		return step{wait: sh.changed}
	}
	if cursor < sh.gone {
		// A read of the record at cursor would resume lossy at the earliest
		// retained byte: so does the follower, from the entry holding it,
		// when the share has that entry and it lies ahead.
		if i := sh.lastFrom(sh.gone); i >= 0 && sh.entries[i].from > cursor {
			cursor, lossy = sh.entries[i].from, true
		}
	}
	switch {
	case cursor < sh.start:
		return step{behind: true}
	case cursor >= sh.end:
		if cursor == sh.end && sh.ended {
			return step{status: sh.status, ended: true}
		}
		if sh.err != nil {
			return step{err: sh.err}
		}
		return step{wait: sh.changed}
	}
	// The entry holding cursor.
	lo := sh.lastFrom(cursor)
	if e := sh.entries[lo]; e.from != cursor {
		return step{readTo: e.next}
	}
	// The events from there on lie back to back: one write takes them all.
	// A follower writes them where they lie; only the rare lossy one is
	// copied, after the lossy variant of its first.
	off := sh.entries[lo].off
	if lossy {
		events := append(make([]wire.FollowJobEvent, 0, len(sh.events)-off), sh.entries[lo].lossyEvent())
		return step{events: append(events, sh.events[off+1:]...), next: sh.end}
	}
	return step{events: sh.events[off:len(sh.events):len(sh.events)], next: sh.end}
}

// lastFrom returns the index of the last entry that begins at or below
// cursor, or -1. sh.mu must be held.
func (sh *share) lastFrom(cursor int64) int {
	lo, hi := 0, len(sh.entries)
	for lo < hi {
		if mid := int(uint(lo+hi) >> 1); sh.entries[mid].from > cursor {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo - 1
}

// textBytes is the output text a frame carries.
func textBytes(f jobs.OutputFrame) int {
	n := 0
	for _, c := range f.Chunks {
		n += len(c.Text)
	}
	return n
}

// frameEvent encodes a follow frame as one SSE event with the generated
// encoder: its event name is the frame's tag, and its id the offset to
// resume from (the start of an opened frame, the next of an output frame),
// as spec/wire.yaml's FollowJob declares.
func frameEvent(frame jobs.FollowFrame) (wire.FollowJobEvent, error) {
	return wire.NewFollowJobEvent(frame)
}
