package pgstore

import (
	"context"
	"errors"
	"fmt"

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

// An appendTx is one append transaction of a batch, with what both ways of
// running it (commitStepwise, commitOneTrip) share: the batch's streams and
// the steps that begin the transaction, lock the counter rows, run the
// hooks and record the commit.
type appendTx struct {
	s       *Store
	names   []string // the batch's streams, sorted: the order their counter rows are locked in
	fresh   []string // those of names this store has not seen a counter row for
	entries int
	// pipelined says the transaction's statements and its COMMIT are sent
	// together, so that a failure of the connection may follow the commit.
	pipelined bool
}

// newAppendTx returns the append transaction of batch.
func (s *Store) newAppendTx(batch []*request, pipelined bool) *appendTx {
	var names []string
	seen := map[journal.Stream]bool{}
	for _, r := range batch {
		if !seen[r.stream] {
			seen[r.stream] = true
			names = append(names, string(r.stream))
		}
	}
	slices.Sort(names)
	return &appendTx{s: s, names: names, fresh: s.unknownStreams(names), entries: countEntries(batch), pipelined: pipelined}
}

// fail wraps err, from the named step, with the store and the batch's size.
// In a pipelined transaction an error that is not the server refusing a
// statement is a failed connection, and the commit at the end of the
// pipeline may have happened: it is marked errOutcomeUnknown.
func (t *appendTx) fail(step string, err error) error {
	var pgErr *pgconn.PgError
	if t.pipelined && !errors.As(err, &pgErr) {
		return fmt.Errorf("%s: append of %d records: %s (%w): %w", t.s.name, t.entries, step, errOutcomeUnknown, err)
	}
	return fmt.Errorf("%s: append of %d records: %s: %w", t.s.name, t.entries, step, err)
}

// unknown wraps err, from COMMIT or after it, as a commit whose outcome is unknown.
func (t *appendTx) unknown(err error) error {
	return fmt.Errorf("%s: append of %d records: commit (%w): %w", t.s.name, t.entries, errOutcomeUnknown, err)
}

// queueStart queues the transaction's opening statements on b: BEGIN when
// begin is set, and the counter rows of the streams new to this store.
func (t *appendTx) queueStart(b *pgx.Batch, begin bool) {
	if begin {
		b.Queue("BEGIN")
	}
	if len(t.fresh) > 0 {
		b.Queue(t.s.sql.createStreams, t.fresh)
	}
}

// readStart reads the results of what queueStart queued.
func (t *appendTx) readStart(br pgx.BatchResults, begin bool) error {
	if begin {
		if _, err := br.Exec(); err != nil {
			return t.fail("begin", err)
		}
	}
	if len(t.fresh) > 0 {
		if _, err := br.Exec(); err != nil {
			return t.fail("create streams", err)
		}
	}
	return nil
}

// readLocks reads the rows lockStreams locked, calling head (when not nil)
// with each stream's head, and fails unless every counter row was locked.
func (t *appendTx) readLocks(br pgx.BatchResults, head func(name string, head uint64)) error {
	locked := 0
	if err := scanRows(br, func(rows pgx.Rows) error {
		locked++
		if head == nil {
			return nil
		}
		var name string
		var h int64
		if err := rows.Scan(&name, &h); err != nil {
			return err
		}
		head(name, uint64(h))
		return nil
	}); err != nil {
		return t.fail("lock streams", err)
	}
	if locked != len(t.names) {
		return t.fail("lock streams", fmt.Errorf("locked %d of %d counter rows", locked, len(t.names)))
	}
	return nil
}

// beforeCommit runs the beforeCommit hook, if any, on the transaction's connection.
func (t *appendTx) beforeCommit(ctx context.Context, conn *pgxpool.Conn) error {
	if h := t.s.cfg.hooks; h != nil && h.beforeCommit != nil {
		if err := h.beforeCommit(ctx, conn.Conn()); err != nil {
			return t.fail("before commit", err)
		}
	}
	return nil
}

// committed runs the afterCommit hook, if any, then records the commit of
// transaction xid and, when it inserted facts, wakes the tails.
func (t *appendTx) committed(xid uint64, inserted bool) error {
	if h := t.s.cfg.hooks; h != nil && h.afterCommit != nil {
		if err := h.afterCommit(); err != nil {
			return t.unknown(err)
		}
	}
	t.s.noteCommit(xid, t.fresh)
	if inserted {
		t.s.hint()
	}
	return nil
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
