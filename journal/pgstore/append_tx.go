package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobgen/jobgen/journal"
)

// An appendTx is the transaction of one batch. A batch within
// maxBatchBytes is one statement, in an implicit transaction of its own:
//
//	SELECT * FROM append_facts(...)   locks, numbers, inserts; commits at Sync
//	notify                            a transaction of its own, after it
//
// both in one round trip (a pipeline with a Sync after each), so the server
// parses nothing (both are prepared on the connection) and runs the append
// from the function's cached plans (schema version 6, leaner in 7;
// decisions 0181 and 0244). A batch that must run something
// between the append and COMMIT (a test's hook), or a single append larger
// than maxBatchBytes, runs in an explicit transaction:
//
//	BEGIN ISOLATION LEVEL READ COMMITTED
//	append_facts      once per chunk, the first taking every stream's lock
//	COMMIT
//	notify
//
// A chunk is at most maxBatchBytes, one round trip each, so that no message
// outgrows what the protocol carries (1 GiB) and the client holds one
// chunk's encoding at a time; each chunk numbers after the facts the one
// before it inserted. COMMIT then follows the last chunk, or ROLLBACK when
// a chunk found its stream full: a request is all or nothing.
//
// An entry whose id its stream holds already answers that fact's seq and
// takes none; append_facts finds it under the lock, before numbering, so a
// retry with ids costs no second round.
type appendTx struct {
	s       *Store
	batch   []*request
	names   []string // the batch's streams, sorted
	entries int
	whole   bool // one AppendBatch: a full stream fails every part

	// By entry of the batch, in batch order:
	stream []string
	entry  []journal.Entry
	first  []int    // the earlier entry of the batch with the same stream and id, or -1
	seq    []uint64 // the answer, once known
	held   []bool   // seq is the stored fact's that holds the entry's id

	full map[string]bool // the streams found full

	// rest, when set, reads what the connection still owes once the
	// transaction committed (the notification's reply); it runs after
	// the requests are answered, before the connection is released.
	rest func()
}

// A chunk is a run of the entries to append as append_facts' arguments.
type chunk struct {
	at      []int // each sent entry's index in the batch
	streams []string
	si      []int64 // by entry: its stream's index in streams, from 1
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
	t := &appendTx{s: s, batch: batch, full: map[string]bool{}, whole: batch[0].tied > 0}
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

// chunks cuts the entries to append (all but those repeating an earlier
// entry's id) into chunks of at most maxBatchBytes, each holding at least
// one entry.
func (t *appendTx) chunks() []chunk {
	var cs []chunk
	var c *chunk
	var index map[string]int
	bytes := 0
	for at := range t.entries {
		if t.first[at] >= 0 {
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
		}
		c.at = append(c.at, at)
		c.si = append(c.si, int64(i+1))
		c.id = append(c.id, e.ID)
		c.payload = append(c.payload, e.Payload)
		bytes += n
	}
	return cs
}

// run runs the transaction on conn and returns what it answered: as one
// statement when it can, else in an explicit transaction.
func (t *appendTx) run(ctx context.Context, conn *pgxpool.Conn) (outcome, error) {
	chunks := t.chunks()
	if len(chunks) == 0 {
		return outcome{}, nil
	}
	h := t.s.cfg.hooks
	if len(chunks) == 1 && (h == nil || h.beforeCommit == nil) && !t.s.explicitTx.Load() {
		out, err := t.single(ctx, conn, &chunks[0])
		if !errors.Is(err, errNotReadCommitted) {
			return out, err
		}
		// The session's default isolation is not READ COMMITTED: append_facts
		// refused and rolled back. Name the level in a transaction from now on.
		t.s.explicitTx.Store(true)
		t.s.log.Warn("pgstore: the server's default isolation is not READ COMMITTED; appends name it in a transaction of their own", "schema", t.s.schema)
	}
	return t.explicit(ctx, conn, chunks)
}

// errNotReadCommitted marks append_facts refusing an isolation level other
// than READ COMMITTED (SQLSTATE 25000).
var errNotReadCommitted = errors.New("append_facts needs READ COMMITTED")

// appendArgs are append_facts' arguments for c; locks names the streams to
// lock, every stream of the transaction for its first chunk.
func (t *appendTx) appendArgs(c *chunk, locks []string) []any {
	return []any{locks, t.s.lockSeed, c.streams, c.si, c.id, c.payload, t.whole}
}

// appendOIDs are the types of append_facts' arguments, in order.
var appendOIDs = []uint32{pgtype.TextArrayOID, pgtype.Int8OID, pgtype.TextArrayOID, pgtype.Int8ArrayOID, pgtype.TextArrayOID, pgtype.TextArrayOID, pgtype.BoolOID}

// binary is the format of every argument and result of the one statement.
var binaryFormat = []int16{pgtype.BinaryFormatCode}

// single runs the one-chunk transaction c as one statement: append_facts
// in an implicit transaction, then the notification in another, in one
// round trip. Both are statements prepared on the connection (see
// prepared), so that the server binds and runs them without parsing and
// planning the call again.
func (t *appendTx) single(ctx context.Context, conn *pgxpool.Conn, c *chunk) (out outcome, err error) {
	m := conn.Conn().TypeMap()
	args := t.appendArgs(c, t.names)
	params := make([][]byte, len(args))
	for i, a := range args {
		if params[i], err = m.Encode(appendOIDs[i], pgtype.BinaryFormatCode, a, nil); err != nil {
			return outcome{}, t.fail("encode", err, false)
		}
	}
	appendSD, notifySD, err := t.s.prepared(ctx, conn.Conn())
	if err != nil {
		return outcome{}, t.fail("prepare", err, false)
	}
	p := conn.Conn().PgConn().StartPipeline(ctx)
	p.SendQueryStatement(appendSD, params, binaryFormat, binaryFormat)
	p.SendPipelineSync()
	p.SendQueryStatement(notifySD, [][]byte{[]byte(t.s.channel)}, nil, nil)
	err = p.Sync()
	release(t.batch) // the entries are encoded and sent
	if err != nil {
		p.Close()
		return outcome{}, t.fail("append", err, true)
	}
	// The statement commits at the Sync that follows it: from here on a
	// lost connection leaves its outcome unknown.
	if err = t.readSingle(p, m, c, &out); err != nil {
		p.Close()
		return outcome{}, err
	}
	if h := t.s.cfg.hooks; h != nil && h.afterCommit != nil {
		if err := h.afterCommit(); err != nil {
			p.Close()
			return outcome{}, t.fail("commit", err, true)
		}
	}
	// The append committed: its requests hear of it before the
	// notification's reply is read (decision 0244), which the server sends
	// once it has run the notify, after the commit.
	t.rest = func() { t.readNotify(p) }
	return out, nil
}

// readSingle reads what single's pipeline answered for the append: its row
// and its Sync, after which the append has committed.
func (t *appendTx) readSingle(p *pgconn.Pipeline, m *pgtype.Map, c *chunk, out *outcome) error {
	res, err := p.GetResults()
	if err != nil {
		return t.fail("append", refusedIsolation(err), true)
	}
	rr, ok := res.(*pgconn.ResultReader)
	if !ok {
		return t.fail("append", fmt.Errorf("answered %T, want rows", res), true)
	}
	var row [][]byte
	for rr.NextRow() {
		row = slices.Clone(rr.Values())
		for i := range row {
			row[i] = slices.Clone(row[i])
		}
	}
	if _, err := rr.Close(); err != nil {
		return t.fail("append", refusedIsolation(err), true)
	}
	if len(row) != 4 {
		return t.fail("append", fmt.Errorf("answered a row of %d columns, want 4", len(row)), true)
	}
	var seqs []int64
	var held, fits []bool
	var xid *uint64
	for i, dst := range []any{&seqs, &held, &fits, &xid} {
		oid := []uint32{pgtype.Int8ArrayOID, pgtype.BoolArrayOID, pgtype.BoolArrayOID, pgtype.XID8OID}[i]
		if err := m.Scan(oid, pgtype.BinaryFormatCode, row[i], dst); err != nil {
			return t.fail("append", fmt.Errorf("column %d: %w", i+1, err), true)
		}
	}
	if _, err := p.GetResults(); err != nil { // the Sync: the append committed
		return t.fail("commit", err, true)
	}
	if err := t.note(c, seqs, held, fits); err != nil {
		return t.fail("append", err, true)
	}
	if xid != nil {
		out.xid, out.inserted = *xid, true
	}
	return nil
}

// readNotify reads the rest of single's pipeline, the notification and its
// Sync, and closes the pipeline. A failure is logged, not returned: the
// append committed and its requests have their answers, and tails fall
// back to polling; a connection it leaves broken the pool destroys on
// Release.
func (t *appendTx) readNotify(p *pgconn.Pipeline) {
	defer func() {
		if err := p.Close(); err != nil {
			t.s.log.Warn("pgstore: the notify's reply was lost; tails fall back to polling", "schema", t.s.schema, "err", err)
		}
	}()
	for range 2 { // the notification and its Sync
		res, err := p.GetResults()
		if err != nil {
			t.s.log.Warn("pgstore: notify failed; tails fall back to polling", "schema", t.s.schema, "err", err)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) {
				return
			}
			continue
		}
		if rr, ok := res.(*pgconn.ResultReader); ok {
			if _, err := rr.Close(); err != nil {
				t.s.log.Warn("pgstore: notify failed; tails fall back to polling", "schema", t.s.schema, "err", err)
			}
		}
	}
}

// prepared returns the append and the notification as statements prepared
// on conn, preparing them on its first append: one round trip a connection,
// after which the server keeps the call's plan (decision 0244). pgx names
// each after its text's digest, so stores of several schemas on one pool
// do not collide.
func (s *Store) prepared(ctx context.Context, conn *pgx.Conn) (appendSD, notifySD *pgconn.StatementDescription, err error) {
	appendSQL, notifySQL := s.sql.of(appendFactsSQL), s.sql.of(notifySQL)
	if appendSD, err = conn.Prepare(ctx, appendSQL, appendSQL); err != nil {
		return nil, nil, err
	}
	if notifySD, err = conn.Prepare(ctx, notifySQL, notifySQL); err != nil {
		return nil, nil, err
	}
	return appendSD, notifySD, nil
}

// refusedIsolation marks err with errNotReadCommitted when it is
// append_facts refusing the session's isolation level.
func refusedIsolation(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "25000" {
		return fmt.Errorf("%w: %w", errNotReadCommitted, err)
	}
	return err
}

// explicit runs the transaction of chunks between BEGIN and COMMIT.
func (t *appendTx) explicit(ctx context.Context, conn *pgxpool.Conn, chunks []chunk) (out outcome, err error) {
	h := t.s.cfg.hooks
	hook := h != nil && h.beforeCommit != nil
	// COMMIT rides in the first round trip unless something must run
	// between the statements and it: the hook, or the later chunks.
	commitFirst := !hook && len(chunks) == 1
	for i := range chunks {
		b := &pgx.Batch{}
		locks := []string{}
		if i == 0 {
			b.Queue(`BEGIN ISOLATION LEVEL READ COMMITTED`)
			locks = t.names
		}
		c := &chunks[i]
		b.Queue(t.s.sql.of(appendFactsSQL), t.appendArgs(c, locks)...)
		if commitFirst {
			b.Queue("COMMIT")
			b.Queue(t.s.sql.of(notifySQL), t.s.channel)
		}
		br := conn.SendBatch(ctx, b)
		if i == len(chunks)-1 {
			release(t.batch) // the entries are encoded and sent, for the last time
		}
		if err := t.readRound(br, i, c, &out, commitFirst); err != nil {
			return outcome{}, err
		}
	}
	if !commitFirst {
		if err := t.finish(ctx, conn, len(chunks), &out); err != nil {
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

// readRound reads the answers of chunk i's round trip, and closes br:
// BEGIN with the first chunk, then the append, then COMMIT and the
// notification when commitSent.
func (t *appendTx) readRound(br pgx.BatchResults, i int, c *chunk, out *outcome, commitSent bool) error {
	var notifyErr error
	err := func() error {
		if i == 0 {
			if _, err := br.Exec(); err != nil {
				return t.fail("begin", err, commitSent)
			}
		}
		var seqs []int64
		var held, fits []bool
		var xid *uint64
		if err := br.QueryRow().Scan(&seqs, &held, &fits, &xid); err != nil {
			return t.fail("append", err, commitSent)
		}
		if err := t.note(c, seqs, held, fits); err != nil {
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
	return err
}

// note records what append_facts answered for c: each entry's seq, held
// or new, and the streams that did not fit.
func (t *appendTx) note(c *chunk, seqs []int64, held, fits []bool) error {
	if len(seqs) != len(c.at) || len(held) != len(c.at) || len(fits) != len(c.streams) {
		return fmt.Errorf("append answered %d seqs, %d held for %d entries, %d fits for %d streams",
			len(seqs), len(held), len(c.at), len(fits), len(c.streams))
	}
	for j, at := range c.at {
		switch i := c.si[j] - 1; {
		case held[j]:
			t.seq[at], t.held[at] = uint64(seqs[j]), true
		case !fits[i]:
			t.full[c.streams[i]] = true
		default:
			t.seq[at] = uint64(seqs[j])
		}
	}
	return nil
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
