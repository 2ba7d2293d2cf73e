package registry

import (
	"context"
	"fmt"
	"iter"
	"time"
	"unicode/utf8"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A FollowStart says where a follow stream begins. The zero value begins at
// the earliest retained byte.
type FollowStart struct {
	offset int64
	set    bool
}

// FromEarliest begins a follow stream at the earliest retained byte.
func FromEarliest() FollowStart { return FollowStart{} }

// FromOffset begins a follow stream at an absolute byte offset, such as the
// Next of the last frame a client saw. An offset below the retained window
// makes the first output frame lossy; a negative one is an error.
func FromOffset(offset int64) FollowStart { return FollowStart{offset: offset, set: true} }

// A FollowRead is what one read of a follow stream yields (see Follow).
type FollowRead struct {
	// Frames are the read's frames in order: the OpenedFrame alone, or the
	// OutputFrames of one read of the record, then, at the end, the
	// StatusFrame.
	Frames []jobs.FollowFrame
	// Earliest is the record's first retained offset at the read, and Next
	// its total: every byte below Earliest is gone from the record for good.
	Earliest, Next int64
}

// Follow streams a recording job's record as it grows, one FollowRead per
// read of the record: first the OpenedFrame (the job, the start offset, the
// earliest retained offset and the total so far), then OutputFrames as output
// arrives, and once the job has settled and every byte up to its total has
// been sent, one StatusFrame, after which the sequence ends. A consumer that
// wants frames one by one ranges over each read's Frames; one that hands each
// read on as a whole (jobhttp shares one stream among many followers) wakes
// its own consumers once per read rather than once per frame.
//
// Output frames carry the bytes from the stream's cursor on, in chunks of the
// record, split so a frame holds at most Limits.ObserveMaxFrameBytes of text
// (a single larger chunk ships whole); a frame's Next is the end of its last
// chunk, the offset to resume from with FromOffset, and only the first frame
// of a read is lossy, when bytes between the cursor and it were dropped from
// the record. Output is flushed at most once per Limits.ObserveFlush: appends
// arriving faster are batched into one read.
//
// Follow is fenced like every read and refused for a plain job
// (ErrNoRecord); those errors, and a negative start, are the first and only
// element. The stream wakes on the job's own appends — never on other jobs'
// — through a subscription made before the first read, so no append is
// missed. Cancelling ctx ends the stream with ctx's error and no status frame;
// so does the consumer breaking out of the loop, without the error. Nothing
// the stream started outlives it.
func (r *Registry) Follow(ctx context.Context, caller jobs.SessionID, id jobs.JobID, start FollowStart) iter.Seq2[FollowRead, error] {
	return func(yield func(FollowRead, error) bool) {
		fail := func(err error) { yield(FollowRead{}, fmt.Errorf("registry: follow %s: %w", id, err)) }
		if start.set && start.offset < 0 {
			fail(fmt.Errorf("offset %d: %w", start.offset, ErrNegativeOffset))
			return
		}
		j, snap, rd, done, err := r.openFollow(caller, id, start)
		if err != nil {
			fail(err)
			return
		}

		cursor := max(rd.Earliest, 0)
		if start.set {
			cursor = start.offset
		}
		opened := jobs.OpenedFrame{Job: snap, From: cursor, Earliest: rd.Earliest, Total: rd.Next}
		if !yield(FollowRead{Frames: []jobs.FollowFrame{opened}, Earliest: rd.Earliest, Next: rd.Next}, nil) {
			return
		}
		limits := r.limits
		var timer *time.Timer
		defer func() {
			if timer != nil {
				timer.Stop()
			}
		}()
		var lastFlush time.Time
		for {
			// While the job is live only its own lock is taken; once it has
			// settled, the snapshot and the rest of the record are read together.
			settled := closed(done)
			// A flush is timed from its read, not from when its consumer
			// took it: flushes keep their cadence however long the
			// consumer (a share encoding a window for its followers) takes.
			readAt := time.Now()
			var wait <-chan struct{}
			if settled {
				snap, rd, _ = r.followRead(j, cursor)
			} else {
				rd, wait = j.followTail(cursor)
			}
			read := FollowRead{Earliest: rd.Earliest, Next: rd.Next}
			if len(rd.Chunks) > 0 {
				for _, f := range outputFrames(rd, cursor, limits.ObserveMaxFrameBytes) {
					read.Frames = append(read.Frames, f)
				}
			}
			cursor = max(cursor, rd.Next)
			if settled {
				read.Frames = append(read.Frames, jobs.StatusFrame{Job: snap})
				yield(read, nil)
				return
			}
			if len(read.Frames) > 0 {
				if !yield(read, nil) {
					return
				}
				lastFlush = readAt
			}
			select {
			case <-wait:
			case <-done:
			case <-ctx.Done():
				yield(FollowRead{}, ctx.Err())
				return
			}
			// Batch: no flush sooner than ObserveFlush after the last one.
			if err := flushWait(ctx, &timer, lastFlush.Add(limits.ObserveFlush)); err != nil {
				yield(FollowRead{}, err)
				return
			}
		}
	}
}

// flushWait waits until the time at on *timer (made at first use), or
// returns ctx's error if ctx ends first.
func flushWait(ctx context.Context, timer **time.Timer, at time.Time) error {
	wait := time.Until(at)
	if wait <= 0 {
		return nil
	}
	if *timer == nil {
		*timer = time.NewTimer(wait)
	} else {
		(*timer).Reset(wait)
	}
	select {
	case <-(*timer).C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// openFollow finds a recording job visible to caller and returns it with its
// snapshot, its record's window, and the channel closed at its settlement.
func (r *Registry) openFollow(caller jobs.SessionID, id jobs.JobID, start FollowStart) (*job, jobs.JobSnapshot, jobs.RecordRead, <-chan struct{}, error) {
	j, err := r.lookupRecording(caller, id)
	if err != nil {
		return nil, jobs.JobSnapshot{}, jobs.RecordRead{}, nil, err
	}
	defer j.sh.mu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	from := j.record.start
	if start.set {
		from = start.offset
	}
	// Only the window is needed here; the chunks are read again by the loop.
	rd := jobs.RecordRead{Earliest: j.record.start, Next: j.record.total, Lossy: from < j.record.start}
	var snap jobs.JobSnapshot
	j.snapshotInto(&snap)
	return j, snap, rd, r.doneOf(j), nil
}

// followTail reads a live job's record from cursor and returns, from the same
// critical section, the channel the next append closes: no append can fall
// between the read and the wait.
func (j *job) followTail(cursor int64) (jobs.RecordRead, <-chan struct{}) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.outputWait == nil {
		j.outputWait = make(chan struct{})
	}
	return j.record.read(cursor), j.outputWait
}

// closed reports whether ch is closed, without blocking.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// followRead reads a followed job's snapshot and record from cursor. The job
// may have been removed from the registry since; its state is still readable.
func (r *Registry) followRead(j *job, cursor int64) (jobs.JobSnapshot, jobs.RecordRead, <-chan struct{}) {
	j.sh.mu.Lock()
	defer j.sh.mu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	var snap jobs.JobSnapshot
	j.snapshotInto(&snap)
	return snap, j.record.read(cursor), r.doneOf(j)
}

// outputFrames cuts a read into frames of at most maxBytes of text. The first
// chunk is trimmed to start at the cursor (at the next character boundary),
// since the record returns whole chunks that end after it.
func outputFrames(rd jobs.RecordRead, cursor int64, maxBytes int) []jobs.OutputFrame {
	chunks := rd.Chunks
	if first := &chunks[0]; first.Offset < cursor {
		cut := int(cursor - first.Offset)
		for cut < len(first.Text) && !utf8.RuneStart(first.Text[cut]) {
			cut++
		}
		first.Text = first.Text[cut:]
		first.Offset += int64(cut)
		if first.Text == "" {
			chunks = chunks[1:]
		}
	}
	var frames []jobs.OutputFrame
	size := 0
	for i, c := range chunks {
		if len(frames) == 0 || (size > 0 && size+len(c.Text) > maxBytes) {
			frames = append(frames, jobs.OutputFrame{Lossy: len(frames) == 0 && rd.Lossy})
			size = 0
		}
		f := &frames[len(frames)-1]
		f.Chunks = append(f.Chunks, chunks[i])
		f.Next = c.Offset + int64(len(c.Text))
		size += len(c.Text)
	}
	return frames
}

// ReadFrames reads, without waiting, the output frames a follow stream at
// cursor from would send next, up to the offset to: the record's retained
// chunks that end after from and no later than to, cut into frames as Follow
// cuts them (the first lossy when from lies below the retained window). It
// also returns the window: the earliest retained offset and the total. A to
// at or below from reads the window alone, without copying a byte.
//
// It is a read, not a follow: a stream that shares frames among many
// followers (jobhttp) reads with ReadFrames to bring one follower up to the
// next frame boundary it shares. It is fenced like every read.
func (r *Registry) ReadFrames(caller jobs.SessionID, id jobs.JobID, from, to int64) (frames []jobs.OutputFrame, earliest, next int64, err error) {
	if from < 0 {
		return nil, 0, 0, fmt.Errorf("registry: read frames %s: offset %d: %w", id, from, ErrNegativeOffset)
	}
	j, err := r.lockRecord(caller, id, nil)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("registry: read frames %s: %w", id, err)
	}
	earliest, next = j.record.start, j.record.total
	var rd jobs.RecordRead
	if to > from {
		rd = j.record.read(from)
	}
	j.mu.Unlock()
	rd.Chunks = cutAt(rd.Chunks, to)
	if len(rd.Chunks) == 0 {
		return nil, earliest, next, nil
	}
	return outputFrames(rd, from, r.limits.ObserveMaxFrameBytes), earliest, next, nil
}

// cutAt drops the chunks that begin at or after the offset to, and the part
// of a chunk that runs past it.
func cutAt(chunks []jobs.RecordChunk, to int64) []jobs.RecordChunk {
	for i, c := range chunks {
		if c.Offset >= to {
			return chunks[:i]
		}
		if end := c.Offset + int64(len(c.Text)); end > to {
			chunks[i].Text = c.Text[:to-c.Offset]
			return chunks[:i+1]
		}
	}
	return chunks
}
