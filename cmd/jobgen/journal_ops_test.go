package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

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
	for _, want := range []string{"version: " + itoa(pgstore.SchemaVersion()) + " (current)", "streams: 2", "records: 3", "oldest:", "newest:", "size:"} {
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
	for _, cmd := range []string{"migrate", "status"} {
		if code, _, stderr := jobgen(t, "journal", cmd, path); code != exitUsage || !strings.Contains(stderr, "not a postgres:// DSN") {
			t.Errorf("journal %s FILE: exit %d: %s; want a usage error", cmd, code, stderr)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
