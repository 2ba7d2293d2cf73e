-- jobgen journal, schema version 3: retention. A stream whose history is over
-- may be archived into a journal file and its facts removed, through
-- archive_streams alone: the one delete the triggers allow.

-- archived is the seq through which the stream's facts were archived and
-- removed: the store holds its seqs archived+1 to head. The counter row stays,
-- so a later append goes on at head+1 and no seq is given twice.
ALTER TABLE stream ADD COLUMN archived bigint NOT NULL DEFAULT 0;
ALTER TABLE stream ADD CONSTRAINT stream_archived_within_head CHECK (archived >= 0 AND archived <= head);

-- One row per archived run of a stream's seqs: where they went and the
-- SHA-256 of what the archiver copied and read back (see pgstore's Archive).
CREATE TABLE archive (
	stream   text        NOT NULL,
	first    bigint      NOT NULL CHECK (first > 0),
	through  bigint      NOT NULL CHECK (through >= first),
	target   text        NOT NULL,
	digest   text        NOT NULL,
	at       timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (stream, through)
);

-- A fact may be deleted only inside archive_streams (which sets
-- jobgen.archiving for its transaction) and only once its stream's archived
-- seq covers it. The functions that read tables run with the search_path of
-- this migration (the store's schema), whatever the caller's.
CREATE FUNCTION refuse_unarchived_delete() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
	IF coalesce(current_setting('jobgen.archiving', true), '') = 'on'
		AND OLD.seq <= (SELECT archived FROM stream WHERE name = OLD.stream) THEN
		RETURN OLD;
	END IF;
	RAISE EXCEPTION 'jobgen journal: DELETE on %.% refused: the journal is append-only; archive whole streams with jobgen journal archive',
		TG_TABLE_SCHEMA, TG_TABLE_NAME
		USING ERRCODE = 'insufficient_privilege';
END
$$;

DROP TRIGGER fact_immutable ON fact;
CREATE TRIGGER fact_immutable BEFORE UPDATE ON fact
	FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER fact_delete_archived_only BEFORE DELETE ON fact
	FOR EACH ROW EXECUTE FUNCTION refuse_unarchived_delete();

-- A stream's head never moves back, and its archived seq moves only forward,
-- only inside archive_streams.
CREATE OR REPLACE FUNCTION refuse_head_rewind() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.name <> OLD.name OR NEW.head < OLD.head THEN
		RAISE EXCEPTION 'jobgen journal: stream % head % -> %: the journal is append-only',
			OLD.name, OLD.head, NEW.head
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	IF NEW.archived <> OLD.archived AND (NEW.archived < OLD.archived
		OR coalesce(current_setting('jobgen.archiving', true), '') <> 'on') THEN
		RAISE EXCEPTION 'jobgen journal: stream % archived % -> % refused: only archive_streams moves it, forward',
			OLD.name, OLD.archived, NEW.archived
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	RETURN NEW;
END
$$;

CREATE TRIGGER archive_no_change BEFORE UPDATE OR DELETE ON archive
	FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER archive_no_truncate BEFORE TRUNCATE ON archive
	FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- archive_streams removes the facts of each stream names[i] through seq
-- throughs[i], which must be its head (nothing was appended since the
-- archiver read it; the caller holds the streams' append locks), records
-- where they went (target) and the digest of the copy, and answers how many
-- facts each lost. It refuses the whole call if any stream moved.
CREATE FUNCTION archive_streams(names text[], throughs bigint[], target text, digests text[])
	RETURNS TABLE (stream_name text, removed bigint) LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
	i int;
	h bigint;
	a bigint;
	n bigint;
BEGIN
	PERFORM set_config('jobgen.archiving', 'on', true);
	FOR i IN 1 .. coalesce(array_length(names, 1), 0) LOOP
		SELECT s.head, s.archived INTO h, a FROM stream s WHERE s.name = names[i] FOR UPDATE;
		IF NOT FOUND OR h <> throughs[i] OR throughs[i] <= a THEN
			RAISE EXCEPTION 'jobgen journal: archive of stream % through seq % refused: its head is %, archived through %',
				names[i], throughs[i], h, a
				USING ERRCODE = 'object_not_in_prerequisite_state';
		END IF;
		UPDATE stream SET archived = throughs[i] WHERE name = names[i];
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
