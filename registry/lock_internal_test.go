package registry

import (
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// Appends of different jobs never meet on one lock (issue 16): a producer's
// Append and UpdateDetail complete while the registry's mutex and another
// job's lock are both held.
func TestAppendTakesOnlyItsJobsLock(t *testing.T) {
	r := New()
	a := startRecordingT(t, r)
	b := startRecordingT(t, r)
	r.mu.Lock()
	r.jobs[a.ID()].mu.Lock()
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
	r.jobs[a.ID()].mu.Unlock()
	r.mu.Unlock()
	if rd, err := r.ReadRecord("", b.ID(), 0); err != nil || rd.Next != 5 {
		t.Fatalf("ReadRecord = %+v, %v; want the 5 bytes appended", rd, err)
	}
}
