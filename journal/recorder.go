package journal

import (
	"fmt"
	"iter"
)

// An Appender appends one opaque payload, a fact's encoded envelope, and
// returns the record's seq. *Store is an Appender.
type Appender interface {
	Append(payload []byte) (seq uint64, err error)
}

var _ Appender = (*FileStore)(nil)

// A Recorder appends facts of the union F, encoded by its codec, to an
// Appender. A Recorder[jobs.Fact] built with jobs.EncodeFact is the
// registry's recorder:
//
//	rec := journal.NewRecorder(store, jobs.EncodeFact)
//
// Record is synchronous: when it returns nil the fact is appended (buffered,
// in seq order after every fact recorded before it), not yet durable; see
// [Store.Flush]. The Recorder stores what it is given: deciding which facts
// to record (the registry records owned jobs only) and stamping their times
// are the caller's.
type Recorder[F any] struct {
	w      Appender
	encode func(F) ([]byte, error)
}

// NewRecorder returns a Recorder that encodes facts with encode and appends
// them to w.
func NewRecorder[F any](w Appender, encode func(F) ([]byte, error)) *Recorder[F] {
	return &Recorder[F]{w: w, encode: encode}
}

// Record encodes f and appends it.
func (r *Recorder[F]) Record(f F) error {
	payload, err := r.encode(f)
	if err != nil {
		return fmt.Errorf("journal: encode fact: %w", err)
	}
	_, err = r.w.Append(payload)
	return err
}

// Facts decodes the payloads of records with decode, the union's codec, and
// yields the facts in order. A storage error (damage, I/O) is yielded and
// ends the sequence. A record that does not decode yields an error naming its
// seq and offset, wrapping decode's error, and reading goes on if the caller
// continues: a journal may hold facts this build does not know (a newer
// version, or another vocabulary's union), and the caller decides whether to
// skip them.
func Facts[F any](records iter.Seq2[Record, error], decode func([]byte) (F, error)) iter.Seq2[F, error] {
	return func(yield func(F, error) bool) {
		var zero F
		for rec, err := range records {
			if err != nil {
				yield(zero, err)
				return
			}
			f, err := decode(rec.Payload)
			if err != nil {
				err = &DecodeError{Seq: rec.Seq, Offset: rec.Offset, Err: err}
				if !yield(zero, err) {
					return
				}
				continue
			}
			if !yield(f, nil) {
				return
			}
		}
	}
}

// A DecodeError reports an intact record whose payload the codec refused.
type DecodeError struct {
	Seq    uint64
	Offset int64
	Err    error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("journal: record seq %d at offset %d: %v", e.Seq, e.Offset, e.Err)
}

// Unwrap returns e.Err.
func (e *DecodeError) Unwrap() error { return e.Err }
