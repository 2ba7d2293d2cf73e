package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
)

// writePGJournal records the facts writeJournal does, in two streams of a
// PostgreSQL journal in a schema of its own, and returns its DSN.
func writePGJournal(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("JOBGEN_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("JOBGEN_TEST_POSTGRES is not set under CI=true: .ci/run must start PostgreSQL (.ci/pg.sh start)")
		}
		t.Skip("no PostgreSQL: run `make pg-up` and export the JOBGEN_TEST_POSTGRES it prints")
	}
	var b [4]byte
	rand.Read(b[:])
	schema := "t_cli_" + hex.EncodeToString(b[:])
	ctx := context.Background()
	store, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema))
		if err == nil {
			s.Pool().Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			s.Close(ctx)
		}
	})
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
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("schema", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func TestJournalCommandsReadAPostgresJournal(t *testing.T) {
	dsn := writePGJournal(t)

	code, stdout, stderr := jobgen(t, "journal", "cat", dsn)
	if code != exitOK {
		t.Fatalf("cat: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	wantStreams := []string{"s1", "s2", "s1"}
	if len(lines) != 3 {
		t.Fatalf("cat: %d lines, want 3:\n%s", len(lines), stdout)
	}
	for i, line := range lines {
		var rec struct {
			Stream string          `json:"stream"`
			Seq    uint64          `json:"seq"`
			Fact   json.RawMessage `json:"fact"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Stream != wantStreams[i] {
			t.Fatalf("cat line %d is not {stream,seq,fact} of %s: %q (%v)", i, wantStreams[i], line, err)
		}
		if _, err := jobs.DecodeFact(rec.Fact); err != nil {
			t.Errorf("cat line %d: the fact does not decode: %v", i, err)
		}
	}

	code, stdout, stderr = jobgen(t, "journal", "intervals", dsn)
	if code != exitOK {
		t.Fatalf("intervals: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"bash-1", "completed", "2.25s", "bash-2", "incomplete"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("intervals table lacks %q:\n%s", want, stdout)
		}
	}

	code, stdout, stderr = jobgen(t, "journal", "check", dsn)
	if code != exitOK || !strings.Contains(stdout, "intact: 3 records in 2 streams") {
		t.Fatalf("check: exit %d: %s%s", code, stdout, stderr)
	}

	// A schema with no journal is refused, and not created.
	u, _ := url.Parse(dsn)
	q := u.Query()
	q.Set("schema", "t_cli_absent")
	u.RawQuery = q.Encode()
	if code, _, stderr := jobgen(t, "journal", "check", u.String()); code != exitFindings || !strings.Contains(stderr, "no journal") {
		t.Fatalf("check of a missing schema: exit %d: %s", code, stderr)
	}
}

func TestJournalUnknownFactsInAPostgresJournal(t *testing.T) {
	dsn := writePGJournal(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	schema := q.Get("schema")
	q.Del("schema")
	u.RawQuery = q.Encode()
	store, err := pgstore.Open(context.Background(), u.String(), pgstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	appendPayloads(t, store, unknownPayloads...)
	testUnknownFactsAreReported(t, dsn)
}
