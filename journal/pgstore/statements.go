package pgstore

import (
	"strings"

	"github.com/jackc/pgx/v5"
)

// statements holds the store's SQL with its schema filled in.
type statements struct {
	createStreams, lockStreams, findIDs string
	insertFacts, raiseHeads, xid        string
	appendAll, appendNoIDs              string
	notify                              string
	readStream, readAll, horizon        string
	newestXid                           string
	lastSeq                             string
	schema                              string
}

// statementTexts are the store's SQL statements, with S. standing for the schema
// (newStatements fills it in).
var statementTexts = statements{
	// Counter rows of streams new to this store, in name order.
	createStreams: `INSERT INTO S.stream (name)
			SELECT n FROM unnest($1::text[]) AS u(n) ORDER BY n
			ON CONFLICT DO NOTHING`,
	// The lock every append to a stream takes, in name order.
	lockStreams: `SELECT name, head FROM S.stream
			WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE`,
	// Ids the locked streams already hold. Read after the locks, this
	// statement's snapshot sees every fact committed to them.
	findIDs: `WITH probe AS MATERIALIZED (
				SELECT u.stream, u.id, (SELECT f.seq FROM S.fact f
					WHERE f.stream = u.stream AND f.id = u.id AND f.id IS NOT NULL) AS seq
				FROM unnest($1::text[], $2::text[]) AS u(stream, id)
			)
			SELECT stream, id, seq FROM probe WHERE seq IS NOT NULL`,
	// The new facts, inserted in queue order so that pos follows it.
	insertFacts: `INSERT INTO S.fact (stream, seq, id, payload)
			SELECT u.stream, u.seq, nullif(u.id, ''), u.payload::json
			FROM unnest($1::text[], $2::int8[], $3::text[], $4::text[]) WITH ORDINALITY AS u(stream, seq, id, payload, ord)
			ORDER BY u.ord`,
	// The one-statement append, run after lockStreams in the same
	// transaction (so its snapshot sees every fact committed to the locked
	// streams): entries whose id the stream holds answer that seq; of the
	// entries sharing an id only the first is inserted; the rest are
	// numbered from the heads in batch order, inserted and the heads
	// raised. Answers (ord, seq, inserted, xid) for the inserted and the held.
	appendAll: `WITH u AS (
				SELECT u.*, row_number() OVER (PARTITION BY u.stream, u.id ORDER BY u.ord) AS nth
				FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS u(stream, id, payload, ord)
			),
			probe AS MATERIALIZED (
				-- One index probe per entry with an id, as a subquery: a join
				-- may be planned as a scan of the whole fact table.
				SELECT u.ord, (SELECT f.seq FROM S.fact f
					WHERE f.stream = u.stream AND f.id = u.id AND f.id IS NOT NULL) AS seq
				FROM u WHERE u.id <> ''
			),
			held AS (SELECT ord, seq FROM probe WHERE seq IS NOT NULL),
			numbered AS (
				SELECT u.stream, u.id, u.payload, u.ord,
					st.head + row_number() OVER (PARTITION BY u.stream ORDER BY u.ord) AS seq
				FROM u JOIN S.stream st ON st.name = u.stream
				WHERE u.id = '' OR (u.nth = 1 AND NOT EXISTS (SELECT 1 FROM held h WHERE h.ord = u.ord))
			),
			ins AS (
				INSERT INTO S.fact (stream, seq, id, payload)
				SELECT stream, seq, nullif(id, ''), payload::json FROM numbered ORDER BY ord
			),
			up AS (
				UPDATE S.stream AS st SET head = m.head
				FROM (SELECT stream, max(seq) AS head FROM numbered GROUP BY stream) AS m
				WHERE st.name = m.stream
			)
			SELECT ord, seq, true, pg_current_xact_id() FROM numbered
			UNION ALL SELECT ord, seq, false, pg_current_xact_id() FROM held`,
	// The append of a batch without ids, in one statement: no id to look
	// up, so the snapshot need not follow the locks. The locks are taken
	// in name order; FOR UPDATE answers each row's latest head, and the
	// UPDATE of a row this statement locked applies to that version.
	appendNoIDs: `WITH locked AS (
				SELECT name, head FROM S.stream WHERE name = ANY($3::text[]) ORDER BY name FOR UPDATE
			),
			numbered AS (
				SELECT u.stream, u.payload, u.ord,
					l.head + row_number() OVER (PARTITION BY u.stream ORDER BY u.ord) AS seq
				FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(stream, payload, ord)
				JOIN locked l ON l.name = u.stream
			),
			ins AS (
				INSERT INTO S.fact (stream, seq, payload)
				SELECT stream, seq, payload::json FROM numbered ORDER BY ord
			),
			up AS (
				UPDATE S.stream AS st SET head = m.head
				FROM (SELECT stream, max(seq) AS head FROM numbered GROUP BY stream) AS m
				WHERE st.name = m.stream
			)
			SELECT ord, seq, true, pg_current_xact_id() FROM numbered`,
	raiseHeads: `UPDATE S.stream AS st SET head = u.head
			FROM unnest($1::text[], $2::int8[]) AS u(name, head)
			WHERE st.name = u.name AND u.head > st.head`,
	xid:    `SELECT pg_current_xact_id()`,
	notify: `SELECT pg_notify($1, '')`,
	readStream: `SELECT seq, coalesce(id, ''), xid, pos, payload::text FROM S.fact
			WHERE stream = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
	// Everything after the cursor that is safe to hand out: rows of
	// transactions below the snapshot's xmin, all of which have ended, so
	// no row can later appear before the last one returned.
	readAll: `SELECT stream, seq, coalesce(id, ''), xid, pos, payload::text FROM S.fact
			WHERE (xid, pos) > ($1::xid8, $2::int8) AND xid < pg_snapshot_xmin(pg_current_snapshot())
			ORDER BY xid, pos LIMIT $3`,
	horizon: `SELECT pg_snapshot_xmin(pg_current_snapshot())`,
	// The newest transaction whose facts this statement's snapshot sees:
	// the last commit a ReadAll beginning now must wait for.
	newestXid: `SELECT coalesce((SELECT xid FROM S.fact ORDER BY xid DESC LIMIT 1), '0'::xid8)`,
	lastSeq:   `SELECT coalesce((SELECT head FROM S.stream WHERE name = $1), 0)`,
}

// newStatements returns the statements of the store in schema.
func newStatements(schema string) statements {
	q := pgx.Identifier{schema}.Sanitize()
	r := strings.NewReplacer("S.", q+".")
	st := statementTexts
	for _, text := range st.sql() {
		*text = r.Replace(*text)
	}
	st.schema = q
	return st
}

// sql returns the statements' texts, for newStatements to fill in.
func (q *statements) sql() []*string {
	return []*string{
		&q.createStreams, &q.lockStreams, &q.findIDs,
		&q.insertFacts, &q.raiseHeads, &q.xid,
		&q.appendAll, &q.appendNoIDs,
		&q.notify,
		&q.readStream, &q.readAll, &q.horizon, &q.newestXid,
		&q.lastSeq,
	}
}

// table returns the qualified name of one of the store's tables.
func (q statements) table(name string) string {
	return q.schema + "." + pgx.Identifier{name}.Sanitize()
}
