package journal

import (
	"io"
	"iter"

	"github.com/jobgen/jobgen/internal/handoff"
)

// readRecords yields the records scan reads from r, each Payload the
// caller's. The scan runs ahead in a goroutine of its own, a batch at a
// time, so that reading, checksumming and validating a file take a core
// while the caller works on the records yielded before: a projection of a
// long journal uses two cores, not one. It returns once the goroutine is
// done with r.
func readRecords(r io.Reader, path string, yield func(Record, error) bool) {
	line := startReadAhead(r, path, true)
	defer line.Stop()
	for b := range line.Batches() {
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
		line := startReadAhead(f, path, false)
		defer line.Stop()
		for b := range line.Batches() {
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
			line.Recycle(b)
		}
	}
}

// startReadAhead starts scanning r in a goroutine of its own, checking
// every fact to be JSON when checkFacts is set (see scanRecords), and
// returns the line it hands the records over on, in batches. A caller that
// recycles a batch has its payloads' memory used again; one that does not
// keeps every payload.
func startReadAhead(r io.Reader, path string, checkFacts bool) *handoff.Line[recordBatch] {
	line := handoff.New(2, func(b *recordBatch) {
		clear(b.recs)
		b.recs, b.arena = b.recs[:0], b.arena[:0]
	})
	go scanAhead(line, r, path, checkFacts)
	return line
}

// scanAhead scans r and sends its records on line, a batch at a time, the
// error that ended the scan, if it did, in the last.
func scanAhead(line *handoff.Line[recordBatch], r io.Reader, path string, checkFacts bool) {
	defer line.Close()
	b := line.Batch()
	_, err := scanRecords(r, path, newIndex(false), checkFacts, func(rec Record) bool {
		if !b.room(len(rec.Payload)) && !line.Pass(&b) {
			return false
		}
		b.add(rec)
		return true
	})
	b.err = err
	line.Send(b)
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
