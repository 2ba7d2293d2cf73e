package journal

import (
	"bytes"
	"iter"
	"runtime"
	"testing"
	"testing/synctest"
)

// A reader that stops early stops the scan that reads ahead (a scan left
// blocked would deadlock the bubble): no goroutine outlives the loop.
func TestReadFileStopsTheReadAhead(t *testing.T) {
	path, _ := makeJournal(t, 500)
	stopsTheReadAhead(t, ReadFile(path))
	// Payloads are the caller's: appending to one does not reach the next.
	var recs []Record
	for rec, err := range ReadFile(path) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	recs[0].Payload = append(recs[0].Payload, "xxxx"...)
	if !bytes.Equal(recs[1].Payload, payload(t, 2)) {
		t.Fatalf("record 2 reads %q after appending to record 1's payload", recs[1].Payload)
	}
}

// readAheadRuns reports whether a read-ahead's goroutine is running.
func readAheadRuns() bool {
	buf := make([]byte, 1<<20)
	return bytes.Contains(buf[:runtime.Stack(buf, true)], []byte("journal.scanAhead"))
}

// A scan reads a stream's name once: the records of a stream it knows
// cost no allocation for their stream, so checking a long journal of a few
// streams allocates about as much as a short one.
func TestScanAllocatesNothingPerRecord(t *testing.T) {
	short, _ := makeJournal(t, 10)
	long, _ := makeJournal(t, 2000)
	allocs := func(path string) float64 {
		return testing.AllocsPerRun(5, func() {
			if _, err := Check(path); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, b := allocs(short), allocs(long); b > a+2000/256+8 {
		t.Fatalf("checking 2,000 records allocates %.0f times, 10 records %.0f: the scan allocates per record", b, a)
	}
}

// stopsTheReadAhead ranges over seq, inside a bubble, and stops after three
// items: the read-ahead must run while it reads and be gone once it stops
// (a scan left blocked would deadlock the bubble).
func stopsTheReadAhead[T any](t *testing.T, seq iter.Seq2[T, error]) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		n := 0
		for _, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			if n++; n == 3 {
				if !readAheadRuns() {
					t.Fatal("no read-ahead runs while the records are read: the test looks for the wrong goroutine")
				}
				break
			}
		}
		synctest.Wait()
		if readAheadRuns() {
			t.Fatal("the read-ahead outlived the loop")
		}
	})
}
