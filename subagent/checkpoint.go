package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
)

// DefaultCheckpointBucket is how many checkpoint pointers one pointer
// stream holds before the next opens (see WithCheckpointBucket).
const DefaultCheckpointBucket = 256

// WithCheckpointBucket sets how many checkpoint pointers one pointer stream
// <child>/checkpoints/<bucket> holds before the next one opens; a resume
// reads the directory <child>/checkpoints (one record per bucket) and the
// last bucket. n < 1 turns checkpoints off: every residency's end is then
// only an ended fact, and a resume reads the whole stream. Tests use small
// buckets to exercise the directory.
func WithCheckpointBucket(n int) Option { return func(s *Service) { s.bucket = n } }

// A checkpointCursor is where a child's checkpoints stand: the last index
// written, the bucket its pointer is in, and how many pointers that bucket
// holds.
type checkpointCursor struct {
	index, bucket, inBucket int
}

// directoryStream is the pointer stream of a child's buckets, and
// bucketStream the pointer stream of one bucket; ok is false when the
// child's id is too long for either, and the child is then never
// checkpointed.
func directoryStream(child jobs.SessionID) (journal.Stream, bool) {
	name := string(child) + "/checkpoints"
	return journal.Stream(name), len(name)+1+len(strconv.Itoa(1<<31)) <= journal.MaxStreamBytes
}

func bucketStream(child jobs.SessionID, bucket int) journal.Stream {
	return journal.Stream(string(child) + "/checkpoints/" + strconv.Itoa(bucket))
}

// checkpointFactLocked is the checkpoint of an ending residency, or nil when
// checkpoints are off or it would be too large a record. Call with s.mu
// held, after the inbox closed.
func (s *Service) checkpointFactLocked(a *activation) *subagents.SubagentCheckpoint {
	if _, ok := directoryStream(a.id); !ok || s.bucket < 1 {
		return nil
	}
	cp := &subagents.SubagentCheckpoint{Run: a.run, Index: a.cp.index + 1, At: s.now().UnixMilli(), Header: a.header, Descriptor: a.desc}
	for _, p := range a.pending {
		cp.Waiting = append(cp.Waiting, subagents.WaitingMessage{Message: p.msg, Wake: p.wake})
	}
	return cp
}

// recordEnd appends the residency's ended fact and, in the same append,
// its checkpoint, then points at the checkpoint from the pointer streams.
// A checkpoint too large for one record is left out (logged): the next
// resume then starts from the one before.
func (s *Service) recordEnd(ctx context.Context, a *activation, ended *subagents.SubagentResidencyEnded, cp *subagents.SubagentCheckpoint) error {
	if cp != nil {
		if payload, err := subagents.EncodeFact(cp); err != nil || len(payload) > journal.MaxPayloadBytes {
			s.log.Warn("subagent: a checkpoint too large for one record was left out", "child", a.id, "waiting", len(cp.Waiting), "bytes", len(payload))
			cp = nil
		}
	}
	if cp == nil {
		return s.appendFacts(ctx, a.stream, ended)
	}
	seqs, err := s.appendSeqs(ctx, a.stream, ended, cp)
	if err != nil {
		return err
	}
	s.pointAt(ctx, a, cp.Index, seqs[1])
	return nil
}

// pointAt writes the pointer to checkpoint index at seq on the child's last
// bucket, opening a new bucket (and its directory record) when that one is
// full. A failure is logged: a resume then starts from an earlier
// checkpoint and reads more.
func (s *Service) pointAt(ctx context.Context, a *activation, index int, seq uint64) {
	dir, _ := directoryStream(a.id)
	c := a.cp
	opens := c.index == 0 || c.inBucket >= s.bucket
	if opens && c.index > 0 {
		c.bucket, c.inBucket = c.bucket+1, 0
	}
	ptr := &subagents.SubagentCheckpointed{Child: a.id, Index: index, Seq: int64(seq), Bucket: c.bucket}
	err := s.appendFacts(ctx, bucketStream(a.id, c.bucket), ptr)
	if err == nil && opens {
		err = s.appendFacts(ctx, dir, ptr)
	}
	if err != nil {
		s.log.Warn("subagent: point at a checkpoint", "child", a.id, "checkpoint", index, "err", err)
	}
}

// lastPointer finds the child's last checkpoint without reading its
// stream: the last record of its directory names the last bucket, whose
// last record points at the checkpoint. It also returns where the next
// pointer goes, and how many records it read.
func (s *Service) lastPointer(ctx context.Context, child jobs.SessionID) (ptr subagents.SubagentCheckpointed, cur checkpointCursor, found bool, read int, err error) {
	dir, ok := directoryStream(child)
	if !ok {
		return ptr, cur, false, 0, nil
	}
	last := func(stream journal.Stream) (p subagents.SubagentCheckpointed, n int, err error) {
		for rec, err := range s.store.ReadStream(ctx, stream, 0) {
			if err != nil {
				return p, n, s.failure(ctx, err, "read %s", stream)
			}
			n++
			f, err := subagents.DecodeFact(rec.Payload)
			if err != nil {
				return p, n, newError(subagents.ErrorCodeNotResumable, err, "%s: record %d", stream, rec.Seq)
			}
			if c, ok := f.(subagents.SubagentCheckpointed); ok && c.Index > p.Index {
				p = c
			}
		}
		return p, n, nil
	}
	top, n, err := last(dir)
	if err != nil || top.Index == 0 {
		return ptr, cur, false, n, err
	}
	ptr, m, err := last(bucketStream(child, top.Bucket))
	if err != nil {
		return ptr, cur, false, n + m, err
	}
	if ptr.Index < top.Index {
		ptr, m = top, 1
	}
	return ptr, checkpointCursor{index: ptr.Index, bucket: top.Bucket, inBucket: m}, true, n + m, nil
}

// readHistory folds the child's stream from its last checkpoint, or from
// its start when it has none (or its pointer does not lead to it, which is
// logged). The seed is read from the records after the created fact.
func (s *Service) readHistory(ctx context.Context, id jobs.SessionID) (*history, error) {
	ptr, cur, found, read, err := s.lastPointer(ctx, id)
	if err != nil {
		return nil, err
	}
	if found {
		h, err := s.foldFrom(ctx, id, ptr)
		if err == nil {
			h.read += read
			h.cp = checkpointCursor{index: max(h.cp.index, cur.index), bucket: cur.bucket, inBucket: cur.inBucket}
			return h, s.readSeed(ctx, id, h)
		}
		s.log.Warn("subagent: a checkpoint pointer leads nowhere; reading the whole stream", "child", id, "checkpoint", ptr.Index, "seq", ptr.Seq, "err", err)
	}
	h, err := s.foldFrom(ctx, id, subagents.SubagentCheckpointed{})
	if err != nil {
		return nil, err
	}
	h.read += read
	return h, nil
}

// foldFrom folds the child's stream from the checkpoint ptr points at (the
// record at ptr.Seq, which must be that checkpoint), or from seq 1 for the
// zero pointer.
func (s *Service) foldFrom(ctx context.Context, id jobs.SessionID, ptr subagents.SubagentCheckpointed) (*history, error) {
	h := newHistory()
	after := uint64(0)
	if ptr.Index > 0 {
		after = uint64(ptr.Seq) - 1
	}
	for rec, err := range s.store.ReadStream(ctx, journal.Stream(id), after) {
		if err != nil {
			if c := cancelled(ctx, "read child "+string(id)); c != nil {
				return nil, c
			}
			return nil, newError(subagents.ErrorCodeNotResumable, err, "read the history of child %s", id)
		}
		if ptr.Index > 0 && h.read == 0 {
			if err := checkPointed(id, rec, ptr); err != nil {
				return nil, err
			}
		}
		if err := h.fold(id, rec); err != nil {
			return nil, err
		}
	}
	if !h.based {
		return nil, newError(subagents.ErrorCodeNotResumable, nil, "child %s is unavailable: no history", id)
	}
	return h, nil
}

// checkPointed refuses a record that is not the checkpoint ptr points at.
func checkPointed(id jobs.SessionID, rec journal.Record, ptr subagents.SubagentCheckpointed) error {
	f, err := subagents.DecodeFact(rec.Payload)
	if c, ok := f.(subagents.SubagentCheckpoint); err == nil && ok && rec.Seq == uint64(ptr.Seq) && c.Index == ptr.Index {
		return nil
	}
	return fmt.Errorf("subagent: child %s: seq %d is not checkpoint %d", id, rec.Seq, ptr.Index)
}

// readSeed reads the seeded events that follow the created fact, when the
// fold started at a checkpoint and the child has a seed.
func (s *Service) readSeed(ctx context.Context, id jobs.SessionID, h *history) error {
	n := h.header.SeedLength
	if n == 0 || len(h.seed) == n {
		return nil
	}
	h.seed = h.seed[:0]
	for rec, err := range s.store.ReadStream(ctx, journal.Stream(id), 1) {
		if err != nil {
			return s.failure(ctx, err, "read the seed of child %s", id)
		}
		h.read++
		f, err := subagents.DecodeFact(rec.Payload)
		seeded, ok := f.(subagents.SubagentSeeded)
		if err != nil || !ok {
			return newError(subagents.ErrorCodeNotResumable, err, "child %s: record %d is not the seed's event %d", id, rec.Seq, len(h.seed))
		}
		h.seed = append(h.seed, json.RawMessage(seeded.Event))
		if len(h.seed) == n {
			return nil
		}
	}
	return newError(subagents.ErrorCodeNotResumable, nil, "child %s: the seed has %d of its %d events", id, len(h.seed), n)
}
