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
