package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

func TestJournalMigrateCreatesTheSchemaAndDryRunChangesNothing(t *testing.T) {
	schema := pgtest.Schema(t)
	dsn := schemaDSN(t, schema)

	code, stdout, stderr := jobgen(t, "journal", "migrate", "--dry-run", dsn)
	if code != exitOK || !strings.HasPrefix(stdout, "BEGIN;\n") || !strings.Contains(stdout, "-- migration 0001_journal") ||
		!strings.Contains(stderr, "at version 0") {
		t.Fatalf("migrate --dry-run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr := jobgen(t, "journal", "status", dsn); code != exitFailure || !strings.Contains(stderr, "no journal in this schema") {
		t.Fatalf("status after a dry run: exit %d: %s; want no journal (3)", code, stderr)
	}

	code, stdout, stderr = jobgen(t, "journal", "migrate", dsn)
	want := "migrated from version 0 to " + itoa(pgstore.SchemaVersion())
	if code != exitOK || !strings.Contains(stdout, want) {
		t.Fatalf("migrate: exit %d: %s %s; want %q", code, stdout, stderr, want)
	}
	if code, stdout, _ := jobgen(t, "journal", "migrate", dsn); code != exitOK || !strings.Contains(stdout, "nothing to migrate") {
		t.Fatalf("migrate again: exit %d: %s", code, stdout)
	}
	if code, stdout, _ := jobgen(t, "journal", "migrate", "--dry-run", dsn); code != exitOK || stdout != "" {
		t.Fatalf("migrate --dry-run of a current schema: exit %d: %q, want no SQL", code, stdout)
	}
}

func TestJournalStatusReportsTheJournal(t *testing.T) {
	dsn := schemaDSN(t, writePGJournal(t))
	code, stdout, stderr := jobgen(t, "journal", "status", dsn)
	if code != exitOK {
		t.Fatalf("status: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"version:  " + itoa(pgstore.SchemaVersion()) + " (current)", "streams:  2", "records:  3", "oldest:", "newest:", "size:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, stderr = jobgen(t, "journal", "status", "--json", dsn)
	var st statusLine
	if err := json.Unmarshal([]byte(stdout), &st); code != exitOK || err != nil {
		t.Fatalf("status --json: exit %d, %v: %s %s", code, err, stdout, stderr)
	}
	if st.Streams != 2 || st.Records != 3 || st.Oldest == "" || st.Newest <= st.Oldest || st.Bytes <= 0 {
		t.Fatalf("status --json: %+v", st)
	}
}

func TestJournalOperatorCommandsRefuseAFile(t *testing.T) {
	path := writeJournal(t)
	for _, args := range [][]string{{"migrate"}, {"status"}, {"archive", "--before", "1h", "--to", path + ".archive"}} {
		cmd := args[0]
		if code, _, stderr := jobgen(t, append(append([]string{"journal"}, args...), path)...); code != exitUsage || !strings.Contains(stderr, "not a postgres:// DSN") {
			t.Errorf("journal %s FILE: exit %d: %s; want a usage error", cmd, code, stderr)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestJournalArchiveMovesWhatIsOverAndKeepsTheRest(t *testing.T) {
	// writePGJournal's s1 holds a settled job, s2 one still running.
	dsn := schemaDSN(t, writePGJournal(t))
	file := filepath.Join(t.TempDir(), "archive.journal")

	if code, _, stderr := jobgen(t, "journal", "archive", "--to", file, dsn); code != exitUsage || !strings.Contains(stderr, "--before and --to are required") {
		t.Fatalf("archive without --before: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := jobgen(t, "journal", "archive", "--before", "0s", "--to", file, "--dry-run", dsn)
	if code != exitOK || !strings.Contains(stdout, "1 stream to archive (2 records), 1 stream kept") || !strings.Contains(stdout, "  archive s1 through seq 2\n") ||
		!strings.Contains(stdout, "  keep    s2: 1 job not settled (bash-2)") || !strings.Contains(stdout, "dry run: nothing archived") {
		t.Fatalf("archive --dry-run: exit %d:\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("a dry run created the archive: %v", err)
	}
	if code, stdout, _ := jobgen(t, "journal", "archive", "--before", "2000-01-01", "--to", file, dsn); code != exitOK || !strings.Contains(stdout, "0 streams to archive") {
		t.Fatalf("archive --before 2000-01-01: exit %d: %s", code, stdout)
	}

	code, stdout, stderr = jobgen(t, "journal", "archive", "--before", "0s", "--to", file, dsn)
	if code != exitOK || !strings.Contains(stdout, "archived 1 stream (2 records) into "+file) {
		t.Fatalf("archive: exit %d:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = jobgen(t, "journal", "cat", file)
	if code != exitOK || strings.Count(stdout, "\n") != 2 || !strings.Contains(stdout, `"stream":"s1","seq":2`) {
		t.Fatalf("cat of the archive: exit %d:\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = jobgen(t, "journal", "status", dsn)
	if code != exitOK || !strings.Contains(stdout, "records:  1") || !strings.Contains(stdout, "archived: 2 records of 1 stream") {
		t.Fatalf("status after archiving: exit %d:\n%s", code, stdout)
	}
	if code, stdout, stderr := jobgen(t, "journal", "check", dsn); code != exitOK || !strings.Contains(stdout, "intact: 1 record in 2 streams") {
		t.Fatalf("check after archiving: exit %d: %s %s", code, stdout, stderr)
	}
}

func TestArchiveCutoffs(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"30d":                  now.Add(-30 * 24 * time.Hour),
		"90m":                  now.Add(-90 * time.Minute),
		"2026-01-02":           time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
		"2026-01-02T03:04:05Z": time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	} {
		if got, err := parseCutoff(in, now); err != nil || !got.Equal(want) {
			t.Errorf("parseCutoff(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1h", "yesterday", "-3d"} {
		if _, err := parseCutoff(bad, now); err == nil {
			t.Errorf("parseCutoff(%q) accepted", bad)
		}
	}
}

// A writer that runs once when a line it waits for is written: the
// archive command prints its plan between the judgement and the move.
type onLine struct {
	bytes.Buffer
	line string
	do   func()
}

func (w *onLine) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if w.do != nil && strings.Contains(w.String(), w.line) {
		do := w.do
		w.do = nil
		do()
	}
	return n, err
}

// The command moves what it judged: a job registered in a chosen session
// after the judgement (here while the plan is printed, before the move)
// stays in the store, live, and the command says so.
func TestJournalArchiveLeavesAJobRegisteredDuringItLive(t *testing.T) {
	schema := writePGJournal(t) // s1 holds a settled job, s2 one still running
	dsn := schemaDSN(t, schema)
	ctx := context.Background()
	store, err := pgstore.Open(ctx, pgtest.DSN(t), pgstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(ctx)
	live := jobs.JobRegistered{JobID: jobs.NewJobID(), At: 4_000, Owner: "s1", Kind: "bash", Label: "late", Ordinal: 3}
	stdout := &onLine{line: "  archive s1", do: func() {
		p, err := jobs.EncodeFact(live)
		if err != nil {
			t.Error(err)
			return
		}
		if _, err := store.Append(ctx, "s1", journal.Entry{Payload: p}); err != nil {
			t.Error(err)
		}
	}}
	var stderr bytes.Buffer
	file := filepath.Join(t.TempDir(), "archive.journal")
	code := run([]string{"journal", "archive", "--before", "0s", "--to", file, dsn}, stdout, &stderr)
	if code != exitOK || !strings.Contains(stdout.String(), "archived 1 stream (2 records) into "+file) {
		t.Fatalf("archive: exit %d:\n%s%s", code, stdout, &stderr)
	}
	if !strings.Contains(stdout.String(), "  s1: 1 record appended since it was judged stays in the store") {
		t.Errorf("archive did not say what it left: %s", stdout)
	}
	var kept []jobs.JobID
	for rec, err := range store.ReadStream(ctx, "s1", 2) {
		if err != nil {
			t.Fatalf("s1 after the archive: %v", err)
		}
		f, err := jobs.DecodeFact(rec.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := f.(jobs.JobRegistered); ok {
			kept = append(kept, r.JobID)
		}
	}
	if len(kept) != 1 || kept[0] != live.JobID {
		t.Fatalf("s1 holds registrations %v after the archive; want the job registered during it, %s", kept, live.JobID)
	}
}
