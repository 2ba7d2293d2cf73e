package subagent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
)

// WithCheckpoints turns checkpoints on (the default) or off. Off, a
// residency's end is only an ended fact, and a resume reads the whole
// stream, as before there were checkpoints (checkpoints that other
// processes wrote on it still count in the fold).
func WithCheckpoints(on bool) Option { return func(s *Service) { s.cpOff = !on } }

// A checkpointCursor is where a child's checkpoints stand: the last index
// a pointer or a checkpoint showed.
type checkpointCursor struct {
	index int
}

// pointerStream is the stream that points at a child's checkpoints; ok is
// false when the child's id is too long for it, and the child is then
// never checkpointed.
func pointerStream(child jobs.SessionID) (journal.Stream, bool) {
	name := string(child) + "/checkpoint"
	return journal.Stream(name), len(name) <= journal.MaxStreamBytes
}

// checkpointFactLocked is the checkpoint of an ending residency, or nil when
// checkpoints are off or it would be too large a record. Call with s.mu
// held, after the inbox closed.
func (s *Service) checkpointFactLocked(a *activation) *subagents.SubagentCheckpoint {
	if _, ok := pointerStream(a.id); !ok || s.cpOff {
		return nil
	}
	cp := &subagents.SubagentCheckpoint{Run: a.run, Index: a.cp.index + 1, At: s.now().UnixMilli(), Header: a.header, Descriptor: a.desc}
	for _, p := range a.pending {
		cp.Waiting = append(cp.Waiting, subagents.WaitingMessage{Message: p.msg, Wake: p.wake})
	}
	return cp
}

// recordEnd appends the residency's ended fact and, in the same append,
// its checkpoint, then points at the checkpoint from the pointer stream.
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
	// After the checkpoint, so that a pointer never outlives its checkpoint
	// in a crash. A failure is logged: a resume then starts from an earlier
	// checkpoint and reads more.
	stream, _ := pointerStream(a.id)
	ptr := &subagents.SubagentCheckpointed{Child: a.id, Index: cp.Index, Seq: int64(seqs[1])}
	if err := s.appendFacts(ctx, stream, ptr); err != nil {
		s.log.Warn("subagent: point at a checkpoint", "child", a.id, "checkpoint", cp.Index, "err", err)
	}
	return nil
}

// lastPointer reads the last record of the child's pointer stream, found
// with LastSeq, without reading the child's stream: the pointer to its last
// checkpoint, or to an earlier one when a crash lost the last pointer. A
// last record that is not a pointer of this child is logged and ignored
// (the resume then reads the whole stream). It returns how many records it
// read.
func (s *Service) lastPointer(ctx context.Context, child jobs.SessionID) (ptr subagents.SubagentCheckpointed, found bool, read int, err error) {
	stream, ok := pointerStream(child)
	if !ok || s.cpOff {
		return ptr, false, 0, nil
	}
	last, err := s.store.LastSeq(ctx, stream)
	if err != nil {
		return ptr, false, 0, s.failure(ctx, err, "read %s", stream)
	}
	if last == 0 {
		return ptr, false, 0, nil
	}
	for rec, err := range s.store.ReadStream(ctx, stream, last-1) {
		if err != nil {
			return ptr, false, read, s.failure(ctx, err, "read %s", stream)
		}
		read++
		f, err := subagents.DecodeFact(rec.Payload)
		if p, ok := f.(subagents.SubagentCheckpointed); err == nil && ok && p.Child == child && p.Index > 0 {
			return p, true, read, nil
		}
		s.log.Warn("subagent: the last record of a pointer stream is no pointer of its child; reading the whole stream", "child", child, "stream", stream, "seq", rec.Seq, "err", err)
		break
	}
	return ptr, false, read, nil
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
			c, err := pointedCheckpoint(id, rec, ptr)
			if err != nil {
				return nil, err
			}
			h.read++
			h.restore(c)
			continue
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

// pointedCheckpoint returns the checkpoint ptr points at from rec, the
// record read at its seq, and refuses a record that is not that checkpoint:
// the pointer is a hint, the child's stream the truth.
func pointedCheckpoint(id jobs.SessionID, rec journal.Record, ptr subagents.SubagentCheckpointed) (subagents.SubagentCheckpoint, error) {
	f, err := subagents.DecodeFact(rec.Payload)
	c, ok := f.(subagents.SubagentCheckpoint)
	if err != nil || !ok || rec.Seq != uint64(ptr.Seq) || c.Index != ptr.Index {
		return c, fmt.Errorf("subagent: child %s: seq %d is not checkpoint %d", id, rec.Seq, ptr.Index)
	}
	return c, nil
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
