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
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobgen/jobgen/journal"
)

// Retention: a stream whose history is over may leave the store. Archive
// copies its facts into a journal file, keeping their seqs and ids, syncs
// the file, reads every copy back from it and compares it with the store's,
// and only then removes the facts, through archive_streams, the one delete
// the schema's triggers allow. Which streams are over is the vocabulary's
// to say (package retention); the store only moves them. See decision 0127.

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

// An Archived is one stream Archive moved: its seqs First to Through went
// to the archive and left the store.
type Archived struct {
	Stream         journal.Stream
	First, Through uint64
	// Digest is the SHA-256 of the records moved, as the store held them
	// and the archive read them back (seq, id and payload of each, in
	// order), in hex; the store keeps it beside the range.
	Digest string
}

// archiveBatch is how many streams one archive transaction moves: each
// holds its streams' append locks from the first read to the commit.
const archiveBatch = 64

// Archive moves the records of streams into the journal file to, a batch
// of streams at a time, and returns what it moved. For each batch it takes
// the streams' append locks (appends to them wait until it ends; appends
// to other streams do not), copies each stream's records into to with
// their seqs and ids (AppendCopy), flushes to, reads every copy back from
// the file and compares it with the store's record, and only when all of
// them match removes the records from the store and notes the range and
// its digest, in the same transaction. A copy that does not match, or a
// file that cannot be written, removes nothing of the batch (the error
// wraps ErrArchiveMismatch, or the file's). A stream with nothing to move is
// skipped; one the file already holds in part, from a run that stopped
// before removing, is checked and completed. Archive into a file that holds
// no other part of a stream's history, or whose part ends where the store's
// archived part does.
//
// Afterwards ReadStream of such a stream from before its archived seq
// yields a *journal.ArchivedError (journal.ErrArchived), and from there on
// what the stream holds since; ReadAll and Tail no longer yield the moved
// records; appends to the stream go on at the next seq.
func (s *Store) Archive(ctx context.Context, streams []journal.Stream, to *journal.FileStore) ([]Archived, error) {
	if s.isClosed() {
		return nil, s.errClosed()
	}
	names := make([]string, 0, len(streams))
	for _, st := range streams {
		if err := checkStream(st); err != nil {
			return nil, fmt.Errorf("%s: archive %q: %w", s.name, st, err)
		}
		names = append(names, string(st))
	}
	slices.Sort(names)
	names = slices.Compact(names)
	var moved []Archived
	for len(names) > 0 {
		batch := names[:min(archiveBatch, len(names))]
		names = names[len(batch):]
		done, err := s.archiveBatch(ctx, batch, to)
		moved = append(moved, done...)
		if err != nil {
			return moved, err
		}
	}
	return moved, nil
}

// archiveBatch moves the streams of one batch, in one transaction.
func (s *Store) archiveBatch(ctx context.Context, names []string, to *journal.FileStore) ([]Archived, error) {
	fail := func(err error) ([]Archived, error) {
		return nil, fmt.Errorf("%s: archive into %s: %w", s.name, to.Path(), err)
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, s.sql.of(lockStreamsSQL), names, s.lockSeed); err != nil {
		return fail(fmt.Errorf("lock streams: %w", err))
	}
	plan, err := s.archivePlan(ctx, tx, names)
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

// archivePlan reads the last seqs of the locked streams and returns the
// ranges to move: seqs Archived+1 to the last of each stream that holds
// any. The last seq is the larger of head and the last fact's (lastSeqSQL).
func (s *Store) archivePlan(ctx context.Context, tx pgx.Tx, names []string) ([]Archived, error) {
	rows, err := tx.Query(ctx, `SELECT name, last, archived FROM (
			SELECT st.name, st.archived, greatest(st.head, (SELECT f.seq FROM `+s.sql.table("fact")+` f
				WHERE f.stream = st.name ORDER BY f.seq DESC LIMIT 1)) AS last
			FROM `+s.sql.table("stream")+` st WHERE st.name = ANY($1)) p
		WHERE last > archived ORDER BY name`, names)
	if err != nil {
		return nil, fmt.Errorf("read heads: %w", err)
	}
	defer rows.Close()
	var plan []Archived
	for rows.Next() {
		var name string
		var head, archived int64
		if err := rows.Scan(&name, &head, &archived); err != nil {
			return nil, fmt.Errorf("read heads: %w", err)
		}
		plan = append(plan, Archived{Stream: journal.Stream(name), First: uint64(archived) + 1, Through: uint64(head)})
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

// checkArchived returns a *journal.ArchivedError when a read of stream
// after seq after asks for records that were archived, or nil. ReadStream
// asks only when its first page does not begin at after+1, so a read of a
// stream that was never archived costs nothing more.
func (s *Store) checkArchived(ctx context.Context, stream journal.Stream, after uint64) error {
	var archived int64
	var target string
	err := s.pool.QueryRow(ctx, `SELECT st.archived, coalesce((SELECT a.target FROM `+s.sql.table("archive")+
		` a WHERE a.stream = st.name ORDER BY a.through DESC LIMIT 1), '') FROM `+s.sql.table("stream")+` st WHERE st.name = $1`,
		string(stream)).Scan(&archived, &target)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil
	case err != nil:
		return err
	case after < uint64(archived):
		return &journal.ArchivedError{Stream: stream, Through: uint64(archived), Archive: target}
	}
	return nil
}
