package registry

import (
	"sync/atomic"
	"time"
)

// rebaseAfter is how long a systemMillis reading may run on the monotonic
// clock alone before it reads the wall clock again.
const rebaseAfter = time.Second

// A systemMillis tells the system time in Unix milliseconds, the resolution
// the registry's timestamps carry, with one clock read instead of the two a
// time.Now makes (wall and monotonic): it adds the monotonic time elapsed
// since a base, and takes a new base from time.Now once the base is a second
// old, so wall-clock steps show within a second. On a VM where a clock read
// is a system call this halves what a timestamp costs the append path and
// start→settle. time.Since follows a synctest bubble's fake clock
// as time.Now does; a base from outside the bubble is replaced at once.
//
// It serves only the registry's default clock: a Clock given with WithClock
// is called for every timestamp.
type systemMillis struct {
	base atomic.Pointer[clockBase]
}

type clockBase struct {
	t    time.Time // carries the monotonic reading
	wall int64     // t in Unix nanoseconds
}

// nowMilli returns the time in Unix milliseconds.
func (c *systemMillis) nowMilli() int64 {
	if b := c.base.Load(); b != nil {
		if d := time.Since(b.t); d >= 0 && d < rebaseAfter {
			return (b.wall + int64(d)) / int64(time.Millisecond)
		}
	}
	now := time.Now()
	c.base.Store(&clockBase{t: now, wall: now.UnixNano()})
	return now.UnixMilli()
}

// coarseIdleTicks is how many ticks without a read stop a coarseClock.
const coarseIdleTicks = 100

// A coarseClock tells the system time in Unix milliseconds without a clock
// read per call: while it is read, a goroutine refreshes it every
// millisecond; after coarseIdleTicks ticks without a read that goroutine
// ends, so an idle registry runs nothing, and the next read reads the clock
// itself and starts it again. A reading is at most a tick (and the ticker's
// lateness under load) behind the clock. See withCoarseChunkClock.
type coarseClock struct {
	ms      atomic.Int64
	running atomic.Bool
	read    atomic.Bool // a reader came since the last tick
}

// nowMilli returns the time in Unix milliseconds.
func (c *coarseClock) nowMilli() int64 {
	if c.running.Load() {
		if !c.read.Load() { // written once per tick, not per read, so readers on other cores share the line
			c.read.Store(true)
		}
		return c.ms.Load()
	}
	now := time.Now().UnixMilli()
	if c.running.CompareAndSwap(false, true) {
		c.ms.Store(now)
		c.read.Store(true)
		go c.tick()
	}
	return now
}

func (c *coarseClock) tick() {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	idle := 0
	for range t.C {
		c.ms.Store(time.Now().UnixMilli())
		if c.read.Swap(false) {
			idle = 0
			continue
		}
		if idle++; idle >= coarseIdleTicks {
			c.running.Store(false)
			return
		}
	}
}
