package pgstore

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/jobgen/jobgen/journal"
)

// pageRows is how many records one read query fetches; a page is read whole
// and its connection released before any record is yielded, so a caller may
// append from inside the loop.
const pageRows = 256

// ReadStream yields the records of stream after seq after, in seq order. It
// reads committed rows only, so what an Append returned is there at once.
// It reads a page at a time, and every page must go on at the seq after
// the last one yielded: when retention moved seqs the read has not reached
// (before it began, or while it read), it yields a *journal.ArchivedError
// naming them and each archive that holds them, in place of the first
// record it misses, and ends; it never jumps over them, nor ends as if the
// stream ended there.
func (s *Store) ReadStream(ctx context.Context, stream journal.Stream, after uint64) iter.Seq2[journal.Record, error] {
	return func(yield func(journal.Record, error) bool) {
		if err := checkStream(stream); err != nil {
			yield(journal.Record{}, fmt.Errorf("%s: read %q: %w", s.name, stream, err))
			return
		}
		if s.isClosed() {
			yield(journal.Record{}, s.errClosed())
			return
		}
		if after >= math.MaxInt64 {
			return
		}
		cursor := int64(after)
		for {
			if err := ctx.Err(); err != nil {
				yield(journal.Record{}, fmt.Errorf("%s: read %q after seq %d: %w", s.name, stream, cursor, err))
				return
			}
			page, err := s.readStreamPage(ctx, stream, cursor)
			if err == nil && (len(page) == 0 || page[0].Seq != uint64(cursor)+1) {
				// The stream ends here, or retention moved what follows
				// (before the read, or since its last page), or it is damaged.
				err = s.missed(ctx, stream, uint64(cursor), page)
				if err == nil {
					return
				}
			}
			if err != nil {
				yield(journal.Record{}, fmt.Errorf("%s: read %q after seq %d: %w", s.name, stream, cursor, err))
				return
			}
			for _, rec := range page {
				if err := ctx.Err(); err != nil {
					yield(journal.Record{}, fmt.Errorf("%s: read %q after seq %d: %w", s.name, stream, cursor, err))
					return
				}
				if !yield(rec, nil) {
					return
				}
				cursor = int64(rec.Seq)
			}
			if len(page) < pageRows {
				return
			}
		}
	}
}

// LastSeq returns the seq of the last committed record of stream, 0 when
// there is none: the larger of its last fact's seq (one backward probe of
// the primary key) and its head, which Archive raises to the last seq it
// moves, so that a stream whose records were all archived still answers
// the seq its next append follows. Every Append that returned has
// committed, so it counts them all.
func (s *Store) LastSeq(ctx context.Context, stream journal.Stream) (uint64, error) {
	if err := checkStream(stream); err != nil {
		return 0, fmt.Errorf("%s: last seq of %q: %w", s.name, stream, err)
	}
	if s.isClosed() {
		return 0, s.errClosed()
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("%s: last seq of %q: %w", s.name, stream, err)
	}
	var last int64
	if err := s.pool.QueryRow(ctx, s.sql.of(lastSeqSQL), string(stream)).Scan(&last); err != nil {
		return 0, fmt.Errorf("%s: last seq of %q: %w", s.name, stream, err)
	}
	return uint64(last), nil
}

func (s *Store) readStreamPage(ctx context.Context, stream journal.Stream, after int64) ([]journal.Record, error) {
	rows, err := s.pool.Query(ctx, s.sql.of(readStreamSQL), string(stream), after, pageRows)
	if err != nil {
		return nil, err
	}
	var page []journal.Record
	for rows.Next() {
		rec := journal.Record{Stream: stream, Offset: -1}
		var seq, pos int64
		if err := rows.Scan(&seq, &rec.ID, &rec.Pos.Major, &pos, &rec.Payload); err != nil {
			rows.Close()
			return nil, err
		}
		rec.Seq, rec.Pos.Minor = uint64(seq), uint64(pos)
		page = append(page, rec)
	}
	return page, rows.Err()
}

// ReadAll yields the records after position after in global order: by
// appending transaction id, then by insertion inside it. Position.Major is
// the transaction id (xid8) and Minor the row's insertion counter. It yields
// only rows of transactions older than every transaction still running in
// the cluster (the snapshot's xmin), so a transaction that commits late can
// never land behind a position already handed out; such rows come in a later
// read, at their place. So that a caller reads every fact committed before
// it called — its own appends and any other writer's — ReadAll first waits,
// up to WithReadYourWritesWait, until the horizon passes the newest of those
// commits (an older transaction still open anywhere in the cluster holds it
// back); after the wait it logs a warning and reads what is safe. What commits
// after ReadAll began is left for a later read (Tail waits for it).
func (s *Store) ReadAll(ctx context.Context, after journal.Position) iter.Seq2[journal.Record, error] {
	return func(yield func(journal.Record, error) bool) {
		if after.Minor > math.MaxInt64 {
			yield(journal.Record{}, fmt.Errorf("%s: read all after %s: minor past %d: %w", s.name, after, int64(math.MaxInt64), journal.ErrInvalid))
			return
		}
		if s.isClosed() {
			yield(journal.Record{}, s.errClosed())
			return
		}
		if err := ctx.Err(); err != nil {
			yield(journal.Record{}, fmt.Errorf("%s: read all after %s: %w", s.name, after, err))
			return
		}
		if err := s.awaitCommitted(ctx); err != nil {
			yield(journal.Record{}, fmt.Errorf("%s: read all after %s: %w", s.name, after, err))
			return
		}
		cursor := after
		for {
			page, err := s.readAllPage(ctx, cursor)
			if err != nil {
				yield(journal.Record{}, fmt.Errorf("%s: read all after %s: %w", s.name, cursor, err))
				return
			}
			for _, rec := range page {
				if err := ctx.Err(); err != nil {
					yield(journal.Record{}, fmt.Errorf("%s: read all after %s: %w", s.name, cursor, err))
					return
				}
				if !yield(rec, nil) {
					return
				}
				cursor = rec.Pos
			}
			if len(page) < pageRows {
				return
			}
		}
	}
}

func (s *Store) readAllPage(ctx context.Context, after journal.Position) ([]journal.Record, error) {
	rows, err := s.pool.Query(ctx, s.sql.of(readAllSQL), after.Major, int64(after.Minor), pageRows)
	if err != nil {
		return nil, err
	}
	var page []journal.Record
	for rows.Next() {
		rec := journal.Record{Offset: -1}
		var seq, pos int64
		if err := rows.Scan(&rec.Stream, &seq, &rec.ID, &rec.Pos.Major, &pos, &rec.Payload); err != nil {
			rows.Close()
			return nil, err
		}
		rec.Seq, rec.Pos.Minor = uint64(seq), uint64(pos)
		page = append(page, rec)
	}
	return page, rows.Err()
}

// awaitCommitted waits until the snapshot horizon is past every transaction
// whose facts were committed when it began, this store's own included, or
// WithReadYourWritesWait passed.
func (s *Store) awaitCommitted(ctx context.Context) error {
	var newest uint64
	if err := s.pool.QueryRow(ctx, s.sql.of(newestXidSQL)).Scan(&newest); err != nil {
		return err
	}
	target := max(newest, s.lastXid.Load())
	if target == 0 {
		return nil
	}
	deadline := time.Now().Add(s.cfg.ryw)
	delay := time.Millisecond
	for {
		var xmin uint64
		if err := s.pool.QueryRow(ctx, s.sql.of(horizonSQL)).Scan(&xmin); err != nil {
			return err
		}
		if xmin > target {
			return nil
		}
		if time.Now().After(deadline) {
			s.log.Warn("pgstore: an older transaction holds the read horizon back; reading without the latest commits",
				"schema", s.schema, "horizon", xmin, "newest", target, "waited", s.cfg.ryw)
			return nil
		}
		if err := sleep(ctx, delay); err != nil {
			return err
		}
		delay = min(2*delay, 50*time.Millisecond)
	}
}

// Tail yields what ReadAll would and then waits for more: woken by a
// notification on the store's channel (LISTEN on a dedicated connection,
// reconnected when lost) or every poll interval. It ends without an error
// when ctx ends, and with ErrClosed when the store closes. A lost connection
// and a server going down or starting up (see transient) are retried with
// backoff, so a tail outlives a server restart; another error the server
// reports for the query ends the tail with it.
func (s *Store) Tail(ctx context.Context, after journal.Position) iter.Seq2[journal.Record, error] {
	return func(yield func(journal.Record, error) bool) {
		if after.Minor > math.MaxInt64 {
			yield(journal.Record{}, fmt.Errorf("%s: tail after %s: minor past %d: %w", s.name, after, int64(math.MaxInt64), journal.ErrInvalid))
			return
		}
		s.startListener()
		cursor := after
		backoff, held := 10*time.Millisecond, time.Duration(0)
		for {
			if ctx.Err() != nil {
				return // a tail ended by its context ends without an error
			}
			if s.isClosed() {
				yield(journal.Record{}, s.errClosed())
				return
			}
			wake := s.tails.wait() // before the read: a wake during it is not lost
			page, err := s.readAllPage(ctx, cursor)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				if !transient(err) {
					yield(journal.Record{}, fmt.Errorf("%s: tail after %s: %w", s.name, cursor, err))
					return
				}
				s.log.Warn("pgstore: tail read failed; retrying", "schema", s.schema, "after", cursor.String(), "in", backoff, "err", err)
				s.observeReconnect("tail", err)
				if sleep(ctx, backoff) != nil {
					return
				}
				backoff = min(2*backoff, 2*time.Second)
				continue
			}
			backoff = 10 * time.Millisecond
			for _, rec := range page {
				if !yield(rec, nil) {
					return
				}
				cursor = rec.Pos
			}
			if len(page) > 0 {
				s.observeTail(page[len(page)-1])
			}
			if len(page) == pageRows {
				continue
			}
			t := time.NewTimer(s.pause(ctx, cursor, &held))
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-wake:
			case <-t.C:
			}
			t.Stop()
		}
	}
}

// pause returns how long a tail that read everything it may hand out after
// cursor waits for a wake before it reads again: the poll interval, unless
// committed records past the cursor are held back by an older transaction
// still open in the cluster (or the question failed). That transaction's
// end sends no notification, so the tail then looks again after held,
// which doubles from 5ms up to the poll interval while they stay held.
func (s *Store) pause(ctx context.Context, cursor journal.Position, held *time.Duration) time.Duration {
	var behind bool
	if err := s.pool.QueryRow(ctx, s.sql.of(heldBackSQL), cursor.Major, int64(cursor.Minor)).Scan(&behind); err == nil && !behind {
		*held = 0
		return s.cfg.poll
	}
	*held = min(max(2**held, 5*time.Millisecond), s.cfg.poll)
	return *held
}

// startListener starts the store's LISTEN connection once, on the first Tail.
func (s *Store) startListener() {
	s.listenOn.Do(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return
		}
		s.listenWG.Add(1)
		go s.listen()
	})
}

// listen keeps a dedicated connection listening on the store's channel and
// wakes the tails on every notification and every reconnect, until Close.
func (s *Store) listen() {
	defer s.listenWG.Done()
	cfg := s.pool.Config().ConnConfig
	cfg.RuntimeParams["application_name"] = "jobgen-pgstore-listen " + s.schema
	delay := 50 * time.Millisecond
	for s.bg.Err() == nil {
		connected, err := s.listenOnce(cfg)
		if s.bg.Err() != nil {
			return
		}
		if connected {
			delay = 50 * time.Millisecond
		}
		s.log.Warn("pgstore: LISTEN connection lost; reconnecting, tails poll meanwhile", "schema", s.schema, "in", delay, "err", err)
		s.observeReconnect("listen", err)
		s.tails.raise()
		if sleep(s.bg, delay) != nil {
			return
		}
		delay = min(2*delay, 5*time.Second)
	}
}

func (s *Store) listenOnce(cfg *pgx.ConnConfig) (connected bool, err error) {
	conn, err := pgx.ConnectConfig(s.bg, cfg)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(s.bg, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		return false, err
	}
	// What committed before LISTEN took effect sent no notification here:
	// the tails read again now, and hear of everything after.
	s.tails.raise()
	for {
		if _, err := conn.WaitForNotification(s.bg); err != nil {
			return true, err
		}
		s.tails.raise()
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// transient reports whether err is one a retry on another connection may not
// meet: no answer from the server (a refused, reset or timed-out
// connection), or the server saying it is going down or not up yet —
// 57P01 admin_shutdown (a fast shutdown, pg_terminate_backend, or a backend
// whose postmaster died), 57P02 crash_shutdown (another backend crashed),
// 57P03 cannot_connect_now (starting up, in recovery, shutting down),
// class 08 (connection exceptions) and 53300 too_many_connections. Any
// other error the server reports is about the query, and repeating it
// gets the same answer.
func transient(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return true
	}
	switch pgErr.Code {
	case "57P01", "57P02", "57P03", "53300":
		return true
	}
	return strings.HasPrefix(pgErr.Code, "08")
}
