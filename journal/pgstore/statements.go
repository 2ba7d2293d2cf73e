package pgstore

import (
	"strings"

	"github.com/jackc/pgx/v5"
)

// A statement names one of the store's SQL statements.
type statement int

const (
	// appendFactsSQL is the append: one call of append_facts (schema
	// version 6, leaner in 7), prepared on each connection, which takes the streams' locks ($1, under the store's seed
	// $2), then numbers and inserts a chunk's entries ($3 its streams, $4 each
	// entry's stream index, $5 ids, $6 payloads) with a snapshot taken after
	// them; $7 makes it all or nothing when a stream is full (AppendBatch). The function's statements run from plans cached in the session,
	// generic ones (its arrays make each custom plan look cheaper). It
	// answers by entry the seqs and whether each id was held, by stream
	// whether it fit, and the xid if it inserted; see the migration.
	appendFactsSQL statement = iota
	// notifySQL wakes the tails of every store on the channel ($1). It runs
	// right after the append's COMMIT, in the same round trip, as a
	// transaction of its own: a notifying transaction holds a cluster-wide
	// lock from its pre-commit to its end, which inside the append would
	// span the commit's WAL flush and serialize every writer's commits.
	notifySQL
	readStreamSQL
	// lastSeqSQL answers the last seq of the stream ($1), 0 for none: the
	// larger of its last fact's seq (one backward probe of the primary key)
	// and its head, which archive_streams raises to the last seq it removes.
	// An append numbers after it, and Archive, Streams and Check read it.
	lastSeqSQL
	// readAllSQL answers everything after the cursor that is safe to hand
	// out: rows of transactions below the snapshot's xmin, all of which have
	// ended, so no row can later appear before the last one returned.
	readAllSQL
	horizonSQL
	// heldBackSQL answers whether committed facts follow the cursor,
	// whether or not the horizon lets them out yet.
	heldBackSQL
	// newestXidSQL answers the newest transaction whose facts this statement's
	// snapshot sees: the last commit a ReadAll beginning now must wait for.
	newestXidSQL
	// archiveLockSQL makes the archivers of the schema ($1) take turns: an
	// advisory transaction lock in the two-key space, which no stream's
	// append lock (one 64-bit key) shares, so that appends never wait for it.
	archiveLockSQL
	// archivedSQL answers the archived seq of stream $1 and the archived
	// runs of its seqs that end after seq $2, in seq order, with the
	// archive that holds each: one row per run, or one row of NULLs
	// beside the archived seq when none ends after $2; no row when the
	// store has no such stream. ReadStream asks it only when a page does
	// not go on at the seq after its cursor.
	archivedSQL
	statementCount
)

// statements holds the store's SQL with its schema filled in.
type statements struct {
	text   [statementCount]string
	schema string // quoted
}

// of returns the text of st.
func (q *statements) of(st statement) string { return q.text[st] }

// statementTexts are the store's SQL statements, with S. standing for the
// schema (newStatements fills it in).
var statementTexts = [statementCount]string{
	appendFactsSQL: `SELECT seqs, held, fits, xid FROM S.append_facts($1::text[], $2::int8, $3::text[], $4::int8[], $5::text[], $6::text[], $7::bool)`,
	notifySQL:      `SELECT pg_notify($1, '')`,
	lastSeqSQL: `SELECT coalesce(greatest(
				(SELECT st.head FROM S.stream st WHERE st.name = $1),
				(SELECT f.seq FROM S.fact f WHERE f.stream = $1 ORDER BY f.seq DESC LIMIT 1)), 0)`,
	readStreamSQL: `SELECT seq, coalesce(id, ''), xid, pos, payload::text FROM S.fact
			WHERE stream = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
	readAllSQL: `SELECT stream, seq, coalesce(id, ''), xid, pos, payload::text FROM S.fact
			WHERE (xid, pos) > ($1::xid8, $2::int8) AND xid < pg_snapshot_xmin(pg_current_snapshot())
			ORDER BY xid, pos LIMIT $3`,
	horizonSQL:     `SELECT pg_snapshot_xmin(pg_current_snapshot())`,
	heldBackSQL:    `SELECT EXISTS (SELECT 1 FROM S.fact WHERE (xid, pos) > ($1::xid8, $2::int8))`,
	newestXidSQL:   `SELECT coalesce((SELECT xid FROM S.fact ORDER BY xid DESC LIMIT 1), '0'::xid8)`,
	archiveLockSQL: `SELECT pg_advisory_xact_lock(hashtext('jobgen.pgstore.archive'), hashtext($1))`,
	archivedSQL: `SELECT st.archived, a.first, a.through, a.target FROM S.stream st
			LEFT JOIN S.archive a ON a.stream = st.name AND a.through > $2
			WHERE st.name = $1 ORDER BY a.through`,
}

// newStatements returns the statements of the store in schema.
func newStatements(schema string) statements {
	q := pgx.Identifier{schema}.Sanitize()
	r := strings.NewReplacer("S.", q+".")
	st := statements{schema: q}
	for i, text := range statementTexts {
		st.text[i] = r.Replace(text)
	}
	return st
}

// table returns the qualified name of one of the store's tables.
func (q statements) table(name string) string {
	return q.schema + "." + pgx.Identifier{name}.Sanitize()
}
