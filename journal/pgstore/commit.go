package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
	// beforeCommit runs between the two round trips of an append
	// transaction, which holds its counter locks and its xid, before the
	// facts and COMMIT are sent; it gets the transaction's connection.
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
		s.gather()
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

// gather lets appenders that a commit just released queue their next
// entries before the next transaction starts. Without it, appenders that wait
// for their commit and append again split into two halves that alternate
// between transactions, and every commit carries half of them. It waits,
// yielding to the scheduler, until as many requests are queued as there were
// when the last commit finished plus the appends it released, or the queue
// holds a full batch, or half the last commit's duration (at most
// 10ms) passed: the cost to an appender that does not come back.
func (s *Store) gather() {
	s.mu.Lock()
	target, budget := s.gatherTarget, s.lastCommit/2
	s.gatherTarget = 0
	s.mu.Unlock()
	if target == 0 {
		return
	}
	budget = min(budget, 10*time.Millisecond)
	start := time.Now()
	for {
		s.mu.Lock()
		n, entries := len(s.pending), s.queued
		s.mu.Unlock()
		left := budget - time.Since(start)
		if n >= target || entries >= s.cfg.maxBatch || left <= 0 {
			return
		}
		if n > 0 {
			runtime.Gosched()
			continue
		}
		// Nothing queued yet: sleep until an append arrives.
		t := time.NewTimer(left)
		select {
		case <-s.kick:
			t.Stop()
		case <-t.C:
			return
		case <-s.stop:
			t.Stop()
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
	began := time.Now()
	_, err = s.commitBatch(ctx, conn, batch)
	s.mu.Lock()
	s.lastCommit = time.Since(began)
	s.gatherTarget = len(s.pending) + len(batch)
	s.mu.Unlock()
	s.deliver(batch, err)
	if err != nil {
		// The connection may be mid-transaction or broken: drop it rather
		// than hand it back to the pool.
		conn.Conn().Close(context.Background())
		conn.Release()
		return
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

// commitStepwise runs the append transaction for batch on conn, in two round
// trips with the seqs assigned here: it creates the
// counter rows of new streams, locks the batch's counter rows in name order
// (so that concurrent transactions never deadlock), looks up the ids already
// held under those locks, assigns seqs from the heads, inserts the new facts,
// raises the heads and commits. A request that would pass the largest seq
// gets ErrFull and nothing of it is inserted; the rest commit. wrote reports
// whether anything was inserted. On error nothing is delivered yet.
func (s *Store) commitStepwise(ctx context.Context, conn *pgxpool.Conn, batch []*request) (wrote bool, err error) {
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
	fresh := s.unknownStreams(names)

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

	if h := s.cfg.hooks; h != nil && h.beforeCommit != nil {
		if err := h.beforeCommit(ctx, conn.Conn()); err != nil {
			return fail("before commit", err)
		}
	}

	// Round trip 2: facts, heads, the transaction id, COMMIT.
	b = &pgx.Batch{}
	b.Queue(s.sql.insertFacts, fStream, fSeq, fID, fPayload)
	b.Queue(s.sql.raiseHeads, hName, hHead)
	b.Queue(s.sql.xid)
	b.Queue("COMMIT")
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
	if _, err := br.Exec(); err != nil {
		br.Close()
		return fail("commit (its outcome is unknown: retry with ids)", err)
	}
	if h := s.cfg.hooks; h != nil && h.afterCommit != nil {
		if err := h.afterCommit(); err != nil {
			br.Close()
			return fail("commit (its outcome is unknown: retry with ids)", err)
		}
	}
	if err := br.Close(); err != nil {
		return fail("commit (its outcome is unknown: retry with ids)", err)
	}
	s.noteCommit(xid, fresh)
	s.hint()
	return true, nil
}

// noteCommit records a committed append transaction: its xid (for ReadAll's
// read-your-writes wait) and the streams whose counter rows it created.
func (s *Store) noteCommit(xid uint64, fresh []string) {
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
}

// commitBatch commits batch on conn in one round trip (commitOneTrip). If a
// stream would pass the largest seq, that transaction fails whole before its
// COMMIT; it is rolled back and the batch runs again stepwise, which fails
// just the requests that do not fit.
func (s *Store) commitBatch(ctx context.Context, conn *pgxpool.Conn, batch []*request) (wrote bool, err error) {
	wrote, err = s.commitOneTrip(ctx, conn, batch)
	var pgErr *pgconn.PgError
	if err != nil && errors.As(err, &pgErr) && pgErr.Code == "22003" && !errors.Is(err, errOutcomeUnknown) {
		if _, rerr := conn.Exec(ctx, "ROLLBACK"); rerr != nil {
			return false, err
		}
		for _, r := range batch {
			r.seqs, r.err = nil, nil
		}
		return s.commitStepwise(ctx, conn, batch)
	}
	return wrote, err
}

// errOutcomeUnknown marks a failure at or after COMMIT: the transaction may
// have committed.
var errOutcomeUnknown = errors.New("its outcome is unknown: retry with ids")

// commitOneTrip runs the append transaction for batch in one pipelined round
// trip, an implicit transaction that commits at its Sync: the counter rows of
// new streams; the locks on the batch's counter rows, in name order; then one
// statement that, with a snapshot taken after the locks, skips ids the streams
// hold or the batch repeats, numbers the rest from the heads, inserts them,
// raises the heads and answers each entry's seq and the xid. A batch without
// ids has nothing to look up and takes its locks inside that one statement
// (appendNoIDs). With a
// beforeCommit hook the same statements run between an explicit BEGIN and a
// COMMIT sent after the hook.
func (s *Store) commitOneTrip(ctx context.Context, conn *pgxpool.Conn, batch []*request) (wrote bool, err error) {
	var names []string
	seen := map[journal.Stream]bool{}
	var eStream, eID, ePayload []string
	withIDs := false
	for _, r := range batch {
		if !seen[r.stream] {
			seen[r.stream] = true
			names = append(names, string(r.stream))
		}
		for _, e := range r.entries {
			eStream = append(eStream, string(r.stream))
			eID = append(eID, e.ID)
			ePayload = append(ePayload, string(e.Payload))
			withIDs = withIDs || e.ID != ""
		}
	}
	slices.Sort(names)
	fresh := s.unknownStreams(names)
	fail := func(step string, err error) (bool, error) {
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) {
			// Not the server refusing a statement: the connection failed, and
			// the commit at the end of the pipeline may have happened.
			return false, fmt.Errorf("%s: append of %d records: %s (%w): %w", s.name, len(eStream), step, errOutcomeUnknown, err)
		}
		return false, fmt.Errorf("%s: append of %d records: %s: %w", s.name, len(eStream), step, err)
	}
	hook := s.cfg.hooks != nil && s.cfg.hooks.beforeCommit != nil

	b := &pgx.Batch{}
	if hook {
		b.Queue("BEGIN")
	}
	if len(fresh) > 0 {
		b.Queue(s.sql.createStreams, fresh)
	}
	if withIDs {
		b.Queue(s.sql.lockStreams, names)
		b.Queue(s.sql.appendAll, eStream, eID, ePayload)
	} else {
		b.Queue(s.sql.appendNoIDs, eStream, ePayload, names)
	}
	br := conn.SendBatch(ctx, b)
	defer func() {
		if br != nil {
			br.Close()
		}
	}()
	if hook {
		if _, err := br.Exec(); err != nil {
			return fail("begin", err)
		}
	}
	if len(fresh) > 0 {
		if _, err := br.Exec(); err != nil {
			return fail("create streams", err)
		}
	}
	if withIDs {
		locked := 0
		if err := scanRows(br, func(pgx.Rows) error { locked++; return nil }); err != nil {
			return fail("lock streams", err)
		}
		if locked != len(names) {
			return fail("lock streams", fmt.Errorf("locked %d of %d counter rows", locked, len(names)))
		}
	}
	// ord (1-based, over the batch's entries) -> seq, for every entry that was
	// inserted or whose id the stream held.
	seqOf := make([]uint64, len(eStream)+1)
	inserted := 0
	var xid uint64
	if err := scanRows(br, func(rows pgx.Rows) error {
		var ord, seq int64
		var isNew bool
		if err := rows.Scan(&ord, &seq, &isNew, &xid); err != nil {
			return err
		}
		if ord < 1 || int(ord) > len(eStream) {
			return fmt.Errorf("append answered entry %d of %d", ord, len(eStream))
		}
		seqOf[ord] = uint64(seq)
		if isNew {
			inserted++
		}
		return nil
	}); err != nil {
		return fail("insert", err)
	}
	if hook {
		if err := br.Close(); err != nil {
			return fail("insert", err)
		}
		br = nil
		if err := s.cfg.hooks.beforeCommit(ctx, conn.Conn()); err != nil {
			return fail("before commit", err)
		}
		if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
			return fail("commit", err)
		}
	} else {
		err := br.Close() // the Sync: the implicit transaction commits
		br = nil
		if err != nil {
			return fail("commit", err)
		}
	}
	if h := s.cfg.hooks; h != nil && h.afterCommit != nil {
		if err := h.afterCommit(); err != nil {
			return false, fmt.Errorf("%s: append of %d records: commit (%w): %w", s.name, len(eStream), errOutcomeUnknown, err)
		}
	}
	s.noteCommit(xid, fresh)
	if inserted > 0 {
		s.hint()
	}

	// Answer each request: an entry with no seq of its own repeats an id of an
	// earlier entry of the batch, and gets that one's seq.
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
				return false, fmt.Errorf("%s: append: no seq for entry %d of %q after commit", s.name, i, r.stream)
			}
			r.seqs[i] = seq
		}
	}
	return inserted > 0, nil
}

// hint asks the notifier to send the tails' wake-up hint.
func (s *Store) hint() {
	select {
	case s.notifyKick <- struct{}{}:
	default:
	}
}

// notifier sends NOTIFY on the store's channel after commits, on a pooled
// connection and in a transaction of its own, coalescing the commits that
// land while one is sent. It is not in the append transaction because
// PostgreSQL holds a cluster-wide lock from a notifying transaction's
// pre-commit to its end, which would serialize every writer's commit flush;
// the notify-only transaction writes no WAL and waits for no flush. A hint
// lost in between costs a tail at most one poll interval.
func (s *Store) notifier() {
	defer s.notified.Done()
	for {
		select {
		case <-s.notifyKick:
		case <-s.bg.Done():
			return
		}
		if _, err := s.pool.Exec(s.bg, s.sql.notify, s.channel); err != nil && s.bg.Err() == nil {
			s.log.Warn("pgstore: notify failed; tails fall back to polling", "schema", s.schema, "err", err)
		}
	}
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

// unknownStreams returns the names, in their order, of the streams this store
// has not yet seen a counter row for: the ones an append must create.
func (s *Store) unknownStreams(names []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var fresh []string
	for _, n := range names {
		if !s.known[journal.Stream(n)] {
			fresh = append(fresh, n)
		}
	}
	return fresh
}
