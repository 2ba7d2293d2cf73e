package journal

import "io"

// readRecords yields the records scan reads from r, each Payload the
// caller's. The scan runs ahead in a goroutine of its own, a batch at a
// time, so that reading, checksumming and validating a file take a core
// while the caller works on the records yielded before: a projection of a
// long journal uses two cores, not one (issue 24). It returns once the
// goroutine is done with r.
func readRecords(r io.Reader, path string, yield func(Record, error) bool) {
	batches := make(chan *recordBatch, 2)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(batches)
		b := &recordBatch{}
		send := func() bool {
			select {
			case batches <- b:
				b = &recordBatch{}
				return true
			case <-stop:
				return false
			}
		}
		_, err := scan(r, path, newIndex(false), func(rec Record) bool {
			if !b.room(len(rec.Payload)) && !send() {
				return false
			}
			b.add(rec)
			return true
		})
		b.err = err
		send()
	}()
	defer func() {
		close(stop)
		<-done
	}()
	for b := range batches {
		for _, rec := range b.recs {
			if !yield(rec, nil) {
				return
			}
		}
		if b.err != nil {
			yield(Record{}, b.err)
			return
		}
	}
}

// A recordBatch is records read ahead, their payloads copied into one
// arena, and the error that ended the scan, if it did.
type recordBatch struct {
	recs  []Record
	arena []byte
	err   error
}

// A batch holds at most batchRecords records and batchBytes of payloads (a
// longer payload has a batch of its own): small, since a caller that keeps
// one payload keeps its arena.
const (
	batchRecords = 64
	batchBytes   = 16 << 10
)

// room reports whether the batch takes one more record with a payload of n
// bytes.
func (b *recordBatch) room(n int) bool {
	return len(b.recs) == 0 || len(b.recs) < batchRecords && len(b.arena)+n <= batchBytes
}

// add appends rec with a copy of its payload in the arena, capped so that
// appending to it cannot reach the next one.
func (b *recordBatch) add(rec Record) {
	if b.arena == nil {
		b.arena = make([]byte, 0, max(batchBytes, len(rec.Payload)))
	}
	at := len(b.arena)
	b.arena = append(b.arena, rec.Payload...)
	rec.Payload = b.arena[at:len(b.arena):len(b.arena)]
	b.recs = append(b.recs, rec)
}
