package handoff

import (
	"testing"
	"testing/synctest"
)

type batch struct{ items []int }

func reset(b *batch) { b.items = b.items[:0] }

// The user gets every batch in the order the filler sent it, by Send or by
// Pass, and a batch it hands back is filled again, emptied, instead of a
// new one.
func TestBatchesComeInOrderAndHandedBackOnesAreUsedAgain(t *testing.T) {
	line := New(2, reset)
	go func() {
		defer line.Close()
		b := line.Batch()
		for i := range 100 {
			if len(b.items) != 0 {
				t.Errorf("batch %d came with %v in it", i, b.items)
			}
			b.items = append(b.items, i)
			if i%2 == 0 && !line.Pass(&b) {
				return
			}
			if i%2 == 1 {
				if !line.Send(b) {
					return
				}
				b = line.Batch()
			}
		}
	}()
	seen := map[*batch]bool{}
	next := 0
	for b := range line.Batches() {
		if len(b.items) != 1 || b.items[0] != next {
			t.Fatalf("batch %v, want [%d]", b.items, next)
		}
		next++
		seen[b] = true
		line.Recycle(b)
	}
	line.Stop()
	if next != 100 {
		t.Fatalf("%d batches, want 100", next)
	}
	if len(seen) > 2+2+1 { // ahead full, ahead+2 empty, one being filled
		t.Fatalf("%d batches made for 100 sent, each handed back", len(seen))
	}
}

// Stop ends a filler blocked sending and returns once it has returned.
func TestStopEndsTheFiller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		line := New(1, reset)
		var returned bool
		go func() {
			defer func() { returned = true; line.Close() }()
			for line.Send(line.Batch()) {
			}
		}()
		<-line.Batches()
		line.Stop()
		if !returned {
			t.Fatal("Stop returned before the filler did")
		}
	})
}
