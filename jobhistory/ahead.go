package jobhistory

import (
	"iter"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/handoff"
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
		line := handoff.New(aheadBatches, func(b *factBatch) {
			clear(b.items)
			b.items = b.items[:0]
		})
		go readAhead(line, seq)
		defer line.Stop()
		for b := range line.Batches() {
			for _, it := range b.items {
				if !yield(it.fact, it.err) {
					return
				}
			}
			if b.panicked {
				panic(b.panicValue)
			}
			line.Recycle(b)
		}
	}
}

// aheadBatch is how many facts ahead hands over at once, and aheadBatches
// how many batches it reads ahead at most.
const (
	aheadBatch   = 64
	aheadBatches = 4
)

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

// readAhead ranges over seq, sending what it yields on line, aheadBatch
// at a time, and what it panicked with, if it did, in the last batch.
func readAhead(line *handoff.Line[factBatch], seq iter.Seq2[jobs.Fact, error]) {
	defer line.Close()
	b := line.Batch()
	defer func() {
		if p := recover(); p != nil {
			b.panicked, b.panicValue = true, p
			line.Send(b)
		}
	}()
	for f, err := range seq {
		if b.items = append(b.items, factOrError{f, err}); len(b.items) == aheadBatch && !line.Pass(&b) {
			return
		}
	}
	if len(b.items) > 0 {
		line.Send(b)
	}
}
