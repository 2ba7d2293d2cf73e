package pgtest

import (
	"context"
	"sync"
	"time"

	"github.com/jobgen/jobgen/journal"
)

// A Tail collects what a journal tail delivers, in the background, until
// it is stopped or ends: what the tests that kill, cut or archive under a
// tail compare with the store afterwards.
type Tail struct {
	mu     sync.Mutex
	recs   []journal.Record
	err    error
	done   chan struct{}
	cancel context.CancelFunc
}

// StartTail tails s after after until Stop or ctx ends.
func StartTail(ctx context.Context, s journal.Tailer, after journal.Position) *Tail {
	ctx, cancel := context.WithCancel(ctx)
	t := &Tail{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(t.done)
		for rec, err := range s.Tail(ctx, after) {
			t.mu.Lock()
			if err != nil {
				t.err = err
			} else {
				t.recs = append(t.recs, rec)
			}
			t.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return t
}

// Stop ends the tail and returns what it delivered and the error that
// ended it, if one did.
func (t *Tail) Stop() ([]journal.Record, error) {
	t.cancel()
	<-t.done
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.recs, t.err
}

// WaitFor waits until enough says what the tail delivered suffices, or the
// tail ends, or within passes, and then stops it as Stop does.
func (t *Tail) WaitFor(within time.Duration, enough func([]journal.Record) bool) ([]journal.Record, error) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		t.mu.Lock()
		ok := enough(t.recs)
		t.mu.Unlock()
		if ok {
			break
		}
		select {
		case <-t.done:
			return t.Stop()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return t.Stop()
}
