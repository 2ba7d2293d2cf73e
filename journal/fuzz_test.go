package journal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
)

// FuzzRecover appends an arbitrary tail to a valid three-record journal and
// opens it. Open never panics and never loses or changes the valid prefix.
// Precisely, with the tail read as lines:
//
//   - the longest run of valid records at the start of the tail that
//     continue the sequence (4, 5, …) is kept;
//   - at the first damage after them, Open refuses with ErrCorrupt at the
//     damage's offset when the damaged line is a valid record out of
//     sequence, or a whole record (newline-terminated, framing intact) whose
//     checksum or fact is bad, or when a record with a matching checksum
//     begins anywhere after the damage's first byte, and leaves the file
//     unchanged;
//   - otherwise the damage is a torn tail: Open cuts the file there, keeping
//     exactly the prefix and the run, and appends continue after them;
//   - zero bytes alone after the run are a preallocated tail, no damage:
//     Check reports no error, and Open cuts them as it would a torn tail.
//
// With a tail holding no valid record, that is: Open recovers exactly the
// prefix.
func FuzzRecover(f *testing.F) {
	prefix := journalBytes(f, 3)
	rec4 := recLine(4, payload(f, 4))
	rec5 := recLine(5, payload(f, 5))
	_, off := makeJournal(f, 3)
	rec3 := prefix[off[2]:]
	for _, seed := range [][]byte{
		nil,
		[]byte("{"),
		rec4[:len(rec4)/2],
		rec4[:len(rec4)-1],
		rec4,
		append(bytes.Clone(rec4), rec5[:10]...),
		make([]byte, 512),
		append(bytes.Clone(rec4), make([]byte, 512)...), // a record, then a preallocated tail
		append(make([]byte, 512), rec4...),              // zeros, then a valid record
		[]byte("garbage\n"),
		append([]byte("garbage\n"), rec4...), // damage, then a valid record
		append([]byte("x"), rec4...),         // a valid record inside the damaged line
		rec3,                                 // a whole record out of sequence
		rec5,
		[]byte("\n"),
		append(bytes.Clone(rec4[:20]), rec4[21:]...),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, tail []byte) { checkRecovery(t, prefix, tail) })
}

// FuzzRecoverLongLines appends one long line, a fuzzed unit repeated up to
// 16 KiB, and maybe a valid record after it, to a valid journal, and checks
// Open against the same oracle as FuzzRecover. Such lines are where the
// candidate search inside a damaged line works hardest (and where it was
// quadratic); the unit may hold whole or partial record framing.
func FuzzRecoverLongLines(f *testing.F) {
	prefix := journalBytes(f, 3)
	rec4 := recLine(4, payload(f, 4))
	candidate := []byte(`{"pos":4,"stream":"test","seq":4,"crc32c":"00000000","fact":`)
	f.Add(candidate, uint16(1000), true, false)
	f.Add(candidate, uint16(1000), false, true)
	f.Add(rec4[:len(rec4)-1], uint16(30), false, false)
	f.Add([]byte(`{"pos":`), uint16(9000), true, true)
	f.Add([]byte("x"), uint16(50000), false, true)
	f.Fuzz(func(t *testing.T, unit []byte, reps uint16, endBrace, recordAfter bool) {
		if len(unit) == 0 {
			return
		}
		n := min(int(reps), (16<<10)/len(unit))
		tail := bytes.Repeat(unit, n)
		if endBrace {
			tail = append(tail, '}')
		}
		tail = append(tail, '\n')
		if recordAfter {
			tail = append(tail, rec4...)
		}
		checkRecovery(t, prefix, tail)
	})
}

// checkRecovery writes a valid three-record journal followed by tail, opens
// it, and checks that Open did what expectRecovery says.
func checkRecovery(t *testing.T, prefix, tail []byte) {
	path := filepath.Join(t.TempDir(), "fuzz.journal")
	file := append(bytes.Clone(prefix), tail...)
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	kept, extra, corruptAt := expectRecovery(tail, 3)

	// Readers end cleanly exactly when nothing but zero bytes, a
	// preallocated tail, follows the records they keep.
	clean := corruptAt < 0 && allZero(tail[kept:])
	if sum, err := Check(path); (err == nil) != clean || clean && sum.Good != int64(len(prefix)+kept) {
		t.Fatalf("Check = %+v, %v; want a clean end after %d tail bytes: %v", sum, err, kept, clean)
	}

	// FileFacts, which leaves the facts' JSON to the decoder, reads the
	// same facts and meets the same damage as Facts of ReadFile.
	fileFactsAgree(t, path, jobs.DecodeFact)

	s, err := Open(path, WithLogger(discard()))
	if corruptAt >= 0 {
		var rerr *RecordError
		if !errors.Is(err, ErrCorrupt) || !errors.As(err, &rerr) || rerr.Offset != int64(len(prefix)+corruptAt) {
			t.Fatalf("Open = %v, want ErrCorrupt at offset %d", err, len(prefix)+corruptAt)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, file) {
			t.Fatal("Open changed a file it refused")
		}
		return
	}
	if err != nil {
		t.Fatalf("Open = %v, want recovery of the prefix and %d more records", err, extra)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, file[:len(prefix)+kept]) {
		t.Fatalf("after Open the file is %q, want the prefix and %q", got[min(len(got), len(prefix)):], tail[:kept])
	}
	recs := records(t, path)
	wantPayloads(t, recs[:3], 3)
	if len(recs) != 3+extra {
		t.Fatalf("%d records, want %d", len(recs), 3+extra)
	}
	if seq, err := s.append1(payload(t, 9)); seq != uint64(4+extra) || err != nil {
		t.Fatalf("Append = %d, %v; want seq %d", seq, err, 4+extra)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if recs := records(t, path); len(recs) != 4+extra {
		t.Fatalf("after append and reopen: %d records, want %d", len(recs), 4+extra)
	}
}

// expectRecovery is the recovery rule of the package doc, written plainly
// over a tail held in memory that follows valid records ending at seq last.
// It returns how many tail bytes and records are kept, and the tail offset of
// corruption, or -1.
func expectRecovery(tail []byte, last uint64) (kept, extra, corruptAt int) {
	pos := 0
	for {
		nl := bytes.IndexByte(tail[pos:], '\n')
		if nl < 0 {
			return pos, extra, -1 // clean end, or a last line without newline: torn
		}
		fr, err := parseRecord(tail[pos:pos+nl], 2)
		if err == nil && fr.pos == last+1 {
			last++
			extra++
			pos += nl + 1
			continue
		}
		if _, ferr := parseFrame(tail[pos:pos+nl], 2); err == nil || ferr == nil || validRecordFrom(tail, pos+1) {
			return pos, extra, pos
		}
		return pos, extra, -1
	}
}

// validRecordFrom reports whether a valid record begins at or after from.
func validRecordFrom(b []byte, from int) bool {
	for i := from; i < len(b); i++ {
		if !bytes.HasPrefix(b[i:], []byte(prefixPos)) {
			continue
		}
		if nl := bytes.IndexByte(b[i:], '\n'); nl >= 0 {
			if fr, err := parseFrame(b[i:i+nl], 2); err == nil && fr.sum(2, nil) == fr.crc {
				return true
			}
		}
	}
	return false
}
