package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
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
		`UPDATE ` + stream + ` SET head = head - 1`,
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
	schema := pgtest.Schema(t)
	ctx := context.Background()
	s := openSchema(t, schema)
	if _, err := s.Pool().Exec(ctx, `INSERT INTO `+s.sql.table("schema_version")+` (version, name) VALUES ($1, 'from the future')`, SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ctx, pgtest.DSN(t), WithSchema(schema))
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("Open on a newer schema: %v, want ErrSchemaTooNew", err)
	}
}

func TestConcurrentOpensMigrateOnce(t *testing.T) {
	schema := pgtest.Schema(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	stores := make([]*Store, 6)
	errs := make([]error, len(stores))
	for i := range stores {
		wg.Go(func() {
			stores[i], errs[i] = Open(ctx, pgtest.DSN(t), WithSchema(schema))
		})
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
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || SchemaVersion() != len(ms) {
		t.Fatalf("%d migrations, SchemaVersion %d", len(ms), SchemaVersion())
	}
}

func TestCheckFindsGapsTheTriggersWouldNotStop(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	for _, st := range []journal.Stream{"a", "b"} {
		if _, err := s.Append(ctx, st, entries(string(st), 3, false)...); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := s.Check(ctx)
	if err != nil || sum != (Summary{Streams: 2, Records: 6}) {
		t.Fatalf("Check of an intact store: %+v %v", sum, err)
	}
	// A head moved forward by hand (which the triggers allow) leaves a gap.
	if _, err := s.Pool().Exec(ctx, `UPDATE `+s.sql.table("stream")+` SET head = 5 WHERE name = 'b'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Check(ctx); !errors.Is(err, journal.ErrCorrupt) || !strings.Contains(err.Error(), `stream "b": head 5, 3 records`) {
		t.Fatalf("Check after a head jump: %v", err)
	}
}

func TestWithoutMigrateChangesNothingAndRefusesWhatIsNotAJournal(t *testing.T) {
	schema := pgtest.Schema(t)
	ctx := context.Background()
	if _, err := Open(ctx, pgtest.DSN(t), WithSchema(schema), WithoutMigrate()); !errors.Is(err, journal.ErrNotJournal) {
		t.Fatalf("read-only Open of a missing schema: %v, want ErrNotJournal", err)
	}
	var n int
	if err := testPool(t).QueryRow(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, schema).Scan(&n); err != nil || n != 0 {
		t.Fatalf("read-only Open created the schema (%d, %v)", n, err)
	}
	w := openSchema(t, schema)
	if _, err := w.Append(ctx, "s", journal.Entry{Payload: fact("x")}); err != nil {
		t.Fatal(err)
	}
	r := openSchema(t, schema, WithoutMigrate())
	if recs := readStream(t, r, "s", 0); len(recs) != 1 {
		t.Fatalf("read-only store reads %d records", len(recs))
	}
}

// An append costs in proportion to its batch, not to the table: the seq and
// id lookups are index probes, never a scan of every fact (a join of the
// batch with the fact table was planned as one, once per transaction). The
// plans checked are those append_facts runs, generic ones (see
// appendFactsSQL), as auto_explain reports them from inside the function.
func TestAppendStatementsNeverScanTheFactTable(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	for i := range 20 {
		if _, err := s.Append(ctx, journal.Stream(fmt.Sprintf("s%d", i%4)), entries(fmt.Sprint(i), 100, i%2 == 0)...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Pool().Exec(ctx, `ANALYZE `+s.sql.table("fact")); err != nil {
		t.Fatal(err)
	}
	streams := []string{"s0", "s1", "s2", "s3"}
	si, ids, noIDs, payloads := make([]int64, 128), make([]string, 128), make([]string, 128), make([]string, 128)
	for i := range si {
		si[i], ids[i], payloads[i] = int64(i%4+1), fmt.Sprintf("id-%d", i), `{}`
	}
	for name, ids := range map[string][]string{"without ids": noIDs, "with ids": ids} {
		var plans []string
		cfg, err := pgx.ParseConfig(pgtest.DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { plans = append(plans, n.Message) }
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{`LOAD 'auto_explain'`, `SET auto_explain.log_min_duration = 0`,
			`SET auto_explain.log_nested_statements = on`, `SET auto_explain.log_level = notice`, `BEGIN`} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v (auto_explain ships with the server)", q, err)
			}
		}
		if _, err := conn.Exec(ctx, s.sql.of(appendFactsSQL), streams, s.lockSeed, streams, si, ids, payloads, false); err != nil {
			t.Fatal(err)
		}
		conn.Exec(ctx, `ROLLBACK`)
		conn.Close(ctx)
		plan := strings.Join(plans, "\n")
		if !strings.Contains(plan, "INSERT INTO fact") {
			t.Fatalf("auto_explain showed no plan of the append %s:\n%s", name, plan)
		}
		if strings.Contains(plan, "Seq Scan on fact") || !strings.Contains(plan, "Index Only Scan Backward using fact_pkey") {
			t.Errorf("append_facts %s scans the fact table, or finds no seq by the primary key:\n%s", name, plan)
		}
		if name == "with ids" && !strings.Contains(plan, "fact_stream_id") {
			t.Errorf("append_facts %s finds no id by its index:\n%s", name, plan)
		}
	}
}

// Every statement of the store has its text: a statement declared without
// one would fail only when first run.
func TestEveryStatementHasItsText(t *testing.T) {
	for st, text := range statementTexts {
		if strings.TrimSpace(text) == "" {
			t.Errorf("statement %d has no text", st)
		}
	}
	st := newStatements("a schema")
	if q := st.of(appendFactsSQL); !strings.Contains(q, `"a schema".append_facts`) || strings.Contains(q, " S.") {
		t.Errorf("the schema is not filled in:\n%s", q)
	}
}
