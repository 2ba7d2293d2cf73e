package journal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An open store's file ends in preallocated zero bytes. Readers take them
// for the end of the records, neither torn nor corrupt; a crash that leaves
// them is no repair for Open, which cuts them and appends after the last
// record; Close leaves the file ending with its last record.
func TestPreallocatedTailIsNotARecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "open.journal")
	s := open(t, path)
	for i := 1; i <= 3; i++ {
		if _, err := s.append1(payload(t, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	end := s.end
	if int64(len(b)) < end+minAhead || !allZero(b[end:]) {
		t.Fatalf("file of %d bytes, records end at %d: want at least %d zero bytes after them", len(b), end, minAhead)
	}
	wantPayloads(t, records(t, path), 3)
	sum, err := Check(path)
	if err != nil || sum.Good != end || sum.Records != 3 {
		t.Fatalf("Check = %+v, %v; want 3 records ending at %d and no error", sum, err, end)
	}

	// A crash now leaves the file as it is: a copy stands for it.
	crashed := filepath.Join(t.TempDir(), "crashed.journal")
	if err := os.WriteFile(crashed, b, 0o644); err != nil {
		t.Fatal(err)
	}
	log, logged := quietLog()
	c, err := Open(crashed, WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logged.String(), "torn") {
		t.Fatalf("Open reported a repair of a preallocated tail: %s", logged)
	}
	if seq, err := c.append1(payload(t, 4)); seq != 4 || err != nil {
		t.Fatalf("append after the tail = %d, %v; want seq 4", seq, err)
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, records(t, crashed), 4)

	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Size() != end {
		t.Fatalf("after Close the file has %d bytes, want %d: the tail is left", fi.Size(), end)
	}
}

// Zeros after the records end them only when nothing but zeros follows to
// the end of the file: what comes before or after them is judged as
// recovery always judges it.
func TestZeroTailBesideDamage(t *testing.T) {
	path, off := makeJournal(t, 3)
	full, _ := os.ReadFile(path)
	good := off[3]
	rec4 := recLine(4, payload(t, 4))
	zeros := func(n int) []byte { return make([]byte, n) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		name    string
		tail    []byte
		kind    error // what ReadFile ends with; nil: the records end cleanly
		records int   // what ReadFile yields
	}{
		{"a byte of zero", zeros(1), nil, 3},
		{"a page of zeros", zeros(4096), nil, 3},
		{"zeros longer than a record", zeros(MaxRecordBytes + 4096), nil, 3},
		{"a record, then zeros", cat(rec4, zeros(4096)), nil, 4},
		{"half a record, then zeros", cat(rec4[:len(rec4)/2], zeros(4096)), ErrTornTail, 3},
		{"zeros and a newline", cat(zeros(100), []byte("\n")), ErrTornTail, 3},
		{"zeros, then garbage", cat(zeros(4096), []byte("x")), ErrTornTail, 3},
		{"zeros, then a valid record", cat(zeros(4096), rec4), ErrCorrupt, 3},
		{"zeros, then a valid record, then zeros", cat(zeros(100), rec4, zeros(100)), ErrCorrupt, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "tail.journal")
			file := cat(full[:good], tc.tail)
			if err := os.WriteFile(p, file, 0o644); err != nil {
				t.Fatal(err)
			}
			n := 0
			var last error
			for _, err := range ReadFile(p) {
				if err != nil {
					last = err
					break
				}
				n++
			}
			if n != tc.records || !errors.Is(last, tc.kind) || (tc.kind == nil) != (last == nil) {
				t.Fatalf("ReadFile: %d records, then %v; want %d, then %v", n, last, tc.records, tc.kind)
			}
			s, err := Open(p, WithLogger(discard()))
			if tc.kind == ErrCorrupt {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Open = %v, want ErrCorrupt", err)
				}
				if got, _ := os.ReadFile(p); !bytes.Equal(got, file) {
					t.Fatal("Open changed a file it refused")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := s.close(); err != nil {
				t.Fatal(err)
			}
			if recs := records(t, p); len(recs) != tc.records {
				t.Fatalf("after Open and Close: %d records, want %d", len(recs), tc.records)
			}
		})
	}
}

// A journal that only has its header and zeros holds no record yet.
func TestHeaderThenZeros(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.journal")
	if err := os.WriteFile(path, append([]byte(header), make([]byte, 8192)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum, err := Check(path); err != nil || sum.Records != 0 || sum.Good != int64(len(header)) {
		t.Fatalf("Check = %+v, %v; want no records and no error", sum, err)
	}
	s := open(t, path)
	if seq, err := s.append1(payload(t, 1)); seq != 1 || err != nil {
		t.Fatalf("append = %d, %v", seq, err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, records(t, path), 1)
}
