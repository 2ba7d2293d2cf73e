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
	// stream's name ($1) under the store's seed ($2), taken in key order so
	// that concurrent transactions never deadlock. An advisory lock gives
	// the transaction no xid, and nothing before it does: a transaction's
	// xid is assigned after it holds every lock it appends under, so two
	// transactions appending to one stream have xids in the order they
	// commit there. Ordering the global order by xid then agrees with every
	// stream's order.
	lockStreamsSQL statement = iota
	// appendEntriesSQL is the append: run after lockStreamsSQL (READ COMMITTED
	// takes a snapshot per statement, so it sees every fact committed to the
	// locked streams), it answers the entries whose id the stream holds with
	// that seq; of the entries sharing an id it numbers only the first;
	// it numbers the rest from the heads in batch order, inserts them,
	// creates or raises the counter rows, and answers (ord, seq, kind, xid)
	// with kind 'new' or 'held'. A stream whose seqs would pass the largest
	// is refused whole: its entries are answered 'full' and none inserted.
	// The seq arithmetic is numeric, so that refusing cannot overflow.
	appendEntriesSQL
	notifySQL
	readStreamSQL
	lastSeqSQL // the stream's last seq, one probe of the primary key
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
	lockStreamsSQL: `SELECT pg_advisory_xact_lock(k) FROM (
				SELECT DISTINCT hashtextextended(n, $2) AS k FROM unnest($1::text[]) AS u(n)
			) AS keys ORDER BY k`,
	appendEntriesSQL: `WITH u AS (
				SELECT u.stream, u.id, u.payload, u.ord,
					row_number() OVER (PARTITION BY u.stream, u.id ORDER BY u.ord) AS nth
				FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS u(stream, id, payload, ord)
			),
			probe AS MATERIALIZED (
				-- One index probe per entry with an id, as a subquery: a join
				-- may be planned as a scan of the whole fact table.
				SELECT u.ord, (SELECT f.seq FROM S.fact f
					WHERE f.stream = u.stream AND f.id = u.id AND f.id IS NOT NULL) AS seq
				FROM u WHERE u.id <> '' AND u.nth = 1
			),
			numbered AS (
				SELECT u.stream, u.id, u.payload, u.ord,
					coalesce(st.head, 0)::numeric + row_number() OVER (PARTITION BY u.stream ORDER BY u.ord) AS seq
				FROM u LEFT JOIN S.stream st ON st.name = u.stream
				WHERE u.id = '' OR (u.nth = 1 AND NOT EXISTS (SELECT 1 FROM probe p WHERE p.ord = u.ord AND p.seq IS NOT NULL))
			),
			full_streams AS (
				SELECT stream FROM numbered GROUP BY stream HAVING max(seq) > 9223372036854775807
			),
			kept AS (
				SELECT stream, id, payload, ord, seq::int8 AS seq FROM numbered
				WHERE stream NOT IN (SELECT stream FROM full_streams)
			),
			ins AS (
				INSERT INTO S.fact (stream, seq, id, payload)
				SELECT stream, seq, nullif(id, ''), payload::json FROM kept ORDER BY ord
			),
			heads AS (
				INSERT INTO S.stream AS st (name, head)
				SELECT stream, max(seq) FROM kept GROUP BY stream ORDER BY stream
				ON CONFLICT (name) DO UPDATE SET head = excluded.head
			)
			SELECT ord, seq, 'new', pg_current_xact_id() FROM kept
			UNION ALL SELECT p.ord, p.seq, 'held', NULL FROM probe p WHERE p.seq IS NOT NULL
			UNION ALL SELECT u.ord, NULL, 'full', NULL FROM u WHERE u.stream IN (SELECT stream FROM full_streams)`,
	notifySQL: `SELECT pg_notify($1, '')`,
	readStreamSQL: `SELECT seq, coalesce(id, ''), xid, pos, payload::text FROM S.fact
			WHERE stream = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
	lastSeqSQL: `SELECT coalesce(max(seq), 0) FROM S.fact WHERE stream = $1`,
	readAllSQL: `SELECT stream, seq, coalesce(id, ''), xid, pos, payload::text FROM S.fact
			WHERE (xid, pos) > ($1::xid8, $2::int8) AND xid < pg_snapshot_xmin(pg_current_snapshot())
			ORDER BY xid, pos LIMIT $3`,
	horizonSQL:   `SELECT pg_snapshot_xmin(pg_current_snapshot())`,
	heldBackSQL:  `SELECT EXISTS (SELECT 1 FROM S.fact WHERE (xid, pos) > ($1::xid8, $2::int8))`,
	newestXidSQL: `SELECT coalesce((SELECT xid FROM S.fact ORDER BY xid DESC LIMIT 1), '0'::xid8)`,
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
