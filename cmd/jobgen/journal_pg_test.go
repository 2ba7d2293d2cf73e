package main

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// writePGJournal records the facts writeJournal does, in two streams of a
// PostgreSQL journal in a schema of its own, and returns the schema.
func writePGJournal(t *testing.T) string {
	t.Helper()
	schema := pgtest.Schema(t)
	ctx := context.Background()
	store, err := pgstore.Open(ctx, pgtest.DSN(t), pgstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := jobs.ParseJobID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
	c, _ := jobs.ParseJobID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")
	for _, f := range []struct {
		stream journal.Stream
		fact   jobs.Fact
	}{
		{"s1", jobs.JobRegistered{JobID: a, At: 1_000, Owner: "s1", Kind: "bash", Label: "make test", Ordinal: 1, Record: true}},
		{"s2", jobs.JobRegistered{JobID: c, At: 1_500, Owner: "s2", Kind: "bash", Label: "sleep", Ordinal: 2}},
		{"s1", jobs.JobSettled{JobID: a, At: 3_250, Status: jobs.JobStatusCompleted, ProducerReported: true, Cause: jobs.SettlementCauseProducer,
			Registration: jobs.JobRegistration{RegisteredAt: 1_000, Owner: "s1", Kind: "bash", Label: "make test", Ordinal: 1, Record: true}}},
	} {
		p, err := jobs.EncodeFact(f.fact)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Append(ctx, f.stream, journal.Entry{Payload: p}); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return schema
}

// schemaDSN returns the test server's DSN naming schema, as the journal
// commands take a PostgreSQL journal.
func schemaDSN(t *testing.T, schema string) string {
	t.Helper()
	u, err := url.Parse(pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("schema", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func TestJournalCommandsReadAPostgresJournal(t *testing.T) {
	dsn := schemaDSN(t, writePGJournal(t))

	code, stdout, stderr := jobgen(t, "journal", "cat", dsn)
	if code != exitOK {
		t.Fatalf("cat: exit %d: %s", code, stderr)
	}
	for i, rec := range catLines(t, stdout, 3) {
		if want := []string{"s1", "s2", "s1"}[i]; rec.Stream != want {
			t.Fatalf("cat line %d is of stream %q, want %s", i, rec.Stream, want)
		}
	}

	code, stdout, stderr = jobgen(t, "journal", "intervals", dsn)
	if code != exitOK {
		t.Fatalf("intervals: exit %d: %s", code, stderr)
	}
	checkIntervalsTable(t, stdout)

	code, stdout, stderr = jobgen(t, "journal", "check", dsn)
	if code != exitOK || !strings.Contains(stdout, "intact: 3 records in 2 streams") {
		t.Fatalf("check: exit %d: %s%s", code, stdout, stderr)
	}

	// A schema with no journal is refused, and not created: there is no
	// journal to read, as for a file that is not there (decision 0074).
	for _, sub := range []string{"cat", "intervals", "check"} {
		if code, _, stderr := jobgen(t, "journal", sub, schemaDSN(t, "t_cli_absent")); code != exitFailure || !strings.Contains(stderr, "no journal") {
			t.Errorf("%s of a missing schema: exit %d, want %d: %s", sub, code, exitFailure, stderr)
		}
	}
}

func TestJournalUnknownFactsInAPostgresJournal(t *testing.T) {
	schema := writePGJournal(t)
	store, err := pgstore.Open(context.Background(), pgtest.DSN(t), pgstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	appendPayloads(t, store, unknownPayloads...)
	testUnknownFactsAreReported(t, schemaDSN(t, schema))
}

// A read that cannot wait out an older transaction, still open somewhere in
// the cluster, says on stderr that it lacks the newest commits, instead of
// printing a shorter journal as if it were all.
func TestJournalCatOfPostgresSaysWhenAnOpenTransactionHoldsCommitsBack(t *testing.T) {
	pgtest.OlderTransaction(t) // open until the test ends
	dsn := schemaDSN(t, writePGJournal(t))

	code, stdout, stderr := jobgen(t, "journal", "cat", dsn)
	if code != exitOK {
		t.Fatalf("cat: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "an older transaction holds the read horizon back") {
		t.Fatalf("cat printed %d lines and warned nothing while an older transaction held 3 commits back; stderr: %q",
			strings.Count(stdout, "\n"), stderr)
	}
}

// journal cat prints a PostgreSQL position as the string it prints a file's
// as, takes it back with --after, and --follow tails the journal.
func TestJournalCatOfPostgresPrintsPositionsAsStringsAndFollows(t *testing.T) {
	schema := writePGJournal(t)
	dsn := schemaDSN(t, schema)
	code, stdout, stderr := jobgen(t, "journal", "cat", dsn)
	if code != exitOK {
		t.Fatalf("cat: exit %d: %s", code, stderr)
	}
	lines := parseCat(t, stdout)
	if len(lines) != 3 {
		t.Fatalf("cat printed %d lines, want 3:\n%s", len(lines), stdout)
	}
	code, stdout, stderr = jobgen(t, "journal", "cat", "--after", lines[0].Pos.(string), dsn)
	if after := parseCat(t, stdout); code != exitOK || len(after) != 2 || after[0].Pos != lines[1].Pos {
		t.Fatalf("cat --after %s: exit %d, %v: %s", lines[0].Pos, code, after, stderr)
	}

	out := follow(t, dsn)
	waitLines(t, out, 3)
	store, err := pgstore.Open(context.Background(), pgtest.DSN(t), pgstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	appendPayloads(t, store, ownPayloads...)
	got := waitLines(t, out, 6)
	if got[3].Fact.Type != "deploy/approved" || got[5].Fact.Type != "deploy/approved" {
		t.Errorf("the records appended while following: %+v", got[3:])
	}
}
