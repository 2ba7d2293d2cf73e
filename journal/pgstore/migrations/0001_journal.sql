-- jobgen journal, schema version 1: streams, their counters and immutable facts.
-- Runs with search_path set to the store's schema, inside the migration
-- transaction, under the migration advisory lock (see migrate.go).

-- One row per stream: head is the seq of its last fact. The append transaction
-- locks the row (SELECT ... FOR UPDATE) and raises head, so appends to one stream
-- serialize on it: seqs are gap-free (a rollback undoes the bump) and commit
-- order is seq order.
CREATE TABLE stream (
	name text PRIMARY KEY,
	head bigint NOT NULL DEFAULT 0 CHECK (head >= 0)
);

-- One row per fact. (stream, seq) is the backstop of the counter; (stream, id)
-- makes a retried append with the same id a no-op. xid is the appending
-- transaction's id and pos the insertion order inside it: (xid, pos) is the
-- global order, and a reader hands out only rows whose xid is below the
-- snapshot's xmin, so a transaction that commits late never lands behind a
-- reader's cursor.
CREATE TABLE fact (
	stream  text   NOT NULL,
	seq     bigint NOT NULL CHECK (seq > 0),
	id      text   CHECK (id <> ''),
	xid     xid8   NOT NULL DEFAULT pg_current_xact_id(),
	pos     bigint GENERATED ALWAYS AS IDENTITY,
	at      timestamptz NOT NULL DEFAULT now(),
	payload json   NOT NULL,
	PRIMARY KEY (stream, seq)
);
CREATE UNIQUE INDEX fact_stream_id ON fact (stream, id) WHERE id IS NOT NULL;
CREATE INDEX fact_global ON fact (xid, pos);

-- Facts are immutable and streams are never removed or wound back.
CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'jobgen journal: % on %.% refused: the journal is append-only',
		TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME
		USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE FUNCTION refuse_head_rewind() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.name <> OLD.name OR NEW.head < OLD.head THEN
		RAISE EXCEPTION 'jobgen journal: stream % head % -> %: the journal is append-only',
			OLD.name, OLD.head, NEW.head
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	RETURN NEW;
END
$$;

CREATE TRIGGER fact_immutable BEFORE UPDATE OR DELETE ON fact
	FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER fact_no_truncate BEFORE TRUNCATE ON fact
	FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
CREATE TRIGGER stream_no_delete BEFORE DELETE ON stream
	FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER stream_no_truncate BEFORE TRUNCATE ON stream
	FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
CREATE TRIGGER stream_forward_only BEFORE UPDATE ON stream
	FOR EACH ROW EXECUTE FUNCTION refuse_head_rewind();
