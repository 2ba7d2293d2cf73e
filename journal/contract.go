package journal

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
)

// A Stream names one ordered history inside a store: a session's (a job
// owner's, or a subagent child's). The journal knows no vocabulary, so a
// caller converts its session id: journal.Stream(owner). A stream name is
// 1 to MaxStreamBytes bytes of valid UTF-8 without control characters.
type Stream string

// MaxStreamBytes is the longest stream name a store accepts.
const MaxStreamBytes = 256

// MaxIDBytes is the longest record id a store accepts.
const MaxIDBytes = 256

// MaxSeq is the largest seq a stream holds, 2^63-1 (a signed 64-bit integer,
// so every backend can keep it): an append that would pass it is refused
// with ErrFull. A version 1 file may hold larger seqs; it reads, and takes no
// appends.
const MaxSeq = 1<<63 - 1

// An Entry is one record to append: an opaque payload (one JSON value, a
// generated fact envelope) and an optional id. A store holds at most one
// record per (stream, id): appending an entry whose id the stream already
// holds appends nothing and answers the seq of the record that has it, so a
// retried append is safe. An empty ID never deduplicates.
type Entry struct {
	ID      string
	Payload []byte
}

// A Batch is one stream's part of an AppendBatch: entries to append to
// Stream, in order.
type Batch struct {
	Stream  Stream
	Entries []Entry
}

// A Position is a place in a store's global order of everything it accepted.
// Positions of one store are totally ordered by Compare; the zero Position is
// before every record. Their parts mean what the backend says (the file store
// counts records in Minor; PostgreSQL orders by transaction in Major), so a
// caller keeps and passes back positions and never does arithmetic on them.
type Position struct {
	Major, Minor uint64
}

// Compare returns -1, 0 or +1 as p is before, equal to or after q.
func (p Position) Compare(q Position) int {
	switch {
	case p.Major != q.Major:
		if p.Major < q.Major {
			return -1
		}
		return 1
	case p.Minor != q.Minor:
		if p.Minor < q.Minor {
			return -1
		}
		return 1
	}
	return 0
}

// IsZero reports whether p is the position before every record.
func (p Position) IsZero() bool { return p == Position{} }

// String writes p as "MAJOR.MINOR", the form ParsePosition reads.
func (p Position) String() string {
	return strconv.FormatUint(p.Major, 10) + "." + strconv.FormatUint(p.Minor, 10)
}

// ParsePosition reads the form String writes. A bare number N reads as 0.N.
func ParsePosition(s string) (Position, error) {
	major, minor, found := strings.Cut(s, ".")
	if !found {
		major, minor = "0", s
	}
	hi, err1 := strconv.ParseUint(major, 10, 64)
	lo, err2 := strconv.ParseUint(minor, 10, 64)
	if err1 != nil || err2 != nil {
		return Position{}, fmt.Errorf("journal: position %q: want MAJOR.MINOR in decimal: %w", s, ErrInvalid)
	}
	return Position{Major: hi, Minor: lo}, nil
}

// A Record is one record read back from a store.
type Record struct {
	// Stream is the stream the record was appended to.
	Stream Stream
	// Seq is the record's place in its stream: 1 for the first, each next one
	// more, with no gaps.
	Seq uint64
	// Pos is the record's place in the store's global order.
	Pos Position
	// ID is the entry's id, or empty.
	ID string
	// Offset is the byte offset of the record in a file store, or -1 where a
	// backend has no such thing.
	Offset int64
	// Payload is the record's fact, byte for byte as it was appended. It is
	// the caller's to keep.
	Payload []byte
}

// A Store is a durable, append-only set of streams: the contract every
// journal backend implements (the file store of this package, PostgreSQL in
// journal/pgstore) and journal/storetest checks.
//
// Every method is safe for concurrent use and takes a context; a method whose
// context ends returns its error (wrapping ctx.Err()) without leaving partial
// effects visible: an append either happened whole or not at all. Errors name
// the store and, where there is one, the position, and wrap the sentinels
// below (errors.Is) for what callers branch on.
type Store interface {
	// Append adds entries to the end of stream, in order, and returns the seq
	// each one has there (for a duplicate id, the seq of the record that holds
	// it). The entries of one call get consecutive seqs and are in the same
	// order globally; appends to different streams are ordered globally as the
	// store accepted them. What Append returned is readable at once, but durable
	// only once a Flush that began after it returned nil. A backend may make
	// appends durable before they return (PostgreSQL commits them); then Flush
	// has nothing left to wait for.
	//
	// A payload must be one JSON value without newlines, at most MaxRecordBytes
	// in its record; a stream name and an id must be valid (see Stream, MaxIDBytes).
	// Bad input is refused with ErrInvalid or ErrTooLarge and changes nothing,
	// even when only one entry of the call is bad. A stream whose seq would pass
	// MaxSeq is full: ErrFull, and nothing is appended. Appending no entries
	// appends nothing and returns no seqs. Each payload is the caller's again
	// when Append returns: the store keeps its own copy.
	Append(ctx context.Context, stream Stream, entries ...Entry) ([]uint64, error)

	// AppendBatch appends many entries for one or several streams in one
	// call, durably: each part's entries to its stream, as Append would,
	// and returns each part's seqs (seqs[i] for batch[i]). The parts are
	// appended in the order given, whole: a part's entries get consecutive
	// seqs in its stream (but for ids the stream or an earlier entry of the
	// call holds, which answer that record's seq), a later part of the same
	// stream follows an earlier one, and the global order is the call's.
	// It returns nil only once every record it appended is durable, as if
	// a Flush had followed it: the durability barrier a caller holding many
	// facts needs, paid once for all of them (the file store takes its lock
	// once, encodes and writes once and syncs once; PostgreSQL commits one
	// transaction). Bad input anywhere, or a stream it would take past
	// MaxSeq, refuses the whole call and appends nothing; parts with no
	// entries are allowed and answer no seqs. Each payload is the caller's
	// again when it returns.
	AppendBatch(ctx context.Context, batch ...Batch) ([][]uint64, error)

	// Flush returns once every record whose Append returned before Flush was
	// called is durable. Concurrent flushes share one sync or commit. A failed
	// sync is sticky: this Flush and every later Append and Flush fail with it
	// (wrapping ErrFailed), since what was acknowledged as buffered may be lost.
	Flush(ctx context.Context) error

	// ReadStream yields the records of stream whose seq is greater than after,
	// in seq order, as the store holds them when each is read; it ends when it
	// has yielded the last one. It costs in proportion to the stream, not the
	// store. A stream that does not exist yields nothing. It yields every seq
	// from after+1 on without a gap, or, when the store does not hold the
	// next one (retention archived it, before the read began or while it
	// read, or the store never held it), an error wrapping an
	// *ArchivedError naming the seqs it misses, in place of the first, and
	// stops: it never skips a seq unsaid. When ctx ends, or the store
	// closes, it yields one error wrapping ctx.Err() (or ErrClosed) and
	// stops; each Payload is the caller's to keep.
	ReadStream(ctx context.Context, stream Stream, after uint64) iter.Seq2[Record, error]

	// LastSeq returns the seq of the last record of stream, 0 when the stream
	// holds none (or was never appended to), without reading the stream's
	// records: the file store keeps it in its index, PostgreSQL finds it in
	// one index probe. It sees what ReadStream would: every record whose
	// Append returned before the call, durable or not — on the file store
	// records still buffered, on PostgreSQL the committed ones, which are all
	// an Append returned — so ReadStream(ctx, stream, last-1) then yields that
	// record. Appends that return during the call may or may not count; it
	// never goes back. A stream name that no Append accepts is refused with
	// ErrInvalid; after Close it fails with ErrClosed, and with an ended ctx
	// with an error wrapping ctx.Err().
	LastSeq(ctx context.Context, stream Stream) (uint64, error)

	// ReadAll yields every record whose position is after the given one, in
	// global order, and ends when it has yielded the last one it can see. It
	// never skips a record that becomes visible later at an earlier position: a
	// backend where commits can land out of order holds back what is not yet
	// safe to hand out (see journal/pgstore).
	ReadAll(ctx context.Context, after Position) iter.Seq2[Record, error]

	// Close flushes what is buffered, releases the store, and returns the
	// flush's error. After Close every method fails with ErrClosed (an
	// iterator yields one error wrapping it); a second Close returns nil. A
	// Close whose ctx has ended still releases the store.
	Close(ctx context.Context) error
}

// A Tailer is a Store whose global order can be followed live: Tail yields
// what ReadAll would and then waits for more, until ctx ends (then it ends
// without an error) or the store fails.
type Tailer interface {
	Store
	Tail(ctx context.Context, after Position) iter.Seq2[Record, error]
}

// The sentinels a Store's errors wrap.
var (
	// ErrInvalid: the call's input is refused (a bad stream name, id, payload
	// or position); nothing changed.
	ErrInvalid = errors.New("invalid input")
	// ErrTooLarge: a record would be longer than the backend accepts.
	ErrTooLarge = errors.New("record too large")
	// ErrFull: a stream or the store has no seq or position left.
	ErrFull = errors.New("journal full")
	// ErrFailed: an earlier write, sync or commit failed, and the store
	// refuses more work, since what it acknowledged may not be durable.
	ErrFailed = errors.New("journal failed")
)
