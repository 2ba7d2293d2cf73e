-- jobgen journal, schema version 2: appends lock streams with advisory locks.
-- No table changes. An append now holds pg_advisory_xact_lock on a hash of
-- each stream's name before it writes anything, instead of the counter row's
-- FOR UPDATE (version 1), so that its xid is assigned after it holds every
-- lock and the global order (xid, pos) agrees with every stream's order. A
-- build of version 1 does not take those locks; the version makes it refuse
-- this schema (ErrSchemaTooNew) rather than append beside a newer one.
COMMENT ON TABLE stream IS
	'jobgen journal: one counter row per stream; appends hold pg_advisory_xact_lock(hashtextextended(name, seed)) to commit, seed keyed by the schema';
