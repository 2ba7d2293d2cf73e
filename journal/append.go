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
	seqs, err := s.append(ctx, stream, entries, false)
	if err != nil && s.obs != nil {
		s.obs.AppendFailed(err)
	}
	return seqs, err
}

// An EncodedAppender is a Store that can append payloads a generated
// encoder produced without checking that each is one JSON value: the
// encoder writes one by construction, and the check costs more than the
// rest of a buffered append. A Recorder whose encoder is generated appends
// through it; every other caller uses Append, which checks.
type EncodedAppender interface {
	Store
	// AppendEncoded is Append for entries whose payloads are each one JSON
	// object, as a generated fact encoder writes them. It still refuses an
	// invalid stream name or id, an empty payload, one that does not start
	// with '{' and end with '}', one holding a newline and a record too
	// long; it does not parse the payload. A payload that is not JSON
	// after all makes a record that readers report as corrupt.
	AppendEncoded(ctx context.Context, stream Stream, entries ...Entry) ([]uint64, error)
}

var _ EncodedAppender = (*FileStore)(nil)

// AppendEncoded is Append without parsing each payload as JSON; see
// [EncodedAppender].
func (s *FileStore) AppendEncoded(ctx context.Context, stream Stream, entries ...Entry) ([]uint64, error) {
	seqs, err := s.append(ctx, stream, entries, true)
	if err != nil && s.obs != nil {
		s.obs.AppendFailed(err)
	}
	return seqs, err
}

// append checks entries, gives each its seq and buffers the new records,
// writing the buffer out once it is full. encoded skips parsing payloads as
// JSON (AppendEncoded).
func (s *FileStore) append(ctx context.Context, stream Stream, entries []Entry, encoded bool) ([]uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, s.fail("append", err)
	}
	var one [1]uint32
	metas := one[:]
	if len(entries) > 1 {
		metas = make([]uint32, len(entries))
	}
	if err := checkEntries(stream, entries, metas, encoded); err != nil {
		return nil, s.fail("append", err)
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
	fresh := assignSeqs(st, last, entries, seqs)
	if err := s.roomFor(stream, last, fresh); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	added := s.bufferLocked(stream, st, last, entries, seqs, metas)
	full := len(s.buf) >= s.bufBytes
	s.mu.Unlock()

	if s.obs != nil && fresh > 0 {
		s.obs.Appended(int(fresh), added)
	}
	if full {
		if err := s.writeOut(); err != nil {
			return seqs, err
		}
	}
	return seqs, nil
}

// checkEntries reports why stream and entries cannot be appended, or nil,
// and fills metas with each entry's metadata checksum. It runs before the
// store's lock is taken, so the checksums cost appenders no contention.
// encoded checks each payload's shape only, not that it is JSON.
func checkEntries(stream Stream, entries []Entry, metas []uint32, encoded bool) error {
	if err := checkName("stream name", string(stream), MaxStreamBytes); err != nil {
		return err
	}
	for i, e := range entries {
		if e.ID != "" {
			if err := checkName("record id", e.ID, MaxIDBytes); err != nil {
				return err
			}
		}
		if err := checkPayload(e.Payload, encoded); err != nil {
			return err
		}
		if n := recordBytes(stream, e.ID, e.Payload); n > MaxRecordBytes {
			return fmt.Errorf("record of up to %d bytes exceeds %d: %w", n, MaxRecordBytes, ErrTooLarge)
		}
		metas[i] = metaCRC(e.Payload, stream, e.ID)
	}
	return nil
}

// assignSeqs sets seqs[i] to the seq of entries[i] in st, whose last seq is
// last, and returns how many entries are fresh. An entry whose id st already
// holds, or an earlier entry of the same call holds, gets that record's seq
// and adds nothing; every other entry gets the next seq.
func assignSeqs(st *streamIndex, last uint64, entries []Entry, seqs []uint64) (fresh uint64) {
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
	return fresh
}

// roomFor reports, wrapping ErrFull, when fresh more records would take
// stream past MaxSeq from its last seq last, or the journal past the last
// position. s.mu is held.
func (s *FileStore) roomFor(stream Stream, last, fresh uint64) error {
	if fresh > 0 && (last >= MaxSeq || fresh > MaxSeq-last || fresh > math.MaxUint64-s.ix.lastPos) {
		return s.fail("append", fmt.Errorf("stream %q at seq %d, position %d: %w", stream, last, s.ix.lastPos, ErrFull))
	}
	return nil
}

// bufferLocked encodes into the buffer, and indexes, the records of the
// entries assignSeqs found fresh: those whose seq follows the one before,
// counting from last. It returns how many bytes they added. s.mu is held.
func (s *FileStore) bufferLocked(stream Stream, st *streamIndex, last uint64, entries []Entry, seqs []uint64, metas []uint32) int64 {
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
	return s.end - end0
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

// AppendBatch appends every part of batch under one lock, encoding each
// record once into the buffer, then writes the buffer and syncs it once,
// sharing the sync with concurrent flushers; see [Store.AppendBatch].
func (s *FileStore) AppendBatch(ctx context.Context, batch ...Batch) ([][]uint64, error) {
	seqs, err := s.appendBatch(ctx, batch)
	if err != nil && s.obs != nil {
		s.obs.AppendFailed(err)
	}
	return seqs, err
}

// A part is what appendBatch knows of one Batch once it is numbered.
type part struct {
	metas []uint32
	last  uint64 // the stream's last seq before the part
}

func (s *FileStore) appendBatch(ctx context.Context, batch []Batch) ([][]uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, s.fail("append batch", err)
	}
	parts := make([]part, len(batch))
	seqs := make([][]uint64, len(batch))
	for i, b := range batch {
		parts[i].metas = make([]uint32, len(b.Entries))
		if err := checkEntries(b.Stream, b.Entries, parts[i].metas, false); err != nil {
			return nil, s.fail("append batch", fmt.Errorf("part %d: %w", i, err))
		}
		seqs[i] = make([]uint64, len(b.Entries))
	}

	s.mu.Lock()
	if err := s.usable(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	fresh, err := s.numberLocked(batch, parts, seqs)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	var added int64
	for i, b := range batch {
		added += s.bufferLocked(b.Stream, s.ix.streams[b.Stream], parts[i].last, b.Entries, seqs[i], parts[i].metas)
	}
	target := s.ix.lastPos
	s.mu.Unlock()

	if s.obs != nil && fresh > 0 {
		s.obs.Appended(int(fresh), added)
	}
	// The durability barrier: one write of everything buffered, one sync.
	if err := s.flushTo(ctx, target); err != nil {
		return nil, err
	}
	return seqs, nil
}

// numberLocked gives every entry of batch its seq, as Append would part
// after part, and sets each part's last seq before it. It refuses the
// whole batch, changing nothing, when a stream or the journal would be
// full. s.mu is held.
func (s *FileStore) numberLocked(batch []Batch, parts []part, seqs [][]uint64) (fresh uint64, err error) {
	type run struct {
		last uint64
		ids  map[string]uint64 // ids this call numbered
	}
	runs := map[Stream]*run{}
	for i, b := range batch {
		st := s.ix.streams[b.Stream]
		r := runs[b.Stream]
		if r == nil {
			r = &run{}
			if st != nil {
				r.last = st.last
			}
			runs[b.Stream] = r
		}
		parts[i].last = r.last
		var n uint64
		for j, e := range b.Entries {
			if e.ID != "" {
				if seq, ok := st.id(e.ID); ok {
					seqs[i][j] = seq
					continue
				}
				if seq, ok := r.ids[e.ID]; ok {
					seqs[i][j] = seq
					continue
				}
				if r.ids == nil {
					r.ids = map[string]uint64{}
				}
				r.ids[e.ID] = r.last + n + 1
			}
			n++
			seqs[i][j] = r.last + n
		}
		if n > 0 && (r.last >= MaxSeq || n > MaxSeq-r.last || n > math.MaxUint64-s.ix.lastPos-fresh) {
			return 0, s.fail("append batch", fmt.Errorf("stream %q at seq %d, position %d: %w", b.Stream, r.last, s.ix.lastPos+fresh, ErrFull))
		}
		r.last += n
		fresh += n
	}
	return fresh, nil
}
