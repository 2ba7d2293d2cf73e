-- jobgen journal, schema version 6: one statement per append transaction.
-- No table changes. append_facts does what an append transaction did in
-- four statements (BEGIN, the stream locks, the append, COMMIT), so that the
-- client sends one statement, in an implicit transaction of its own, and the
-- server runs it from a cached plan; the notification stays a transaction of
-- its own, after it (decision 0133). A build of version 5 would append with
-- its own statements beside this one, which number alike; the version makes
-- it refuse this schema (ErrSchemaTooNew) all the same, as every step does.

-- append_facts appends one chunk of an append transaction:
--
--   p_locks     the streams to lock first (every stream of the transaction;
--               empty for a later chunk of one cut into several), each with
--               pg_advisory_xact_lock(hashtextextended(name, p_seed)), in key
--               order, so that concurrent appends never deadlock. An advisory
--               lock assigns no xid, and nothing before the insert does: the
--               transaction's xid follows every lock it appends under, so the
--               global order (xid, pos) agrees with every stream's order.
--   p_streams   the chunk's streams; p_si, p_ids and p_payloads give, for each
--               entry in order, its stream's index in p_streams (from 1), its
--               id ('' for none) and payload. The client leaves out an entry
--               whose id an earlier entry of the transaction has.
--
-- The append is a statement of its own after the locks, and in READ
-- COMMITTED each statement of a function takes its own snapshot, so it sees
-- every fact committed to the locked streams; the function refuses another
-- isolation level, whose snapshot would be older than the locks. An entry
-- whose id its stream holds takes no seq and answers the held fact's; the
-- others of a stream are numbered after its base, the larger of its last
-- fact's seq (one backward probe of the primary key) and head, in entry
-- order. A stream whose new seqs would pass the largest bigint inserts
-- nothing (fits false, its entries' seqs 0); the others insert, unless
-- p_whole (an AppendBatch, all or nothing): then none does. It answers,
-- by entry, the seqs and whether each was held; by stream, whether it fit;
-- and the transaction's xid if it inserted. It writes no row it does not
-- insert, but the row of a new stream.
CREATE FUNCTION append_facts(p_locks text[], p_seed bigint, p_streams text[], p_si bigint[], p_ids text[], p_payloads text[], p_whole boolean,
	OUT seqs bigint[], OUT held boolean[], OUT fits boolean[], OUT xid xid8)
	LANGUAGE plpgsql SET search_path FROM CURRENT SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
	k bigint;
BEGIN
	IF current_setting('transaction_isolation') <> 'read committed' THEN
		RAISE EXCEPTION 'jobgen journal: append_facts needs READ COMMITTED, not %', current_setting('transaction_isolation')
			USING ERRCODE = 'invalid_transaction_state';
	END IF;
	FOR k IN SELECT hashtextextended(l.name, p_seed) AS key FROM unnest(p_locks) AS l(name) ORDER BY key LOOP
		PERFORM pg_advisory_xact_lock(k);
	END LOOP;
	WITH u AS MATERIALIZED (
		SELECT e.ord, e.si, e.id, e.payload,
			CASE WHEN e.id <> '' THEN (SELECT f.seq FROM fact f
				WHERE f.stream = p_streams[e.si] AND f.id = e.id AND f.id IS NOT NULL) END AS held
		FROM unnest(p_si, p_ids, p_payloads) WITH ORDINALITY AS e(si, id, payload, ord)
	),
	w AS MATERIALIZED (
		SELECT u.ord, u.si, u.id, u.payload, u.held,
			count(*) FILTER (WHERE u.held IS NULL) OVER (PARTITION BY u.si ORDER BY u.ord) AS rank
		FROM u
	),
	a AS MATERIALIZED (
		SELECT p.i, greatest(p.head, p.last, 0) AS base,
			greatest(p.head, p.last, 0) <= 9223372036854775807 - p.n AS fits,
			p.head IS NULL AND p.n > 0 AS fresh
		FROM (SELECT d.i, coalesce(c.n, 0) AS n,
				(SELECT st.head FROM stream st WHERE st.name = d.name) AS head,
				(SELECT f.seq FROM fact f WHERE f.stream = d.name ORDER BY f.seq DESC LIMIT 1) AS last
			FROM unnest(p_streams) WITH ORDINALITY AS d(name, i)
			LEFT JOIN (SELECT u.si, count(*) FILTER (WHERE u.held IS NULL) AS n FROM u GROUP BY u.si) AS c ON c.si = d.i
			OFFSET 0) AS p
	),
	z AS MATERIALIZED (
		SELECT a.i, a.base, a.fresh, a.fits AND (NOT p_whole OR (SELECT bool_and(b.fits) FROM a AS b)) AS fits FROM a
	),
	ins AS (
		INSERT INTO fact (stream, seq, id, payload)
		SELECT p_streams[w.si], a.base + w.rank, nullif(w.id, ''), w.payload::json
		FROM w JOIN z AS a ON a.i = w.si WHERE a.fits AND w.held IS NULL
		ORDER BY w.ord
		RETURNING fact.xid
	),
	new_streams AS (
		INSERT INTO stream (name)
		SELECT p_streams[a.i] FROM z AS a WHERE a.fresh AND a.fits
		ON CONFLICT (name) DO NOTHING
	)
	SELECT array_agg(CASE WHEN w.held IS NOT NULL THEN w.held WHEN a.fits THEN a.base + w.rank ELSE 0 END ORDER BY w.ord),
		array_agg(w.held IS NOT NULL ORDER BY w.ord),
		(SELECT array_agg(b.fits ORDER BY b.i) FROM z AS b),
		(SELECT ins.xid FROM ins LIMIT 1)
		INTO seqs, held, fits, xid
		FROM w JOIN z AS a ON a.i = w.si;
END
$$;
