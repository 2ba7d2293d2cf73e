package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
)

// readOutcome is what a fact sequence yields, one line per fact or error,
// so that two sequences compare as text.
func readOutcome[F any](seq func(func(F, error) bool)) string {
	var b strings.Builder
	for f, err := range seq {
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
			continue
		}
		fmt.Fprintf(&b, "%+v\n", f)
	}
	return b.String()
}

// fileFactsAgree checks that FileFacts of path yields what
// Facts(ReadFile(path)) yields, fact for fact and error for error, with
// decode, and returns what they yielded.
func fileFactsAgree[F any](t *testing.T, path string, decode func([]byte) (F, error)) string {
	t.Helper()
	want := readOutcome(Facts(ReadFile(path), decode))
	if got := readOutcome(FileFacts(path, decode)); got != want {
		t.Fatalf("FileFacts(%s) yields\n%s\nFacts(ReadFile) yields\n%s", filepath.Base(path), got, want)
	}
	return want
}

// strictAny decodes a payload with encoding/json, which refuses what is not
// JSON, as FileFacts asks of its decoder.
func strictAny(b []byte) (any, error) {
	var v any
	err := json.Unmarshal(b, &v)
	return v, err
}

// FileFacts yields what Facts(ReadFile) yields for every kind of journal a
// reader meets: intact, with facts the decoder refuses, and damaged in each
// way ReadFile reports, a fact that is not JSON included, though FileFacts
// leaves that check to the decoder.
func TestFileFactsAgreesWithFactsOfReadFile(t *testing.T) {
	good := func(n uint64) []byte { return recLine(n, payload(t, int(n))) }
	notJSON := []byte(`{"type":"job/registered","v":2,"data":{]}`)
	unknown := []byte(`{"type":"job/paused","v":1,"data":{"a":1}}`)
	line := func(pos uint64, p []byte) []byte { return recLine(pos, p) }
	badCRC := good(2)
	badCRC[bytes.Index(badCRC, []byte(`"crc32c":"`))+10] ^= 0x01
	v1 := append([]byte(headerV1), appendRecordV1(1, payload(t, 1))...)
	cases := map[string][]byte{
		"intact":                      cat([]byte(header), good(1), good(2), good(3)),
		"empty":                       nil,
		"header only":                 []byte(header),
		"not a journal":               []byte("hello\n"),
		"fact the decoder refuses":    cat([]byte(header), good(1), line(2, unknown), good(3)),
		"fact not JSON":               cat([]byte(header), good(1), line(2, notJSON), good(3)),
		"fact not JSON, last":         cat([]byte(header), good(1), line(2, notJSON)),
		"fact not JSON, out of place": cat([]byte(header), good(1), line(3, notJSON), good(4)),
		"fact not JSON after refused": cat([]byte(header), line(1, unknown), line(2, notJSON)),
		"out of place":                cat([]byte(header), good(1), good(3)),
		"bad checksum":                cat([]byte(header), good(1), badCRC, good(3)),
		"torn tail":                   cat([]byte(header), good(1), good(2)[:40]),
		"zero tail":                   cat([]byte(header), good(1), make([]byte, 100)),
		"version 1":                   v1,
		"garbage then a record":       cat([]byte(header), good(1), []byte("garbage\n"), good(3)),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, "case.journal", b)
			got := fileFactsAgree(t, path, jobs.DecodeFact)
			fileFactsAgree(t, path, strictAny)
			if strings.Contains(name, "not JSON") && !strings.Contains(got, "not one JSON value (a whole record") {
				t.Fatalf("reads as\n%s\nwant the whole record reported as not JSON", got)
			}
		})
	}
	t.Run("no such file", func(t *testing.T) {
		fileFactsAgree(t, filepath.Join(t.TempDir(), "missing.journal"), jobs.DecodeFact)
	})
}

// FileFacts reads a long journal, its payloads in buffers it uses again,
// and hands decode each payload whole, with nothing of another record in
// it.
func TestFileFactsLendsEachPayloadWhole(t *testing.T) {
	path, _ := makeJournal(t, 2000)
	n := 0
	for f, err := range FileFacts(path, func(b []byte) ([]byte, error) {
		n++
		if want := payload(t, n); !bytes.Equal(b, want) {
			return nil, fmt.Errorf("record %d: decode got %q, want %q", n, b, want)
		}
		return nil, nil
	}) {
		if err != nil || f != nil {
			t.Fatal(f, err)
		}
	}
	if n != 2000 {
		t.Fatalf("decode saw %d payloads, want 2000", n)
	}
}

// A reader of facts that stops early stops the scan that reads ahead, and
// the file is closed: no goroutine outlives the loop.
func TestFileFactsStopsTheReadAhead(t *testing.T) {
	path, _ := makeJournal(t, 500)
	stopsTheReadAhead(t, FileFacts(path, jobs.DecodeFact))
}

// cat joins byte slices into a new one.
func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// appendRecordV1 is a version 1 record line of payload p at seq.
func appendRecordV1(seq uint64, p []byte) []byte {
	return fmt.Appendf(nil, `{"seq":%d,"crc32c":"%08x","fact":%s}`+"\n", seq, checksumV1(seq, p), p)
}
