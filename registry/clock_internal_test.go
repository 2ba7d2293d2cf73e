package registry

import (
	"testing"
	"testing/synctest"
	"time"
)

// The system-clock reading follows the clock to the millisecond, across
// rebases, and a base taken outside a synctest bubble gives way to the
// bubble's fake clock.
func TestSystemMillisFollowsTheClock(t *testing.T) {
	var c systemMillis
	if got, want := c.nowMilli(), time.Now().UnixMilli(); got < want-1 || got > want+1 {
		t.Fatalf("outside a bubble: %d, time.Now says %d", got, want)
	}
	synctest.Test(t, func(t *testing.T) {
		for _, step := range []time.Duration{0, 999 * time.Microsecond, time.Millisecond, 400 * time.Millisecond, rebaseAfter, time.Hour} {
			time.Sleep(step)
			if got, want := c.nowMilli(), time.Now().UnixMilli(); got != want {
				t.Fatalf("after %v: %d, the fake clock says %d", step, got, want)
			}
		}
	})
}

// The coarse chunk clock reads the clock itself when it is not running,
// then follows it within a tick or so while its goroutine runs, and that
// goroutine ends once nothing reads it.
func TestCoarseClockFollowsTheClockAndStopsWhenIdle(t *testing.T) {
	var c coarseClock
	for range 50 {
		got, want := c.nowMilli(), time.Now().UnixMilli()
		if got > want {
			t.Fatalf("coarse reading %d is ahead of the clock %d", got, want)
		}
		// A loaded machine may delay the refresh, but the reading catches up:
		// a clock that stopped would never come within 50 ms again.
		for caughtUp := time.Now().Add(2 * time.Second); got < want-50; got = c.nowMilli() {
			if time.Now().After(caughtUp) {
				t.Fatalf("coarse reading %d still lags the clock %d by more than 50 ms after 2 s", got, want)
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Millisecond)
	}
	deadline := time.Now().Add(10 * time.Second)
	for c.running.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the refreshing goroutine still runs 10 s after the last read")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
