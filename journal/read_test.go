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
				break
			}
		}
		synctest.Wait()
		buf := make([]byte, 1<<20)
		if stacks := buf[:runtime.Stack(buf, true)]; bytes.Contains(stacks, []byte("journal.readRecords")) {
			t.Fatalf("the read-ahead outlived the loop:\n%s", stacks)
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
