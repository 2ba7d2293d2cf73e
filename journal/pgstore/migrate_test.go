package pgstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// migrateTo applies the embedded migrations up to version v to schema, as
// an older build would have left it.
func migrateTo(t *testing.T, schema string, v int) {
	t.Helper()
	ctx := context.Background()
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(ctx, testPool(t), func(tx pgx.Tx) error {
		ident := pgx.Identifier{schema}.Sanitize()
		for _, stmt := range []string{`CREATE SCHEMA ` + ident, `SET LOCAL search_path TO ` + ident, versionTableSQL} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		for _, m := range ms[:v] {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_version (version, name) VALUES ($1, $2)`, m.Version, m.Name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("migrate %s to version %d: %v", schema, v, err)
	}
}

func TestWithoutMigrateRefusesASchemaBehindTheBuild(t *testing.T) {
	ctx := context.Background()
	schema := pgtest.Schema(t)
	migrateTo(t, schema, 1)
	_, err := Open(ctx, pgtest.DSN(t), WithSchema(schema), WithoutMigrate())
	if !errors.Is(err, ErrSchemaBehind) || errors.Is(err, journal.ErrNotJournal) || !strings.Contains(err.Error(), "jobgen journal migrate") {
		t.Fatalf("Open WithoutMigrate of a version 1 schema: %v; want ErrSchemaBehind saying how to migrate", err)
	}
	if v, err := readVersion(ctx, testPool(t), schema); err != nil || v != 1 {
		t.Fatalf("after the refused Open the schema is at version %d (%v), want 1 still", v, err)
	}

	missing := pgtest.Schema(t)
	_, err = Open(ctx, pgtest.DSN(t), WithSchema(missing), WithoutMigrate())
	if !errors.Is(err, ErrSchemaBehind) || !errors.Is(err, journal.ErrNotJournal) {
		t.Fatalf("Open WithoutMigrate of a missing schema: %v; want ErrSchemaBehind and ErrNotJournal", err)
	}
}

func TestPendingListsWhatMigrateApplies(t *testing.T) {
	ctx := context.Background()
	pool := testPool(t)
	schema := pgtest.Schema(t)
	current, pending, err := Pending(ctx, pool, schema)
	if err != nil || current != 0 || len(pending) != SchemaVersion() {
		t.Fatalf("Pending of a missing schema: version %d, %d pending, %v; want 0 and all %d", current, len(pending), err, SchemaVersion())
	}
	migrateTo(t, schema, 1)
	current, pending, err = Pending(ctx, pool, schema)
	if err != nil || current != 1 || len(pending) != SchemaVersion()-1 || pending[0].Version != 2 || pending[0].SQL == "" {
		t.Fatalf("Pending of a version 1 schema: version %d, %v, %v", current, pending, err)
	}
	applied, err := Migrate(ctx, pool, schema)
	if err != nil || len(applied) != len(pending) || applied[0].Version != 2 {
		t.Fatalf("Migrate applied %v (%v), want what Pending listed", applied, err)
	}
	if again, err := Migrate(ctx, pool, schema); err != nil || len(again) != 0 {
		t.Fatalf("a second Migrate applied %v (%v), want nothing", again, err)
	}
	if _, pending, err := Pending(ctx, pool, schema); err != nil || len(pending) != 0 {
		t.Fatalf("Pending of a current schema: %v, %v", pending, err)
	}
	s := openSchema(t, schema, WithoutMigrate())
	if _, err := s.Append(ctx, "s", journal.Entry{Payload: fact("after migrate")}); err != nil {
		t.Fatalf("append to the migrated schema opened WithoutMigrate: %v", err)
	}
}

func TestInspectReportsTheJournal(t *testing.T) {
	ctx := context.Background()
	pool := testPool(t)
	empty := pgtest.Schema(t)
	if st, err := Inspect(ctx, pool, empty); err != nil || st.Version != 0 || st.BuildVersion != SchemaVersion() {
		t.Fatalf("Inspect of a missing schema: %+v %v", st, err)
	}
	s := openTest(t)
	for _, name := range []journal.Stream{"a", "b", "a"} {
		if _, err := s.Append(ctx, name, entries(string(name), 2, false)...); err != nil {
			t.Fatal(err)
		}
	}
	all := readAll(t, s, journal.Position{})
	st, err := s.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != SchemaVersion() || st.Streams != 2 || st.Records != 6 || st.Bytes <= 0 {
		t.Fatalf("status: %+v; want version %d, 2 streams, 6 records, some bytes", st, SchemaVersion())
	}
	if st.Oldest != all[0].Pos || st.Newest != all[len(all)-1].Pos || st.OldestAt.IsZero() || st.NewestAt.Before(st.OldestAt) {
		t.Fatalf("status positions %s (%v) to %s (%v); want %s to %s", st.Oldest, st.OldestAt, st.Newest, st.NewestAt, all[0].Pos, all[len(all)-1].Pos)
	}
}

// What --dry-run prints is what Migrate runs: the script, run by hand as
// an operator would (psql -f), leaves the schema current.
func TestScriptMigratesWhenRunByHand(t *testing.T) {
	ctx := context.Background()
	pool := testPool(t)
	schema := pgtest.Schema(t)
	migrateTo(t, schema, 1)
	_, pending, err := Pending(ctx, pool, schema)
	if err != nil {
		t.Fatal(err)
	}
	script := Script(schema, pending)
	if !strings.HasPrefix(script, "BEGIN;\n") || !strings.HasSuffix(script, "COMMIT;\n") || !strings.Contains(script, "-- migration 0002_") {
		t.Fatalf("script:\n%s", script)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Conn().PgConn().Exec(ctx, script).ReadAll(); err != nil {
		t.Fatalf("running the script: %v", err)
	}
	if v, err := readVersion(ctx, pool, schema); err != nil || v != SchemaVersion() {
		t.Fatalf("after the script the schema is at version %d (%v), want %d", v, err, SchemaVersion())
	}
	openSchema(t, schema, WithoutMigrate())
}
