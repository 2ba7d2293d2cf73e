package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobgen/jobgen/journal"
)

// An appendTx is the transaction of one batch:
//
//	BEGIN ISOLATION LEVEL READ COMMITTED
//	lockStreams      the batch's streams
//	appendEntries    the entries, in one statement per chunk
//	COMMIT
//	notify           a transaction of its own, after the commit
//
// A batch within maxBatchBytes is one chunk, and the whole transaction is
// one pipelined round trip. A single append larger than that is cut into
// chunks, one round trip each, so that no message outgrows what the
// protocol carries (1 GiB) and the client holds one chunk's encoding at a
// time; each chunk numbers from the seqs the one before it inserted, and
// finds the ids it inserted. COMMIT then follows the last chunk, or
// ROLLBACK when a chunk found the stream full: a request is all or nothing.
//
// An entry whose id its stream holds already answers that fact's seq. A
// chunk that finds one inserts nothing; the transaction ends, and the
// batch is appended again without the held entries (a round of its own):
// a retry, with ids, of an append whose outcome was unknown costs a second
// round, an append without ids never.
//
// READ COMMITTED is named, not left to the server's default, because the
// append statement must take its snapshot after the locks.
type appendTx struct {
	s       *Store
	batch   []*request
	names   []string // the batch's streams, sorted
	entries int
	withIDs bool // some entry has an id, so a round may find it held

	// By entry of the batch, in batch order:
	stream []string
	entry  []journal.Entry
	first  []int    // the earlier entry of the batch with the same stream and id, or -1
	seq    []uint64 // the answer, once known
	held   []bool   // seq is the stored fact's that holds the entry's id

	full map[string]bool // the streams found full in the last round
}

// A chunk is a run of the entries to append as appendEntries' arguments.
type chunk struct {
	at      []int // each sent entry's index in the batch
	streams []string
	n       []int64 // entries by stream
	si, k   []int64 // by entry: its stream's index in streams and its rank there, from 1
	id      []string
	payload [][]byte
}

// An outcome is what a transaction answered: its xid, when it inserted.
type outcome struct {
	xid      uint64
	inserted bool
}

// errOutcomeUnknown marks a failure at or after COMMIT was sent: the
// transaction may have committed.
var errOutcomeUnknown = errors.New("its outcome is unknown: retry with ids")

// newAppendTx returns the append transaction of batch.
func (s *Store) newAppendTx(batch []*request) *appendTx {
	t := &appendTx{s: s, batch: batch}
	seen := map[string]bool{}
	firsts := map[[2]string]int{}
	for _, r := range batch {
		if !seen[r.stream] {
			seen[r.stream] = true
			t.names = append(t.names, r.stream)
		}
		for _, e := range r.entries {
			first := -1
			if e.ID != "" {
				t.withIDs = true
				key := [2]string{r.stream, e.ID}
				if at, ok := firsts[key]; ok {
					first = at
				} else {
					firsts[key] = t.entries
				}
			}
			t.stream = append(t.stream, r.stream)
			t.entry = append(t.entry, e)
			t.first = append(t.first, first)
			t.entries++
		}
	}
	slices.Sort(t.names)
	t.seq = make([]uint64, t.entries)
	t.held = make([]bool, t.entries)
	return t
}

// chunks cuts the entries still to append (neither held nor repeating an
// earlier entry) into chunks of at most maxBatchBytes, each holding at
// least one entry.
func (t *appendTx) chunks() []chunk {
	var cs []chunk
	var c *chunk
	var index map[string]int
	bytes := 0
	for at := range t.entries {
		if t.first[at] >= 0 || t.held[at] {
			continue
		}
		stream, e := t.stream[at], t.entry[at]
		n := entryBytes(stream, e)
		if c == nil || bytes+n > t.s.cfg.maxBatchBytes {
			cs = append(cs, chunk{})
			c, bytes, index = &cs[len(cs)-1], 0, map[string]int{}
		}
		i, ok := index[stream]
		if !ok {
			i = len(c.streams)
			index[stream] = i
			c.streams = append(c.streams, stream)
			c.n = append(c.n, 0)
		}
		c.n[i]++
		c.at = append(c.at, at)
		c.si = append(c.si, int64(i+1))
		c.k = append(c.k, c.n[i])
		c.id = append(c.id, e.ID)
		c.payload = append(c.payload, e.Payload)
		bytes += n
	}
	return cs
}

// run runs the transaction on conn, in rounds until one finds no entry
// held, and returns what it answered.
func (t *appendTx) run(ctx context.Context, conn *pgxpool.Conn) (outcome, error) {
	for {
		chunks := t.chunks()
		if len(chunks) == 0 {
			return outcome{}, nil // every entry is held: nothing to write
		}
		out, again, err := t.round(ctx, conn, chunks)
		if err != nil || !again {
			return out, err
		}
	}
}

// round runs one transaction of chunks. It reports again when a chunk
// found held entries, which it then answered, and inserted nothing.
func (t *appendTx) round(ctx context.Context, conn *pgxpool.Conn, chunks []chunk) (out outcome, again bool, err error) {
	h := t.s.cfg.hooks
	hook := h != nil && h.beforeCommit != nil
	// COMMIT rides in the first round trip unless something must run
	// between the statements and it: the hook, or the later chunks.
	commitFirst := !hook && len(chunks) == 1
	t.full = map[string]bool{}
	for i := range chunks {
		b := &pgx.Batch{}
		if i == 0 {
			b.Queue(`BEGIN ISOLATION LEVEL READ COMMITTED`)
			b.Queue(t.s.sql.of(lockStreamsSQL), t.names, t.s.lockSeed)
		}
		c := &chunks[i]
		b.Queue(t.s.sql.of(appendEntriesSQL), c.streams, c.n, c.si, c.k, c.id, c.payload)
		if commitFirst {
			b.Queue("COMMIT")
			b.Queue(t.s.sql.of(notifySQL), t.s.channel)
		}
		br := conn.SendBatch(ctx, b)
		if i == len(chunks)-1 && !t.withIDs {
			release(t.batch) // the entries are encoded and sent, for the last time
		}
		held, err := t.readRound(br, i, c, &out, commitFirst)
		if err != nil {
			return outcome{}, false, err
		}
		if held {
			if !commitFirst {
				if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
					return outcome{}, false, t.fail("rollback", err, false)
				}
			}
			return outcome{}, true, nil
		}
	}
	release(t.batch)
	if !commitFirst {
		if err := t.finish(ctx, conn, len(chunks), &out); err != nil {
			return outcome{}, false, err
		}
	}
	if h != nil && h.afterCommit != nil {
		if err := h.afterCommit(); err != nil {
			return outcome{}, false, t.fail("commit", err, true)
		}
	}
	return out, false, nil
}

// readRound reads the answers of chunk i's round trip, and closes br:
// BEGIN and the locks with the first chunk, then the append, then COMMIT
// and the notification when commitSent. It reports whether the chunk
// found held entries.
func (t *appendTx) readRound(br pgx.BatchResults, i int, c *chunk, out *outcome, commitSent bool) (held bool, err error) {
	var notifyErr error
	err = func() error {
		if i == 0 {
			if _, err := br.Exec(); err != nil {
				return t.fail("begin", err, commitSent)
			}
			if _, err := br.Exec(); err != nil {
				return t.fail("lock streams", err, commitSent)
			}
		}
		var base, heldOrd, heldSeq []int64
		var fits []bool
		var xid *uint64
		if err := br.QueryRow().Scan(&base, &fits, &heldOrd, &heldSeq, &xid); err != nil {
			return t.fail("append", err, commitSent)
		}
		if held, err = t.note(c, base, fits, heldOrd, heldSeq); err != nil {
			return t.fail("append", err, commitSent)
		}
		if xid != nil {
			out.xid, out.inserted = *xid, true
		}
		if commitSent {
			if _, err := br.Exec(); err != nil {
				return t.fail("commit", err, true)
			}
			if _, notifyErr = br.Exec(); notifyErr != nil {
				t.s.log.Warn("pgstore: notify failed; tails fall back to polling", "schema", t.s.schema, "err", notifyErr)
			}
		}
		return nil
	}()
	if cerr := br.Close(); err == nil && cerr != nil && cerr != notifyErr {
		err = t.fail("commit", cerr, commitSent)
	}
	return held, err
}

// note records what the append of c answered: the held entries' seqs, or
// every entry's seq from its stream's base, and the full streams.
func (t *appendTx) note(c *chunk, base []int64, fits []bool, heldOrd, heldSeq []int64) (held bool, err error) {
	if len(base) != len(c.streams) || len(fits) != len(c.streams) || len(heldOrd) != len(heldSeq) {
		return false, fmt.Errorf("append answered %d bases, %d fits for %d streams", len(base), len(fits), len(c.streams))
	}
	for j, ord := range heldOrd {
		if ord < 1 || int(ord) > len(c.at) {
			return false, fmt.Errorf("append answered entry %d of %d as held", ord, len(c.at))
		}
		at := c.at[ord-1]
		t.seq[at], t.held[at] = uint64(heldSeq[j]), true
	}
	if len(heldOrd) > 0 {
		return true, nil
	}
	for j, at := range c.at {
		i := c.si[j] - 1
		if !fits[i] {
			t.full[c.streams[i]] = true
			continue
		}
		t.seq[at] = uint64(base[i] + c.k[j])
	}
	return false, nil
}

// finish ends a transaction whose COMMIT did not ride in its first round
// trip: it rolls back one cut into chunks that found its stream full,
// runs the beforeCommit hook, and commits and notifies.
func (t *appendTx) finish(ctx context.Context, conn *pgxpool.Conn, chunks int, out *outcome) error {
	if chunks > 1 && len(t.full) > 0 {
		if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
			return t.fail("rollback", err, false)
		}
		for _, name := range t.names {
			t.full[name] = true // a request is all or nothing, and this one rolled back
		}
		out.inserted = false
		return nil
	}
	if h := t.s.cfg.hooks; h != nil && h.beforeCommit != nil {
		if err := h.beforeCommit(ctx, conn.Conn()); err != nil {
			return t.fail("before commit", err, false)
		}
	}
	b := &pgx.Batch{}
	b.Queue("COMMIT")
	b.Queue(t.s.sql.of(notifySQL), t.s.channel)
	br := conn.SendBatch(ctx, b)
	var notifyErr error
	_, err := br.Exec()
	if err == nil {
		if _, notifyErr = br.Exec(); notifyErr != nil {
			t.s.log.Warn("pgstore: notify failed; tails fall back to polling", "schema", t.s.schema, "err", notifyErr)
		}
	}
	if cerr := br.Close(); err == nil && cerr != notifyErr {
		err = cerr
	}
	if err != nil {
		return t.fail("commit", err, true)
	}
	return nil
}

// fail wraps err, from the named step, with the store and the batch's size.
// Once COMMIT is sent, an error that is not the server refusing a statement
// (a lost connection, a FATAL error as the server goes down) may follow the
// commit: it is marked errOutcomeUnknown.
func (t *appendTx) fail(step string, err error, commitSent bool) error {
	var pgErr *pgconn.PgError
	if commitSent && !(errors.As(err, &pgErr) && pgErr.Severity == "ERROR") {
		return fmt.Errorf("%s: append of %d records: %s (%w): %w", t.s.name, t.entries, step, errOutcomeUnknown, err)
	}
	return fmt.Errorf("%s: append of %d records: %s: %w", t.s.name, t.entries, step, err)
}

// answer gives each request of the batch its seqs, or ErrFull when its
// stream was full. An entry that repeats an id of an earlier entry of the
// batch gets that one's seq.
func (t *appendTx) answer() error {
	at := 0
	for _, r := range t.batch {
		seqs := make([]uint64, len(r.entries))
		for i, e := range r.entries {
			from := at
			if t.first[at] >= 0 {
				from = t.first[at]
			} else if !t.held[at] && !t.full[r.stream] {
				r.fresh, r.freshBytes = r.fresh+1, r.freshBytes+entryBytes(r.stream, e)
			}
			seqs[i] = t.seq[from]
			at++
		}
		if t.full[r.stream] {
			r.err = fmt.Errorf("%s: append to %q: seq would pass %d: %w", t.s.name, r.stream, int64(math.MaxInt64), journal.ErrFull)
			continue
		}
		if i := slices.Index(seqs, 0); i >= 0 {
			return fmt.Errorf("%s: append: no seq for entry %d of %q after commit", t.s.name, i, r.stream)
		}
		r.seqs = seqs
	}
	return nil
}
