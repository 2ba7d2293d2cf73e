package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobgen/jobgen/journal"
)

// A Status is what Inspect reads of a journal schema: what an operator asks
// before migrating or archiving it (`jobgen journal status`).
type Status struct {
	// Schema is the schema inspected.
	Schema string
	// Version is the schema's version, 0 when it holds no journal;
	// BuildVersion is the version this build writes (SchemaVersion).
	Version, BuildVersion int
	// Streams counts the streams, archived ones included; Records the
	// records the store holds, by the streams' counters (Check verifies
	// that they agree with the rows).
	Streams, Records int64
	// ArchivedStreams counts the streams retention archived some records
	// of, and ArchivedRecords those records, which the store no longer
	// holds (see Archive).
	ArchivedStreams, ArchivedRecords int64
	// Oldest and Newest are the first and last positions in the global
	// order, and OldestAt and NewestAt the times their transactions
	// appended them (the server's clock); zero when the store is empty.
	Oldest, Newest     journal.Position
	OldestAt, NewestAt time.Time
	// Bytes is what the schema's tables and their indexes take on disk.
	Bytes int64
}

// Inspect reads the status of the journal in schema, changing nothing. It
// reads a schema of any version this build knows; a schema without a
// journal answers a Status with Version 0.
func Inspect(ctx context.Context, pool *pgxpool.Pool, schema string) (Status, error) {
	st := Status{Schema: schema, BuildVersion: SchemaVersion()}
	v, err := readVersion(ctx, pool, schema)
	if err != nil || v == 0 {
		return st, err
	}
	st.Version = v
	if v > st.BuildVersion {
		return st, fmt.Errorf("pgstore %s: schema version %d, this build knows up to %d: %w", schema, v, st.BuildVersion, ErrSchemaTooNew)
	}
	q := newStatements(schema)
	fail := func(err error) (Status, error) { return st, fmt.Errorf("pgstore %s: status: %w", schema, err) }
	counts := `SELECT count(*), coalesce(sum(head), 0)::int8, 0::int8, 0::int8 FROM ` + q.table("stream")
	if v >= archiveVersion {
		// A stream's last seq is the larger of head and its last fact's
		// (lastSeqSQL): from version 4 appends leave head behind.
		counts = `SELECT count(*), coalesce(sum(last - archived), 0)::int8, count(*) FILTER (WHERE archived > 0), coalesce(sum(archived), 0)::int8
			FROM (SELECT st.archived, greatest(st.head, (SELECT f.seq FROM ` + q.table("fact") + ` f
				WHERE f.stream = st.name ORDER BY f.seq DESC LIMIT 1)) AS last FROM ` + q.table("stream") + ` st) p`
	}
	if err := pool.QueryRow(ctx, counts).Scan(&st.Streams, &st.Records, &st.ArchivedStreams, &st.ArchivedRecords); err != nil {
		return fail(err)
	}
	for _, end := range []struct {
		order string
		pos   *journal.Position
		at    *time.Time
	}{{"xid, pos", &st.Oldest, &st.OldestAt}, {"xid DESC, pos DESC", &st.Newest, &st.NewestAt}} {
		var pos int64
		err := pool.QueryRow(ctx, `SELECT xid, pos, at FROM `+q.table("fact")+` ORDER BY `+end.order+` LIMIT 1`).Scan(&end.pos.Major, &pos, end.at)
		if errors.Is(err, pgx.ErrNoRows) {
			break
		}
		if err != nil {
			return fail(err)
		}
		end.pos.Minor = uint64(pos)
	}
	if err := pool.QueryRow(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::int8
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')`, schema).Scan(&st.Bytes); err != nil {
		return fail(err)
	}
	return st, nil
}

// archiveVersion is the schema version that added retention (0003_archive).
const archiveVersion = 3

// Status reads the store's status; see Inspect.
func (s *Store) Status(ctx context.Context) (Status, error) {
	if s.isClosed() {
		return Status{}, s.errClosed()
	}
	return Inspect(ctx, s.pool, s.schema)
}
