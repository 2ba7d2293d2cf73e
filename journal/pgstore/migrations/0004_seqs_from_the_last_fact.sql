-- jobgen journal, schema version 4: appends number from the stream's last fact.
-- No table changes. An append, holding its streams' advisory locks, numbers a
-- stream's new facts after its last seq, the larger of its last fact's seq
-- (one probe of the primary key, read backwards) and head, and no longer
-- raises head: the counter row was a hot row, updated by every commit. head
-- is now a floor under the stream's seqs, raised only by archive_streams to
-- the last seq it archives, so that once those facts are removed the next
-- append still goes on after them and no seq is given twice. A stream row is
-- created, with head 0, by the stream's first append. Every stream a version
-- 3 schema holds keeps its numbering: its head was its last seq. A build of
-- version 3 numbers from head alone; the version makes it refuse this schema
-- (ErrSchemaTooNew) rather than fail its appends on the primary key.
COMMENT ON TABLE stream IS
	'jobgen journal: one row per stream; appends hold pg_advisory_xact_lock(hashtextextended(name, seed)) to commit, seed keyed by the schema, and number after greatest(head, the last fact''s seq)';
COMMENT ON COLUMN stream.head IS
	'a floor under the stream''s seqs: appends number after greatest(head, the last fact''s seq) and leave it alone; archive_streams raises it to the last seq it archives';

-- archive_streams removes the facts of each stream names[i] through seq
-- throughs[i], which must be its last seq (nothing was appended since the
-- archiver read it; the caller holds the streams' append locks), raises its
-- head to that seq and its archived seq with it (the one UPDATE of the
-- stream), records where they went (target) and the digest of the copy, and
-- answers how many facts each lost. It refuses the whole call if any stream
-- moved.
CREATE OR REPLACE FUNCTION archive_streams(names text[], throughs bigint[], target text, digests text[])
	RETURNS TABLE (stream_name text, removed bigint) LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
	i int;
	h bigint;
	a bigint;
	n bigint;
BEGIN
	PERFORM set_config('jobgen.archiving', 'on', true);
	FOR i IN 1 .. coalesce(array_length(names, 1), 0) LOOP
		SELECT greatest(s.head, (SELECT f.seq FROM fact f WHERE f.stream = s.name ORDER BY f.seq DESC LIMIT 1)), s.archived
			INTO h, a FROM stream s WHERE s.name = names[i] FOR UPDATE;
		IF NOT FOUND OR h <> throughs[i] OR throughs[i] <= a THEN
			RAISE EXCEPTION 'jobgen journal: archive of stream % through seq % refused: its last seq is %, archived through %',
				names[i], throughs[i], h, a
				USING ERRCODE = 'object_not_in_prerequisite_state';
		END IF;
		UPDATE stream SET head = throughs[i], archived = throughs[i] WHERE name = names[i];
		DELETE FROM fact WHERE fact.stream = names[i] AND fact.seq <= throughs[i];
		GET DIAGNOSTICS n = ROW_COUNT;
		IF n <> throughs[i] - a THEN
			RAISE EXCEPTION 'jobgen journal: archive of stream %: removed % facts, want % (seqs % to %)',
				names[i], n, throughs[i] - a, a + 1, throughs[i]
				USING ERRCODE = 'data_corrupted';
		END IF;
		INSERT INTO archive (stream, first, through, target, digest) VALUES (names[i], a + 1, throughs[i], target, digests[i]);
		stream_name := names[i];
		removed := n;
		RETURN NEXT;
	END LOOP;
	PERFORM set_config('jobgen.archiving', 'off', true);
END
$$;
