package journal

import (
	"context"
	"fmt"
)

// AppendCopy appends entries to stream as a copy of records another store
// holds, keeping their seqs: the first entry gets seq first, the next
// first+1, and so on. It is how an archive keeps the seqs of the store it
// archives (see pgstore's Archive). A stream the file does not hold yet may
// begin at any seq, as the file format allows; a stream it holds must go on
// where it ends (first is LastSeq(stream)+1). A copy keeps every record, so
// an entry whose id the stream holds, or another entry of the call holds,
// is refused rather than deduplicated. Refusals wrap ErrInvalid and change
// nothing; the rest is as Append: buffered until a Flush.
func (s *FileStore) AppendCopy(ctx context.Context, stream Stream, first uint64, entries ...Entry) error {
	err := s.appendCopy(ctx, stream, first, entries)
	if err != nil && s.obs != nil {
		s.obs.AppendFailed(err)
	}
	return err
}

func (s *FileStore) appendCopy(ctx context.Context, stream Stream, first uint64, entries []Entry) error {
	if err := ctx.Err(); err != nil {
		return s.fail("append copy", err)
	}
	if first == 0 {
		return s.fail("append copy", fmt.Errorf("stream %q: a copy begins at seq 1 or later: %w", stream, ErrInvalid))
	}
	metas := make([]uint32, len(entries))
	if err := checkEntries(stream, entries, metas, false); err != nil {
		return s.fail("append copy", err)
	}
	if len(entries) == 0 {
		return nil
	}
	seqs := make([]uint64, len(entries))
	s.mu.Lock()
	if err := s.usable(); err != nil {
		s.mu.Unlock()
		return err
	}
	st := s.ix.streams[stream]
	last := first - 1
	if st != nil && st.last != last {
		s.mu.Unlock()
		return s.fail("append copy", fmt.Errorf("stream %q ends at seq %d here, a copy from seq %d does not follow it: %w", stream, st.last, first, ErrInvalid))
	}
	ids := map[string]bool{}
	for i, e := range entries {
		if _, held := st.id(e.ID); e.ID != "" && (held || ids[e.ID]) {
			s.mu.Unlock()
			return s.fail("append copy", fmt.Errorf("stream %q already holds id %q: %w", stream, e.ID, ErrInvalid))
		}
		ids[e.ID] = true
		seqs[i] = first + uint64(i)
	}
	if err := s.roomFor(stream, last, uint64(len(entries))); err != nil {
		s.mu.Unlock()
		return err
	}
	added := s.bufferLocked(stream, st, last, entries, seqs, metas)
	full := len(s.buf) >= s.bufBytes
	s.mu.Unlock()
	if s.obs != nil {
		s.obs.Appended(len(entries), added)
	}
	if full {
		return s.writeOut()
	}
	return nil
}
