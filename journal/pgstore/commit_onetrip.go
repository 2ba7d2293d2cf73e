package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// entryColumns are a batch's entries, in queue order, as the columns
// appendAll and appendNoIDs take; withIDs says whether any has an id.
type entryColumns struct {
	stream, id, payload []string
	withIDs             bool
}

// An appended is what the one-statement append answered: the seq of every
// entry that was inserted or whose id the stream held, by ord (1-based over
// the batch's entries), how many were inserted, and the transaction id.
type appended struct {
	seqOf    []uint64
	inserted int
	xid      uint64
}

// commitOneTrip runs the append transaction for batch in one pipelined round
// trip, an implicit transaction that commits at its Sync: the counter rows of
// new streams; the locks on the batch's counter rows, in name order; then one
// statement that, with a snapshot taken after the locks, skips ids the streams
// hold or the batch repeats, numbers the rest from the heads, inserts them,
// raises the heads and answers each entry's seq and the xid. A batch without
// ids has nothing to look up and takes its locks inside that one statement
// (appendNoIDs). With a beforeCommit hook the same statements run between an
// explicit BEGIN and a COMMIT sent after the hook.
func (s *Store) commitOneTrip(ctx context.Context, conn *pgxpool.Conn, batch []*request) (wrote bool, err error) {
	t := s.newAppendTx(batch, true)
	cols := entriesOf(batch)
	hook := s.cfg.hooks != nil && s.cfg.hooks.beforeCommit != nil
	res, err := t.appendInOneTrip(ctx, conn, cols, hook)
	if err != nil {
		return false, err
	}
	if err := t.committed(res.xid, res.inserted > 0); err != nil {
		return false, err
	}
	if err := s.answer(batch, res.seqOf); err != nil {
		return false, err
	}
	return res.inserted > 0, nil
}

// entriesOf returns batch's entries as columns.
func entriesOf(batch []*request) entryColumns {
	var cols entryColumns
	for _, r := range batch {
		for _, e := range r.entries {
			cols.stream = append(cols.stream, string(r.stream))
			cols.id = append(cols.id, e.ID)
			cols.payload = append(cols.payload, string(e.Payload))
			cols.withIDs = cols.withIDs || e.ID != ""
		}
	}
	return cols
}

// appendInOneTrip sends the pipeline and reads its answer. Without the hook
// the pipeline's Sync commits; with it, the hook runs after the append
// statement and COMMIT follows it.
func (t *appendTx) appendInOneTrip(ctx context.Context, conn *pgxpool.Conn, cols entryColumns, hook bool) (appended, error) {
	b := &pgx.Batch{}
	t.queueStart(b, hook)
	if cols.withIDs {
		b.Queue(t.s.sql.lockStreams, t.names)
		b.Queue(t.s.sql.appendAll, cols.stream, cols.id, cols.payload)
	} else {
		b.Queue(t.s.sql.appendNoIDs, cols.stream, cols.payload, t.names)
	}
	br := conn.SendBatch(ctx, b)
	res, err := t.readOneTrip(br, cols, hook)
	if err != nil {
		br.Close()
		return appended{}, err
	}
	if !hook {
		if err := br.Close(); err != nil { // the Sync: the implicit transaction commits
			return appended{}, t.fail("commit", err)
		}
		return res, nil
	}
	if err := br.Close(); err != nil {
		return appended{}, t.fail("insert", err)
	}
	if err := t.beforeCommit(ctx, conn); err != nil {
		return appended{}, err
	}
	if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
		return appended{}, t.fail("commit", err)
	}
	return res, nil
}

// readOneTrip reads the pipeline's results up to the append statement's answer.
func (t *appendTx) readOneTrip(br pgx.BatchResults, cols entryColumns, hook bool) (appended, error) {
	if err := t.readStart(br, hook); err != nil {
		return appended{}, err
	}
	if cols.withIDs {
		if err := t.readLocks(br, nil); err != nil {
			return appended{}, err
		}
	}
	n := len(cols.stream)
	res := appended{seqOf: make([]uint64, n+1)}
	if err := scanRows(br, func(rows pgx.Rows) error {
		var ord, seq int64
		var isNew bool
		if err := rows.Scan(&ord, &seq, &isNew, &res.xid); err != nil {
			return err
		}
		if ord < 1 || int(ord) > n {
			return fmt.Errorf("append answered entry %d of %d", ord, n)
		}
		res.seqOf[ord] = uint64(seq)
		if isNew {
			res.inserted++
		}
		return nil
	}); err != nil {
		return appended{}, t.fail("insert", err)
	}
	return res, nil
}

// answer gives each request of batch its seqs from seqOf: an entry with no
// seq of its own repeats an id of an earlier entry of the batch, and gets
// that one's seq.
func (s *Store) answer(batch []*request, seqOf []uint64) error {
	first := map[[2]string]uint64{}
	ord := 0
	for _, r := range batch {
		r.seqs = make([]uint64, len(r.entries))
		for i, e := range r.entries {
			ord++
			seq := seqOf[ord]
			key := [2]string{string(r.stream), e.ID}
			if e.ID != "" {
				if seq == 0 {
					seq = first[key]
				} else if _, ok := first[key]; !ok {
					first[key] = seq
				}
			}
			if seq == 0 {
				return fmt.Errorf("%s: append: no seq for entry %d of %q after commit", s.name, i, r.stream)
			}
			r.seqs[i] = seq
		}
	}
	return nil
}
