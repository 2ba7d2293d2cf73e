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

// DefaultCheckpointBucket is how many checkpoint pointers a pointer stream
// of a child holds before the next opens (see WithCheckpointBucket).
const DefaultCheckpointBucket = 16

// pointerLevels is how deep the tree of a child's pointer streams is: the
// directory and the bucketed levels below it. With buckets of 16 a resume
// reads at most 16 pointers a level up to 16⁴ = 65,536 checkpoints, and the
// directory grows by one pointer every 4,096 checkpoints after that.
const pointerLevels = 4

// WithCheckpointBucket sets how many checkpoint pointers one pointer stream
// of a child holds before the next one opens (default 16); a resume reads
// the directory and one bucket of each level below it. n < 1 turns
// checkpoints off: a residency's end is then only an ended fact, and a
// resume reads the whole stream, as before there were checkpoints
// (checkpoints that other processes wrote on it still count in the fold).
// Tests use small buckets to exercise every level.
func WithCheckpointBucket(n int) Option { return func(s *Service) { s.bucket = n } }

// A checkpointCursor is where a child's checkpoints stand: the last index
// a pointer or a checkpoint showed.
type checkpointCursor struct {
	index int
}

// directoryStream is the top pointer stream of a child, and levelStream
// one bucket of a level below it; ok is false when the child's id is too
// long for them, and the child is then never checkpointed.
func directoryStream(child jobs.SessionID) (journal.Stream, bool) {
	name := string(child) + "/checkpoints"
	return journal.Stream(name), len(name)+len("/0/")+len(strconv.Itoa(1<<31)) <= journal.MaxStreamBytes
}

func levelStream(child jobs.SessionID, level, bucket int) journal.Stream {
	return journal.Stream(string(child) + "/checkpoints/" + strconv.Itoa(level) + "/" + strconv.Itoa(bucket))
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

// pointAt writes the pointers to checkpoint index at seq: on its level-0
// bucket, and on each level above whose bucket it opens, bottom up, so a
// pointer never names a bucket that lacks it. A failure is logged: a resume
// then starts from an earlier checkpoint and reads more.
func (s *Service) pointAt(ctx context.Context, a *activation, index int, seq uint64) {
	p, f := index-1, s.bucket
	span := 1 // f^level
	for level := range pointerLevels {
		if level > 0 && p%span != 0 {
			return
		}
		stream, bucket := levelStream(a.id, level, p/(span*f)), p/span
		if level == 0 {
			bucket = p / f
		}
		if level == pointerLevels-1 {
			stream, _ = directoryStream(a.id)
		}
		ptr := &subagents.SubagentCheckpointed{Child: a.id, Index: index, Seq: int64(seq), Level: level, Bucket: bucket}
		if err := s.appendFacts(ctx, stream, ptr); err != nil {
			s.log.Warn("subagent: point at a checkpoint", "child", a.id, "checkpoint", index, "level", level, "err", err)
			return
		}
		span *= f
	}
}

// lastPointer finds the child's last checkpoint without reading its
// stream: the last pointer of its directory names a bucket a level down,
// whose last pointer names one further down, to level 0, whose last pointer
// is the checkpoint's. Each is also a pointer to an earlier checkpoint,
// the one that opened its bucket, so a level a crash left short costs
// reads, not the checkpoint. It returns how many records it read.
func (s *Service) lastPointer(ctx context.Context, child jobs.SessionID) (ptr subagents.SubagentCheckpointed, found bool, read int, err error) {
	dir, ok := directoryStream(child)
	if !ok || s.bucket < 1 {
		return ptr, false, 0, nil
	}
	last := func(stream journal.Stream) (p subagents.SubagentCheckpointed, err error) {
		for rec, err := range s.store.ReadStream(ctx, stream, 0) {
			if err != nil {
				return p, s.failure(ctx, err, "read %s", stream)
			}
			read++
			f, err := subagents.DecodeFact(rec.Payload)
			if err != nil {
				return p, newError(subagents.ErrorCodeNotResumable, err, "%s: record %d", stream, rec.Seq)
			}
			if c, ok := f.(subagents.SubagentCheckpointed); ok && c.Index > p.Index {
				p = c
			}
		}
		return p, nil
	}
	ptr, err = last(dir)
	for level := pointerLevels - 2; err == nil && ptr.Index > 0 && level >= 0; level-- {
		var below subagents.SubagentCheckpointed
		below, err = last(levelStream(child, level, ptr.Bucket))
		if below.Index < ptr.Index {
			break
		}
		ptr = below
	}
	return ptr, err == nil && ptr.Index > 0, read, err
}

// readHistory folds the child's stream from its last checkpoint, or from
// its start when it has none (or its pointer does not lead to it, which is
// logged). The seed is read from the records after the created fact.
func (s *Service) readHistory(ctx context.Context, id jobs.SessionID) (*history, error) {
	ptr, found, read, err := s.lastPointer(ctx, id)
	if err != nil {
		return nil, err
	}
	if found {
		h, err := s.foldFrom(ctx, id, ptr)
		if err == nil {
			h.read += read
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
