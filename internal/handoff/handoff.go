// Package handoff passes batches from a goroutine that fills them to one
// that uses them, in order and a few ahead, and the batches used back to
// be filled again, so that two stages of a pipeline take two cores and a
// batch is allocated once: journal's readers read ahead through it, and
// jobhistory decodes ahead of its projection.
package handoff

// A Line hands batches of type B from one filler to one user. The filler
// takes empty batches from Batch, hands each full one over with Send (or
// Pass, which takes the next empty one too) and calls Close when it has no
// more; the user ranges over Batches, hands
// back with Recycle each batch it is done with (or keeps it: Batch then
// makes a new one), and calls Stop to end the line, early or not, which
// returns once the filler has returned.
type Line[B any] struct {
	full  chan *B
	empty chan *B
	quit  chan struct{}
	done  chan struct{}
	reset func(*B)
}

// New returns a line that holds at most ahead full batches the user has
// not taken. reset empties a batch handed back before Batch returns it
// again.
func New[B any](ahead int, reset func(*B)) *Line[B] {
	return &Line[B]{full: make(chan *B, ahead), empty: make(chan *B, ahead+2),
		quit: make(chan struct{}), done: make(chan struct{}), reset: reset}
}

// Batch returns an empty batch for the filler: one the user handed back,
// or a new one.
func (l *Line[B]) Batch() *B {
	select {
	case b := <-l.empty:
		l.reset(b)
		return b
	default:
		return new(B)
	}
}

// Send hands b over to the user and reports whether the user still takes
// batches; once it is false, the filler should stop.
func (l *Line[B]) Send(b *B) bool {
	select {
	case l.full <- b:
		return true
	case <-l.quit:
		return false
	}
}

// Pass hands *b over to the user, as Send does, and puts an empty batch in
// its place for the filler to fill next.
func (l *Line[B]) Pass(b **B) bool {
	ok := l.Send(*b)
	*b = l.Batch()
	return ok
}

// Close says the filler sent its last batch and is done.
func (l *Line[B]) Close() {
	close(l.full)
	close(l.done)
}

// Batches are the full batches, in the order they were sent, until the
// filler closes the line.
func (l *Line[B]) Batches() <-chan *B { return l.full }

// Recycle hands b, which the user is done with, back to be filled again.
func (l *Line[B]) Recycle(b *B) {
	select {
	case l.empty <- b:
	default:
	}
}

// Stop ends the line: the filler's next Send reports false. It returns
// once the filler has closed the line.
func (l *Line[B]) Stop() {
	close(l.quit)
	<-l.done
}
