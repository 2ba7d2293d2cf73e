package journal

import (
	"bytes"
	"runtime"
	"testing"
	"testing/synctest"
)

// A reader that stops early stops the scan that reads ahead (a scan left
// blocked would deadlock the bubble): no goroutine outlives the loop.
func TestReadFileStopsTheReadAhead(t *testing.T) {
	path, _ := makeJournal(t, 500)
	synctest.Test(t, func(t *testing.T) {
		n := 0
		for _, err := range ReadFile(path) {
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
	return bytes.Contains(buf[:runtime.Stack(buf, true)], []byte("journal.(*readAhead).scan"))
}
