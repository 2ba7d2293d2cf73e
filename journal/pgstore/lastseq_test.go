package pgstore

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// Appends leave a stream's head behind, so a stream's last seq is the
// larger of head and its last fact's. Archive raises head to the last seq
// it moves: once the facts are gone, LastSeq still answers it, the next
// append goes on after it (no seq is given twice), and Check and Status
// agree, however often the stream is archived.
func TestNoSeqIsGivenTwiceAfterAnArchive(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	file := openArchive(t)
	want := uint64(0)
	for round := range 3 {
		appendN(t, s, "s", round, 3)
		want += 3
		if last, err := s.LastSeq(ctx, "s"); err != nil || last != want {
			t.Fatalf("round %d: LastSeq before the archive = %d %v, want %d", round, last, err, want)
		}
		if moved, err := s.Archive(ctx, whole(t, s, "s"), file); err != nil || len(moved) != 1 || moved[0].Through != want {
			t.Fatalf("round %d: Archive: %+v %v, want through %d", round, moved, err, want)
		}
		if last, err := s.LastSeq(ctx, "s"); err != nil || last != want {
			t.Fatalf("round %d: LastSeq of a stream archived whole = %d %v, want %d", round, last, err, want)
		}
		var head, archived int64
		if err := s.Pool().QueryRow(ctx, `SELECT head, archived FROM `+s.sql.table("stream")+` WHERE name = 's'`).Scan(&head, &archived); err != nil {
			t.Fatal(err)
		}
		if head != int64(want) || archived != int64(want) {
			t.Fatalf("round %d: stream row head %d archived %d, want both %d", round, head, archived, want)
		}
		if sum, err := s.Check(ctx); err != nil || sum.Records != 0 {
			t.Fatalf("round %d: Check of a stream archived whole: %+v %v", round, sum, err)
		}
	}
	seqs, err := s.Append(ctx, "s", journal.Entry{Payload: fact("after")})
	if err != nil || len(seqs) != 1 || seqs[0] != want+1 {
		t.Fatalf("append after the archives: %v %v, want seq %d", seqs, err, want+1)
	}
	if st, err := s.Status(ctx); err != nil || st.Records != 1 || st.ArchivedRecords != int64(want) {
		t.Fatalf("Status: %+v %v, want 1 record and %d archived", st, err, want)
	}
	if last, err := s.LastSeq(ctx, "s"); err != nil || last != want+1 {
		t.Fatalf("LastSeq after the append = %d %v, want %d", last, err, want+1)
	}
	if last, err := s.LastSeq(ctx, "never"); err != nil || last != 0 {
		t.Fatalf("LastSeq of a stream never appended to = %d %v, want 0", last, err)
	}
}

// A version 3 schema, whose appends raised head to the last seq, keeps
// every stream's numbering when it migrates to version 4: a stream with
// facts goes on after its last, and one whose facts were all archived goes
// on after its archived seq.
func TestMigrationFromVersion3KeepsEveryStreamsNumbering(t *testing.T) {
	ctx := context.Background()
	schema := pgtest.Schema(t)
	pool := testPool(t)
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate(ctx, pool, schema, ms[:3]); err != nil {
		t.Fatal(err)
	}
	stream, fact := pgx.Identifier{schema, "stream"}.Sanitize(), pgx.Identifier{schema, "fact"}.Sanitize()
	// What a version 3 build leaves: head is the last seq; "gone" was
	// archived whole (archived = head, no facts), "part" through seq 2.
	for _, stmt := range []string{
		`INSERT INTO ` + stream + ` (name, head) VALUES ('kept', 3), ('gone', 5), ('part', 4)`,
		`INSERT INTO ` + fact + ` (stream, seq, payload) VALUES ('kept', 1, '{}'), ('kept', 2, '{}'), ('kept', 3, '{}'), ('part', 3, '{}'), ('part', 4, '{}')`,
	} {
		if _, err := pool.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	// archived moves only under archive_streams' setting, in one transaction.
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('jobgen.archiving', 'on', true)`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE `+stream+` SET archived = CASE name WHEN 'gone' THEN 5 ELSE 2 END WHERE name IN ('gone', 'part')`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	s := openSchema(t, schema)
	if v, err := readVersion(ctx, pool, schema); err != nil || v != SchemaVersion() || v < 4 {
		t.Fatalf("after Open the schema is at version %d (%v), want %d", v, err, SchemaVersion())
	}
	for stream, want := range map[journal.Stream]uint64{"kept": 4, "gone": 6, "part": 5, "new": 1} {
		if last, err := s.LastSeq(ctx, stream); err != nil || last != want-1 {
			t.Errorf("%s: LastSeq after the migration = %d %v, want %d", stream, last, err, want-1)
		}
		seqs, err := s.Append(ctx, stream, journal.Entry{Payload: factPayload("next")})
		if err != nil || seqs[0] != want {
			t.Errorf("%s: the first append after the migration got %v %v, want seq %d", stream, seqs, err, want)
		}
	}
	if sum, err := s.Check(ctx); err != nil || sum.Records != 9 {
		t.Fatalf("Check after the migration: %+v %v", sum, err)
	}
}

// A build of version 3 numbers from head alone, which a version 4 schema
// leaves behind: it must refuse the schema, through Migrate (what Open
// runs) and through Pending, rather than append at a seq that is taken.
func TestAVersion3BuildRefusesAVersion4Schema(t *testing.T) {
	ctx := context.Background()
	schema := pgtest.Schema(t)
	s := openSchema(t, schema)
	appendN(t, s, "s", 0, 2)
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 4 || ms[3].Version != 4 {
		t.Fatalf("migration 4 is %+v, want the seqs from the last fact", ms[3:])
	}
	if _, err := migrate(ctx, s.Pool(), schema, ms[:3]); !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("a version 3 build migrating a version 4 schema: %v, want ErrSchemaTooNew", err)
	}
	if v, err := readVersion(ctx, s.Pool(), schema); err != nil || v != SchemaVersion() {
		t.Fatalf("after the refusal the schema is at version %d (%v), want %d untouched", v, err, SchemaVersion())
	}
}

// A build of version 4 archives a stream only through its last seq and
// takes the streams' append locks to keep it so; a version 5 schema
// archives through the seq a judge read, while appends go on: the older
// build must refuse the schema rather than archive under appends it does
// not expect.
func TestAVersion4BuildRefusesAVersion5Schema(t *testing.T) {
	ctx := context.Background()
	schema := pgtest.Schema(t)
	s := openSchema(t, schema)
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 5 || ms[4].Version != 5 {
		t.Fatalf("migration 5 is %+v, want the archive of what was judged", ms[4:])
	}
	if _, err := migrate(ctx, s.Pool(), schema, ms[:4]); !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("a version 4 build migrating a version 5 schema: %v, want ErrSchemaTooNew", err)
	}
}
