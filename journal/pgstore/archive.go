package pgstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"iter"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobgen/jobgen/journal"
)

// Retention: a stream whose history is over may leave the store. Archive
// copies the facts its judge read into a journal file, keeping their seqs
// and ids, syncs the file, reads every copy back from it and compares it
// with the store's, and only then removes the facts, through
// archive_streams, the one delete the schema's triggers allow. Which
// streams are over, and through which seq, is the vocabulary's to say
// (package retention); the store only moves them. See the package doc's
// Retention and decisions 0127, 0147 and 0149.

// ErrArchiveMismatch: an archive's copy did not read back as the store
// holds it, so nothing of the streams was removed.
var ErrArchiveMismatch = errors.New("archive does not match the store")

// A StreamInfo is what Streams says of one stream.
type StreamInfo struct {
	Stream journal.Stream
	// Head is the seq of its last record (not the stream row's head
	// column, which appends leave behind); Archived the seq through which
	// its records were archived (0 when none was): the store holds seqs
	// Archived+1 to Head.
	Head, Archived uint64
	// LastAt is when the transaction that appended its last record began
	// (the server's clock).
	LastAt time.Time
	// First is the payload of the first record the store holds of it, seq
	// Archived+1: what a reader needs to tell what the stream is (a child
	// session's stream begins with its creation), without reading it.
	First []byte
}

// Streams yields every stream that holds records (Head > Archived), by
// name: what retention chooses from. It costs two index probes a stream.
func (s *Store) Streams(ctx context.Context) iter.Seq2[StreamInfo, error] {
	return func(yield func(StreamInfo, error) bool) {
		if s.isClosed() {
			yield(StreamInfo{}, s.errClosed())
			return
		}
		// The last record is one backward probe of the primary key: appends
		// leave head behind (see lastSeqSQL), and a stream that holds records
		// has its last seq among them.
		q := `SELECT st.name, l.seq, st.archived, l.at, f.payload::text
			FROM ` + s.sql.table("stream") + ` st
			CROSS JOIN LATERAL (SELECT seq, at FROM ` + s.sql.table("fact") + ` l
				WHERE l.stream = st.name ORDER BY l.seq DESC LIMIT 1) l
			JOIN ` + s.sql.table("fact") + ` f ON f.stream = st.name AND f.seq = st.archived + 1
			WHERE l.seq > st.archived AND st.name > $1 ORDER BY st.name LIMIT $2`
		after := ""
		for {
			var page []StreamInfo
			rows, err := s.pool.Query(ctx, q, after, pageRows)
			if err == nil {
				for rows.Next() {
					var info StreamInfo
					var name, first string
					var head, archived int64
					if err = rows.Scan(&name, &head, &archived, &info.LastAt, &first); err != nil {
						break
					}
					info.Stream, info.Head, info.Archived, info.First = journal.Stream(name), uint64(head), uint64(archived), []byte(first)
					page = append(page, info)
				}
				rows.Close()
				if err == nil {
					err = rows.Err()
				}
			}
			if err != nil {
				yield(StreamInfo{}, fmt.Errorf("%s: streams after %q: %w", s.name, after, err))
				return
			}
			for _, info := range page {
				if !yield(info, nil) {
					return
				}
			}
			if len(page) < pageRows {
				return
			}
			after = string(page[len(page)-1].Stream)
		}
	}
}

// A Judged is a stream as a judge of its history read it: through seq
// Through. Archive moves what was judged and nothing after it, so that a
// fact appended after the judgement (a job registered in a session that
// was over when its judge read it) stays in the store, live.
type Judged struct {
	Stream  journal.Stream
	Through uint64
}

// An Archived is one stream Archive moved: its seqs First to Through went
// to the archive and left the store.
type Archived struct {
	Stream         journal.Stream
	First, Through uint64
	// Later counts the records the stream held after Through when the move
	// was planned: appended after the judgement, not judged, kept.
	Later uint64
	// Digest is the SHA-256 of the records moved, as the store held them
	// and the archive read them back (seq, id and payload of each, in
	// order), in hex; the store keeps it beside the range.
	Digest string
}

// archiveBatch is how many streams one archive transaction moves.
const archiveBatch = 64

// Archive moves the judged records of streams into the journal file to, a
// batch of streams at a time, and returns what it moved: of each stream
// the seqs after those archived before, through the seq its judge read
// (Judged.Through), never a record appended since. For each batch it
// copies each stream's records into to with their seqs and ids
// (AppendCopy), flushes to, reads every copy back from the file and
// compares it with the store's record, and only when all of them match
// removes the records from the store and notes the range and its digest,
// in one short transaction. A copy that does not match, or a file that
// cannot be written, removes nothing of the batch (the error wraps
// ErrArchiveMismatch, or the file's). A stream archived through its judged
// seq already, by this or another archiver, is skipped; one judged past
// its last seq is refused (journal.ErrInvalid); one the file already holds
// in part, from a run that stopped before removing, is checked and
// completed. Archive into a file that holds no other part of a stream's
// history, or whose part ends where the store's archived part does.
//
// Archive takes no stream's append lock: what it moves is immutable and
// appends only add after the last seq, so appends to every stream, those it
// moves included, go on while it runs, and never wait for it. Archivers of
// one schema take turns, a batch at a time.
//
// Afterwards ReadStream of such a stream from before its archived seq
// yields a *journal.ArchivedError (journal.ErrArchived) naming each range
// and its archive, and from there on what the stream holds since; a
// ReadStream that was reading the stream when its records went yields the
// error in place of the first record it misses; ReadAll and Tail no longer
// yield the moved records; appends to the stream go on at the next seq.
func (s *Store) Archive(ctx context.Context, streams []Judged, to *journal.FileStore) ([]Archived, error) {
	if s.isClosed() {
		return nil, s.errClosed()
	}
	through := map[journal.Stream]uint64{}
	for _, j := range streams {
		if err := checkStream(j.Stream); err != nil {
			return nil, fmt.Errorf("%s: archive %q: %w", s.name, j.Stream, err)
		}
		if j.Through > math.MaxInt64 {
			return nil, fmt.Errorf("%s: archive %q through seq %d: past the largest seq: %w", s.name, j.Stream, j.Through, journal.ErrInvalid)
		}
		// Two judgements of one stream: the later read saw more, all over.
		through[j.Stream] = max(through[j.Stream], j.Through)
	}
	judged := make([]Judged, 0, len(through))
	for _, st := range slices.Sorted(maps.Keys(through)) {
		if through[st] > 0 {
			judged = append(judged, Judged{Stream: st, Through: through[st]})
		}
	}
	var moved []Archived
	for len(judged) > 0 {
		batch := judged[:min(archiveBatch, len(judged))]
		judged = judged[len(batch):]
		done, err := s.archiveBatch(ctx, batch, to)
		moved = append(moved, done...)
		if err != nil {
			return moved, err
		}
	}
	return moved, nil
}

// archiveBatch moves the streams of one batch. Its transaction holds the
// archivers' lock and no stream's; it gets an xid only at the removal, so
// it holds the tails' horizon back only for that one statement.
func (s *Store) archiveBatch(ctx context.Context, batch []Judged, to *journal.FileStore) ([]Archived, error) {
	fail := func(err error) ([]Archived, error) {
		return nil, fmt.Errorf("%s: archive into %s: %w", s.name, to.Path(), err)
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, s.sql.of(archiveLockSQL), s.schema); err != nil {
		return fail(fmt.Errorf("take the archivers' lock: %w", err))
	}
	plan, err := s.archivePlan(ctx, tx, batch)
	if err != nil {
		return fail(err)
	}
	for i := range plan {
		if err := s.copyStream(ctx, tx, &plan[i], to); err != nil {
			return fail(err)
		}
	}
	if err := to.Flush(ctx); err != nil {
		return fail(err)
	}
	for i := range plan {
		if err := s.verifyStream(ctx, tx, &plan[i], to); err != nil {
			return fail(err)
		}
	}
	if len(plan) == 0 {
		return nil, nil
	}
	if err := s.removeArchived(ctx, tx, plan, to.Path()); err != nil {
		return fail(err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fail(fmt.Errorf("commit: %w", err))
	}
	return plan, nil
}

// archivePlan reads the archived and last seqs of the batch's streams,
// under the archivers' lock, and returns the ranges to move: seqs
// Archived+1 to the judged seq of each stream not archived that far
// already. The last seq is the larger of head and the last fact's
// (lastSeqSQL); a judged seq past it was never appended.
func (s *Store) archivePlan(ctx context.Context, tx pgx.Tx, batch []Judged) ([]Archived, error) {
	names, throughs := make([]string, len(batch)), make([]int64, len(batch))
	for i, j := range batch {
		names[i], throughs[i] = string(j.Stream), int64(j.Through)
	}
	rows, err := tx.Query(ctx, `SELECT d.name, d.through, coalesce(st.archived, 0), coalesce(greatest(st.head, (SELECT f.seq FROM `+s.sql.table("fact")+` f
				WHERE f.stream = d.name ORDER BY f.seq DESC LIMIT 1)), 0)
			FROM unnest($1::text[], $2::int8[]) AS d(name, through)
			LEFT JOIN `+s.sql.table("stream")+` st ON st.name = d.name
			ORDER BY d.name`, names, throughs)
	if err != nil {
		return nil, fmt.Errorf("read the streams' seqs: %w", err)
	}
	defer rows.Close()
	var plan []Archived
	for rows.Next() {
		var name string
		var through, archived, last int64
		if err := rows.Scan(&name, &through, &archived, &last); err != nil {
			return nil, fmt.Errorf("read the streams' seqs: %w", err)
		}
		switch {
		case through <= archived:
			continue // moved already, by this judgement or a later one
		case through > last:
			return nil, fmt.Errorf("stream %q judged through seq %d, its last seq is %d: %w", name, through, last, journal.ErrInvalid)
		}
		plan = append(plan, Archived{Stream: journal.Stream(name), First: uint64(archived) + 1, Through: uint64(through), Later: uint64(last - through)})
	}
	return plan, rows.Err()
}

// records yields the store's records of a's stream from seq from to
// a.Through, read in tx, a page at a time.
func (s *Store) records(ctx context.Context, tx pgx.Tx, a *Archived, from uint64) iter.Seq2[journal.Record, error] {
	return func(yield func(journal.Record, error) bool) {
		for cursor := int64(from) - 1; cursor < int64(a.Through); {
			rows, err := tx.Query(ctx, `SELECT seq, coalesce(id, ''), payload::text FROM `+s.sql.table("fact")+
				` WHERE stream = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4`, string(a.Stream), cursor, int64(a.Through), pageRows)
			if err != nil {
				yield(journal.Record{}, err)
				return
			}
			var page []journal.Record
			for rows.Next() {
				rec := journal.Record{Stream: a.Stream, Offset: -1}
				var seq int64
				var payload string
				if err := rows.Scan(&seq, &rec.ID, &payload); err != nil {
					rows.Close()
					yield(journal.Record{}, err)
					return
				}
				rec.Seq, rec.Payload = uint64(seq), []byte(payload)
				page = append(page, rec)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				yield(journal.Record{}, err)
				return
			}
			if len(page) == 0 {
				yield(journal.Record{}, fmt.Errorf("stream %q: no record after seq %d, want through %d", a.Stream, cursor, a.Through))
				return
			}
			for _, rec := range page {
				if rec.Seq != uint64(cursor)+1 {
					yield(journal.Record{}, fmt.Errorf("stream %q: seq %d follows %d: %w", a.Stream, rec.Seq, cursor, journal.ErrCorrupt))
					return
				}
				if !yield(rec, nil) {
					return
				}
				cursor = int64(rec.Seq)
			}
		}
	}
}

// copyStream appends to the archive the records of a that it does not hold
// yet: all of them, or those after the part a stopped run copied.
func (s *Store) copyStream(ctx context.Context, tx pgx.Tx, a *Archived, to *journal.FileStore) error {
	held, err := to.LastSeq(ctx, a.Stream)
	if err != nil {
		return err
	}
	switch {
	case held >= a.Through:
		return nil // copied by a run that stopped before removing; verified next
	case held >= a.First:
		// The rest follows the part copied before.
	case held == 0 || held == a.First-1:
		held = a.First - 1
	default:
		return fmt.Errorf("stream %q: the archive holds it up to seq %d, the store archived it through %d: archive it into the file that holds seqs %d to %d, or a new one",
			a.Stream, held, a.First-1, held+1, a.First-1)
	}
	const chunk = 256
	var run []journal.Entry
	first := held + 1
	for rec, err := range s.records(ctx, tx, a, held+1) {
		if err != nil {
			return err
		}
		run = append(run, journal.Entry{ID: rec.ID, Payload: rec.Payload})
		if len(run) == chunk {
			if err := to.AppendCopy(ctx, a.Stream, first, run...); err != nil {
				return err
			}
			first += uint64(len(run))
			run = run[:0]
		}
	}
	return to.AppendCopy(ctx, a.Stream, first, run...)
}

// verifyStream reads a's records back from the archive's file and compares
// each with the store's, and sets a.Digest.
func (s *Store) verifyStream(ctx context.Context, tx pgx.Tx, a *Archived, to *journal.FileStore) error {
	mismatch := func(format string, args ...any) error {
		return fmt.Errorf("stream %q: %s: %w", a.Stream, fmt.Sprintf(format, args...), ErrArchiveMismatch)
	}
	copies, stop := iter.Pull2(to.ReadStream(ctx, a.Stream, a.First-1))
	defer stop()
	digest := sha256.New()
	for rec, err := range s.records(ctx, tx, a, a.First) {
		if err != nil {
			return err
		}
		cp, cerr, ok := copies()
		switch {
		case !ok:
			return mismatch("the archive ends before seq %d", rec.Seq)
		case cerr != nil:
			return mismatch("seq %d does not read back: %v", rec.Seq, cerr)
		case cp.Seq != rec.Seq || cp.ID != rec.ID || !bytes.Equal(cp.Payload, rec.Payload):
			return mismatch("seq %d reads back as seq %d id %q %s, the store holds id %q %s", rec.Seq, cp.Seq, cp.ID, cp.Payload, rec.ID, rec.Payload)
		}
		digestRecord(digest, rec)
	}
	a.Digest = hex.EncodeToString(digest.Sum(nil))
	return nil
}

// digestRecord adds a record's seq, id and payload to h, each
// length-prefixed so that no two records digest alike.
func digestRecord(h hash.Hash, rec journal.Record) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], rec.Seq)
	h.Write(n[:])
	for _, b := range [][]byte{[]byte(rec.ID), rec.Payload} {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
}

// removeArchived removes the verified ranges of plan from the store, in tx,
// through archive_streams.
func (s *Store) removeArchived(ctx context.Context, tx pgx.Tx, plan []Archived, target string) error {
	names, throughs, digests := make([]string, len(plan)), make([]int64, len(plan)), make([]string, len(plan))
	for i, a := range plan {
		names[i], throughs[i], digests[i] = string(a.Stream), int64(a.Through), a.Digest
	}
	rows, err := tx.Query(ctx, `SELECT stream_name, removed FROM `+s.sql.schema+`.archive_streams($1, $2, $3, $4)`, names, throughs, target, digests)
	if err != nil {
		return fmt.Errorf("remove: %w", err)
	}
	defer rows.Close()
	removed := int64(0)
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return fmt.Errorf("remove: %w", err)
		}
		removed += n
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("remove: %w", err)
	}
	var want int64
	for _, a := range plan {
		want += int64(a.Through - a.First + 1)
	}
	if removed != want {
		return fmt.Errorf("remove: %d records removed, want %d", removed, want)
	}
	return nil
}

// missed says why a read of stream after seq after did not find seq
// after+1 first on its page: a *journal.ArchivedError when retention moved
// seqs after it (before the read began, or while it read), naming each run
// of them with its archive; journal.ErrCorrupt when the page skips seqs
// that were never archived; nil when the stream simply ends at after.
// ReadStream asks only then, so a read of a stream whose records are all
// there costs one question more only when its last page comes back empty.
func (s *Store) missed(ctx context.Context, stream journal.Stream, after uint64, page []journal.Record) error {
	rows, err := s.pool.Query(ctx, s.sql.of(archivedSQL), string(stream), int64(after))
	if err != nil {
		return err
	}
	defer rows.Close()
	var archived int64
	var runs []journal.ArchivedRange
	found := false
	for rows.Next() {
		var first, through *int64
		var target *string
		if err := rows.Scan(&archived, &first, &through, &target); err != nil {
			return err
		}
		found = true
		if first != nil && through != nil && target != nil {
			runs = append(runs, journal.ArchivedRange{First: uint64(*first), Through: uint64(*through), Archive: *target})
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	switch {
	case found && after < uint64(archived):
		return &journal.ArchivedError{Stream: stream, After: after, Through: uint64(archived), Ranges: archivedRanges(after, uint64(archived), runs)}
	case len(page) > 0:
		return fmt.Errorf("stream %q: seq %d follows seq %d, and none between was archived: %w", stream, page[0].Seq, after, journal.ErrCorrupt)
	}
	return nil
}

// archivedRanges cuts seqs after+1 to through into the archive's runs
// (in seq order, each ending after after), naming an archive the store
// has no run for as unknown.
func archivedRanges(after, through uint64, runs []journal.ArchivedRange) []journal.ArchivedRange {
	var out []journal.ArchivedRange
	next := after + 1
	for _, r := range runs {
		if r.Through < next || next > through {
			continue
		}
		if r.First > next {
			out = append(out, journal.ArchivedRange{First: next, Through: min(r.First-1, through)})
		}
		r.First = max(r.First, next)
		r.Through = min(r.Through, through)
		out = append(out, r)
		next = r.Through + 1
	}
	if next <= through {
		out = append(out, journal.ArchivedRange{First: next, Through: through})
	}
	return out
}
