package journal

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"time"
)

// A Recorder appends facts of the union F, encoded by its codec, each to the
// stream streamOf names, of a Store. The registry's recorder is a
// Recorder[jobs.Fact] that sends each fact to its job owner's stream, made
// by the vocabulary's side:
//
//	rec := jobhistory.NewRecorder(store) // NewRetryingRecorder with the job facts' ids
//
// Record is synchronous: when it returns nil the fact is appended (buffered,
// after every fact of its stream recorded before it), not yet durable; see
// [Store.Flush]. The Recorder stores what it is given: deciding which facts
// to record (the registry records owned jobs only) and stamping their times
// are the caller's.
//
// The encoder is the union's generated one (jobs.EncodeFact), which writes
// each fact as one JSON object without newlines; over a store that is an
// EncodedAppender (the file store) the Recorder appends through
// AppendEncoded, which checks that shape and does not parse the payload
// again.
type Recorder[F any] struct {
	store    Store
	encoded  EncodedAppender // store, when it takes encoded payloads; else nil
	encode   func(F) ([]byte, error)
	streamOf func(F) Stream
	idOf     func(F) string // nil: no ids, no retries
	retry    retryConfig

	mu     sync.Mutex
	failed error // sticky: a fact was lost
}

// NewRecorder returns a Recorder that encodes facts with encode, a union's
// generated encoder, and appends each to the stream streamOf names in
// store, without a record id: a failed append is returned to the caller and
// not retried. For a store whose appends can fail and succeed again (a
// database across a restart), use NewRetryingRecorder.
func NewRecorder[F any](store Store, encode func(F) ([]byte, error), streamOf func(F) Stream) *Recorder[F] {
	ea, _ := store.(EncodedAppender)
	return &Recorder[F]{store: store, encoded: ea, encode: encode, streamOf: streamOf}
}

// NewRetryingRecorder returns a Recorder that encodes facts with encode, a
// union's generated encoder, appends each under the record id idOf gives
// it, and retries an append that failed in a way a retry may mend — the
// store could not be reached, or its outcome is unknown — with the same
// id, so that a retry of an append that did land appends nothing. idOf must give every fact an id of its own within its
// stream, derived from the fact alone (the vocabulary knows how, say from
// the fact's type and the id of what it is about), so that the same fact
// always gets the same id.
//
// Record retries with backoff until the append lands or the bound passes
// (RetryFor, default DefaultRetryFor), and only then returns, so facts that
// a caller records one after another land in that order, a retried one
// before the next. It does not retry what a retry cannot mend (ErrInvalid,
// ErrTooLarge, ErrFull, ErrClosed, ErrFailed).
//
// A fact that could not be appended makes the Recorder failed, and the
// failure is sticky: that Record and every later one return it, wrapping
// ErrFailed and the store's error, without appending (a history with a
// hole is not written on as if whole), [Recorder.Flush] returns it, and it
// is logged (RetryLogger). Err reports it.
func NewRetryingRecorder[F any](store Store, encode func(F) ([]byte, error), streamOf func(F) Stream, idOf func(F) string, opts ...RetryOption) *Recorder[F] {
	cfg := retryConfig{within: DefaultRetryFor, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&cfg)
	}
	ea, _ := store.(EncodedAppender)
	return &Recorder[F]{store: store, encoded: ea, encode: encode, streamOf: streamOf, idOf: idOf, retry: cfg}
}

// DefaultRetryFor is how long a retrying Recorder retries one fact: long
// enough for a database server to restart and recover, short enough that
// a caller waiting on Record hears of an outage that lasts.
const DefaultRetryFor = 30 * time.Second

// A RetryOption configures NewRetryingRecorder.
type RetryOption func(*retryConfig)

type retryConfig struct {
	within time.Duration
	log    *slog.Logger
}

// RetryFor bounds how long Record retries one fact (default DefaultRetryFor).
func RetryFor(d time.Duration) RetryOption { return func(c *retryConfig) { c.within = d } }

// RetryLogger logs each failed attempt (warn), a fact that landed after
// retries (info) and a fact given up on (error) to l. Without it nothing is
// logged.
func RetryLogger(l *slog.Logger) RetryOption {
	return func(c *retryConfig) {
		if l != nil {
			c.log = l
		}
	}
}

// Record encodes f and appends it to its stream.
func (r *Recorder[F]) Record(f F) error {
	if r.idOf == nil {
		payload, err := r.encode(f)
		if err != nil {
			return fmt.Errorf("journal: encode fact: %w", err)
		}
		_, err = r.append(context.Background(), r.streamOf(f), Entry{Payload: payload})
		return err
	}
	if err := r.Err(); err != nil {
		return err
	}
	payload, err := r.encode(f)
	if err != nil {
		return r.fail(fmt.Errorf("encode fact: %w", err))
	}
	stream, e := r.streamOf(f), Entry{ID: r.idOf(f), Payload: payload}
	if err := r.appendRetrying(stream, e); err != nil {
		return r.fail(err)
	}
	return nil
}

// appendRetrying appends e to stream, retrying what a retry may mend within
// the bound.
func (r *Recorder[F]) appendRetrying(stream Stream, e Entry) error {
	start := time.Now()
	deadline := start.Add(r.retry.within)
	delay := 10 * time.Millisecond
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		_, err := r.append(ctx, stream, e)
		cancel()
		if err == nil {
			if attempt > 1 {
				r.retry.log.Info("journal: recorder: a fact landed after retries", "stream", stream, "id", e.ID, "attempts", attempt, "after", time.Since(start))
			}
			return nil
		}
		left := time.Until(deadline)
		if !mendable(err) || left <= 0 {
			return fmt.Errorf("append %q to %q: %d attempts in %v: %w", e.ID, stream, attempt, time.Since(start).Round(time.Millisecond), err)
		}
		r.retry.log.Warn("journal: recorder: append failed; retrying with the same id", "stream", stream, "id", e.ID, "attempt", attempt, "in", delay, "err", err)
		time.Sleep(min(delay, left))
		delay = min(2*delay, time.Second)
	}
}

// append appends e to stream through AppendEncoded when the store has it.
func (r *Recorder[F]) append(ctx context.Context, stream Stream, e Entry) ([]uint64, error) {
	if r.encoded != nil {
		return r.encoded.AppendEncoded(ctx, stream, e)
	}
	return r.store.Append(ctx, stream, e)
}

// mendable reports whether a retry of an append that failed with err may
// land: not when the input is refused or the store is closed or failed.
func mendable(err error) bool {
	for _, permanent := range []error{ErrInvalid, ErrTooLarge, ErrFull, ErrClosed, ErrFailed} {
		if errors.Is(err, permanent) {
			return false
		}
	}
	return true
}

// fail makes err, the loss of a fact, the Recorder's sticky failure unless
// one is set, logs it, and returns the sticky failure.
func (r *Recorder[F]) fail(err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed == nil {
		r.failed = fmt.Errorf("journal: recorder: a fact was lost, recording no more: %w: %w", ErrFailed, err)
		r.retry.log.Error("journal: recorder: a fact was lost; recording no more", "err", err)
	}
	return r.failed
}

// Err returns the sticky failure of a retrying Recorder, or nil while every
// fact it was given was appended.
func (r *Recorder[F]) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// Flush is the durability barrier of what was recorded: the sticky failure
// when a fact was lost, else the store's Flush. Register it, not the store's
// Flush, as the flush listener of the sessions whose facts it records.
func (r *Recorder[F]) Flush(ctx context.Context) error {
	if err := r.Err(); err != nil {
		return err
	}
	return r.store.Flush(ctx)
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
				if !yield(zero, decodeError(rec, err)) {
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

// decodeError is the DecodeError of rec, whose payload the codec refused
// with err.
func decodeError(rec Record, err error) *DecodeError {
	return &DecodeError{Stream: rec.Stream, Seq: rec.Seq, Pos: rec.Pos, Offset: rec.Offset, Err: err}
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
