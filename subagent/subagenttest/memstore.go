// Package subagenttest holds test doubles for code built on package
// subagent: an in-memory journal.Store that can simulate a crash, and a
// scripted agent host whose agents do nothing until the test tells them to.
package subagenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/jobgen/jobgen/journal"
)

// A MemStore is an in-memory journal.Store. Records are readable as soon as
// Append returns and durable once a Flush returns; Crash returns the store a
// restarted process would find, holding only what was flushed. It is safe for
// concurrent use.
type MemStore struct {
	mu      sync.Mutex
	all     []journal.Record // global order
	streams map[journal.Stream][]int
	ids     map[journal.Stream]map[string]uint64
	base    map[journal.Stream]uint64 // the seq before a stream's first record
	durable int                       // records of all that a Flush covered
	closed  bool
	fail    error
	flushes int
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore {
	return &MemStore{streams: map[journal.Stream][]int{}, ids: map[journal.Stream]map[string]uint64{}, base: map[journal.Stream]uint64{}}
}

// StartStreamAt makes the next record appended to the empty stream take
// seq; journal/storetest builds a full stream with it.
func (m *MemStore) StartStreamAt(stream journal.Stream, seq uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.base[stream] = seq - 1
}

// check refuses what a real store refuses: bad names and ids, payloads
// that are not one JSON value on one line, records that are too large.
func check(stream journal.Stream, entries []journal.Entry) error {
	if err := checkName("stream", string(stream), journal.MaxStreamBytes); err != nil {
		return err
	}
	for _, e := range entries {
		if e.ID != "" {
			if err := checkName("id", e.ID, journal.MaxIDBytes); err != nil {
				return err
			}
		}
		switch {
		case len(e.Payload) == 0:
			return fmt.Errorf("empty payload: %w", journal.ErrInvalid)
		case len(e.Payload) > journal.MaxPayloadBytes:
			return fmt.Errorf("payload of %d bytes: %w", len(e.Payload), journal.ErrTooLarge)
		case bytes.IndexByte(e.Payload, '\n') >= 0 || !json.Valid(e.Payload):
			return fmt.Errorf("payload is not one JSON value on one line: %w", journal.ErrInvalid)
		}
	}
	return nil
}

func checkName(what, s string, max int) error {
	if s == "" || len(s) > max || !utf8.ValidString(s) {
		return fmt.Errorf("%s %q: %w", what, s, journal.ErrInvalid)
	}
	for _, r := range s {
		if r < 0x20 || (0x7f <= r && r <= 0x9f) {
			return fmt.Errorf("%s %q holds a control character: %w", what, s, journal.ErrInvalid)
		}
	}
	return nil
}

var _ journal.Store = (*MemStore)(nil)

// Append adds entries to stream; see journal.Store.
func (m *MemStore) Append(ctx context.Context, stream journal.Stream, entries ...journal.Entry) ([]uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memstore: append to %s: %w", stream, err)
	}
	if err := check(stream, entries); err != nil {
		return nil, fmt.Errorf("memstore: append to %s: %w", stream, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("memstore: append to %s: %w", stream, journal.ErrClosed)
	}
	if m.fail != nil {
		return nil, fmt.Errorf("memstore: append to %s: %w: %w", stream, journal.ErrFailed, m.fail)
	}
	if err := m.roomLocked(stream, entries, 0); err != nil {
		return nil, err
	}
	return m.appendLocked(stream, entries), nil
}

// AppendBatch appends every part of batch, all or nothing, and makes it
// durable; see journal.Store.
func (m *MemStore) AppendBatch(ctx context.Context, batch ...journal.Batch) ([][]uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memstore: append batch: %w", err)
	}
	for i, b := range batch {
		if err := check(b.Stream, b.Entries); err != nil {
			return nil, fmt.Errorf("memstore: append batch: part %d, stream %s: %w", i, b.Stream, err)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("memstore: append batch: %w", journal.ErrClosed)
	}
	if m.fail != nil {
		return nil, fmt.Errorf("memstore: append batch: %w: %w", journal.ErrFailed, m.fail)
	}
	more := map[journal.Stream]int{} // entries of earlier parts, counted as fresh
	for _, b := range batch {
		if err := m.roomLocked(b.Stream, b.Entries, more[b.Stream]); err != nil {
			return nil, err
		}
		more[b.Stream] += len(b.Entries)
	}
	seqs := make([][]uint64, len(batch))
	for i, b := range batch {
		seqs[i] = m.appendLocked(b.Stream, b.Entries)
	}
	m.durable = len(m.all)
	m.flushes++
	return seqs, nil
}

// roomLocked refuses entries that would take stream, holding more records
// than it does, past MaxSeq. m.mu is held.
func (m *MemStore) roomLocked(stream journal.Stream, entries []journal.Entry, more int) error {
	fresh := more
	for i, e := range entries {
		if e.ID == "" || m.ids[stream][e.ID] == 0 && !slices.ContainsFunc(entries[:i], func(x journal.Entry) bool { return x.ID == e.ID }) {
			fresh++
		}
	}
	if m.base[stream]+uint64(len(m.streams[stream])+fresh) > journal.MaxSeq {
		return fmt.Errorf("memstore: append to %s: %w", stream, journal.ErrFull)
	}
	return nil
}

// appendLocked appends entries to stream, which has room for them, and
// returns their seqs. m.mu is held.
func (m *MemStore) appendLocked(stream journal.Stream, entries []journal.Entry) []uint64 {
	seqs := make([]uint64, len(entries))
	ids := m.ids[stream]
	if ids == nil {
		ids = map[string]uint64{}
		m.ids[stream] = ids
	}
	for i, e := range entries {
		if e.ID != "" {
			if seq, ok := ids[e.ID]; ok {
				seqs[i] = seq
				continue
			}
		}
		seq := m.base[stream] + uint64(len(m.streams[stream])+1)
		rec := journal.Record{
			Stream:  stream,
			Seq:     seq,
			Pos:     journal.Position{Minor: uint64(len(m.all) + 1)},
			ID:      e.ID,
			Offset:  -1,
			Payload: append([]byte(nil), e.Payload...),
		}
		m.streams[stream] = append(m.streams[stream], len(m.all))
		m.all = append(m.all, rec)
		if e.ID != "" {
			ids[e.ID] = seq
		}
		seqs[i] = seq
	}
	return seqs
}

// Flush makes every record appended so far durable.
func (m *MemStore) Flush(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: flush: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("memstore: flush: %w", journal.ErrClosed)
	}
	if m.fail != nil {
		return fmt.Errorf("memstore: flush: %w: %w", journal.ErrFailed, m.fail)
	}
	m.durable = len(m.all)
	m.flushes++
	return nil
}

// ReadStream yields the records of stream after seq after.
func (m *MemStore) ReadStream(ctx context.Context, stream journal.Stream, after uint64) iter.Seq2[journal.Record, error] {
	return func(yield func(journal.Record, error) bool) {
		m.mu.Lock()
		var i uint64
		if base := m.base[stream]; after > base {
			i = after - base
		}
		m.mu.Unlock()
		for ; ; i++ {
			if err := ctx.Err(); err != nil {
				yield(journal.Record{}, fmt.Errorf("memstore: read %s: %w", stream, err))
				return
			}
			m.mu.Lock()
			idx := m.streams[stream]
			if m.closed {
				m.mu.Unlock()
				yield(journal.Record{}, fmt.Errorf("memstore: read %s: %w", stream, journal.ErrClosed))
				return
			}
			if i >= uint64(len(idx)) {
				m.mu.Unlock()
				return
			}
			rec := m.all[idx[i]]
			m.mu.Unlock()
			rec.Payload = append([]byte(nil), rec.Payload...)
			if !yield(rec, nil) {
				return
			}
		}
	}
}

// LastSeq returns the seq of the last record of stream, 0 when there is
// none: every record Append returned, flushed or not.
func (m *MemStore) LastSeq(ctx context.Context, stream journal.Stream) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("memstore: last seq of %s: %w", stream, err)
	}
	if err := checkName("stream", string(stream), journal.MaxStreamBytes); err != nil {
		return 0, fmt.Errorf("memstore: last seq: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, fmt.Errorf("memstore: last seq of %s: %w", stream, journal.ErrClosed)
	}
	if n := len(m.streams[stream]); n > 0 {
		return m.base[stream] + uint64(n), nil
	}
	return 0, nil
}

// ReadAll yields every record after position after, in global order.
func (m *MemStore) ReadAll(ctx context.Context, after journal.Position) iter.Seq2[journal.Record, error] {
	return func(yield func(journal.Record, error) bool) {
		for i := after.Minor; ; i++ {
			if err := ctx.Err(); err != nil {
				yield(journal.Record{}, fmt.Errorf("memstore: read: %w", err))
				return
			}
			m.mu.Lock()
			if m.closed {
				m.mu.Unlock()
				yield(journal.Record{}, fmt.Errorf("memstore: read: %w", journal.ErrClosed))
				return
			}
			if i >= uint64(len(m.all)) {
				m.mu.Unlock()
				return
			}
			rec := m.all[i]
			m.mu.Unlock()
			rec.Payload = append([]byte(nil), rec.Payload...)
			if !yield(rec, nil) {
				return
			}
		}
	}
}

// Close flushes and closes the store; a second Close returns nil.
func (m *MemStore) Close(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	if m.fail != nil {
		return fmt.Errorf("memstore: close: %w: %w", journal.ErrFailed, m.fail)
	}
	m.durable = len(m.all)
	return nil
}

// Fail makes every later Append, Flush and Close fail with err (sticky, as a
// failed sync is); nil heals the store, which a real backend never does.
func (m *MemStore) Fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fail = err
}

// Flushes counts the Flush calls that succeeded.
func (m *MemStore) Flushes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.flushes
}

// Crash returns the store a process restarted after a crash would open: the
// flushed records only, readable and writable, with nothing failing. m itself
// is left as it was.
func (m *MemStore) Crash() *MemStore {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := NewMemStore()
	maps.Copy(n.base, m.base)
	for _, rec := range m.all[:m.durable] {
		n.streams[rec.Stream] = append(n.streams[rec.Stream], len(n.all))
		rec.Payload = append([]byte(nil), rec.Payload...)
		n.all = append(n.all, rec)
		if rec.ID != "" {
			if n.ids[rec.Stream] == nil {
				n.ids[rec.Stream] = map[string]uint64{}
			}
			n.ids[rec.Stream][rec.ID] = rec.Seq
		}
	}
	n.durable = len(n.all)
	return n
}

// Len returns the number of records in stream.
func (m *MemStore) Len(stream journal.Stream) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.streams[stream])
}
