package pgstore

import (
	"context"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobgen/jobgen/journal"
)

// A streamWork is one stream's part of a batch.
type streamWork struct {
	head uint64
	ids  map[string]uint64 // ids the stream holds or the batch gave, with their seqs
}

// factColumns are the facts of one transaction as the columns insertFacts takes.
type factColumns struct {
	stream, id, payload []string
	seq                 []int64
}

// commitStepwise runs the append transaction for batch on conn, in two round
// trips with the seqs assigned here: it creates the
// counter rows of new streams, locks the batch's counter rows in name order
// (so that concurrent transactions never deadlock), looks up the ids already
// held under those locks, assigns seqs from the heads, inserts the new facts,
// raises the heads and commits. A request that would pass the largest seq
// gets ErrFull and nothing of it is inserted; the rest commit. wrote reports
// whether anything was inserted. On error nothing is delivered yet.
func (s *Store) commitStepwise(ctx context.Context, conn *pgxpool.Conn, batch []*request) (wrote bool, err error) {
	t := s.newAppendTx(batch, false)
	work, err := t.lockAndFindIDs(ctx, conn, batch)
	if err != nil {
		return false, err
	}
	facts := s.assignSeqs(batch, work)
	if len(facts.seq) == 0 {
		// Only duplicates (or full streams): nothing to make durable.
		if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
			return false, t.fail("rollback", err)
		}
		return false, nil
	}
	if err := t.beforeCommit(ctx, conn); err != nil {
		return false, err
	}
	xid, err := t.insertAndCommit(ctx, conn, facts, work)
	if err != nil {
		return false, err
	}
	if err := t.committed(xid, true); err != nil {
		return false, err
	}
	return true, nil
}

// lockAndFindIDs is the first round trip: it begins the transaction, creates
// the counter rows of new streams, locks the batch's and looks up the ids of
// its entries that the streams already hold. It returns each stream's head
// and held ids.
func (t *appendTx) lockAndFindIDs(ctx context.Context, conn *pgxpool.Conn, batch []*request) (map[journal.Stream]*streamWork, error) {
	work := map[journal.Stream]*streamWork{}
	var idStreams, idKeys []string
	for _, r := range batch {
		if work[r.stream] == nil {
			work[r.stream] = &streamWork{ids: map[string]uint64{}}
		}
		for _, e := range r.entries {
			if e.ID != "" {
				idStreams = append(idStreams, string(r.stream))
				idKeys = append(idKeys, e.ID)
			}
		}
	}
	b := &pgx.Batch{}
	t.queueStart(b, true)
	b.Queue(t.s.sql.lockStreams, t.names)
	if len(idKeys) > 0 {
		b.Queue(t.s.sql.findIDs, idStreams, idKeys)
	}
	br := conn.SendBatch(ctx, b)
	if err := t.readLocksAndIDs(br, work, len(idKeys) > 0); err != nil {
		br.Close()
		return nil, err
	}
	if err := br.Close(); err != nil {
		return nil, t.fail("lock streams", err)
	}
	return work, nil
}

// readLocksAndIDs reads the first round trip's results into work.
func (t *appendTx) readLocksAndIDs(br pgx.BatchResults, work map[journal.Stream]*streamWork, findIDs bool) error {
	if err := t.readStart(br, true); err != nil {
		return err
	}
	if err := t.readLocks(br, func(name string, head uint64) { work[journal.Stream(name)].head = head }); err != nil {
		return err
	}
	if !findIDs {
		return nil
	}
	if err := scanRows(br, func(rows pgx.Rows) error {
		var stream, id string
		var seq int64
		if err := rows.Scan(&stream, &id, &seq); err != nil {
			return err
		}
		work[journal.Stream(stream)].ids[id] = uint64(seq)
		return nil
	}); err != nil {
		return t.fail("look up ids", err)
	}
	return nil
}

// assignSeqs numbers the batch's entries from the heads in queue order and
// returns the facts to insert. A request is all or nothing: one that would
// pass the largest seq gets ErrFull; the others get their seqs, and the
// heads and held ids in work move past them.
func (s *Store) assignSeqs(batch []*request, work map[journal.Stream]*streamWork) factColumns {
	var facts factColumns
	for _, r := range batch {
		w := work[r.stream]
		seqs, dup, mine, next, ok := w.number(r.entries)
		if !ok {
			r.err = fmt.Errorf("%s: append to %q: seq would pass %d: %w", s.name, r.stream, int64(math.MaxInt64), journal.ErrFull)
			continue
		}
		for i, e := range r.entries {
			if dup[i] {
				continue
			}
			facts.stream = append(facts.stream, string(r.stream))
			facts.seq = append(facts.seq, int64(seqs[i]))
			facts.id = append(facts.id, e.ID)
			facts.payload = append(facts.payload, string(e.Payload))
		}
		for id, seq := range mine {
			w.ids[id] = seq
		}
		w.head = next
		r.seqs = seqs
	}
	return facts
}

// number gives entries their seqs after the stream's head: an entry whose id
// the stream holds, or an earlier entry of the same request gave, takes that
// seq (dup); the rest are numbered. It returns the ids it numbered (mine) and
// the new head, or ok false when a seq would pass the largest.
func (w *streamWork) number(entries []journal.Entry) (seqs []uint64, dup []bool, mine map[string]uint64, next uint64, ok bool) {
	seqs = make([]uint64, len(entries))
	dup = make([]bool, len(entries))
	mine = map[string]uint64{}
	next = w.head
	for i, e := range entries {
		if e.ID != "" {
			if seq, held := w.ids[e.ID]; held {
				seqs[i], dup[i] = seq, true
				continue
			}
			if seq, given := mine[e.ID]; given {
				seqs[i], dup[i] = seq, true
				continue
			}
		}
		if next >= math.MaxInt64 {
			return nil, nil, nil, 0, false
		}
		next++
		seqs[i] = next
		if e.ID != "" {
			mine[e.ID] = next
		}
	}
	return seqs, dup, mine, next, true
}

// insertAndCommit is the second round trip: it inserts facts, raises the
// heads of the batch's streams to those in work, reads the transaction id
// and commits.
func (t *appendTx) insertAndCommit(ctx context.Context, conn *pgxpool.Conn, facts factColumns, work map[journal.Stream]*streamWork) (xid uint64, err error) {
	var hHead []int64
	for _, n := range t.names {
		hHead = append(hHead, int64(work[journal.Stream(n)].head))
	}
	b := &pgx.Batch{}
	b.Queue(t.s.sql.insertFacts, facts.stream, facts.seq, facts.id, facts.payload)
	b.Queue(t.s.sql.raiseHeads, t.names, hHead)
	b.Queue(t.s.sql.xid)
	b.Queue("COMMIT")
	br := conn.SendBatch(ctx, b)
	if err := t.readInsertAndCommit(br, &xid); err != nil {
		br.Close()
		return 0, err
	}
	if err := br.Close(); err != nil {
		return 0, t.unknown(err)
	}
	return xid, nil
}

// readInsertAndCommit reads the second round trip's results, the
// transaction id into xid.
func (t *appendTx) readInsertAndCommit(br pgx.BatchResults, xid *uint64) error {
	if _, err := br.Exec(); err != nil {
		return t.fail("insert", err)
	}
	if _, err := br.Exec(); err != nil {
		return t.fail("raise heads", err)
	}
	if err := br.QueryRow().Scan(xid); err != nil {
		return t.fail("transaction id", err)
	}
	if _, err := br.Exec(); err != nil {
		return t.unknown(err)
	}
	return nil
}
