package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

// Facts a newer build, or another vocabulary, wrote: intact envelopes this
// build cannot decode.
var unknownPayloads = []string{
	`{"type":"job/settled","v":9,"data":{"jobId":"6ba7b811-9dad-11d1-80b4-00c04fd430c8"}}`,
	`{"type":"job/settled","v":9,"data":{"jobId":"6ba7b812-9dad-11d1-80b4-00c04fd430c8"}}`,
	`{"type":"job/settled","v":9,"data":{"jobId":"6ba7b813-9dad-11d1-80b4-00c04fd430c8"}}`,
	`{"type":"agent/spawned","v":1,"data":{}}`,
}

const unknownReport = "4 facts this build cannot read: agent/spawned v1 (1), job/settled v9 (3)"

// appendPayloads appends payloads to the stream s1 of store and closes it.
func appendPayloads(t *testing.T, store journal.Store, payloads ...string) {
	t.Helper()
	ctx := context.Background()
	for _, p := range payloads {
		if _, err := store.Append(ctx, "s1", journal.Entry{Payload: []byte(p)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// writeUnknownJournal is writeJournal's journal with unknownPayloads after
// its facts.
func writeUnknownJournal(t *testing.T) string {
	t.Helper()
	path := writeJournal(t)
	store, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	appendPayloads(t, store, unknownPayloads...)
	return path
}

// testUnknownFactsAreReported holds for a journal at arg holding writeJournal's
// facts and unknownPayloads.
func testUnknownFactsAreReported(t *testing.T, arg string) {
	t.Helper()
	code, stdout, stderr := jobgen(t, "journal", "intervals", arg)
	if code != exitOK || !strings.Contains(stdout, "bash-1") {
		t.Fatalf("intervals: exit %d: %s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "skipped "+unknownReport) {
		t.Errorf("intervals stderr = %q, want it to say %q", stderr, "skipped "+unknownReport)
	}
	if _, _, stderr := jobgen(t, "journal", "intervals", "--json", arg); !strings.Contains(stderr, "skipped "+unknownReport) {
		t.Errorf("intervals --json stderr = %q, want the count", stderr)
	}

	code, stdout, stderr = jobgen(t, "journal", "check", arg)
	if code != exitUnknownFacts || code == exitFindings || !strings.Contains(stderr, unknownReport) || strings.Contains(stdout, "intact:") {
		t.Errorf("check: exit %d, stdout %q, stderr %q; want exit %d and the count", code, stdout, stderr, exitUnknownFacts)
	}
	code, stdout, stderr = jobgen(t, "journal", "check", "--allow-unknown", arg)
	if code != exitOK || !strings.Contains(stdout, "intact: 7 records") || !strings.Contains(stderr, "accepted "+unknownReport) {
		t.Errorf("check --allow-unknown: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestJournalUnknownFactsAreCountedAndFailCheck(t *testing.T) {
	testUnknownFactsAreReported(t, writeUnknownJournal(t))
}

func TestJournalCheckFailsOnAFactThatDoesNotDecode(t *testing.T) {
	// A framed, checksummed record whose fact is JSON but not a job fact:
	// damage the writer made, not a fact of a newer build.
	path := writeJournal(t)
	store, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	appendPayloads(t, store, `{"type":"job/settled","v":2,"data":{"jobId":"x"}}`)
	for _, args := range [][]string{{"check", path}, {"check", "--allow-unknown", path}} {
		code, _, stderr := jobgen(t, append([]string{"journal"}, args...)...)
		if code != exitFindings || !strings.Contains(stderr, "offset") {
			t.Errorf("journal %v: exit %d, stderr %q; want %d naming the record's offset", args, code, stderr, exitFindings)
		}
	}
}

func TestJournalCheckHelpDocumentsItsExitStatuses(t *testing.T) {
	_, stdout, stderr := jobgen(t, "journal", "check", "--help")
	help := stdout + stderr
	for _, want := range []string{"--allow-unknown", "4 when every record is intact", "3 when there is no journal", "1 when a record"} {
		if !strings.Contains(strings.Join(strings.Fields(help), " "), want) {
			t.Errorf("journal check --help lacks %q:\n%s", want, help)
		}
	}
	if _, stdout, _ := jobgen(t, "journal", "--help"); !strings.Contains(stdout, "--allow-unknown") {
		t.Errorf("journal --help does not mention --allow-unknown:\n%s", stdout)
	}
}
