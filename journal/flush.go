package journal

import (
	"context"
	"fmt"
	"io"
	"time"
)

// writeLocked writes the buffered records to the file and returns the last
// position written. s.wmu is held; s.mu is not.
func (s *FileStore) writeLocked() (uint64, error) {
	s.mu.Lock()
	if s.err != nil || s.fileClosed {
		err := s.err
		if err == nil {
			err = fmt.Errorf("journal %s: %w", s.path, ErrClosed)
		}
		s.mu.Unlock()
		return 0, err
	}
	data, upto := s.buf, s.ix.lastPos
	s.buf = s.spare[:0]
	s.mu.Unlock()
	s.spare = nil
	if len(data) > 0 {
		if err := s.preallocate(int64(len(data))); err != nil {
			return 0, err
		}
		if _, err := s.f.Write(data); err != nil {
			return 0, s.setErr("write", err)
		}
		s.mu.Lock()
		s.written += int64(len(data))
		s.mu.Unlock()
	}
	s.spare = data[:0]
	return upto, nil
}

// Preallocation: the file is extended ahead of the records with zero bytes
// that are written and synced (fallocate, then zeros over the new space,
// then fdatasync), so that a sync of records makes only data durable: no new
// file size, and no extent changing from allocated-but-unwritten to written,
// which on ext4 costs an fdatasync a journal commit and made the batch append
// pay about a quarter more per sync than overwriting written blocks (decision
// 0246). Readers take a zero tail for the end of the records (see the
// package documentation).
const (
	minAhead = 1 << 20 // the least a preallocation adds past the data
	maxAhead = 8 << 20 // the most; between them, a quarter of the file
	// fillChunk is the most zero bytes one write of a fill writes.
	fillChunk = 256 << 10
)

// preallocate makes sure the file has room for n more bytes after written,
// extending its preallocated tail when it has not. A file that cannot be
// preallocated (see File; or a file system without fallocate) is written as
// it is; so is one where preallocating failed once. The new space is filled
// with zeros and synced when the File is an io.WriterAt; the returned error
// is that sync's failure, which is sticky since it may have dropped records
// written before it. s.wmu is held.
func (s *FileStore) preallocate(n int64) error {
	if s.noAlloc || s.written+n <= s.alloc {
		return nil
	}
	ahead := min(max(s.written/4, minAhead), maxAhead)
	from, to := max(s.alloc, s.written), s.written+n+ahead
	if err := allocate(s.f, s.written, to-s.written); err != nil {
		s.noAlloc = true
		return nil
	}
	s.alloc = to
	w, ok := s.f.(io.WriterAt)
	if !ok {
		return nil
	}
	if err := fillZeros(w, from, to); err != nil {
		// The space stays allocated, reading as zeros; records are
		// written over it as they would be without the fill.
		s.noAlloc = true
		return nil
	}
	if err := syncFile(s.f); err != nil {
		return s.setErr("sync the preallocated tail", err)
	}
	return nil
}

// fillZeros writes zero bytes over [from, to) of w.
func fillZeros(w io.WriterAt, from, to int64) error {
	zeros := make([]byte, min(to-from, fillChunk))
	for off := from; off < to; {
		k, err := w.WriteAt(zeros[:min(int64(len(zeros)), to-off)], off)
		off += int64(k)
		if err != nil {
			return err
		}
	}
	return nil
}

// dropTailLocked cuts the preallocated tail off the file, so that a journal
// closed cleanly ends with its last record. A crash leaves the tail, which
// readers skip and Open cuts. s.wmu is held and nothing is buffered.
func (s *FileStore) dropTailLocked() error {
	if s.alloc <= s.written {
		return nil
	}
	if err := s.f.Truncate(s.written); err != nil {
		return s.fail("close: cut the preallocated tail", err)
	}
	s.alloc = 0
	return nil
}

// writeOut writes the buffered records to the file, without syncing, taking
// s.wmu for it; s.mu is not held.
func (s *FileStore) writeOut() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.writeLocked()
	return err
}

// setErr makes err the store's sticky failure, unless one is set, and returns
// the sticky failure.
func (s *FileStore) setErr(op string, err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = fmt.Errorf("journal %s: %s failed, the journal takes no more writes: %w: %w", s.path, op, ErrFailed, err)
	}
	return s.err
}

// Flush is the durability barrier: it returns nil once every record appended
// before the call is durable. Concurrent flushers share one sync (group
// commit): one of them writes and syncs everything buffered while the others
// wait for it, and each returns once a sync covering its records completed.
//
// A failed write or sync is sticky: the flush that saw it, every flush waiting
// on it and every later flush and append fail with it (wrapping ErrFailed).
// The store does not retry, since a retried fsync can succeed without the
// lost pages being on disk. Reopen the journal to recover what reached the
// file.
//
// ctx bounds only the wait for another flusher's sync; a sync in progress is
// not interrupted.
func (s *FileStore) Flush(ctx context.Context) error {
	if s.obs == nil {
		return s.flush(ctx)
	}
	start := time.Now()
	err := s.flush(ctx)
	s.obs.Flushed(time.Since(start), err)
	return err
}

func (s *FileStore) flush(ctx context.Context) error {
	s.mu.Lock()
	target, closed := s.ix.lastPos, s.closed
	s.mu.Unlock()
	if closed {
		return fmt.Errorf("journal %s: %w", s.path, ErrClosed)
	}
	return s.flushTo(ctx, target)
}

func (s *FileStore) flushTo(ctx context.Context, target uint64) error {
	if err := ctx.Err(); err != nil {
		return s.fail("flush", err)
	}
	s.mu.Lock()
	if s.synced < target {
		s.countFlusher(target)
	}
	for {
		switch {
		case s.err != nil:
			err := s.err
			s.mu.Unlock()
			return err
		case s.synced >= target:
			s.mu.Unlock()
			return nil
		case s.fileClosed:
			s.mu.Unlock()
			return fmt.Errorf("journal %s: %w", s.path, ErrClosed)
		case !s.syncing:
			s.syncing = true
			round := s.round
			s.gatherLocked()
			s.gc.covered, s.gc.pending, s.gc.grabbed, s.gc.inFlight = s.gc.pending, 0, s.ix.lastPos, true
			s.mu.Unlock()
			start := time.Now()
			s.syncRound()
			took := time.Since(start)
			s.mu.Lock()
			s.gc.expect, s.gc.covered, s.gc.inFlight, s.gc.lastSync = s.gc.covered+s.gc.pending, 0, false, took
			s.syncing = false
			s.round = make(chan struct{})
			close(round)
		default:
			round := s.round
			s.mu.Unlock()
			select {
			case <-round:
			case <-ctx.Done():
				return s.fail("flush", ctx.Err())
			}
			s.mu.Lock()
		}
	}
}

// gathering is what group commit knows of the flushers, to make each sync
// cover as many as it can. Without it, n committers that each append and
// flush split into two groups that take turns: while one group's sync runs
// the other appends, and when the sync ends the first of the waiting group
// starts the next sync at once, before the group just released has
// appended again, so each sync covers half of them (0.5× etcd's Save(n) at
// 16 and 128 committers). So the next leader waits, for at most
// the time the last sync took, until as many flushers are pending as were
// waiting when the last sync ended: the group just released rejoins, and
// the two become one. A lone committer never waits: one flusher is all the
// last sync saw.
type gathering struct {
	covered  int           // flushers the sync in flight covers
	pending  int           // flushers that need a later sync
	expect   int           // flushers waiting when the last sync ended
	inFlight bool          // a sync is writing or syncing
	grabbed  uint64        // the last position the sync in flight covers
	lastSync time.Duration // what the last write and sync took
	arrived  chan struct{} // signalled when pending reaches expect
}

// maxGather bounds a leader's wait for the flushers it expects.
const maxGather = time.Millisecond

// countFlusher counts a flusher of records up to target that has to wait
// for a sync. s.mu is held.
func (s *FileStore) countFlusher(target uint64) {
	if s.gc.inFlight && target <= s.gc.grabbed {
		s.gc.covered++
		return
	}
	s.gc.pending++
	if s.gc.pending == s.gc.expect { // wake the leader once, not per flusher
		select {
		case s.gc.arrived <- struct{}{}:
		default:
		}
	}
}

// gatherLocked waits, as the leader of the next sync, until as many
// flushers are pending as the last sync ended with, or for as long as it
// took. s.mu is held, and released while it waits.
func (s *FileStore) gatherLocked() {
	if s.gc.pending >= s.gc.expect || s.gc.lastSync <= 0 {
		return
	}
	select {
	case <-s.gc.arrived: // a signal from before this wait
	default:
	}
	timer := time.NewTimer(min(s.gc.lastSync, maxGather))
	defer timer.Stop()
	for s.gc.pending < s.gc.expect {
		s.mu.Unlock()
		select {
		case <-s.gc.arrived:
		case <-timer.C:
			s.mu.Lock()
			return
		}
		s.mu.Lock()
	}
}

// syncRound writes everything buffered and syncs the file, recording what the
// sync covered or the failure. The caller holds the syncing role.
func (s *FileStore) syncRound() {
	s.wmu.Lock()
	upto, err := s.writeLocked()
	s.wmu.Unlock() // appenders may write more while the sync runs
	if err != nil {
		return
	}
	if err := syncFile(s.f); err != nil {
		s.setErr("sync", err)
		return
	}
	s.mu.Lock()
	s.synced = max(s.synced, upto)
	s.mu.Unlock()
}
