package pgstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

// largeAppends is how many appends of about 1 MiB TestManyLargeAppends...
// runs at once: 48 in an ordinary run, JOBGEN_PG_LARGE_APPENDS when `make
// crash` asks for more (1,100 is 1.1 GB of payload).
func largeAppends(t *testing.T) int {
	if v := os.Getenv("JOBGEN_PG_LARGE_APPENDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("JOBGEN_PG_LARGE_APPENDS=%q: want a positive number", v)
		}
		return n
	}
	return 48
}

// largePayload returns a JSON string payload of the largest size, tagged i.
func largePayload(i int) []byte {
	tag := fmt.Sprintf(`"%08d`, i)
	p := make([]byte, journal.MaxPayloadBytes)
	copy(p, tag)
	for k := len(tag); k < len(p)-1; k++ {
		p[k] = 'x'
	}
	p[len(p)-1] = '"'
	return p
}

// Many concurrent appends of the largest payloads all commit: batches are
// capped by bytes, so no transaction carries more than
// DefaultMaxBatchBytes (or one append alone) and none meets the protocol's
// message limit, as 1,100 such appends in one pipeline did (1,099 of them
// failed, again on every retry). The client's memory stays within a small
// multiple of the payload in flight: the peak resident set above what the
// caller's payloads take is measured and bounded.
func TestManyLargeAppendsCommitInBatchesCappedByBytes(t *testing.T) {
	n := largeAppends(t)
	s := openTest(t)
	ctx := context.Background()
	payloads := make([][]byte, n)
	for i := range payloads {
		payloads[i] = largePayload(i)
	}
	inFlight := n * len(payloads[0])
	runtime.GC()
	base, resetOK := resetPeakRSS()

	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			stream := journal.Stream(fmt.Sprintf("s%d", i%4))
			_, errs[i] = s.Append(ctx, stream, journal.Entry{ID: strconv.Itoa(i), Payload: payloads[i]})
		})
	}
	wg.Wait()
	peak := peakRSS()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("%d large appends failed: %v", countErrs(errs), err)
	}
	var txs int
	var largest int64
	if err := s.Pool().QueryRow(ctx, `SELECT count(*), max(b) FROM (SELECT xid, sum(octet_length(payload::text) + octet_length(stream) + octet_length(id) + 24) AS b
		FROM `+s.sql.table("fact")+` GROUP BY xid) AS x`).Scan(&txs, &largest); err != nil {
		t.Fatal(err)
	}
	if largest > DefaultMaxBatchBytes {
		t.Errorf("a transaction carried %d bytes of entries, more than the cap of %d", largest, DefaultMaxBatchBytes)
	}
	total := 0
	for k := range 4 {
		total += len(readGapFree(t, s, journal.Stream(fmt.Sprintf("s%d", k))))
	}
	if total != n {
		t.Fatalf("%d records, want %d", total, n)
	}
	if !resetOK || raceDetector {
		t.Logf("%d appends of %d bytes in %d transactions (largest %d bytes); peak RSS not judged (no clear_refs, or the race detector's shadow memory)", n, len(payloads[0]), txs, largest)
		return
	}
	extra := max(peak-base, 0)
	t.Logf("%d appends of %d bytes (%.1f MiB in flight) in %d transactions (largest %d bytes); peak RSS %.1f MiB, %.1f MiB above the caller's payloads (%.2f× the payload in flight)",
		n, len(payloads[0]), float64(inFlight)/(1<<20), txs, largest, float64(peak)/(1<<20), float64(extra)/(1<<20), float64(extra)/float64(inFlight))
	// One copy of the payloads in flight is allowed (the store copies none,
	// but the collector lags), plus the batches being encoded.
	if bound := inFlight + 256<<20; extra > bound {
		t.Errorf("peak RSS grew by %d bytes for %d bytes in flight, want at most %d", extra, inFlight, bound)
	}
}

func countErrs(errs []error) int {
	n := 0
	for _, err := range errs {
		if err != nil {
			n++
		}
	}
	return n
}

// resetPeakRSS resets the process's peak resident set (Linux clear_refs 5)
// and returns the resident set now, or false where it cannot.
func resetPeakRSS() (int, bool) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return 0, false
	}
	return procStatus("VmRSS:"), true
}

// peakRSS returns the process's peak resident set since the last reset.
func peakRSS() int { return procStatus("VmHWM:") }

// procStatus returns the size /proc/self/status gives for key, in bytes.
func procStatus(key string) int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb << 10
		}
	}
	return 0
}

// An append larger than the byte cap commits whole, in one transaction cut
// into statements of at most the cap, with consecutive seqs; and if its
// stream is full it commits nothing.
func TestAnAppendLargerThanTheByteCapCommitsWholeInOneTransaction(t *testing.T) {
	s := openTest(t, WithMaxBatchBytes(64<<10))
	ctx := context.Background()
	var es []journal.Entry
	for i := range 12 {
		es = append(es, journal.Entry{ID: fmt.Sprint("e", i), Payload: []byte(`"` + strings.Repeat("y", 20<<10) + `"`)})
	}
	es = append(es, es[3]) // a repeat of an id of an earlier piece
	seqs, err := s.Append(ctx, "big", es...)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 4}; !slices.Equal(seqs, want) {
		t.Fatalf("seqs %v, want %v", seqs, want)
	}
	recs := readGapFree(t, s, "big")
	if len(recs) != 12 {
		t.Fatalf("%d records, want 12", len(recs))
	}
	for _, rec := range recs[1:] {
		if rec.Pos.Major != recs[0].Pos.Major {
			t.Fatalf("the append was split across transactions %d and %d", recs[0].Pos.Major, rec.Pos.Major)
		}
	}
	// A stream with room for 5 more: the 12 do not fit, and none is stored.
	if _, err := s.Pool().Exec(ctx, `UPDATE `+s.sql.table("stream")+` SET head = $1 WHERE name = 'big'`, int64(math.MaxInt64-5)); err != nil {
		t.Fatal(err)
	}
	for i := range es {
		es[i].ID = fmt.Sprint("f", i)
	}
	if _, err := s.Append(ctx, "big", es[:12]...); !errors.Is(err, journal.ErrFull) {
		t.Fatalf("12 entries into room for 5: %v, want ErrFull", err)
	}
	if n := len(readStream(t, s, "big", 0)); n != 12 {
		t.Fatalf("the refused append left %d records, want the 12 before it", n)
	}
	if seqs, err := s.Append(ctx, "big", es[:5]...); err != nil || seqs[4] != math.MaxInt64 {
		t.Fatalf("5 entries into room for 5: %v %v", seqs, err)
	}
}
