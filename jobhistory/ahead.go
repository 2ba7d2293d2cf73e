package jobhistory

import (
	"iter"

	"github.com/jobgen/jobgen/generated/jobs"
)

// ahead yields what seq yields, in order, ranging over seq in a goroutine of
// its own, a few batches ahead of the caller: decoding the facts (inside
// seq) takes one core while projecting them takes another. It returns once
// that goroutine is done with seq, so whatever seq holds (a file, a decoder
// that counts) is the caller's again; a panic in seq is the caller's too.
// When the caller stops early, seq may have been read up to aheadBatches
// batches further.
func ahead(seq iter.Seq2[jobs.Fact, error]) iter.Seq2[jobs.Fact, error] {
	return func(yield func(jobs.Fact, error) bool) {
		a := &aheadReader{batches: make(chan *factBatch, aheadBatches), free: make(chan *factBatch, aheadBatches+1),
			stop: make(chan struct{}), done: make(chan struct{})}
		go a.read(seq)
		defer func() {
			close(a.stop)
			<-a.done
		}()
		for b := range a.batches {
			for _, it := range b.items {
				if !yield(it.fact, it.err) {
					return
				}
			}
			if b.panicked {
				panic(b.panicValue)
			}
			select {
			case a.free <- b:
			default:
			}
		}
	}
}

// aheadBatch is how many facts ahead hands over at once, and aheadBatches
// how many batches it reads ahead at most.
const (
	aheadBatch   = 64
	aheadBatches = 4
)

// An aheadReader is the goroutine ahead ranges over its sequence in and the
// channels it hands batches over through.
type aheadReader struct {
	batches chan *factBatch // filled, in order; closed at the end
	free    chan *factBatch // handed over and yielded, to fill again
	stop    chan struct{}   // closed when the caller stops
	done    chan struct{}   // closed when the goroutine is done with the sequence
}

// A factBatch is facts and errors in the order the sequence yielded them,
// and what the sequence panicked with, if it did.
type factBatch struct {
	items      []factOrError
	panicked   bool
	panicValue any
}

type factOrError struct {
	fact jobs.Fact
	err  error
}

func (a *aheadReader) read(seq iter.Seq2[jobs.Fact, error]) {
	defer close(a.done)
	defer close(a.batches)
	b := a.batch()
	send := func() bool {
		select {
		case a.batches <- b:
			b = a.batch()
			return true
		case <-a.stop:
			return false
		}
	}
	defer func() {
		if p := recover(); p != nil {
			b.panicked, b.panicValue = true, p
			send()
		}
	}()
	for f, err := range seq {
		if b.items = append(b.items, factOrError{f, err}); len(b.items) == aheadBatch && !send() {
			return
		}
	}
	if len(b.items) > 0 {
		send()
	}
}

// batch returns an empty batch: one the caller is done with, or a new one.
func (a *aheadReader) batch() *factBatch {
	select {
	case b := <-a.free:
		clear(b.items)
		b.items = b.items[:0]
		return b
	default:
		return &factBatch{items: make([]factOrError, 0, aheadBatch)}
	}
}
