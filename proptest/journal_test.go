package proptest

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
)

// TestJournalRecovery is the journal's recovery property. A journal lives through one to
// four cycles of: open (recovering what the last cycle left), append random
// facts with random flushes while writes and fsyncs may fail, then crash
// (or close), and lose or damage any bytes after the last successful fsync
// — cut them, zero them, flip them, append garbage or whole records after
// them, some with a fact that is not JSON. Each open must do exactly what
// journal/doc.go's recovery rules say, computed here by a reader written
// from that doc alone: keep the valid prefix and cut a torn tail, or refuse
// mid-file damage with ErrCorrupt naming its offset and change nothing;
// before it, the readers (ReadFile, and FileFacts, which leaves the facts'
// JSON to its decoder) read the same prefix and meet the same damage. Every record a Flush reported
// durable survives every crash, a failed write or fsync fails every later
// append and flush, and appends continue the sequence after recovery.
func TestJournalRecovery(t *testing.T) {
	files := &journalFiles{dir: t.TempDir()}
	rapid.Check(t, func(rt *rapid.T) { journalRecovery(rt, files.next()) })
	logStats(t)
}

// A refRecord is a record as the reference reader sees it.
type refRecord struct {
	seq     uint64
	payload string
}

func journalRecovery(rt *rapid.T, path string) {
	rt.Cleanup(func() { os.Remove(path) })
	var durable []refRecord // every record a successful Flush or Close covered
	for cycle := range rapid.IntRange(1, 4).Draw(rt, "cycles") {
		f := &crashFile{
			failSync:  rapid.SampledFrom([]int{0, 0, 0, 1, 2, 3}).Draw(rt, "failSync"),
			failWrite: rapid.SampledFrom([]int{0, 0, 0, 0, 1, 2}).Draw(rt, "failWrite"),
		}
		s, kept := openExpecting(rt, path, f, durable, cycle)
		f.armed = true
		// What recovery kept is on disk: the next crash spares it.
		durable = runCycle(rt, s, f, kept)
		damage(rt, path, f.synced)
	}
	// A last recovery: everything durable is still there.
	s, _ := openExpecting(rt, path, &crashFile{}, durable, -1)
	s.Close(context.Background())
}

// openExpecting opens path, first computing with the reference reader what
// Open must do, and returns the store and the records it kept. On refusal
// it checks that nothing changed, then cuts the file at the reported
// offset, as an operator who knows the records after it were never flushed
// would, and opens again.
func openExpecting(rt *rapid.T, path string, f *crashFile, durable []refRecord, cycle int) (*journal.FileStore, []refRecord) {
	before, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		rt.Fatal(err)
	}
	want := refRecover(before)
	if len(before) > 0 {
		readsAsRecovery(rt, path, want, cycle)
	}
	s, err := journal.Open(path, journal.WithOpenFile(f.open), journal.WithLogger(slog.New(slog.DiscardHandler)))
	if want.corruptAt >= 0 {
		note("journal: open refused mid-file damage")
		var rerr *journal.RecordError
		if !errors.Is(err, journal.ErrCorrupt) || !errors.As(err, &rerr) || rerr.Offset != int64(want.corruptAt) {
			rt.Fatalf("cycle %d: Open = %v; want ErrCorrupt at offset %d (%s)", cycle, err, want.corruptAt, want.why)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
			rt.Fatalf("cycle %d: Open changed a file it refused", cycle)
		}
		if err := os.Truncate(path, int64(want.corruptAt)); err != nil {
			rt.Fatal(err)
		}
		return openExpecting(rt, path, f, durable, cycle)
	}
	if err != nil {
		rt.Fatalf("cycle %d: Open = %v; want recovery of %d records (%s)", cycle, err, len(want.records), want.why)
	}
	if len(before) > want.kept {
		note("journal: open cut a torn tail")
	}
	after, err := os.ReadFile(path)
	if err != nil {
		rt.Fatal(err)
	}
	wantFile := before[:want.kept]
	if len(before) == 0 || want.headerTorn {
		wantFile = []byte(refHeader)
	}
	if !bytes.Equal(after, wantFile) {
		rt.Fatalf("cycle %d: after Open the file is %d bytes %q…; want the first %d bytes of what was there (%s)",
			cycle, len(after), tail(after), len(wantFile), want.why)
	}
	if len(want.records) < len(durable) || !slices.Equal(want.records[:len(durable)], durable) {
		rt.Fatalf("cycle %d: recovery keeps %v; every durable record %v must be among them", cycle, seqs(want.records), seqs(durable))
	}
	if got := readRecords(rt, path); !slices.Equal(got, want.records) {
		rt.Fatalf("cycle %d: the journal reads %v, want %v", cycle, seqs(got), seqs(want.records))
	}
	if got, err := s.LastSeq(context.Background(), refStream); err != nil || got != lastSeq(want.records) {
		rt.Fatalf("cycle %d: LastSeq = %d, %v; want %d", cycle, got, err, lastSeq(want.records))
	}
	return s, want.records
}

// readsAsRecovery checks what the readers of the file at path, as it is
// before Open repairs it, yield: ReadFile, through Facts, and FileFacts,
// which leaves the check that a fact is JSON to its decoder, yield the same
// facts and the same error, the facts being the records want keeps, and the
// error, when want calls the file corrupt, the ErrCorrupt at want's offset.
func readsAsRecovery(rt *rapid.T, path string, want refRecovery, cycle int) {
	decode := func(b []byte) (string, error) { // as strict about JSON as a generated DecodeFact, and keeps a copy
		if !json.Valid(b) {
			return "", errors.New("not JSON")
		}
		return string(b), nil
	}
	read := func(facts func(func(string, error) bool)) (got []string, end error) {
		for f, err := range facts {
			if err != nil {
				return got, err
			}
			got = append(got, f)
		}
		return got, nil
	}
	plain, plainErr := read(journal.Facts(journal.ReadFile(path), decode))
	lent, lentErr := read(journal.FileFacts(path, decode))
	if !slices.Equal(lent, plain) || fmt.Sprint(lentErr) != fmt.Sprint(plainErr) {
		rt.Fatalf("cycle %d: FileFacts reads %d facts and %v; Facts of ReadFile %d facts and %v", cycle, len(lent), lentErr, len(plain), plainErr)
	}
	var wantFacts []string
	for _, r := range want.records {
		wantFacts = append(wantFacts, r.payload)
	}
	if !slices.Equal(lent, wantFacts) {
		rt.Fatalf("cycle %d: FileFacts reads %d facts before %v; want the %d records recovery keeps (%s)", cycle, len(lent), lentErr, len(wantFacts), want.why)
	}
	var rerr *journal.RecordError
	if want.corruptAt >= 0 && (!errors.Is(lentErr, journal.ErrCorrupt) || !errors.As(lentErr, &rerr) || rerr.Offset != int64(want.corruptAt)) {
		rt.Fatalf("cycle %d: FileFacts ends with %v; want ErrCorrupt at offset %d (%s)", cycle, lentErr, want.corruptAt, want.why)
	}
}

// runCycle appends and flushes at random and ends in a crash or a Close. It
// returns the records now durable.
func runCycle(rt *rapid.T, s *journal.FileStore, f *crashFile, durable []refRecord) []refRecord {
	appended := append([]refRecord(nil), durable...)
	var failed error
	for range rapid.IntRange(0, 12).Draw(rt, "ops") {
		if rapid.IntRange(0, 3).Draw(rt, "flush") == 0 {
			err := s.Flush(context.Background())
			switch {
			case failed != nil && err == nil:
				rt.Fatalf("Flush succeeded after the store failed with %v", failed)
			case err == nil:
				durable = append(durable[:0:0], appended...)
			default:
				failed = err
				note("journal: a flush failed")
			}
			continue
		}
		payload, err := jobs.EncodeFact(drawFact(rt))
		if err != nil {
			rt.Fatal(err)
		}
		var seq uint64
		seqs, err := s.Append(context.Background(), refStream, journal.Entry{Payload: payload})
		if len(seqs) == 1 {
			seq = seqs[0]
		}
		want := lastSeq(appended) + 1
		switch {
		case failed != nil && err == nil:
			rt.Fatalf("Append succeeded after the store failed with %v", failed)
		case err != nil && failed == nil && !errors.Is(err, errWrite):
			rt.Fatalf("Append = %v", err)
		case err != nil:
			failed = err
		case seq != want:
			rt.Fatalf("Append = seq %d, want %d", seq, want)
		default:
			appended = append(appended, refRecord{seq, string(payload)})
		}
	}
	if rapid.Bool().Draw(rt, "close") {
		err := s.Close(context.Background())
		switch {
		case failed != nil && err == nil:
			rt.Fatalf("Close succeeded after the store failed with %v", failed)
		case err == nil:
			note("journal: closed cleanly")
			durable = appended
		}
	} else {
		note("journal: crashed")
	}
	f.crash()
	return durable
}

// damage loses or spoils bytes of the file after offset synced: what a
// crash may do to writes that no fsync covered.
func damage(rt *rapid.T, path string, synced int64) {
	b, err := os.ReadFile(path)
	if err != nil {
		rt.Fatal(err)
	}
	keep := b[:synced:synced]
	rest := append([]byte(nil), b[synced:]...)
	for range rapid.IntRange(0, 2).Draw(rt, "damages") {
		switch rapid.IntRange(0, 5).Draw(rt, "damage") {
		case 0: // the unsynced tail is cut anywhere
			rest = rest[:rapid.IntRange(0, len(rest)).Draw(rt, "cut")]
			note("journal: damage: cut")
		case 1: // a page of it reads back as zeros
			if len(rest) > 0 {
				a := rapid.IntRange(0, len(rest)-1).Draw(rt, "zeroFrom")
				z := rapid.IntRange(a+1, len(rest)).Draw(rt, "zeroTo")
				clear(rest[a:z])
				note("journal: damage: zeros")
			}
		case 2: // some bytes of it are garbage
			for range rapid.IntRange(1, 3).Draw(rt, "flips") {
				if len(rest) > 0 {
					rest[rapid.IntRange(0, len(rest)-1).Draw(rt, "flipAt")] = rapid.SampledFrom([]byte{0, '\n', '{', 'x', 0xff}).Draw(rt, "flipTo")
				}
			}
			note("journal: damage: garbage bytes")
		case 3: // garbage after it
			rest = append(rest, rapid.SliceOfN(rapid.SampledFrom([]byte{'a', '\n', '{', '"', 0}), 1, 30).Draw(rt, "garbage")...)
			note("journal: damage: garbage appended")
		case 4: // a whole record after it, in sequence or not
			seq := rapid.Uint64Range(1, 40).Draw(rt, "strayRecordSeq")
			rest = append(rest, refLine(seq, []byte(`{"stray":true}`))...)
			note("journal: damage: a stray record")
		case 5: // a whole record, its checksum matching a fact that is not JSON
			seq := rapid.Uint64Range(1, 40).Draw(rt, "notJSONRecordSeq")
			rest = append(rest, refLine(seq, []byte(`{"stray":`))...)
			note("journal: damage: a record whose fact is not JSON")
		}
	}
	if err := os.WriteFile(path, append(keep, rest...), 0o644); err != nil {
		rt.Fatal(err)
	}
}

// The reference reader: journal/doc.go's "File format" and "Recovery",
// written from the doc alone.

const refHeader = `{"format":"jobgen-journal","version":2}` + "\n"

// refStream is the one stream the property writes.
const refStream = "prop"

var refCRC = crc32.MakeTable(crc32.Castagnoli)

// refLine is a record line of refStream, at position seq, as the doc lays
// it out.
func refLine(seq uint64, payload []byte) []byte {
	sum := append([]byte(nil), payload...)
	sum = binary.BigEndian.AppendUint32(sum, uint32(len(refStream)))
	sum = append(sum, refStream...)
	sum = binary.BigEndian.AppendUint32(sum, 0) // no id
	sum = binary.BigEndian.AppendUint64(sum, seq)
	sum = binary.BigEndian.AppendUint64(sum, seq)
	crc := crc32.Checksum(sum, refCRC)
	return fmt.Appendf(nil, `{"pos":%d,"stream":"%s","seq":%d,"crc32c":"%08x","fact":%s}`+"\n", seq, refStream, seq, crc, payload)
}

// refParse parses one line, newline excluded: the exact framing of a record
// of refStream whose position is its seq (all this property writes), a seq of
// 1 to 2^64-1 without leading zeros, a non-empty fact that is JSON, and its
// checksum.
func refParse(line []byte) (refRecord, bool) { return refParseFrame(line, true) }

// refFramed reports whether line has a record's whole framing, whatever its
// checksum and fact: a record written whole, whose damage is corruption.
func refFramed(line []byte) bool {
	m := refFrame.FindSubmatch(line)
	if m == nil || !utf8.Valid(m[2]) || !utf8.Valid(m[4]) || len(m[2]) > 256 || len(m[4]) > 256 {
		return false
	}
	_, err1 := strconv.ParseUint(string(m[1]), 10, 64)
	_, err2 := strconv.ParseUint(string(m[3]), 10, 64)
	return err1 == nil && err2 == nil && !bytes.ContainsAny(m[2], "\u0080\u0081\u0082\u0083\u0084\u0085\u0086\u0087\u0088\u0089\u008a\u008b\u008c\u008d\u008e\u008f\u0090\u0091\u0092\u0093\u0094\u0095\u0096\u0097\u0098\u0099\u009a\u009b\u009c\u009d\u009e\u009f\u007f")
}

// refFrame is a record line's framing, as the doc lays it out, for names
// without escapes (all the property writes; damage that makes an escape is
// framing this reader does not know, and the property's damage never does).
var refFrame = regexp.MustCompile(`^\{"pos":([1-9][0-9]{0,19}),"stream":"([^"\\\x00-\x1f]+)","seq":([1-9][0-9]{0,19})(?:,"id":"([^"\\\x00-\x1f]+)")?,"crc32c":"[0-9a-f]{8}","fact":.+\}$`)

// refParseFrame is refParse, asking that the fact be JSON only when
// needJSON is set.
func refParseFrame(line []byte, needJSON bool) (refRecord, bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"pos":`))
	if !ok {
		return refRecord{}, false
	}
	i := bytes.IndexByte(rest, ',')
	if i <= 0 || rest[0] == '0' {
		return refRecord{}, false
	}
	for _, c := range rest[:i] {
		if c < '0' || c > '9' {
			return refRecord{}, false
		}
	}
	seq, err := strconv.ParseUint(string(rest[:i]), 10, 64)
	if err != nil {
		return refRecord{}, false
	}
	rest, ok = bytes.CutPrefix(rest[i:], fmt.Appendf(nil, `,"stream":"%s","seq":%d`, refStream, seq))
	if !ok {
		return refRecord{}, false
	}
	rest, ok = bytes.CutPrefix(rest, []byte(`,"crc32c":"`))
	if !ok || len(rest) < 8 {
		return refRecord{}, false
	}
	for _, c := range rest[:8] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return refRecord{}, false
		}
	}
	rest, ok = bytes.CutPrefix(rest[8:], []byte(`","fact":`))
	if !ok {
		return refRecord{}, false
	}
	payload, ok := bytes.CutSuffix(rest, []byte("}"))
	if !ok || len(payload) == 0 || (needJSON && !json.Valid(payload)) {
		return refRecord{}, false
	}
	if want := refLine(seq, payload); !bytes.Equal(want[:len(want)-1], line) {
		return refRecord{}, false // the checksum (the only part left) differs
	}
	return refRecord{seq, string(payload)}, true
}

// A refRecovery is what Open must do with a file.
type refRecovery struct {
	records    []refRecord
	kept       int  // bytes kept: the header and the valid records
	headerTorn bool // empty, or a strict prefix of the header: written afresh
	corruptAt  int  // offset of mid-file damage, or -1
	why        string
}

// refRecover applies the recovery rules to a whole file.
func refRecover(b []byte) refRecovery {
	if len(b) < len(refHeader) && bytes.HasPrefix([]byte(refHeader), b) {
		return refRecovery{headerTorn: true, kept: 0, corruptAt: -1, why: "no header: a new journal"}
	}
	r := refRecovery{kept: len(refHeader), corruptAt: -1, why: "clean end"}
	pos := len(refHeader)
	for pos < len(b) {
		nl := bytes.IndexByte(b[pos:], '\n')
		if nl < 0 { // no valid record can follow: one ends with a newline
			r.why = fmt.Sprintf("torn tail at %d: no newline", pos)
			return r
		}
		rec, ok := refParse(b[pos : pos+nl])
		if ok && (len(r.records) == 0 || rec.seq == r.records[len(r.records)-1].seq+1) {
			r.records = append(r.records, rec)
			pos += nl + 1
			r.kept = pos
			continue
		}
		switch {
		case ok:
			r.corruptAt, r.why = pos, fmt.Sprintf("seq %d out of sequence at %d", rec.seq, pos)
		case refFramed(b[pos : pos+nl]):
			r.corruptAt, r.why = pos, fmt.Sprintf("a whole record with a bad checksum or a fact that is not JSON at %d", pos)
		case validRecordAfter(b, pos+1):
			r.corruptAt, r.why = pos, fmt.Sprintf("damage at %d followed by a valid record", pos)
		default:
			r.why = fmt.Sprintf("torn tail at %d", pos)
		}
		return r
	}
	return r
}

// validRecordAfter reports whether a record with the framing and a
// matching checksum (its fact need not be JSON) begins at or after from:
// anywhere, running to the next newline.
func validRecordAfter(b []byte, from int) bool {
	for i := from; i < len(b); i++ {
		if !bytes.HasPrefix(b[i:], []byte(`{"pos":`)) {
			continue
		}
		if nl := bytes.IndexByte(b[i:], '\n'); nl >= 0 {
			if _, ok := refParseFrame(b[i:i+nl], false); ok {
				return true
			}
		}
	}
	return false
}

func readRecords(rt *rapid.T, path string) []refRecord {
	var out []refRecord
	for rec, err := range journal.ReadFile(path) {
		if err != nil {
			rt.Fatalf("reading %s back: %v", path, err)
		}
		out = append(out, refRecord{rec.Seq, string(rec.Payload)})
	}
	return out
}

func lastSeq(recs []refRecord) uint64 {
	if len(recs) == 0 {
		return 0
	}
	return recs[len(recs)-1].seq
}

func seqs(recs []refRecord) []uint64 {
	out := make([]uint64, len(recs))
	for i, r := range recs {
		out[i] = r.seq
	}
	return out
}

func tail(b []byte) string {
	return string(b[max(0, len(b)-60):])
}

// drawFact draws a registered or settled fact with awkward strings.
func drawFact(rt *rapid.T) jobs.Fact {
	var id jobs.JobID
	copy(id[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(rt, "jobID"))
	reg := jobs.JobRegistered{
		JobID: id, At: rapid.Int64().Draw(rt, "at"),
		Owner: jobs.SessionID(rapid.StringN(1, 8, -1).Draw(rt, "owner")),
		Kind:  rapid.SampledFrom([]string{"bash", "grep"}).Draw(rt, "kind"),
		Label: rapid.String().Draw(rt, "label"), Ordinal: rapid.IntRange(1, 1000).Draw(rt, "ordinal"),
		Record: rapid.Bool().Draw(rt, "record"),
	}
	if rapid.Bool().Draw(rt, "registered") {
		return reg
	}
	return jobs.JobSettled{
		JobID: id, At: reg.At + 1, Detail: rapid.String().Draw(rt, "detail"),
		Status:           rapid.SampledFrom([]jobs.JobStatus{jobs.JobStatusCompleted, jobs.JobStatusKilled, jobs.JobStatusFailed}).Draw(rt, "status"),
		ProducerReported: rapid.Bool().Draw(rt, "producerReported"),
		Cause:            rapid.SampledFrom(jobs.SettlementCauseValues()).Draw(rt, "cause"),
		Registration: jobs.JobRegistration{RegisteredAt: reg.At, Owner: reg.Owner, Kind: reg.Kind, Label: reg.Label,
			Ordinal: reg.Ordinal, Record: reg.Record},
	}
}

var (
	errSync  = errors.New("injected fsync failure")
	errWrite = errors.New("injected write failure")
)

// A crashFile is a journal file that remembers how much of it the last
// successful Sync made durable, and fails its failSync-th Sync and its
// failWrite-th Write (after writing part of it) when they are set. Its Sync
// syncs nothing for real: the crash is simulated, by damage.
type crashFile struct {
	*os.File
	failSync, failWrite int
	armed               bool // faults are armed once Open has returned
	syncs, writes       int
	synced              int64
}

func (f *crashFile) open(path string) (journal.File, error) {
	file, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	f.File = file
	if fi, err := file.Stat(); err == nil {
		f.synced = fi.Size() // what a previous cycle left is all on disk
	}
	return f, nil
}

func (f *crashFile) Write(p []byte) (int, error) {
	if f.armed {
		f.writes++
	}
	if f.armed && f.writes == f.failWrite {
		n, _ := f.File.Write(p[:len(p)/2])
		note("journal: a write failed")
		return n, errWrite
	}
	return f.File.Write(p)
}

func (f *crashFile) Sync() error {
	if f.armed {
		f.syncs++
	}
	if f.armed && f.syncs == f.failSync {
		note("journal: an fsync failed")
		return errSync
	}
	fi, err := f.File.Stat()
	if err != nil {
		return err
	}
	f.synced = fi.Size()
	return nil
}

func (f *crashFile) Truncate(size int64) error {
	if err := f.File.Truncate(size); err != nil {
		return err
	}
	f.synced = min(f.synced, size)
	return nil
}

// crash closes the file descriptor under a store that is abandoned.
func (f *crashFile) crash() { f.File.Close() }
