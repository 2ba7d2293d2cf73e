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
//
// A batch within maxBatchBytes is one chunk, and the whole transaction is
// one pipelined round trip. A single append larger than that is cut into
// chunks, one round trip each, so that no message outgrows what the
// protocol carries (1 GiB) and the client holds one chunk's encoding at a
// time; each chunk numbers from the heads the one before it raised, and
// finds the ids it inserted. COMMIT then follows the last chunk, or
// ROLLBACK when a chunk found the stream full: a request is all or nothing.
//
// READ COMMITTED is named, not left to the server's default, because the
// append statement must take its snapshot after the locks.
type appendTx struct {
	s       *Store
	batch   []*request
	names   []string // the batch's streams, sorted
	chunks  []chunk
	entries int
}

// A chunk is a run of the batch's entries as appendEntries' columns.
type chunk struct {
	first       int // the index of its first entry in the batch
	stream, id  []string
	payload     [][]byte
	fullStreams bool // set when the append answered a full stream
}

// An outcome is what a transaction's append statements answered: each
// entry's seq (0 for one that repeats an id of an earlier entry), whether
// its stream was full, and the transaction's xid when it inserted.
type outcome struct {
	seq      []uint64
	full     []bool
	held     []bool // the entry's id was held: its seq is the record's that has it
	xid      uint64
	inserted bool
}

// errOutcomeUnknown marks a failure at or after COMMIT was sent: the
// transaction may have committed.
var errOutcomeUnknown = errors.New("its outcome is unknown: retry with ids")

// newAppendTx returns the append transaction of batch.
func (s *Store) newAppendTx(batch []*request) *appendTx {
	t := &appendTx{s: s, batch: batch}
	var c *chunk
	bytes := 0
	seen := map[string]bool{}
	for _, r := range batch {
		if !seen[r.stream] {
			seen[r.stream] = true
			t.names = append(t.names, r.stream)
		}
		for _, e := range r.entries {
			n := entryBytes(r.stream, e)
			if c == nil || (len(c.stream) > 0 && bytes+n > s.cfg.maxBatchBytes) {
				t.chunks = append(t.chunks, chunk{first: t.entries})
				c, bytes = &t.chunks[len(t.chunks)-1], 0
			}
			c.stream = append(c.stream, r.stream)
			c.id = append(c.id, e.ID)
			c.payload = append(c.payload, e.Payload)
			bytes += n
			t.entries++
		}
	}
	slices.Sort(t.names)
	return t
}

// run runs the transaction on conn and returns what it answered.
func (t *appendTx) run(ctx context.Context, conn *pgxpool.Conn) (outcome, error) {
	h := t.s.cfg.hooks
	hook := h != nil && h.beforeCommit != nil
	// COMMIT rides in the first round trip unless something must run
	// between the statements and it: the hook, or the later chunks.
	commitFirst := !hook && len(t.chunks) == 1
	out := outcome{seq: make([]uint64, t.entries), full: make([]bool, t.entries), held: make([]bool, t.entries)}
	for i := range t.chunks {
		b := &pgx.Batch{}
		if i == 0 {
			b.Queue(`BEGIN ISOLATION LEVEL READ COMMITTED`)
			b.Queue(t.s.sql.of(lockStreamsSQL), t.names, t.s.lockSeed)
		}
		b.Queue(t.s.sql.of(appendEntriesSQL), t.chunks[i].stream, t.chunks[i].id, t.chunks[i].payload)
		if commitFirst {
			b.Queue("COMMIT")
		}
		br := conn.SendBatch(ctx, b)
		if i == len(t.chunks)-1 {
			release(t.batch) // the entries are encoded and sent
		}
		err := t.readRound(br, i, &out, commitFirst)
		if cerr := br.Close(); err == nil && cerr != nil {
			err = t.fail("commit", cerr, commitFirst)
		}
		if err != nil {
			return outcome{}, err
		}
	}
	if !commitFirst {
		if err := t.finish(ctx, conn, &out); err != nil {
			return outcome{}, err
		}
	}
	if h != nil && h.afterCommit != nil {
		if err := h.afterCommit(); err != nil {
			return outcome{}, t.fail("commit", err, true)
		}
	}
	return out, nil
}

// readRound reads the answers of chunk i's round trip into out: BEGIN and
// the locks with the first chunk, then the append.
func (t *appendTx) readRound(br pgx.BatchResults, i int, out *outcome, commitSent bool) error {
	if i == 0 {
		if _, err := br.Exec(); err != nil {
			return t.fail("begin", err, commitSent)
		}
		if _, err := br.Exec(); err != nil {
			return t.fail("lock streams", err, commitSent)
		}
	}
	c := &t.chunks[i]
	if err := scanRows(br, func(rows pgx.Rows) error {
		var ord int64
		var seq *int64
		var kind string
		var xid *uint64
		if err := rows.Scan(&ord, &seq, &kind, &xid); err != nil {
			return err
		}
		if ord < 1 || int(ord) > len(c.stream) {
			return fmt.Errorf("append answered entry %d of %d", ord, len(c.stream))
		}
		at := c.first + int(ord) - 1
		switch {
		case kind == "full":
			out.full[at], c.fullStreams = true, true
		case seq != nil:
			out.seq[at], out.held[at] = uint64(*seq), kind == "held"
		}
		if kind == "new" && xid != nil {
			out.xid, out.inserted = *xid, true
		}
		return nil
	}); err != nil {
		return t.fail("append", err, commitSent)
	}
	return nil
}

// finish ends a transaction whose COMMIT did not ride in its first round
// trip: it rolls back one cut into chunks that found its stream full,
// runs the beforeCommit hook, and commits.
func (t *appendTx) finish(ctx context.Context, conn *pgxpool.Conn, out *outcome) error {
	if len(t.chunks) > 1 && slices.ContainsFunc(t.chunks, func(c chunk) bool { return c.fullStreams }) {
		if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
			return t.fail("rollback", err, false)
		}
		for i := range out.full {
			out.full[i] = true
		}
		out.inserted = false
		return nil
	}
	if h := t.s.cfg.hooks; h != nil && h.beforeCommit != nil {
		if err := h.beforeCommit(ctx, conn.Conn()); err != nil {
			return t.fail("before commit", err, false)
		}
	}
	if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
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

// answer gives each request of the batch its seqs from out, or ErrFull
// when its stream was full. An entry without a seq of its own repeats an id
// of an earlier entry of the batch and gets that one's seq.
func (t *appendTx) answer(out outcome) error {
	first := map[[2]string]uint64{}
	at := 0
	for _, r := range t.batch {
		seqs := make([]uint64, len(r.entries))
		full := false
		for i, e := range r.entries {
			seq := out.seq[at]
			full = full || out.full[at]
			if seq != 0 && !out.held[at] {
				r.fresh, r.freshBytes = r.fresh+1, r.freshBytes+entryBytes(r.stream, e)
			}
			at++
			key := [2]string{r.stream, e.ID}
			if e.ID != "" {
				if seq == 0 {
					seq = first[key]
				} else if _, ok := first[key]; !ok {
					first[key] = seq
				}
			}
			seqs[i] = seq
		}
		if full {
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

// scanRows reads the next result of br as rows and calls each for every row.
func scanRows(br pgx.BatchResults, each func(pgx.Rows) error) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
