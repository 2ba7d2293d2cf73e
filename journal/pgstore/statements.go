package pgstore

import (
	"strings"

	"github.com/jackc/pgx/v5"
)

// A statement names one of the store's SQL statements.
type statement int

const (
	// lockStreamsSQL takes the lock every append to a stream holds to its
	// transaction's end: an advisory transaction lock keyed by a hash of the
	// stream's name ($1, the batch's streams) under the store's seed ($2),
	// taken in key order so that concurrent transactions never deadlock. An
	// advisory lock gives the transaction no xid, and nothing before it does:
	// a transaction's xid is assigned after it holds every lock it appends
	// under, so two transactions appending to one stream have xids in the
	// order they commit there. Ordering the global order by xid then agrees
	// with every stream's order. It also sets plan_cache_mode for the rest
	// of the transaction, so that appendEntriesSQL, bound after it, runs its
	// cached generic plan instead of planning itself anew for every batch
	// (its arrays make each custom plan look cheaper than the generic one).
	lockStreamsSQL statement = iota
	// appendEntriesSQL is the append, run after lockStreamsSQL: READ
	// COMMITTED takes a snapshot per statement, so it sees every fact
	// committed to the locked streams. Its arguments are a chunk's streams
	// ($1) with how many entries each has in it ($2), and for each entry its
	// stream's index in $1 ($3, from 1), its rank among that stream's
	// entries ($4, from 1), its id ($5, '' for none) and payload ($6); the
	// client leaves out an entry whose id an earlier entry of the
	// transaction has. For each stream it finds the base, the larger of the
	// last fact's seq (one probe of the primary key, backwards) and the
	// stream's head (a floor archive_streams raises), and whether base + count
	// fits in a seq; for each entry with an id, the seq of the fact that
	// holds that id already (one probe). When no id is held it inserts every
	// entry of a stream that fits as seq base + rank, in entry order, and
	// creates the rows of new streams; when one is, it inserts nothing (the
	// client drops the held entries and appends the rest again), so that a
	// held entry never takes a seq. It writes no row it does not insert: no
	// counter is raised. It answers one row: the bases and fits by stream,
	// the held entries' positions (from 1) and seqs, or NULL, and the
	// transaction's xid if it inserted.
	appendEntriesSQL
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
	lockStreamsSQL: `SELECT pg_advisory_xact_lock(k), set_config('plan_cache_mode', 'force_generic_plan', true) FROM (
				SELECT hashtextextended(n, $2) AS k FROM unnest($1::text[]) AS u(n)
			) AS keys ORDER BY k`,
	appendEntriesSQL: `WITH a AS MATERIALIZED (
				SELECT array_agg(greatest(head, last, 0) ORDER BY i) AS base,
					array_agg(greatest(head, last, 0) <= 9223372036854775807 - n ORDER BY i) AS fits,
					array_agg(head IS NULL ORDER BY i) AS fresh
				FROM (SELECT d.i, d.n,
						(SELECT st.head FROM S.stream st WHERE st.name = d.stream) AS head,
						(SELECT f.seq FROM S.fact f WHERE f.stream = d.stream ORDER BY f.seq DESC LIMIT 1) AS last
					FROM unnest($1::text[], $2::int8[]) WITH ORDINALITY AS d(stream, n, i)
					OFFSET 0) AS p
			),
			u AS MATERIALIZED (
				SELECT u.ord, u.si, u.k, u.id, u.payload,
					CASE WHEN u.id <> '' THEN (SELECT f.seq FROM S.fact f
						WHERE f.stream = ($1::text[])[u.si] AND f.id = u.id AND f.id IS NOT NULL) END AS held
				FROM unnest($3::int8[], $4::int8[], $5::text[], $6::text[]) WITH ORDINALITY AS u(si, k, id, payload, ord)
			),
			h AS MATERIALIZED (
				SELECT array_agg(ord ORDER BY ord) AS ord, array_agg(held ORDER BY ord) AS seq FROM u WHERE held IS NOT NULL
			),
			ins AS (
				INSERT INTO S.fact (stream, seq, id, payload)
				SELECT ($1::text[])[u.si], a.base[u.si] + u.k, nullif(u.id, ''), u.payload::json
				FROM u, a, h WHERE a.fits[u.si] AND h.ord IS NULL
				ORDER BY u.ord
				RETURNING xid
			),
			new_streams AS (
				INSERT INTO S.stream (name)
				SELECT x.name FROM a, h, unnest($1::text[], a.fresh, a.fits) AS x(name, fresh, fits)
				WHERE x.fresh AND x.fits AND h.ord IS NULL
				ON CONFLICT (name) DO NOTHING
			)
			SELECT a.base, a.fits, h.ord, h.seq, (SELECT xid FROM ins LIMIT 1) FROM a, h`,
	notifySQL: `SELECT pg_notify($1, '')`,
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
