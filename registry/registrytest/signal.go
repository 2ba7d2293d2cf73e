package registrytest

import (
	"sync"
	"time"
)

// A Signal is a signal that fires once, when Fire is called, as a
// registry.OnceSignal does.
type Signal interface {
	Subscribe(fn func()) (cancel func())
	Fire()
}

// A CountingSignal is a Signal that counts its subscriptions. Set Signal
// (to a registry.OnceSignal) before use; it is safe for concurrent use.
type CountingSignal struct {
	Signal
	mu   sync.Mutex
	subs int
}

// Subscribe counts the subscription and passes it on.
func (s *CountingSignal) Subscribe(fn func()) func() {
	s.mu.Lock()
	s.subs++
	s.mu.Unlock()
	return s.Signal.Subscribe(fn)
}

// Subscriptions returns how many times Subscribe was called.
func (s *CountingSignal) Subscriptions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subs
}

// A TimerFactory makes real timers and counts how many it made and how many
// were live (made and not yet stopped) at once. The zero value is ready to
// use; it is safe for concurrent use.
type TimerFactory struct {
	mu                  sync.Mutex
	made, live, maxLive int
}

// A Timer is a *time.Timer whose Stop its factory counts; it is a
// registry.Timer.
type Timer struct {
	*time.Timer
	f       *TimerFactory
	stopped bool
}

// New makes a live timer that fires after d.
func (f *TimerFactory) New(d time.Duration) *Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.made++
	f.live++
	f.maxLive = max(f.maxLive, f.live)
	return &Timer{Timer: time.NewTimer(d), f: f}
}

// Counts returns how many timers were made, the most live at once and how
// many are live now.
func (f *TimerFactory) Counts() (made, maxLive, live int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.made, f.maxLive, f.live
}

// C returns the timer's channel.
func (t *Timer) C() <-chan time.Time { return t.Timer.C }

// Stop stops the timer; the first Stop ends it being live.
func (t *Timer) Stop() bool {
	t.f.mu.Lock()
	if !t.stopped {
		t.stopped = true
		t.f.live--
	}
	t.f.mu.Unlock()
	return t.Timer.Stop()
}
