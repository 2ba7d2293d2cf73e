package pgstore

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobgen/jobgen/journal"
)

// A request is one Append waiting for the transaction that carries it. It
// holds the caller's entries, not copies: Append does not return before the
// committer is done reading them (released).
type request struct {
	stream  string
	entries []journal.Entry
	bytes   int // what the entries weigh in a batch; see entryBytes
	// tied, on the first request of an AppendBatch, counts its requests:
	// they are taken together, alone, into one transaction.
	tied int
	seqs []uint64
	err  error
	// fresh counts the entries the transaction inserted (not held ids),
	// and freshBytes their entryBytes, for the observer.
	fresh, freshBytes int
	// released is closed once the committer reads the entries no more:
	// they are sent, or their transaction failed before it sent them.
	released chan struct{}
	done     chan struct{} // closed once seqs or err is set
}

// entryBytes is what an entry adds to the append statement: its stream
// name, id and payload, as array elements.
func entryBytes(stream string, e journal.Entry) int {
	return len(stream) + len(e.ID) + len(e.Payload) + 24
}

// hooks let tests stop or break an append transaction at a chosen point.
type hooks struct {
	// beforeCommit runs once the transaction's statements have run, holding
	// its locks and its xid, before COMMIT is sent; it gets the
	// transaction's connection.
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
		case <-s.work:
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
		n, entries, bytes := len(s.pending), s.queued, s.queuedBytes
		s.mu.Unlock()
		left := budget - time.Since(start)
		if n >= target || entries >= s.cfg.maxBatch || bytes >= s.cfg.maxBatchBytes || left <= 0 {
			return
		}
		if n > 0 {
			runtime.Gosched()
			continue
		}
		// Nothing queued yet: sleep until an append arrives.
		t := time.NewTimer(left)
		select {
		case <-s.work:
			t.Stop()
		case <-t.C:
			return
		case <-s.stop:
			t.Stop()
			return
		}
	}
}

// take removes the oldest queued requests, up to maxBatch entries and
// maxBatchBytes, or returns nil when none is queued. The oldest request is
// always taken, however large, so that none waits for ever; one larger than
// maxBatchBytes is taken alone. The requests of one AppendBatch (tied) are
// taken together and alone: the transaction is theirs, all or nothing.
func (s *Store) take() []*request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 {
		return nil
	}
	k, n, bytes := 0, 0, 0
	if tied := s.pending[0].tied; tied > 0 {
		for _, r := range s.pending[:tied] {
			n += len(r.entries)
			bytes += r.bytes
		}
		k = tied
	}
	for k < len(s.pending) && s.pending[0].tied == 0 {
		r := s.pending[k]
		if r.tied > 0 || k > 0 && (n+len(r.entries) > s.cfg.maxBatch || bytes+r.bytes > s.cfg.maxBatchBytes) {
			break
		}
		n += len(r.entries)
		bytes += r.bytes
		k++
	}
	batch := s.pending[:k:k]
	s.pending = slices.Clone(s.pending[k:])
	s.queued -= n
	s.queuedBytes -= bytes
	if len(s.pending) > 0 {
		s.work.raise() // another committer may start the rest now
	}
	return batch
}

// run commits one batch and tells each request its outcome. The pool
// destroys the connection on Release if the transaction left it broken,
// busy or inside a transaction.
func (s *Store) run(batch []*request) {
	ctx, cancel := context.WithTimeout(s.bg, commitTimeout)
	defer cancel()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		s.deliver(batch, fmt.Errorf("%s: append: acquire a connection: %w", s.name, err))
		return
	}
	began := time.Now()
	rest, err := s.commitBatch(ctx, conn, batch)
	took := time.Since(began)
	s.observeCommit(took, batch, err)
	s.mu.Lock()
	s.lastCommit = took
	s.gatherTarget = len(s.pending) + len(batch)
	s.mu.Unlock()
	s.deliver(batch, err)
	if rest != nil {
		rest()
	}
	conn.Release()
}

// release tells the appenders of batch that their entries are read no more.
func release(batch []*request) {
	for _, r := range batch {
		select {
		case <-r.released:
		default:
			close(r.released)
		}
	}
}

// deliver sets err on every request of batch that has no outcome yet and
// releases them all.
func (s *Store) deliver(batch []*request, err error) {
	release(batch)
	for _, r := range batch {
		if err != nil && r.err == nil {
			r.err, r.seqs = err, nil
		}
		close(r.done)
	}
}

// noteCommit records a committed append transaction's xid, for ReadAll's
// read-your-writes wait.
func (s *Store) noteCommit(xid uint64) {
	for {
		old := s.lastXid.Load()
		if xid <= old || s.lastXid.CompareAndSwap(old, xid) {
			break
		}
	}
}

// commitBatch runs the append transaction of batch on conn and gives each
// request its seqs, or ErrFull; on error it gives none. rest, when not
// nil, reads what conn still owes after the commit: the caller runs it
// once the requests are answered, before it releases conn.
func (s *Store) commitBatch(ctx context.Context, conn *pgxpool.Conn, batch []*request) (rest func(), err error) {
	t := s.newAppendTx(batch)
	res, err := t.run(ctx, conn)
	if err != nil {
		return nil, err
	}
	if res.inserted {
		s.noteCommit(res.xid)
	}
	return t.rest, t.answer()
}
