package journal

import (
	"bytes"
	"runtime"
	"testing"
)

// A reader that stops early stops the scan that reads ahead, and ReadFile
// returns only once it has: no goroutine outlives the loop.
func TestReadFileStopsTheReadAhead(t *testing.T) {
	path, _ := makeJournal(t, 500)
	before := runtime.NumGoroutine()
	n := 0
	for _, err := range ReadFile(path) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			break
		}
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Fatalf("%d goroutines after the loop, %d before", after, before)
	}
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
