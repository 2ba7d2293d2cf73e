package journal

import (
	"context"
	"fmt"
	"iter"
)

// A Recorder appends facts of the union F, encoded by its codec, each to the
// stream streamOf names, of a Store. The registry's recorder is a
// Recorder[jobs.Fact] that sends each fact to its job owner's stream:
//
//	rec := journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)
//
// Record is synchronous: when it returns nil the fact is appended (buffered,
// after every fact of its stream recorded before it), not yet durable; see
// [Store.Flush]. The Recorder stores what it is given: deciding which facts
// to record (the registry records owned jobs only) and stamping their times
// are the caller's.
type Recorder[F any] struct {
	store    Store
	encode   func(F) ([]byte, error)
	streamOf func(F) Stream
}

// NewRecorder returns a Recorder that encodes facts with encode and appends
// each to the stream streamOf names in store.
func NewRecorder[F any](store Store, encode func(F) ([]byte, error), streamOf func(F) Stream) *Recorder[F] {
	return &Recorder[F]{store: store, encode: encode, streamOf: streamOf}
}

// Record encodes f and appends it to its stream.
func (r *Recorder[F]) Record(f F) error {
	payload, err := r.encode(f)
	if err != nil {
		return fmt.Errorf("journal: encode fact: %w", err)
	}
	_, err = r.store.Append(context.Background(), r.streamOf(f), Entry{Payload: payload})
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
				err = &DecodeError{Stream: rec.Stream, Seq: rec.Seq, Pos: rec.Pos, Offset: rec.Offset, Err: err}
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
	Stream Stream
	Seq    uint64
	Pos    Position
	Offset int64 // -1 where the backend has no offsets
	Err    error
}

func (e *DecodeError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("journal: record %d of stream %q (position %s): %v", e.Seq, e.Stream, e.Pos, e.Err)
	}
	return fmt.Sprintf("journal: record %d of stream %q (position %s) at offset %d: %v", e.Seq, e.Stream, e.Pos, e.Offset, e.Err)
}

// Unwrap returns e.Err.
func (e *DecodeError) Unwrap() error { return e.Err }
