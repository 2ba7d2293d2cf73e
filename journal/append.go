package journal

import (
	"context"
	"fmt"
	"math"
)

// Append adds entries to the end of stream and returns their seqs; see
// [Store.Append]. The store keeps copies of the payloads. The records are
// buffered: they are durable only once a Flush that began after Append
// returned has succeeded.
func (s *FileStore) Append(ctx context.Context, stream Stream, entries ...Entry) ([]uint64, error) {
	seqs, err := s.append(ctx, stream, entries)
	if err != nil && s.obs != nil {
		s.obs.AppendFailed(err)
	}
	return seqs, err
}

func (s *FileStore) append(ctx context.Context, stream Stream, entries []Entry) ([]uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, s.fail("append", err)
	}
	if err := checkName("stream name", string(stream), MaxStreamBytes); err != nil {
		return nil, s.fail("append", err)
	}
	var one [1]uint32
	metas := one[:]
	if len(entries) > 1 {
		metas = make([]uint32, len(entries))
	}
	for i, e := range entries {
		if e.ID != "" {
			if err := checkName("record id", e.ID, MaxIDBytes); err != nil {
				return nil, s.fail("append", err)
			}
		}
		if err := checkPayload(e.Payload); err != nil {
			return nil, s.fail("append", err)
		}
		if n := recordBytes(stream, e.ID, e.Payload); n > MaxRecordBytes {
			return nil, s.fail("append", fmt.Errorf("record of up to %d bytes exceeds %d: %w", n, MaxRecordBytes, ErrTooLarge))
		}
		metas[i] = metaCRC(e.Payload, stream, e.ID) // outside the lock
	}
	seqs := make([]uint64, len(entries))

	s.mu.Lock()
	if err := s.usable(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	st := s.ix.streams[stream]
	var last uint64
	if st != nil {
		last = st.last
	}
	fresh := uint64(0)
	var inCall map[string]uint64 // ids first seen in this call
	for i, e := range entries {
		if e.ID != "" {
			if seq, ok := st.id(e.ID); ok {
				seqs[i] = seq
				continue
			}
			if len(entries) > 1 {
				if seq, ok := inCall[e.ID]; ok {
					seqs[i] = seq
					continue
				}
				if inCall == nil {
					inCall = make(map[string]uint64)
				}
				inCall[e.ID] = last + fresh + 1
			}
		}
		fresh++
		seqs[i] = last + fresh
	}
	if fresh > 0 && (last >= MaxSeq || fresh > MaxSeq-last || fresh > math.MaxUint64-s.ix.lastPos) {
		s.mu.Unlock()
		return nil, s.fail("append", fmt.Errorf("stream %q at seq %d, position %d: %w", stream, last, s.ix.lastPos, ErrFull))
	}
	next, end0 := last+1, s.end
	for i, e := range entries {
		if seqs[i] != next {
			continue // a duplicate id
		}
		next++
		fr := frame{pos: s.ix.lastPos + 1, stream: stream, seq: seqs[i], id: e.ID}
		n := len(s.buf)
		s.buf = appendRecord(s.buf, fr.pos, stream, fr.seq, e.ID, e.Payload, metas[i])
		l := loc{off: s.end, n: uint32(len(s.buf) - n)}
		s.end += int64(l.n)
		st = s.ix.addTo(st, &fr, l)
	}
	full, added := len(s.buf) >= s.bufBytes, s.end-end0
	s.mu.Unlock()
	if s.obs != nil && fresh > 0 {
		s.obs.Appended(int(fresh), added)
	}
	if full {
		s.wmu.Lock()
		_, err := s.writeLocked()
		s.wmu.Unlock()
		if err != nil {
			return seqs, err
		}
	}
	return seqs, nil
}

// id returns the seq of the record of st that holds id.
func (st *streamIndex) id(id string) (uint64, bool) {
	if st == nil {
		return 0, false
	}
	seq, ok := st.ids[id]
	return seq, ok
}

// usable reports why the store takes no appends, or nil. s.mu is held.
func (s *FileStore) usable() error {
	if s.closed {
		return fmt.Errorf("journal %s: %w", s.path, ErrClosed)
	}
	return s.err
}
