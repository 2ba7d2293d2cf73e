package journal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes b to a new file in a temporary directory.
func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCandidateChecksumFromPrefixes: the checksum of a suffix computed from
// prefix checksums is the suffix's checksum.
func TestCandidateChecksumFromPrefixes(t *testing.T) {
	b := []byte(strings.Repeat("journal recovery ", 300))
	pre := prefixCRCs{b: b}
	whole := (&prefixCRCs{b: b}).upTo(len(b))
	for _, i := range []int{0, 1, 7, 100, 2000, len(b) - 1, len(b)} {
		want := (&prefixCRCs{b: b[i:]}).upTo(len(b) - i)
		if got := suffixCRC(whole, pre.upTo(i), len(b)-i); got != want {
			t.Fatalf("suffix at %d: %08x, want %08x", i, got, want)
		}
	}
}

// TestNonJSONFactIsCorruption: a record whose checksum matches but whose fact
// is not JSON is corruption named by its offset, not an intact record that
// breaks jq.
func TestNonJSONFactIsCorruption(t *testing.T) {
	bad := []byte("not json")
	rec := appendRecord(nil, 2, testStream, 2, "", bad, metaCRC(bad, testStream, ""))
	file := append(append(append([]byte(header), recLine(1, payload(t, 1))...), rec...), recLine(3, payload(t, 3))...)
	at := int64(len(header) + len(recLine(1, payload(t, 1))))
	for _, last := range []bool{false, true} {
		b := file
		if last {
			b = file[:at+int64(len(rec))]
		}
		path := writeFile(t, "nonjson.journal", b)
		var rerr *RecordError
		if _, err := Check(path); !errors.Is(err, ErrCorrupt) || !errors.As(err, &rerr) || rerr.Offset != at {
			t.Fatalf("last=%v: Check = %v; want ErrCorrupt at offset %d", last, err, at)
		}
		if _, err := Open(path, WithLogger(discard())); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("last=%v: Open = %v; want ErrCorrupt", last, err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, b) {
			t.Fatalf("last=%v: Open changed a file it refused", last)
		}
	}
}

// TestCRLFJournalSaysWhatIsWrong: a journal whose line endings were
// converted to CRLF is reported as that, not as a newer version.
func TestCRLFJournalSaysWhatIsWrong(t *testing.T) {
	path, _ := makeJournal(t, 2)
	b, _ := os.ReadFile(path)
	crlf := writeFile(t, "crlf.journal", bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")))
	for name, call := range map[string]func() error{
		"Check": func() error { _, err := Check(crlf); return err },
		"Open":  func() error { _, err := Open(crlf, WithLogger(discard())); return err },
	} {
		err := call()
		if !errors.Is(err, ErrNotJournal) || !strings.Contains(err.Error(), "CRLF") || strings.Contains(err.Error(), "newer") {
			t.Errorf("%s of a CRLF journal = %v; want ErrNotJournal saying the lines end in CRLF", name, err)
		}
	}
}

// TestWholeBadLastRecordIsCorruption: a bit flip in a complete last record
// (one that may have been flushed) is corruption with its offset, not a torn
// tail cut with a log line. TruncateAt, the operator's
// repair, cuts it at that offset, and only at a record boundary of an intact
// prefix.
func TestWholeBadLastRecordIsCorruption(t *testing.T) {
	path, off := makeJournal(t, 3)
	b, _ := os.ReadFile(path)
	b[off[2]+int64(len(`{"pos":3,"stream":"test","seq":3,"crc32c":"00000000","fact":{"type":"`))] ^= 0x01
	os.WriteFile(path, b, 0o644)
	var rerr *RecordError
	if _, err := Open(path, WithLogger(discard())); !errors.Is(err, ErrCorrupt) || !errors.As(err, &rerr) || rerr.Offset != off[2] {
		t.Fatalf("Open = %v; want ErrCorrupt at offset %d", err, off[2])
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, b) {
		t.Fatal("Open changed a file it refused")
	}
	for _, at := range []int64{off[2] + 1, off[3], 3} {
		if _, _, err := TruncateAt(path, at); !errors.Is(err, ErrInvalid) {
			t.Errorf("TruncateAt(%d) = %v; want a refusal", at, err)
		}
	}
	sum, cut, err := TruncateAt(path, off[2])
	if err != nil || sum.Records != 2 || cut != off[3]-off[2] {
		t.Fatalf("TruncateAt(%d) = %+v, %d, %v; want 2 records kept and the last cut", off[2], sum, cut, err)
	}
	s := open(t, path)
	if seq, err := s.append1(payload(t, 3)); seq != 3 || err != nil {
		t.Fatalf("append after the repair = %d, %v; want seq 3", seq, err)
	}
	s.close()
	wantPayloads(t, records(t, path), 3)
}
