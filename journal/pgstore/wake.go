package pgstore

import "sync"

// A signal wakes one goroutine that waits for work (a committer) by
// receiving from it: raise never blocks, and raises that come while nobody
// waits collapse into one, so a waiter that wakes looks at all the work
// there is.
type signal chan struct{}

func newSignal() signal { return make(signal, 1) }

// raise wakes a waiter, now or when it next waits.
func (s signal) raise() {
	select {
	case s <- struct{}{}:
	default:
	}
}

// A broadcast wakes every goroutine waiting on it (the tails): each takes
// the channel wait returns before it looks for work, so a raise while it
// looks is not lost.
type broadcast struct {
	mu sync.Mutex
	ch chan struct{}
}

func newBroadcast() *broadcast { return &broadcast{ch: make(chan struct{})} }

// wait returns the channel the next raise closes.
func (b *broadcast) wait() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ch
}

// raise wakes every goroutine waiting on a channel wait returned.
func (b *broadcast) raise() {
	b.mu.Lock()
	close(b.ch)
	b.ch = make(chan struct{})
	b.mu.Unlock()
}
