package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
)

// writeJournal records one settled and one still-running job and returns the
// file's path.
func writeJournal(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "jobs.journal")
	store, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)
	a, _ := jobs.ParseJobID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
	b, _ := jobs.ParseJobID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")
	reg := jobs.JobRegistered{JobID: a, At: 1_000, Owner: "s1", Kind: "bash", Label: "make test", Ordinal: 1, Record: true}
	for _, f := range []jobs.Fact{
		reg,
		jobs.JobRegistered{JobID: b, At: 1_500, Owner: "s1", Kind: "bash", Label: "sleep", Ordinal: 2, Labels: map[string]string{"team": "infra", "ci": "nightly"}},
		jobs.JobSettled{JobID: a, At: 3_250, Status: jobs.JobStatusCompleted, ProducerReported: true,
			Registration: jobs.JobRegistration{RegisteredAt: 1_000, Owner: "s1", Kind: "bash", Label: "make test", Ordinal: 1, Record: true}},
	} {
		if err := rec.Record(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestJournalCatPrintsJSONLines(t *testing.T) {
	path := writeJournal(t)
	code, stdout, stderr := jobgen(t, "journal", "cat", path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for i, rec := range catLines(t, stdout, 3) {
		if rec.Seq != uint64(i+1) {
			t.Fatalf("line %d has seq %d, want %d", i, rec.Seq, i+1)
		}
	}
	// The command and the library print one format (decision 0092).
	var lib strings.Builder
	if err := journal.Cat(&lib, journal.ReadFile(path)); err != nil {
		t.Fatal(err)
	}
	if stdout != lib.String() {
		t.Errorf("jobgen journal cat printed\n%s\njournal.Cat\n%s", stdout, lib.String())
	}
}

// A catLine is one line of journal cat's output.
type catLine struct {
	Stream string          `json:"stream"`
	Seq    uint64          `json:"seq"`
	Fact   json.RawMessage `json:"fact"`
}

// catLines parses journal cat's output, failing t unless it is n lines of
// {stream,seq,fact} JSON whose facts decode.
func catLines(t *testing.T, stdout string, n int) []catLine {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != n {
		t.Fatalf("cat: %d lines, want %d:\n%s", len(lines), n, stdout)
	}
	recs := make([]catLine, n)
	for i, line := range lines {
		if err := json.Unmarshal([]byte(line), &recs[i]); err != nil {
			t.Fatalf("cat line %d is not {stream,seq,fact}: %q (%v)", i, line, err)
		}
		if _, err := jobs.DecodeFact(recs[i].Fact); err != nil {
			t.Errorf("cat line %d: the fact does not decode: %v", i, err)
		}
	}
	return recs
}

// checkIntervalsTable fails t unless journal intervals' table shows the jobs
// writeJournal (or writePGJournal) recorded: bash-1 completed in 2.25s and
// bash-2 incomplete.
func checkIntervalsTable(t *testing.T, stdout string) {
	t.Helper()
	for _, want := range []string{"bash-1", "completed", "2.25s", "bash-2", "incomplete"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("intervals table lacks %q:\n%s", want, stdout)
		}
	}
}

// journal intervals runs the collector at its own setting while it reads
// (decision 0189) and leaves the process's as it found it.
func TestJournalIntervalsRestoresTheCollectorsSetting(t *testing.T) {
	path := writeJournal(t)
	old := debug.SetGCPercent(77)
	defer debug.SetGCPercent(old)
	if code, _, stderr := jobgen(t, "journal", "intervals", path); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := debug.SetGCPercent(77); got != 77 {
		t.Fatalf("after journal intervals GOGC is %d, want the 77 it found", got)
	}
}

func TestJournalIntervals(t *testing.T) {
	path := writeJournal(t)
	code, stdout, stderr := jobgen(t, "journal", "intervals", path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkIntervalsTable(t, stdout)
	code, stdout, _ = jobgen(t, "journal", "intervals", "--json", path)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != exitOK || len(lines) != 2 {
		t.Fatalf("--json: exit %d, output:\n%s", code, stdout)
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatalf("--json line is not JSON: %v", err)
	}
}

func TestJournalIntervalsByLabel(t *testing.T) {
	path := writeJournal(t)
	for _, tc := range []struct {
		args []string
		want []string // the labels of the jobs shown
	}{
		{[]string{"--label", "team=infra"}, []string{"sleep"}},
		{[]string{"--label", "team=infra", "--label", "ci=nightly"}, []string{"sleep"}},
		{[]string{"--label", "team=infra", "--label", "ci=weekly"}, nil},
		{[]string{"--label", "team="}, nil},
	} {
		args := append(append([]string{"journal", "intervals", "--json"}, tc.args...), path)
		code, stdout, stderr := jobgen(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		var got []string
		for line := range strings.Lines(stdout) {
			var iv jobhistory.Interval
			if err := json.Unmarshal([]byte(line), &iv); err != nil {
				t.Fatalf("%v: %q is not an interval: %v", tc.args, line, err)
			}
			got = append(got, iv.Label)
			if iv.Labels["team"] != "infra" {
				t.Errorf("%v: the interval shown carries labels %v", tc.args, iv.Labels)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("intervals %v showed %v; want %v", tc.args, got, tc.want)
		}
	}
	if code, _, stderr := jobgen(t, "journal", "intervals", "--label", "nokey", path); code == exitOK || !strings.Contains(stderr, "key=value") {
		t.Fatalf("--label nokey: exit %d, %q; want a usage error naming key=value", code, stderr)
	}
}

func TestJournalCheck(t *testing.T) {
	path := writeJournal(t)
	code, stdout, _ := jobgen(t, "journal", "check", path)
	if code != exitOK || !strings.Contains(stdout, "intact: 3 records in 1 stream, positions 0.1 to 0.3") {
		t.Fatalf("check of an intact journal: exit %d, %q", code, stdout)
	}
	// Flip one byte inside the second record: check names its offset.
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	offset := len(lines[0]) + len(lines[1])
	i := offset + strings.Index(lines[2], `"label":"sleep"`) + len(`"label":"`)
	data[i] ^= 0x20
	os.WriteFile(path, data, 0o644)
	code, _, stderr := jobgen(t, "journal", "check", path)
	if code != exitFindings || !strings.Contains(stderr, "offset "+strconv.Itoa(offset)) {
		t.Errorf("check of a damaged journal: exit %d, stderr %q; want the offset %d", code, stderr, offset)
	}
}

func TestJournalUsageAndBadFiles(t *testing.T) {
	for _, args := range [][]string{{"journal"}, {"journal", "tail", "x"}, {"journal", "cat"}, {"journal", "cat", "a", "b"}, {"journal", "intervals", "--bogus", "x"}} {
		if code, _, _ := jobgen(t, args...); code != exitUsage {
			t.Errorf("jobgen %v: exit %d, want %d", args, code, exitUsage)
		}
	}
	notJournal := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notJournal, []byte("hello\n"), 0o644)
	// A file that is not a journal is a finding about it; one that cannot
	// be read at all is a failure to check anything.
	for _, tc := range []struct {
		path, want string
		code       int
	}{
		{notJournal, "not a jobgen journal", exitFindings},
		{filepath.Join(t.TempDir(), "missing"), "no such file", exitFailure},
		{t.TempDir(), "is a directory", exitFailure},
	} {
		for _, sub := range []string{"cat", "intervals", "check"} {
			code, _, stderr := jobgen(t, "journal", sub, tc.path)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("journal %s %s: exit %d, stderr %q; want %d and %q", sub, tc.path, code, stderr, tc.code, tc.want)
			}
		}
	}
}

// The v1 journal of the first release reads with cat and intervals, and
// neither changes it.
func TestJournalReadsV1(t *testing.T) {
	const v1 = "../../journal/testdata/jobs-v1.journal"
	before, err := os.ReadFile(v1)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := jobgen(t, "journal", "cat", v1)
	if code != exitOK || strings.Count(stdout, `"stream":"jobgen-v1"`) != 4 {
		t.Fatalf("cat of the v1 journal: exit %d, %q, %s", code, stdout, stderr)
	}
	code, stdout, stderr = jobgen(t, "journal", "intervals", v1)
	if code != exitOK || strings.Count(stdout, "\n") != 4 || !strings.Contains(stdout, "build") {
		t.Fatalf("intervals of the v1 journal: exit %d, %q, %s", code, stdout, stderr)
	}
	if after, _ := os.ReadFile(v1); string(after) != string(before) {
		t.Fatal("reading the v1 journal changed it")
	}
}

// repair --truncate-at cuts a journal at the offset check named, after which
// check passes; it refuses an offset inside a record and needs the flag.
func TestJournalRepairTruncateAt(t *testing.T) {
	path := writeJournal(t)
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	offset := len(lines[0]) + len(lines[1]) + len(lines[2])
	data[offset+len(lines[3])-3] ^= 0x01 // inside the last record's fact: whole, bad checksum
	os.WriteFile(path, data, 0o644)
	if code, _, stderr := jobgen(t, "journal", "check", path); code != exitFindings || !strings.Contains(stderr, "offset "+strconv.Itoa(offset)) {
		t.Fatalf("check of a bad last record: exit %d, %q", code, stderr)
	}
	if code, _, _ := jobgen(t, "journal", "repair", path); code != exitUsage {
		t.Errorf("repair without --truncate-at: exit %d, want %d", code, exitUsage)
	}
	if code, _, stderr := jobgen(t, "journal", "repair", "--truncate-at", strconv.Itoa(offset+1), path); code != exitFindings {
		t.Errorf("repair inside a record: exit %d, %q; want a refusal", code, stderr)
	}
	code, stdout, stderr := jobgen(t, "journal", "repair", "--truncate-at", strconv.Itoa(offset), path)
	if code != exitOK || !strings.Contains(stdout, "kept 2 records") {
		t.Fatalf("repair: exit %d, %q, %q", code, stdout, stderr)
	}
	if code, stdout, _ := jobgen(t, "journal", "check", path); code != exitOK || !strings.Contains(stdout, "intact: 2 records") {
		t.Fatalf("check after repair: exit %d, %q", code, stdout)
	}
}

// TestJournalCommandLineEdges: one meaning, one exit
// status (decision 0074). No journal where the argument points is a
// failure to read one (3), for a file as for a PostgreSQL schema; a
// --truncate-at that is negative or outside the file is a usage error (2)
// that says what offsets there are.
func TestJournalCommandLineEdges(t *testing.T) {
	path := writeJournal(t)
	size := fileSize(t, path)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // in stderr
		not  string // not in stderr
	}{
		{"check of a missing file", []string{"check", filepath.Join(t.TempDir(), "missing")}, exitFailure, "no such file", ""},
		{"repair at a negative offset", []string{"repair", "--truncate-at", "-1", path}, exitUsage, "for flag -truncate-at: want a byte offset ≥ 0", "required"},
		{"repair beyond the end of the file", []string{"repair", "--truncate-at", strconv.FormatInt(size+1, 10), path}, exitUsage, "want an offset from ", ""},
		{"repair inside the header", []string{"repair", "--truncate-at", "3", path}, exitUsage, "want an offset from ", ""},
		{"repair of a missing file", []string{"repair", "--truncate-at", "40", filepath.Join(t.TempDir(), "missing")}, exitFailure, "no such file", ""},
	} {
		code, _, stderr := jobgen(t, append([]string{"journal"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || tc.not != "" && strings.Contains(stderr, tc.not) {
			t.Errorf("%s: exit %d, stderr %q; want %d, saying %q", tc.name, code, stderr, tc.code, tc.want)
		}
	}
	if got := fileSize(t, path); got != size {
		t.Errorf("a refused repair changed the file: %d bytes, was %d", got, size)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
