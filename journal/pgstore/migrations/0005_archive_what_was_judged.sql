-- jobgen journal, schema version 5: an archive moves what was judged. No
-- table changes. Archive moves each stream through the seq its judge read
-- (package retention), not through whatever the stream holds when the
-- archive reaches it: a fact appended after the judgement (a job registered
-- in a session being archived) was not judged and stays. Archive no longer
-- takes the streams' append locks, so that appends never wait for an
-- archive; what it moves is a prefix of the stream whose facts are
-- immutable, and appends only add facts after the stream's last seq.
-- Archivers of one schema take turns on an advisory lock of their own.
-- A build of version 4 would refuse an archive through less than the last
-- seq; the version makes it refuse this schema (ErrSchemaTooNew) instead.

-- archive_streams removes the facts of each stream names[i] through seq
-- throughs[i], which must lie after its archived seq and at or before its
-- last seq (greatest(head, the last fact's seq)), raises its head to at
-- least that seq and its archived seq to it (the one UPDATE of the
-- stream), records where they went (target) and the digest of the copy,
-- and answers how many facts each lost. It refuses the whole call if a
-- range is not there to move: another archiver moved it, or it was never
-- appended.
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
			INTO h, a FROM stream s WHERE s.name = names[i] FOR NO KEY UPDATE;
		IF NOT FOUND OR throughs[i] > h OR throughs[i] <= a THEN
			RAISE EXCEPTION 'jobgen journal: archive of stream % through seq % refused: its last seq is %, archived through %',
				names[i], throughs[i], h, a
				USING ERRCODE = 'object_not_in_prerequisite_state';
		END IF;
		UPDATE stream SET head = greatest(head, throughs[i]), archived = throughs[i] WHERE name = names[i];
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
