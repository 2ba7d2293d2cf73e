package jobhistory

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"testing"
	"testing/synctest"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/testjobs"
)

// numbered yields n facts, job i's registration at i, an error at every
// 50th, and records in *done that it returned.
func numbered(n int, done *bool) iter.Seq2[jobs.Fact, error] {
	return func(yield func(jobs.Fact, error) bool) {
		defer func() { *done = true }()
		for i := range n {
			var err error
			if i%50 == 49 {
				err = fmt.Errorf("error %d", i)
			}
			if !yield(testjobs.Registered(i), err) {
				return
			}
		}
	}
}

// ahead yields what its sequence yields, in order, errors included, for
// lengths around its batches.
func TestAheadYieldsTheSequenceInOrder(t *testing.T) {
	for _, n := range []int{0, 1, aheadBatch - 1, aheadBatch, aheadBatch + 1, aheadBatch*aheadBatches*3 + 7} {
		var done bool
		i := 0
		for f, err := range ahead(numbered(n, &done)) {
			if f.(jobs.JobRegistered).Ordinal != i || (err != nil) != (i%50 == 49) {
				t.Fatalf("n=%d: item %d is ordinal %d, error %v", n, i, f.(jobs.JobRegistered).Ordinal, err)
			}
			i++
		}
		if i != n || !done {
			t.Fatalf("n=%d: yielded %d, sequence done %v", n, i, done)
		}
	}
}

// A caller that stops early stops the sequence, and ahead returns only once
// the sequence has returned: nothing of it runs behind the caller's back,
// and its goroutine ends (synctest.Wait lets a goroutine that has closed its
// channels run to its end before the stacks are read).
func TestAheadStopsTheSequence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var done bool
		k := 0
		for range ahead(numbered(1_000_000, &done)) {
			if k++; k == 300 {
				if !readingAhead() {
					t.Fatal("no goroutine reads ahead while ahead yields: the test looks for the wrong one")
				}
				break
			}
		}
		if !done {
			t.Fatal("ahead returned before its sequence did")
		}
		synctest.Wait()
		if readingAhead() {
			t.Fatal("ahead's goroutine outlived it")
		}
	})
}

// A panic in the sequence is the caller's, after the items before it.
func TestAheadPanicsInTheCaller(t *testing.T) {
	errBoom := errors.New("boom")
	k := 0
	defer func() {
		if p := recover(); p != errBoom || k != 3 {
			t.Fatalf("recovered %v after %d items, want %v after 3", p, k, errBoom)
		}
	}()
	for range ahead(func(yield func(jobs.Fact, error) bool) {
		for i := range 3 {
			yield(testjobs.Registered(i), nil)
		}
		panic(errBoom)
	}) {
		k++
	}
	t.Fatal("no panic")
}

// readingAhead reports whether ahead's goroutine is running.
func readingAhead() bool {
	buf := make([]byte, 1<<20)
	return bytes.Contains(buf[:runtime.Stack(buf, true)], []byte("jobhistory.readAhead"))
}
