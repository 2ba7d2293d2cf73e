package proptest

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/journal"
)

// A pgCall is one Append the machine made: to which store and stream, its
// entries (each payload names its tag), when it began and returned on the
// machine's clock, and what it answered.
type pgCall struct {
	store      int
	stream     journal.Stream
	entries    []journal.Entry
	tags       []string
	start, end int64
	seqs       []uint64 // nil unless it returned nil
	err        error
	// batch and part, for a part of an AppendBatch: the batch's number
	// (from 1; 0 for an Append) and the part's index in it.
	batch, part int
}

// A pgModel is what the machine was told by the stores: every call, and the
// ids each stream was told it holds. The store's contents are checked
// against it; it predicts the seq of an id the stream holds.
type pgModel struct {
	mu    sync.Mutex
	calls []*pgCall
	ids   map[journal.Stream]map[string]uint64 // ids acknowledged, with their seqs
	tag   map[string]*pgCall                   // the call each tag was made for (the first)
}

func newPgModel() *pgModel {
	return &pgModel{ids: map[journal.Stream]map[string]uint64{}, tag: map[string]*pgCall{}}
}

// note records a call once it returned, and checks what it answered: one
// seq per entry; an id the stream held answers its seq; entries sharing an
// id answer one seq; the others get consecutive seqs, past every seq the
// stream was known to hold when the call began.
func (m *pgModel) note(rt *rapid.T, c *pgCall, known map[string]uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, c)
	for _, tag := range c.tags {
		if m.tag[tag] == nil {
			m.tag[tag] = c
		}
	}
	if c.seqs == nil {
		return
	}
	if len(c.seqs) != len(c.entries) {
		rt.Fatalf("append to %s of %d entries answered %d seqs", c.stream, len(c.entries), len(c.seqs))
	}
	if m.ids[c.stream] == nil {
		m.ids[c.stream] = map[string]uint64{}
	}
	inCall := map[string]uint64{}
	var fresh []uint64
	for i, e := range c.entries {
		seq := c.seqs[i]
		if e.ID != "" {
			if want, ok := known[e.ID]; ok && seq != want {
				rt.Fatalf("append to %s: id %s answered seq %d, the stream holds it at %d", c.stream, e.ID, seq, want)
			}
			if want, ok := inCall[e.ID]; ok {
				if seq != want {
					rt.Fatalf("append to %s: id %s twice in one call answered %d and %d", c.stream, e.ID, want, seq)
				}
				continue
			}
			inCall[e.ID] = seq
			if _, ok := known[e.ID]; ok {
				continue
			}
			m.ids[c.stream][e.ID] = seq
		}
		fresh = append(fresh, seq)
	}
	for i := 1; i < len(fresh); i++ {
		if fresh[i] != fresh[i-1]+1 {
			rt.Fatalf("append to %s: the new entries of one call got seqs %v, not consecutive", c.stream, fresh)
		}
	}
}

// known returns the ids stream is known to hold, with their seqs.
func (m *pgModel) known(stream journal.Stream) map[string]uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.ids[stream])
}

// unacknowledged returns the calls with ids that failed and were not
// answered since by a call of the same entries: the machine retries them.
func (m *pgModel) unacknowledged() []*pgCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	acked := map[string]bool{}
	for _, c := range m.calls {
		if c.seqs != nil {
			for _, tag := range c.tags {
				acked[tag] = true
			}
		}
	}
	var out []*pgCall
	for _, c := range m.calls {
		if c.seqs == nil && c.entries[0].ID != "" && !acked[c.tags[0]] {
			out = append(out, c)
			for _, tag := range c.tags {
				acked[tag] = true
			}
		}
	}
	return out
}

// tagOf returns the tag a payload of the machine names.
func tagOf(rt *rapid.T, payload []byte) string {
	var env struct {
		Data struct {
			Tag string `json:"tag"`
		} `json:"data"`
	}
	if err := json.Unmarshal(payload, &env); err != nil || env.Data.Tag == "" {
		rt.Fatalf("a record the machine did not write: %s", payload)
	}
	return env.Data.Tag
}

// checkStreams checks every stream's records against the calls: seqs 1 to n
// without a gap; each record is an entry the machine appended to that
// stream, stored once, with its id, and no id twice; every acknowledged
// entry is at the seq it was answered — its own record, or, when its id was
// held, that id's record, and then it is stored nowhere. It returns the
// records by stream.
func (m *pgModel) checkStreams(rt *rapid.T, streams []journal.Stream, read func(journal.Stream) []journal.Record) map[journal.Stream][]journal.Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[journal.Stream][]journal.Record{}
	stored := map[string]journal.Record{}
	for _, s := range streams {
		recs := read(s)
		out[s] = recs
		ids := map[string]bool{}
		for i, rec := range recs {
			if rec.Seq != uint64(i+1) {
				rt.Fatalf("stream %s: record %d has seq %d: a gap or disorder", s, i, rec.Seq)
			}
			tag := tagOf(rt, rec.Payload)
			c := m.tag[tag]
			if c == nil || c.stream != s {
				rt.Fatalf("stream %s seq %d holds %s, which the machine did not append there", s, rec.Seq, tag)
			}
			if _, twice := stored[tag]; twice {
				rt.Fatalf("stream %s: %s is stored twice", s, tag)
			}
			stored[tag] = rec
			if want := c.entries[slices.Index(c.tags, tag)].ID; rec.ID != want {
				rt.Fatalf("stream %s seq %d: id %q, appended with %q", s, rec.Seq, rec.ID, want)
			}
			if rec.ID != "" && ids[rec.ID] {
				rt.Fatalf("stream %s: id %s is held twice", s, rec.ID)
			}
			ids[rec.ID] = true
		}
	}
	for _, c := range m.calls {
		if c.seqs == nil {
			continue
		}
		recs := out[c.stream]
		for i, tag := range c.tags {
			seq := c.seqs[i]
			if seq == 0 || seq > uint64(len(recs)) {
				rt.Fatalf("acknowledged %s at seq %d of stream %s, which holds %d records: lost", tag, seq, c.stream, len(recs))
			}
			rec := recs[seq-1]
			if got := tagOf(rt, rec.Payload); got != tag {
				if id := c.entries[i].ID; id == "" || rec.ID != id {
					rt.Fatalf("acknowledged %s at seq %d of %s, which holds %s", tag, seq, c.stream, got)
				}
				if other, ok := stored[tag]; ok {
					rt.Fatalf("%s repeats id %s, yet is stored at seq %d of %s", tag, c.entries[i].ID, other.Seq, other.Stream)
				}
			}
		}
	}
	return out
}

// checkGlobal checks the global order all (the machine's records after the
// check began) against the streams: positions strictly increase; each
// stream's records come in seq order, each once, at the position ReadStream
// gives; the new entries of one call are consecutive; a call that began
// after another returned comes after it; and no transaction of a store
// carries more than its byte cap unless it carries one call alone.
func (m *pgModel) checkGlobal(rt *rapid.T, all []journal.Record, streams map[journal.Stream][]journal.Record, capOf func(store int) int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, recs := range streams {
		n += len(recs)
	}
	if len(all) != n {
		rt.Fatalf("ReadAll yields %d records, the streams hold %d", len(all), n)
	}
	last := map[journal.Stream]uint64{}
	at := map[string]int{} // tag: index in all
	for i, rec := range all {
		if i > 0 && all[i-1].Pos.Compare(rec.Pos) >= 0 {
			rt.Fatalf("ReadAll: position %s after %s", rec.Pos, all[i-1].Pos)
		}
		if rec.Seq != last[rec.Stream]+1 {
			rt.Fatalf("the global order disagrees with stream %s's: seq %d at %s after seq %d", rec.Stream, rec.Seq, rec.Pos, last[rec.Stream])
		}
		last[rec.Stream] = rec.Seq
		if want := streams[rec.Stream][rec.Seq-1].Pos; want != rec.Pos {
			rt.Fatalf("%s seq %d: ReadAll at %s, ReadStream at %s", rec.Stream, rec.Seq, rec.Pos, want)
		}
		at[tagOf(rt, rec.Payload)] = i
	}
	type span struct{ first, last int }
	spans := map[*pgCall]span{}
	for _, c := range m.calls {
		sp := span{-1, -1}
		for _, tag := range c.tags {
			i, ok := at[tag]
			if !ok || m.tag[tag] != c {
				continue
			}
			if sp.first < 0 || i < sp.first {
				sp.first = i
			}
			sp.last = max(sp.last, i)
		}
		if sp.first < 0 {
			continue
		}
		spans[c] = sp
		for i := sp.first; i <= sp.last; i++ {
			if m.tag[tagOf(rt, all[i].Payload)] != c {
				rt.Fatalf("a record of another call at %s splits the entries of one append to %s", all[i].Pos, c.stream)
			}
		}
	}
	for x, sx := range spans {
		for y, sy := range spans {
			// A batch that failed after a cut is retried part by part.
			if x.batch > 0 && x.batch == y.batch && x.part < y.part && x.seqs != nil && y.seqs != nil {
				if sx.last > sy.first {
					rt.Fatalf("part %d of a batch (to %s) is after part %d (to %s) in the global order", x.part, x.stream, y.part, y.stream)
				}
				if all[sx.first].Pos.Major != all[sy.first].Pos.Major {
					rt.Fatalf("the parts of one batch (to %s and %s) were committed by two transactions", x.stream, y.stream)
				}
			}
			if x.seqs != nil && x.end < y.start && sx.last > sy.first {
				rt.Fatalf("an append to %s that began after one to %s returned is before it in the global order", y.stream, x.stream)
			}
		}
	}
	checkTransactionBytes(rt, all, m.tag, capOf)
}

// checkTransactionBytes checks that the entries of a transaction (one
// position Major) of more than one call weigh at most their store's cap;
// the parts of one AppendBatch count as one call.
func checkTransactionBytes(rt *rapid.T, all []journal.Record, tag map[string]*pgCall, capOf func(store int) int) {
	type tx struct {
		calls map[any]bool // the calls, or batches, it carried
		bytes int
		store int
	}
	txs := map[uint64]*tx{}
	for _, rec := range all {
		c := tag[tagOf(rt, rec.Payload)]
		t := txs[rec.Pos.Major]
		if t == nil {
			t = &tx{calls: map[any]bool{}, store: c.store}
			txs[rec.Pos.Major] = t
		}
		if c.batch > 0 {
			t.calls[c.batch] = true // a batch is one call: its transaction is its own
		} else {
			t.calls[c] = true
		}
		t.bytes += len(rec.Stream) + len(rec.ID) + len(rec.Payload)
	}
	for xid, t := range txs {
		if len(t.calls) > 1 && t.bytes > capOf(t.store) {
			rt.Fatalf("transaction %d of store %d carried %d appends of %d bytes, past its cap of %d", xid, t.store, len(t.calls), t.bytes, capOf(t.store))
		}
	}
}

// refusal reports whether err is the server refusing a statement, which no
// cut connection explains.
func refusal(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Severity == "ERROR"
}

// pgPayload is the payload of the entry tagged tag, padded to about size bytes.
func pgPayload(tag string, size int) []byte {
	pad := ""
	if size > 64 {
		pad = fmt.Sprintf("%0*d", size-64, 0)
	}
	return fmt.Appendf(nil, `{"type":"proptest/pg","v":1,"data":{"tag":%q,"pad":%q}}`, tag, pad)
}
