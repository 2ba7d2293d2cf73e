package journal

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"math"
)

// readChunk is about how many bytes a reader reads from the file at once.
const readChunk = 256 << 10

// readable reports why the store cannot be read (closed, ctx ended), or nil.
// s.mu is held.
func (s *FileStore) readable(ctx context.Context, op string) error {
	if s.closed {
		return fmt.Errorf("journal %s: %s: %w", s.path, op, ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return s.fail(op, err)
	}
	return nil
}

// writtenTo makes sure the file holds every byte before end, writing the buffer
// out (without syncing) when it does not yet.
func (s *FileStore) writtenTo(end int64) error {
	s.mu.Lock()
	w := s.written
	s.mu.Unlock()
	if end <= w {
		return nil
	}
	return s.writeOut()
}

// readAt reads len(b) bytes at off, under rmu, refusing once the file is
// closed.
func (s *FileStore) readAt(b []byte, off int64) error {
	s.rmu.RLock()
	defer s.rmu.RUnlock()
	s.mu.Lock()
	closed := s.fileClosed
	s.mu.Unlock()
	if closed {
		return fmt.Errorf("journal %s: %w", s.path, ErrClosed)
	}
	if _, err := s.f.ReadAt(b, off); err != nil {
		return ioError(s.path, err)
	}
	return nil
}

// ReadStream yields the records of stream after seq after; see
// [Store.ReadStream]. It reads them by offset from the index, a batch at a
// time, so its cost is the stream's, and records still buffered are written
// to the file (not synced) before they are read.
func (s *FileStore) ReadStream(ctx context.Context, stream Stream, after uint64) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		var buf []byte
		for {
			s.mu.Lock()
			if err := s.readable(ctx, "read stream"); err != nil {
				s.mu.Unlock()
				yield(Record{}, err)
				return
			}
			st := s.ix.streams[stream]
			if st == nil || after >= st.last {
				s.mu.Unlock()
				return
			}
			if after+1 < st.first {
				// A copy from a later seq on (AppendCopy): the seqs before
				// it are in another archive, or nowhere this file knows.
				s.mu.Unlock()
				yield(Record{}, s.fail("read stream", &ArchivedError{Stream: stream, After: after, Through: st.first - 1,
					Ranges: []ArchivedRange{{First: after + 1, Through: st.first - 1}}}))
				return
			}
			i := after + 1 - st.first
			batch := st.locs.from(int(i))
			s.mu.Unlock()
			size := int64(0)
			for k, l := range batch {
				if k > 0 && size+int64(l.n) > readChunk {
					batch = batch[:k]
					break
				}
				size += int64(l.n)
			}
			recs, err := s.readLocs(batch, &buf)
			for k, r := range recs {
				if err == nil && (r.Stream != stream || r.Seq != st.first+i+uint64(k)) {
					err = &RecordError{Path: s.path, Offset: r.Offset, Kind: ErrCorrupt,
						Reason: fmt.Sprintf("index says stream %q seq %d, file holds stream %q seq %d", stream, st.first+i+uint64(k), r.Stream, r.Seq)}
				}
				if err == nil && k > 0 {
					if cerr := ctx.Err(); cerr != nil {
						err = s.fail("read stream", cerr)
					}
				}
				if err != nil {
					break
				}
				if !yield(r, nil) {
					return
				}
				after = r.Seq
			}
			if err != nil {
				yield(Record{}, err)
				return
			}
		}
	}
}

// readLocs reads the records at locs, reading adjacent ones at once.
func (s *FileStore) readLocs(locs []loc, buf *[]byte) ([]Record, error) {
	last := locs[len(locs)-1]
	if err := s.writtenTo(last.off + int64(last.n)); err != nil {
		return nil, err
	}
	recs := make([]Record, 0, len(locs))
	for len(locs) > 0 {
		run := 1
		size := int(locs[0].n)
		for run < len(locs) && locs[run].off == locs[run-1].off+int64(locs[run-1].n) {
			size += int(locs[run].n)
			run++
		}
		if cap(*buf) < size {
			*buf = make([]byte, size)
		}
		b := (*buf)[:size]
		if err := s.readAt(b, locs[0].off); err != nil {
			return recs, err
		}
		for _, l := range locs[:run] {
			rec, err := s.parseAt(b[:l.n], l.off)
			if err != nil {
				return recs, err
			}
			recs = append(recs, rec)
			b = b[l.n:]
		}
		locs = locs[run:]
	}
	return recs, nil
}

// parseAt parses the record line b, newline included, read at off, and
// returns it with a copy of its payload.
func (s *FileStore) parseAt(b []byte, off int64) (Record, error) {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return Record{}, &RecordError{Path: s.path, Offset: off, Kind: ErrCorrupt, Reason: "record does not end with a newline where the index says"}
	}
	fr, err := parseRecord(b[:len(b)-1], 2)
	if err != nil {
		return Record{}, &RecordError{Path: s.path, Offset: off, Kind: ErrCorrupt, Reason: err.Error()}
	}
	rec := fr.record(off)
	rec.Payload = bytes.Clone(rec.Payload)
	return rec, nil
}

// ReadAll yields every record after the position after, in global order; see
// [Store.ReadAll]. Every position of a file store has Major zero, so nothing
// is after a position whose Major is not. It reads the file sequentially from
// the nearest kept offset before the position, a chunk at a time, and writes
// records still buffered to the file (not synced) before reading them.
func (s *FileStore) ReadAll(ctx context.Context, after Position) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		if after.Major != 0 || after.Minor == math.MaxUint64 {
			return
		}
		next := after.Minor + 1 // the position to yield next
		var (
			off  int64  = -1 // where to read from; -1 until known
			at   uint64      // the position of the record at off
			buf  []byte
			size = readChunk
		)
		for {
			s.mu.Lock()
			if err := s.readable(ctx, "read"); err != nil {
				s.mu.Unlock()
				yield(Record{}, err)
				return
			}
			ix, end := s.ix, s.end
			if ix.lastPos == 0 || next > ix.lastPos {
				s.mu.Unlock()
				return
			}
			if off < 0 {
				next = max(next, ix.firstPos)
				k := (next - ix.firstPos) / checkpointEvery
				off, at = ix.checkpoints[k], ix.firstPos+k*checkpointEvery
			}
			s.mu.Unlock()
			if err := s.writtenTo(end); err != nil {
				yield(Record{}, err)
				return
			}
			n := int(min(int64(size), end-off))
			if cap(buf) < n {
				buf = make([]byte, n)
			}
			b := buf[:n]
			if err := s.readAt(b, off); err != nil {
				yield(Record{}, err)
				return
			}
			whole := bytes.LastIndexByte(b, '\n') + 1
			if whole == 0 {
				if size < MaxRecordBytes && int64(n) < end-off {
					size = MaxRecordBytes
					continue
				}
				yield(Record{}, &RecordError{Path: s.path, Offset: off, Kind: ErrCorrupt, Reason: "no newline where a record should end"})
				return
			}
			for b = b[:whole]; len(b) > 0; {
				nl := bytes.IndexByte(b, '\n') + 1
				if at >= next {
					if err := ctx.Err(); err != nil {
						yield(Record{}, s.fail("read", err))
						return
					}
					rec, err := s.parseAt(b[:nl], off)
					if err == nil && rec.Pos.Minor != at {
						err = &RecordError{Path: s.path, Offset: off, Kind: ErrCorrupt,
							Reason: fmt.Sprintf("pos %d where pos %d should be", rec.Pos.Minor, at)}
					}
					if err != nil {
						yield(Record{}, err)
						return
					}
					if !yield(rec, nil) {
						return
					}
					next = at + 1
				}
				at++
				off += int64(nl)
				b = b[nl:]
			}
		}
	}
}
