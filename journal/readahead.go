package journal

import (
	"io"
	"iter"
)

// readRecords yields the records scan reads from r, each Payload the
// caller's. The scan runs ahead in a goroutine of its own, a batch at a
// time, so that reading, checksumming and validating a file take a core
// while the caller works on the records yielded before: a projection of a
// long journal uses two cores, not one. It returns once the goroutine is
// done with r.
func readRecords(r io.Reader, path string, yield func(Record, error) bool) {
	a := startReadAhead(r, path, true, false)
	defer a.stop()
	for b := range a.batches {
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

// FileFacts yields the facts of the journal file at path, decoded with
// decode: what Facts(ReadFile(path), decode) yields, fact for fact and error
// for error, at less cost. decode is lent each payload for the call only: it
// must not keep it, nor return anything that shares its memory (a generated
// DecodeFact copies what it keeps), so the payloads are read into buffers
// used again. And decode must refuse a payload that is not one JSON value, as
// a generated DecodeFact does, since it is decode that checks the facts: the
// records are checked for their framing, checksum and place as ReadFile checks
// them, but a fact is parsed only by decode, and by the journal only once
// decode refused it, to report a fact that is not JSON as the damage ReadFile
// reports (a *RecordError wrapping ErrCorrupt at its offset).
//
// The file is read, checksummed and framed in a goroutine of its own, ahead
// of decode, which runs in the caller's; FileFacts returns once that
// goroutine is done with the file.
func FileFacts[F any](path string, decode func([]byte) (F, error)) iter.Seq2[F, error] {
	return func(yield func(F, error) bool) {
		var zero F
		f, err := openReadOnly(path)
		if err != nil {
			yield(zero, err)
			return
		}
		defer f.Close()
		a := startReadAhead(f, path, false, true)
		defer a.stop()
		for b := range a.batches {
			for _, rec := range b.recs {
				fact, err := decode(rec.Payload)
				if err == nil {
					if !yield(fact, nil) {
						return
					}
					continue
				}
				if ferr := checkFact(rec.Payload); ferr != nil {
					yield(zero, wholeRecordDamage(path, rec.Offset, ferr))
					return
				}
				if !yield(zero, decodeError(rec, err)) {
					return
				}
			}
			if b.err != nil {
				yield(zero, b.err)
				return
			}
			a.recycle(b)
		}
	}
}

// A readAhead is a scan of a journal running in a goroutine of its own,
// handing the records over in batches.
type readAhead struct {
	batches chan *recordBatch // filled, in order; closed at the end
	free    chan *recordBatch // batches the caller is done with; nil when payloads are the caller's
	quit    chan struct{}     // closed when the caller stops
	done    chan struct{}     // closed when the goroutine is done with the file
}

// startReadAhead starts scanning r, checking every fact to be JSON when
// checkFacts is set (see scanRecords). With reuse set, the caller hands
// the batches it is done with back (recycle) and their payloads' memory is
// used again; otherwise every payload is the caller's to keep.
func startReadAhead(r io.Reader, path string, checkFacts, reuse bool) *readAhead {
	a := &readAhead{batches: make(chan *recordBatch, 2), quit: make(chan struct{}), done: make(chan struct{})}
	if reuse {
		a.free = make(chan *recordBatch, 4)
	}
	go a.scan(r, path, checkFacts)
	return a
}

func (a *readAhead) scan(r io.Reader, path string, checkFacts bool) {
	defer close(a.done)
	defer close(a.batches)
	b := a.batch()
	send := func() bool {
		select {
		case a.batches <- b:
			b = a.batch()
			return true
		case <-a.quit:
			return false
		}
	}
	_, err := scanRecords(r, path, newIndex(false), checkFacts, func(rec Record) bool {
		if !b.room(len(rec.Payload)) && !send() {
			return false
		}
		b.add(rec)
		return true
	})
	b.err = err
	send()
}

// batch returns an empty batch: one the caller handed back, or a new one.
func (a *readAhead) batch() *recordBatch {
	select {
	case b := <-a.free: // a nil channel is never ready
		clear(b.recs)
		b.recs, b.arena = b.recs[:0], b.arena[:0]
		return b
	default:
		return &recordBatch{}
	}
}

// recycle hands b, whose payloads the caller is done with, back to be
// filled again.
func (a *readAhead) recycle(b *recordBatch) {
	select {
	case a.free <- b:
	default:
	}
}

// stop stops the scan and returns once its goroutine is done.
func (a *readAhead) stop() {
	close(a.quit)
	<-a.done
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
// appending to it cannot reach the next one. A payload longer than the
// arena has room for, alone in its batch, gets an arena of its own size.
func (b *recordBatch) add(rec Record) {
	if cap(b.arena)-len(b.arena) < len(rec.Payload) {
		b.arena = make([]byte, 0, max(batchBytes, len(rec.Payload)))
	}
	at := len(b.arena)
	b.arena = append(b.arena, rec.Payload...)
	rec.Payload = b.arena[at:len(b.arena):len(b.arena)]
	b.recs = append(b.recs, rec)
}
