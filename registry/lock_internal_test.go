package registry

import (
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// Appends of different jobs never meet on one lock: a producer's
// Append and UpdateDetail complete while its owner's shard's mutex, the job
// table's locks and another job's lock are all held.
func TestAppendTakesOnlyItsJobsLock(t *testing.T) {
	r := New()
	a := startRecordingT(t, r)
	b := startRecordingT(t, r)
	r.unowned.mu.Lock()
	r.ids.lockAll()
	r.ids.get(a.ID()).mu.Lock()
	done := make(chan struct{})
	go func() {
		b.Append("hello", jobs.AppendOptions{})
		b.UpdateDetail("working")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Append waited for the registry's mutex or another job's lock")
	}
	r.ids.get(a.ID()).mu.Unlock()
	r.ids.unlockAll()
	r.unowned.mu.Unlock()
	if rd, err := r.ReadRecord("", b.ID(), 0); err != nil || rd.Next != 5 {
		t.Fatalf("ReadRecord = %+v, %v; want the 5 bytes appended", rd, err)
	}
}
