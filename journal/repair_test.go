package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// These tests are the promises Open keeps about a damaged file, one failure
// each, in the manner of etcd's wal/repair_test.go.

// A new journal is the header alone, and its records start at seq 1.
func TestOpenCreates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.journal")
	s := open(t, path)
	got, err := os.ReadFile(path)
	if err != nil || string(got) != header {
		t.Fatalf("new file holds %q (%v), want the header", got, err)
	}
	if seq, err := s.append1(payload(t, 1)); seq != 1 || err != nil {
		t.Fatalf("first Append = %d, %v; want seq 1", seq, err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, records(t, path), 1)
}

// The seq continues after a reopen, and records appended before and after it
// read back in order.
func TestSeqContinuesAfterReopen(t *testing.T) {
	path, _ := makeJournal(t, 3)
	s := open(t, path)
	if got := lastSeq(t, s, testStream); got != 3 {
		t.Fatalf("LastSeq after reopen = %d, want 3", got)
	}
	if seq, err := s.append1(payload(t, 4)); seq != 4 || err != nil {
		t.Fatalf("Append after reopen = %d, %v; want seq 4", seq, err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, records(t, path), 4)
}

// TestRepairTruncate cuts the file at every byte of its last record: Open
// recovers exactly the records before it, logs the cut, and appends continue
// after them across a reopen.
func TestRepairTruncate(t *testing.T) {
	path, off := makeJournal(t, 3)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	last, end := off[2], off[3]
	for cut := last; cut < end; cut++ {
		if err := os.WriteFile(path, full[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		log, logged := quietLog()
		s, err := Open(path, WithLogger(log))
		if err != nil {
			t.Fatalf("cut at %d: Open: %v", cut, err)
		}
		if fi, _ := os.Stat(path); fi.Size() != last {
			t.Fatalf("cut at %d: file is %d bytes after Open, want %d", cut, fi.Size(), last)
		}
		if cut > last && !strings.Contains(logged.String(), fmt.Sprintf("offset=%d", last)) {
			t.Fatalf("cut at %d: the repair was not logged with its offset: %q", cut, logged)
		}
		if seq, err := s.append1(payload(t, 3)); seq != 3 || err != nil {
			t.Fatalf("cut at %d: Append = %d, %v; want seq 3", cut, seq, err)
		}
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, full) {
			t.Fatalf("cut at %d: after append the file differs from the uncut one", cut)
		}
		s = open(t, path)
		s.close()
		wantPayloads(t, records(t, path), 3)
	}
}

// TestRepairTornHeader: a file cut inside its header, or empty, was being
// created; Open writes the header afresh.
func TestRepairTornHeader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "torn.journal")
	for cut := 0; cut < len(header); cut++ {
		if err := os.WriteFile(path, []byte(header[:cut]), 0o644); err != nil {
			t.Fatal(err)
		}
		s := open(t, path)
		s.append1(payload(t, 1))
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
		wantPayloads(t, records(t, path), 1)
	}
}

// TestRepairWriteTearLast: garbage or zeros where the end of the last record
// should be are a tear, cut off like a short file.
func TestRepairWriteTearLast(t *testing.T) {
	path, off := makeJournal(t, 3)
	full, _ := os.ReadFile(path)
	for name, tail := range map[string][]byte{
		"zeros":           make([]byte, 4096),
		"zeros newline":   append(make([]byte, 100), '\n'),
		"garbage":         []byte("\x8f\x00garbage\n\n{"),
		"half of another": full[off[1] : off[1]+30],
	} {
		damaged := append(bytes.Clone(full[:off[2]+10]), tail...)
		if err := os.WriteFile(path, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		s := open(t, path)
		s.close()
		if got := records(t, path); len(got) != 2 {
			t.Errorf("%s: %d records after repair, want 2", name, len(got))
		}
	}
}

// TestRepairWriteTearMiddle flips one byte, every byte in turn and two ways,
// of a record in the middle: Open refuses, names the record's offset and
// leaves the file alone. This includes the newline, which merges two records.
func TestRepairWriteTearMiddle(t *testing.T) {
	orig, off := makeJournal(t, 3)
	full, _ := os.ReadFile(orig)
	mid, end := off[1], off[2]
	dir := t.TempDir()
	for _, mask := range []byte{0x01, 0xff} {
		for i := mid; i < end; i++ {
			damaged := bytes.Clone(full)
			damaged[i] ^= mask
			// A new file each time: rewriting one in place makes ext4 flush it.
			path := filepath.Join(dir, fmt.Sprintf("flip-%d-%x", i, mask))
			if err := os.WriteFile(path, damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(path, WithLogger(discard()))
			var rerr *RecordError
			if !errors.Is(err, ErrCorrupt) || !errors.As(err, &rerr) || rerr.Offset != mid {
				t.Fatalf("byte %d ^ %#x: Open = %v, want ErrCorrupt at offset %d", i, mask, err, mid)
			}
			if want := fmt.Sprintf("journal %s: record at offset %d: ", path, mid); !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error %q does not start with %q", err, want)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, damaged) {
				t.Fatalf("byte %d ^ %#x: Open changed a file it refused", i, mask)
			}
			if _, err := Check(path); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("byte %d ^ %#x: Check = %v, want ErrCorrupt", i, mask, err)
			}
		}
	}
}

// A whole record out of sequence (a line repeated or deleted) is corruption,
// even at the end of the file: a tear cannot write one.
func TestRepairSeqOutOfOrder(t *testing.T) {
	path, off := makeJournal(t, 3)
	full, _ := os.ReadFile(path)
	for name, damaged := range map[string][]byte{
		"repeated": append(bytes.Clone(full), full[off[2]:off[3]]...),
		"deleted":  append(bytes.Clone(full[:off[1]]), full[off[2]:]...),
	} {
		os.WriteFile(path, damaged, 0o644)
		_, err := Open(path, WithLogger(discard()))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "does not follow") {
			t.Errorf("%s: Open = %v, want ErrCorrupt for the seq", name, err)
		}
	}
}

// Files that are not journals get a clear error and are left alone.
func TestOpenRefusesNotJournal(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"text":    "hello, world\n",
		"short":   "hi",
		"json":    `{"seq":1}` + "\n",
		"newer":   `{"format":"jobgen-journal","version":3}` + "\n",
		"records": strings.TrimPrefix(string(journalBytes(t, 2)), header),
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(content), 0o644)
		if _, err := Open(path, WithLogger(discard())); !errors.Is(err, ErrNotJournal) {
			t.Errorf("%s: Open = %v, want ErrNotJournal", name, err)
		}
		if _, err := Check(path); !errors.Is(err, ErrNotJournal) {
			t.Errorf("%s: Check = %v, want ErrNotJournal", name, err)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Errorf("%s: Open changed a file that is not a journal", name)
		}
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("Open(dir) = %v, want an is-a-directory error", err)
	}
	if _, err := Check(filepath.Join(dir, "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Check(absent) = %v, want ErrNotExist", err)
	}
}

// journalBytes returns the bytes of a new journal of n records.
func journalBytes(t testing.TB, n int) []byte {
	path, _ := makeJournal(t, n)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A second Store on the same file is refused while the first is open.
func TestOpenLocks(t *testing.T) {
	path, _ := makeJournal(t, 1)
	s := open(t, path)
	if _, err := Open(path, WithLogger(discard())); err == nil || !strings.Contains(err.Error(), "another process") {
		t.Fatalf("second Open = %v, want a lock error", err)
	}
	s.close()
	open(t, path).close()
}

// A line longer than any record is damage like any other: a tear at the end,
// corruption when a valid record follows, even inside the long line.
func TestRepairOverlongLine(t *testing.T) {
	full := journalBytes(t, 3)
	rec4 := recLine(4, payload(t, 4))
	junk := bytes.Repeat([]byte("x"), 2*MaxRecordBytes+100)
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		tail        []byte
		corruptAt   int64 // -1: a tear
		recordsLeft int
	}{
		"at the end":         {junk, -1, 3},
		"newline at the end": {append(bytes.Clone(junk), '\n'), -1, 3},
		"before a record":    {append(append(bytes.Clone(junk), '\n'), rec4...), int64(len(full)), 0},
		"around a record":    {append(bytes.Clone(junk), rec4...), int64(len(full)), 0},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		os.WriteFile(path, append(bytes.Clone(full), tc.tail...), 0o644)
		s, err := Open(path, WithLogger(discard()))
		if tc.corruptAt >= 0 {
			var rerr *RecordError
			if !errors.As(err, &rerr) || rerr.Kind != ErrCorrupt || rerr.Offset != tc.corruptAt {
				t.Errorf("%s: Open = %v, want ErrCorrupt at %d", name, err, tc.corruptAt)
			}
			if name == "around a record" && !strings.Contains(err.Error(), fmt.Sprintf("follows at offset %d", len(full)+len(junk))) {
				t.Errorf("%s: %v does not point at the record inside the line", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: Open = %v, want the tail cut", name, err)
			continue
		}
		s.close()
		if got := records(t, path); len(got) != tc.recordsLeft {
			t.Errorf("%s: %d records, want %d", name, len(got), tc.recordsLeft)
		}
	}
}

// TestTruncateAtAMissingFileCreatesNothing: repairing a journal that is not
// there is an error that says so, and leaves no empty journal behind.
func TestTruncateAtAMissingFileCreatesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent.journal")
	if _, _, err := TruncateAt(path, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("TruncateAt of a missing file: err = %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("TruncateAt created %s (stat err = %v)", path, err)
	}
}
