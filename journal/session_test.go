package journal

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func liveSession(t *testing.T) *SessionStore[string] {
	t.Helper()
	s := NewSessionStore[string]()
	if err := s.Begin("s1"); err != nil {
		t.Fatal(err)
	}
	return s
}

func ok(context.Context) error { return nil }

// A live session with no listeners had no participants.
func TestSessionFlushNoListeners(t *testing.T) {
	s := liveSession(t)
	if got, err := s.Flush(context.Background(), "s1"); got || err != nil {
		t.Fatalf("Flush = %v, %v; want false, nil", got, err)
	}
}

// One successful listener took part.
func TestSessionFlushOneListener(t *testing.T) {
	s := liveSession(t)
	var calls atomic.Int32
	s.OnFlush("s1", func(context.Context) error { calls.Add(1); return nil })
	if got, err := s.Flush(context.Background(), "s1"); !got || err != nil || calls.Load() != 1 {
		t.Fatalf("Flush = %v, %v after %d calls; want true, nil after 1", got, err, calls.Load())
	}
}

// A failing listener's error comes only after a slow one has finished, and
// the slow one's success still counts as participation.
func TestSessionFlushWaitsForAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := liveSession(t)
		errFast := errors.New("fast failure")
		var slowDone atomic.Bool
		s.OnFlush("s1", func(context.Context) error { return errFast })
		s.OnFlush("s1", func(context.Context) error {
			time.Sleep(50 * time.Millisecond)
			slowDone.Store(true)
			return nil
		})
		got, err := s.Flush(context.Background(), "s1")
		if !errors.Is(err, errFast) || !slowDone.Load() {
			t.Fatalf("Flush = %v with slow listener done=%v; want the failure after the slow one", err, slowDone.Load())
		}
		if !got {
			t.Fatal("participated = false, want true: the slow listener succeeded")
		}
	})
}

// Listeners run in parallel: two that each wait for the other both finish.
func TestSessionFlushParallel(t *testing.T) {
	s := liveSession(t)
	a, b := make(chan struct{}), make(chan struct{})
	s.OnFlush("s1", func(context.Context) error { close(a); <-b; return nil })
	s.OnFlush("s1", func(context.Context) error { close(b); <-a; return nil })
	if got, err := s.Flush(context.Background(), "s1"); !got || err != nil {
		t.Fatalf("Flush = %v, %v", got, err)
	}
}

// The error is the first failure in registration order, not in time.
func TestSessionFlushRegistrationOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := liveSession(t)
		errFirst, errSecond := errors.New("first registered"), errors.New("second registered")
		s.OnFlush("s1", func(context.Context) error { time.Sleep(30 * time.Millisecond); return errFirst })
		s.OnFlush("s1", func(context.Context) error { return errSecond })
		got, err := s.Flush(context.Background(), "s1")
		if got || !errors.Is(err, errFirst) || errors.Is(err, errSecond) {
			t.Fatalf("Flush = %v, %v; want false and the first registered failure", got, err)
		}
		if !strings.Contains(err.Error(), "listener 1 of 2") {
			t.Fatalf("error %q does not say which listener failed", err)
		}
	})
}

// A panicking listener is a failure, not a crash, and the others still count.
func TestSessionFlushPanic(t *testing.T) {
	s := liveSession(t)
	s.OnFlush("s1", func(context.Context) error { panic("boom") })
	s.OnFlush("s1", ok)
	got, err := s.Flush(context.Background(), "s1")
	var perr *PanicError
	if !got || !errors.Is(err, ErrListenerPanic) || !errors.As(err, &perr) || perr.Value != "boom" || len(perr.Stack) == 0 {
		t.Fatalf("Flush = %v, %v; want true and a PanicError for boom", got, err)
	}
}

// Flushing a session that is not live is an error; so is registering on one.
func TestSessionNotLive(t *testing.T) {
	s := NewSessionStore[string]()
	if _, err := s.Flush(context.Background(), "never"); !errors.Is(err, ErrSessionNotLive) {
		t.Fatalf("Flush of an unknown session = %v", err)
	}
	if _, err := s.OnFlush("never", ok); !errors.Is(err, ErrSessionNotLive) {
		t.Fatalf("OnFlush on an unknown session = %v", err)
	}
	s.Begin("s1")
	if err := s.Begin("s1"); !errors.Is(err, ErrSessionLive) {
		t.Fatalf("second Begin = %v", err)
	}
	s.OnFlush("s1", ok)
	if err := s.End("s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Flush(context.Background(), "s1"); !errors.Is(err, ErrSessionNotLive) {
		t.Fatalf("Flush of an ended session = %v", err)
	}
	if err := s.End("s1"); !errors.Is(err, ErrSessionNotLive) {
		t.Fatalf("second End = %v", err)
	}
	// Beginning again starts without the old listeners.
	s.Begin("s1")
	if got, err := s.Flush(context.Background(), "s1"); got || err != nil {
		t.Fatalf("Flush of a re-begun session = %v, %v; want false, nil", got, err)
	}
}

// An unregistered listener is no longer called.
func TestSessionUnregister(t *testing.T) {
	s := liveSession(t)
	var calls atomic.Int32
	unregister, _ := s.OnFlush("s1", func(context.Context) error { calls.Add(1); return nil })
	s.OnFlush("s1", ok)
	unregister()
	unregister()
	if got, err := s.Flush(context.Background(), "s1"); !got || err != nil || calls.Load() != 0 {
		t.Fatalf("Flush = %v, %v with %d calls to the unregistered listener", got, err, calls.Load())
	}
}

// The file store takes part through its Flush, and its participation is its
// fsync barrier: a failed sync fails the session flush.
func TestSessionFileStoreParticipates(t *testing.T) {
	path := t.TempDir() + "/session.journal"
	ff := &faultFile{}
	store := openFault(t, path, ff)
	defer store.close()
	s := liveSession(t)
	if _, err := s.OnFlush("s1", store.Flush); err != nil {
		t.Fatal(err)
	}
	store.append1(payload(t, 1))
	before := ff.syncs.Load()
	if got, err := s.Flush(context.Background(), "s1"); !got || err != nil || ff.syncs.Load() != before+1 {
		t.Fatalf("Flush = %v, %v after %d syncs; want true, nil after one", got, err, ff.syncs.Load()-before)
	}
	wantPayloads(t, records(t, path), 1)

	ff.sync = func(int32) error { return errDisk }
	store.append1(payload(t, 2))
	if got, err := s.Flush(context.Background(), "s1"); got || !errors.Is(err, errDisk) {
		t.Fatalf("Flush with a failing sync = %v, %v; want false and the failure", got, err)
	}
}
