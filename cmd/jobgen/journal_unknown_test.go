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
	if !strings.Contains(stderr, "read in part or skipped "+unknownReport) {
		t.Errorf("intervals stderr = %q, want it to say %q", stderr, "read in part or skipped "+unknownReport)
	}
	if _, _, stderr := jobgen(t, "journal", "intervals", "--json", arg); !strings.Contains(stderr, "read in part or skipped "+unknownReport) {
		t.Errorf("intervals --json stderr = %q, want the count", stderr)
	}

	// check keeps and reports them, as every tolerant reader does; with
	// --strict it fails on them. --allow-unknown is the default now.
	for _, args := range [][]string{{"check", arg}, {"check", "--allow-unknown", arg}} {
		code, stdout, stderr = jobgen(t, append([]string{"journal"}, args...)...)
		if code != exitOK || !strings.Contains(stdout, "intact: 7 records") || !strings.Contains(stderr, "kept "+unknownReport) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0, intact, and what it kept", args, code, stdout, stderr)
		}
	}
	code, stdout, stderr = jobgen(t, "journal", "check", "--strict", arg)
	if code != exitUnknownFacts || !strings.Contains(stderr, unknownReport) || strings.Contains(stdout, "intact:") {
		t.Errorf("check --strict: exit %d, stdout %q, stderr %q; want exit %d and the count", code, stdout, stderr, exitUnknownFacts)
	}
}

// TestJournalCatPrintsAFactThisBuildDoesNotKnowAsItWasWritten: cat decodes
// nothing, so a fact of a newer build comes out byte for byte.
func TestJournalCatPrintsAFactThisBuildDoesNotKnowAsItWasWritten(t *testing.T) {
	path := writeUnknownJournal(t)
	code, stdout, stderr := jobgen(t, "journal", "cat", "--type", "job/settled", path)
	if code != exitOK || !strings.Contains(stdout, `"fact":`+unknownPayloads[0]+"}") {
		t.Fatalf("cat: exit %d: %s%s; want the v9 fact as written", code, stdout, stderr)
	}
}

func TestJournalUnknownFactsAreReportedAndFailOnlyStrictCheck(t *testing.T) {
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
	for _, want := range []string{"--strict", "4 when every record is intact", "3 when there is no journal", "1 when a record"} {
		if !strings.Contains(strings.Join(strings.Fields(help), " "), want) {
			t.Errorf("journal check --help lacks %q:\n%s", want, help)
		}
	}
	if _, stdout, _ := jobgen(t, "journal", "--help"); !strings.Contains(stdout, "--strict") {
		t.Errorf("journal --help does not mention --strict:\n%s", stdout)
	}
}

// TestJournalIntervalsShowANewerBuildsJobInPart: a job a newer build
// registered (job/registered at a version this build does not know) shows
// with what this build reads of it, partial, and is counted on stderr.
func TestJournalIntervalsShowANewerBuildsJobInPart(t *testing.T) {
	path := writeJournal(t)
	store, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	appendPayloads(t, store, `{"type":"job/registered","v":9,"data":{"jobId":"6ba7b819-9dad-11d1-80b4-00c04fd430c8","at":1700000000000,"owner":"s1","kind":"deploy","title":"ship","ordinal":4,"record":false}}`)
	code, stdout, stderr := jobgen(t, "journal", "intervals", "--json", path)
	if code != exitOK || !strings.Contains(stdout, `"jobId":"6ba7b819-9dad-11d1-80b4-00c04fd430c8","owner":"s1","kind":"deploy","label":"","ordinal":4`) || !strings.Contains(stdout, `"partial":true`) {
		t.Fatalf("intervals: exit %d:\n%s%s\nwant the newer build's job, partial", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "read in part or skipped 1 fact this build cannot read: job/registered v9 (1)") {
		t.Errorf("intervals stderr = %q, want the fact counted", stderr)
	}
}
