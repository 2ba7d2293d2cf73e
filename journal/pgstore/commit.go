package pgstore

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobgen/jobgen/journal"
)

// A request is one Append waiting for the transaction that carries it.
type request struct {
	stream  journal.Stream
	entries []journal.Entry
	size    int
	seqs    []uint64
	err     error
	done    chan struct{} // closed once seqs or err is set
}

// hooks let tests stop or break an append transaction at a chosen point.
type hooks struct {
	// beforeCommit runs after the facts are inserted, before COMMIT is sent,
	// with the transaction's connection.
	beforeCommit func(ctx context.Context, conn *pgx.Conn) error
	// afterCommit runs once COMMIT succeeded, before the appends hear of it;
	// an error stands for a reply the network lost.
	afterCommit func() error
}

// commitTimeout bounds one append transaction, so that a server that stops
// answering fails the appends waiting on it instead of hanging them.
const commitTimeout = 2 * time.Minute

// committer runs append transactions until Close, then drains what is queued.
func (s *Store) committer() {
	defer s.committed.Done()
	for {
		if batch := s.take(); batch != nil {
			s.run(batch)
			continue
		}
		select {
		case <-s.kick:
		case <-s.stop:
			if batch := s.take(); batch != nil {
				s.run(batch)
				continue
			}
			return
		}
	}
}

// take removes the oldest queued requests, up to maxBatch entries (at least
// one request), or returns nil when none is queued.
func (s *Store) take() []*request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 {
		return nil
	}
	k, n := 0, 0
	for k < len(s.pending) && (k == 0 || n+len(s.pending[k].entries) <= s.cfg.maxBatch) {
		n += len(s.pending[k].entries)
		k++
	}
	batch := s.pending[:k:k]
	s.pending = slices.Clone(s.pending[k:])
	s.queued -= n
	if len(s.pending) > 0 {
		s.poke() // another committer may start the rest now
	}
	return batch
}

// run commits one batch and tells each request its outcome.
func (s *Store) run(batch []*request) {
	ctx, cancel := context.WithTimeout(s.bg, commitTimeout)
	defer cancel()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		s.deliver(batch, fmt.Errorf("%s: append: acquire a connection: %w", s.name, err))
		return
	}
	wrote, err := s.commitBatch(ctx, conn, batch)
	s.deliver(batch, err)
	if err != nil {
		// The connection may be mid-transaction or broken: drop it rather
		// than hand it back to the pool.
		conn.Conn().Close(context.Background())
		conn.Release()
		return
	}
	if wrote {
		// A wake-up hint for tails, sent after the appends returned so it costs
		// them no latency, and outside the append transaction: in PostgreSQL a
		// NOTIFY holds a cluster-wide lock from pre-commit to the end of the
		// commit, which would serialize every writer's commit flush. A lost
		// hint costs a tail at most one poll interval.
		if _, err := conn.Exec(ctx, s.sql.notify, s.channel); err != nil {
			s.log.Warn("pgstore: notify failed; tails fall back to polling", "schema", s.schema, "err", err)
		}
	}
	conn.Release()
}

// deliver sets err on every request of batch that has no outcome yet and
// releases them all.
func (s *Store) deliver(batch []*request, err error) {
	for _, r := range batch {
		if err != nil && r.err == nil {
			r.err, r.seqs = err, nil
		}
		close(r.done)
	}
}

// A streamWork is one stream's part of a batch.
type streamWork struct {
	head uint64
	ids  map[string]uint64 // ids the stream holds or the batch gave, with their seqs
}

// commitBatch runs the append transaction for batch on conn: it creates the
// counter rows of new streams, locks the batch's counter rows in name order
// (so that concurrent transactions never deadlock), looks up the ids already
// held under those locks, assigns seqs from the heads, inserts the new facts,
// raises the heads and commits. A request that would pass the largest seq
// gets ErrFull and nothing of it is inserted; the rest commit. wrote reports
// whether anything was inserted. On error nothing is delivered yet.
func (s *Store) commitBatch(ctx context.Context, conn *pgxpool.Conn, batch []*request) (wrote bool, err error) {
	work := map[journal.Stream]*streamWork{}
	var names []string
	var idStreams, idKeys []string
	for _, r := range batch {
		if work[r.stream] == nil {
			work[r.stream] = &streamWork{ids: map[string]uint64{}}
			names = append(names, string(r.stream))
		}
		for _, e := range r.entries {
			if e.ID != "" {
				idStreams = append(idStreams, string(r.stream))
				idKeys = append(idKeys, e.ID)
			}
		}
	}
	slices.Sort(names)
	var fresh []string
	s.mu.Lock()
	for _, n := range names {
		if !s.known[journal.Stream(n)] {
			fresh = append(fresh, n)
		}
	}
	s.mu.Unlock()

	fail := func(step string, err error) (bool, error) {
		return false, fmt.Errorf("%s: append of %d records: %s: %w", s.name, countEntries(batch), step, err)
	}

	// Round trip 1: begin, counter rows, locks, ids already held.
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	if len(fresh) > 0 {
		b.Queue(s.sql.createStreams, fresh)
	}
	b.Queue(s.sql.lockStreams, names)
	if len(idKeys) > 0 {
		b.Queue(s.sql.findIDs, idStreams, idKeys)
	}
	br := conn.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		br.Close()
		return fail("begin", err)
	}
	if len(fresh) > 0 {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return fail("create streams", err)
		}
	}
	locked := 0
	if err := scanRows(br, func(rows pgx.Rows) error {
		var name string
		var head int64
		if err := rows.Scan(&name, &head); err != nil {
			return err
		}
		work[journal.Stream(name)].head = uint64(head)
		locked++
		return nil
	}); err != nil {
		br.Close()
		return fail("lock streams", err)
	}
	if len(idKeys) > 0 {
		if err := scanRows(br, func(rows pgx.Rows) error {
			var stream, id string
			var seq int64
			if err := rows.Scan(&stream, &id, &seq); err != nil {
				return err
			}
			work[journal.Stream(stream)].ids[id] = uint64(seq)
			return nil
		}); err != nil {
			br.Close()
			return fail("look up ids", err)
		}
	}
	if err := br.Close(); err != nil {
		return fail("lock streams", err)
	}
	if locked != len(names) {
		return fail("lock streams", fmt.Errorf("locked %d of %d counter rows", locked, len(names)))
	}

	// Assign seqs in queue order; a request is all or nothing.
	var fStream, fID, fPayload []string
	var fSeq []int64
	for _, r := range batch {
		w := work[r.stream]
		seqs := make([]uint64, len(r.entries))
		dup := make([]bool, len(r.entries))
		mine := map[string]uint64{}
		next := w.head
		full := false
		for i, e := range r.entries {
			if e.ID != "" {
				if seq, ok := w.ids[e.ID]; ok {
					seqs[i], dup[i] = seq, true
					continue
				}
				if seq, ok := mine[e.ID]; ok {
					seqs[i], dup[i] = seq, true
					continue
				}
			}
			if next >= math.MaxInt64 {
				full = true
				break
			}
			next++
			seqs[i] = next
			if e.ID != "" {
				mine[e.ID] = next
			}
		}
		if full {
			r.err = fmt.Errorf("%s: append to %q: seq would pass %d: %w", s.name, r.stream, int64(math.MaxInt64), journal.ErrFull)
			continue
		}
		for i, e := range r.entries {
			if dup[i] {
				continue
			}
			fStream = append(fStream, string(r.stream))
			fSeq = append(fSeq, int64(seqs[i]))
			fID = append(fID, e.ID)
			fPayload = append(fPayload, string(e.Payload))
		}
		for id, seq := range mine {
			w.ids[id] = seq
		}
		w.head = next
		r.seqs = seqs
	}

	if len(fSeq) == 0 {
		// Only duplicates (or full streams): nothing to make durable.
		if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
			return fail("rollback", err)
		}
		return false, nil
	}
	var hName []string
	var hHead []int64
	for _, n := range names {
		w := work[journal.Stream(n)]
		hName = append(hName, n)
		hHead = append(hHead, int64(w.head))
	}

	// Round trip 2: facts, heads, the transaction id, commit.
	b = &pgx.Batch{}
	b.Queue(s.sql.insertFacts, fStream, fSeq, fID, fPayload)
	b.Queue(s.sql.raiseHeads, hName, hHead)
	b.Queue(s.sql.xid)
	br = conn.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		br.Close()
		return fail("insert", err)
	}
	if _, err := br.Exec(); err != nil {
		br.Close()
		return fail("raise heads", err)
	}
	var xid uint64
	if err := br.QueryRow().Scan(&xid); err != nil {
		br.Close()
		return fail("transaction id", err)
	}
	if err := br.Close(); err != nil {
		return fail("insert", err)
	}
	if h := s.cfg.hooks; h != nil && h.beforeCommit != nil {
		if err := h.beforeCommit(ctx, conn.Conn()); err != nil {
			return fail("before commit", err)
		}
	}
	if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
		return fail("commit (its outcome is unknown: retry with ids)", err)
	}
	if h := s.cfg.hooks; h != nil && h.afterCommit != nil {
		if err := h.afterCommit(); err != nil {
			return fail("commit (its outcome is unknown: retry with ids)", err)
		}
	}
	for {
		old := s.lastXid.Load()
		if xid <= old || s.lastXid.CompareAndSwap(old, xid) {
			break
		}
	}
	if len(fresh) > 0 {
		s.mu.Lock()
		for _, n := range fresh {
			s.known[journal.Stream(n)] = true
		}
		s.mu.Unlock()
	}
	return true, nil
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

func countEntries(batch []*request) int {
	n := 0
	for _, r := range batch {
		n += len(r.entries)
	}
	return n
}
