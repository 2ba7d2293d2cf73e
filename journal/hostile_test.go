package journal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestRecoveryIsLinearOnCraftedLines: a line full of record candidates
// whose framing parses and whose fact runs to the line's end costs recovery
// a pass, not a checksum of the rest of the line per candidate (issue 15,
// item 9: a 1 MiB line took 1.35 s, 10 MiB 10.9 s). A line four times as
// long takes about four times as long (quadratic would be sixteen); the
// best of three runs of each, so that a loaded machine does not decide.
func TestRecoveryIsLinearOnCraftedLines(t *testing.T) {
	candidate := `{"pos":1,"stream":"a","seq":1,"crc32c":"00000000","fact":`
	crafted := func(bytes int) string {
		return writeFile(t, "crafted.journal", []byte(header+"x"+strings.Repeat(candidate, bytes/len(candidate))+"}\n"))
	}
	cost := func(path string) time.Duration {
		best := time.Duration(1 << 62)
		for range 5 {
			start := time.Now()
			_, err := Check(path)
			best = min(best, time.Since(start))
			if !errors.Is(err, ErrTornTail) {
				t.Fatalf("Check = %v; want a torn tail (no valid record anywhere)", err)
			}
		}
		return best
	}
	short, long := cost(crafted(256<<10)), cost(crafted(1<<20-100))
	if long > 8*short+20*time.Millisecond {
		t.Fatalf("a crafted line of 1 MiB costs %v, of 256 KiB %v: %.1f times for four times the bytes", long, short, float64(long)/float64(short))
	}
	t.Logf("crafted line: 256 KiB %v, 1 MiB %v", short, long)
	if _, err := Open(crafted(1<<20-100), WithLogger(discard())); err != nil {
		t.Fatalf("Open = %v; want the torn line cut", err)
	}
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
// breaks jq (issue 15, item 13).
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
