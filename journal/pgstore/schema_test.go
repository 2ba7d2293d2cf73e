package pgstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/jobgen/jobgen/journal"
)

func TestFactRowsAreImmutable(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	if _, err := s.Append(ctx, "s", journal.Entry{Payload: fact("kept")}); err != nil {
		t.Fatal(err)
	}
	fact, stream := s.sql.table("fact"), s.sql.table("stream")
	for _, stmt := range []string{
		`UPDATE ` + fact + ` SET payload = '"changed"'`,
		`DELETE FROM ` + fact,
		`TRUNCATE ` + fact,
		`DELETE FROM ` + stream,
		`TRUNCATE ` + stream + ` CASCADE`,
		`UPDATE ` + stream + ` SET head = 0`,
	} {
		_, err := s.Pool().Exec(ctx, stmt)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || !strings.Contains(pgErr.Message, "append-only") {
			t.Errorf("%s: %v, want the append-only trigger's refusal", stmt, err)
		}
	}
	recs := readStream(t, s, "s", 0)
	if len(recs) != 1 || string(recs[0].Payload) != string(factPayload("kept")) {
		t.Fatalf("after refused changes: %v", recs)
	}
}

func factPayload(s string) []byte { return fact("%s", s) }

func TestOpenRefusesANewerSchema(t *testing.T) {
	schema := testSchema(t)
	ctx := context.Background()
	s := openSchema(t, schema)
	if _, err := s.Pool().Exec(ctx, `INSERT INTO `+s.sql.table("schema_version")+` (version, name) VALUES ($1, 'from the future')`, SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ctx, testDSN(t), WithSchema(schema))
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("Open on a newer schema: %v, want ErrSchemaTooNew", err)
	}
}

func TestConcurrentOpensMigrateOnce(t *testing.T) {
	schema := testSchema(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	stores := make([]*Store, 6)
	errs := make([]error, len(stores))
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = Open(ctx, testDSN(t), WithSchema(schema))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
		defer stores[i].Close(ctx)
	}
	var n, v int
	if err := stores[0].Pool().QueryRow(ctx, `SELECT count(*), max(version) FROM `+stores[0].sql.table("schema_version")).Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	if n != SchemaVersion() || v != SchemaVersion() {
		t.Fatalf("version table holds %d rows up to %d, want %d", n, v, SchemaVersion())
	}
}

func TestMigrationsAreNumberedWithoutGaps(t *testing.T) {
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || SchemaVersion() != len(ms) {
		t.Fatalf("%d migrations, SchemaVersion %d", len(ms), SchemaVersion())
	}
}
