-- jobgen journal, schema version 3: appends number from the stream's last fact.
-- No table changes. An append, holding its streams' advisory locks, numbers a
-- stream's new facts after the larger of its last fact's seq (one probe of the
-- primary key, read backwards) and head, and no longer raises head: the
-- counter row was a hot row, updated by every commit. head is now a floor
-- under the stream's seqs, moved only by hand (forward, as before): a stream
-- row is created, with head 0, by the stream's first append. A build of
-- version 2 numbers from head alone; the version makes it refuse this schema
-- (ErrSchemaTooNew) rather than fail its appends on the primary key.
COMMENT ON TABLE stream IS
	'jobgen journal: one row per stream; appends hold pg_advisory_xact_lock(hashtextextended(name, seed)) to commit, seed keyed by the schema, and number after greatest(head, the last fact''s seq)';
COMMENT ON COLUMN stream.head IS
	'a floor under the stream''s seqs: appends number after greatest(head, the last fact''s seq) and leave it alone';
