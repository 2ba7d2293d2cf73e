-- Job execution intervals from the job facts of a pgstore journal, in SQL:
-- one row per job, registered to settled (or incomplete), in the order each
-- job first appears in the global order (xid, pos). It is the SQL twin of
-- jobhistory.Intervals over the job vocabulary (spec/jobs.yaml): job/registered
-- v1 to v3 (its labels from v3, none before) and job/settled v1 to v3 (v3 adds only hasResult), a v1 settlement's cause read as its
-- upcaster does (producer when the producer reported, else unknown). Facts of other
-- types or versions are skipped. It does not diagnose history the Go
-- projection refuses (a job registered or settled twice: the first fact
-- wins here).
--
-- Written for the default schema, jobgen_journal; pgsql.Intervals runs it on
-- any schema. By hand: psql "$DSN" -f jobhistory/pgsql/intervals.sql
WITH f AS (
	SELECT xid, pos, payload::jsonb AS p
	FROM jobgen_journal.fact
	WHERE (payload::jsonb ->> 'type' = 'job/registered' AND payload::jsonb ->> 'v' IN ('1', '2', '3'))
	   OR (payload::jsonb ->> 'type' = 'job/settled' AND payload::jsonb ->> 'v' IN ('1', '2', '3'))
),
reg AS (
	SELECT DISTINCT ON (p -> 'data' ->> 'jobId') p -> 'data' ->> 'jobId' AS job_id, xid, pos, p -> 'data' AS d
	FROM f WHERE p ->> 'type' = 'job/registered'
	ORDER BY p -> 'data' ->> 'jobId', xid, pos
),
settle AS (
	SELECT DISTINCT ON (p -> 'data' ->> 'jobId') p -> 'data' ->> 'jobId' AS job_id, xid, pos, p ->> 'v' AS v, p -> 'data' AS d
	FROM f WHERE p ->> 'type' = 'job/settled'
	ORDER BY p -> 'data' ->> 'jobId', xid, pos
),
joined AS (
	SELECT r, s,
		CASE WHEN s.job_id IS NULL OR (r.job_id IS NOT NULL AND (r.xid, r.pos) < (s.xid, s.pos)) THEN r.xid ELSE s.xid END AS first_xid,
		CASE WHEN s.job_id IS NULL OR (r.job_id IS NOT NULL AND (r.xid, r.pos) < (s.xid, s.pos)) THEN r.pos ELSE s.pos END AS first_pos
	FROM reg r FULL JOIN settle s ON s.job_id = r.job_id
)
SELECT
	coalesce((r).job_id, (s).job_id)                                                 AS job_id,
	coalesce((r).d ->> 'owner', (s).d -> 'registration' ->> 'owner')                 AS owner,
	coalesce((r).d ->> 'kind', (s).d -> 'registration' ->> 'kind')                   AS kind,
	coalesce((r).d ->> 'label', (s).d -> 'registration' ->> 'label')                 AS label,
	coalesce((r).d ->> 'ordinal', (s).d -> 'registration' ->> 'ordinal')::int        AS ordinal,
	coalesce((r).d ->> 'toolCall', (s).d -> 'registration' ->> 'toolCall', '')       AS tool_call,
	coalesce((r).d ->> 'record', (s).d -> 'registration' ->> 'record')::boolean      AS record,
	coalesce((r).d ->> 'at', (s).d -> 'registration' ->> 'registeredAt')::bigint     AS registered_at,
	coalesce(((s).d ->> 'at')::bigint, 0)                                            AS settled_at,
	coalesce((s).d ->> 'status', '')                                                 AS status,
	coalesce((s).d ->> 'detail', '')                                                 AS detail,
	coalesce(((s).d ->> 'producerReported')::boolean, false)                         AS producer_reported,
	CASE
		WHEN (s).job_id IS NULL THEN ''
		WHEN (s).v = '1' THEN CASE WHEN ((s).d ->> 'producerReported')::boolean THEN 'producer' ELSE '' END
		ELSE coalesce((s).d ->> 'cause', '')
	END                                                                              AS cause,
	(s).job_id IS NOT NULL                                                           AS complete,
	coalesce((r).d -> 'labels', '{}'::jsonb)::text                                   AS labels
FROM joined
ORDER BY first_xid, first_pos;
