package journal

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
)

// Errors of the session flush barrier.
var (
	// ErrSessionNotLive reports a session that was never begun or has ended.
	ErrSessionNotLive = errors.New("session not live")
	// ErrSessionLive reports a Begin of a session that is already live.
	ErrSessionLive = errors.New("session already live")
	// ErrListenerPanic reports a flush listener that panicked.
	ErrListenerPanic = errors.New("flush listener panicked")
)

// A FlushFunc is a flush listener: a participant's flush of what it holds for
// a session. [Store.Flush] is one.
type FlushFunc func(ctx context.Context) error

// A SessionStore is the session flush barrier. Sessions, keyed by S, are live
// between Begin and End; while a session is live, participants register flush
// listeners for it, and Flush runs them.
//
// A successful Flush says that the participants took part: each listener
// returned nil. It is not proof that a backend stored the data — that is only
// as true as each listener's own contract (a Store's listener is its fsync
// barrier; another participant may only hand data on).
//
// Its methods are safe for concurrent use.
type SessionStore[S comparable] struct {
	mu       sync.Mutex
	sessions map[S]*sessionListeners
}

type sessionListeners struct {
	list []*listener // in registration order
}

type listener struct {
	fn FlushFunc
}

// NewSessionStore returns a SessionStore with no live sessions.
func NewSessionStore[S comparable]() *SessionStore[S] {
	return &SessionStore[S]{sessions: make(map[S]*sessionListeners)}
}

// Begin makes session live, with no listeners. A session may begin again
// after it ended.
func (s *SessionStore[S]) Begin(session S) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[session]; ok {
		return fmt.Errorf("journal: session %v: %w", session, ErrSessionLive)
	}
	s.sessions[session] = &sessionListeners{}
	return nil
}

// End ends session and drops its listeners. A Flush already running finishes
// with the listeners it started.
func (s *SessionStore[S]) End(session S) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[session]; !ok {
		return fmt.Errorf("journal: session %v: %w", session, ErrSessionNotLive)
	}
	delete(s.sessions, session)
	return nil
}

// Live reports whether session is live.
func (s *SessionStore[S]) Live(session S) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.sessions[session]
	return ok
}

// OnFlush registers fn as a flush listener of the live session and returns a
// function that unregisters it; calling that more than once, or after the
// session ended, does nothing. A file store takes part with
//
//	unregister, err := sessions.OnFlush(id, store.Flush)
func (s *SessionStore[S]) OnFlush(session S, fn FlushFunc) (unregister func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls, ok := s.sessions[session]
	if !ok {
		return nil, fmt.Errorf("journal: session %v: %w", session, ErrSessionNotLive)
	}
	l := &listener{fn: fn}
	ls.list = append(ls.list, l)
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, x := range ls.list {
			if x == l {
				ls.list = append(ls.list[:i:i], ls.list[i+1:]...)
				return
			}
		}
	}, nil
}

// Flush runs every listener registered for the live session when it is
// called, all at once, and waits until each has returned. participated is
// true when at least one listener returned nil and false when there were
// none. err is the failure of the first failing listener in registration
// order, reported only after every listener has settled; a listener that
// panics has failed, with a *PanicError wrapping ErrListenerPanic. So Flush can
// return true with an error: some took part, one failed. Flushing a session
// that is not live is an error wrapping ErrSessionNotLive.
//
// Flush waits for every listener even after ctx is done; listeners get ctx
// and are expected to honour it.
func (s *SessionStore[S]) Flush(ctx context.Context, session S) (participated bool, err error) {
	s.mu.Lock()
	ls, ok := s.sessions[session]
	var list []*listener
	if ok {
		list = append(list, ls.list...)
	}
	s.mu.Unlock()
	if !ok {
		return false, fmt.Errorf("journal: flush session %v: %w", session, ErrSessionNotLive)
	}
	errs := make([]error, len(list))
	var wg sync.WaitGroup
	for i, l := range list {
		wg.Go(func() { errs[i] = callListener(ctx, l.fn) })
	}
	wg.Wait()
	for _, e := range errs {
		participated = participated || e == nil
	}
	for i, e := range errs {
		if e != nil {
			return participated, fmt.Errorf("journal: flush session %v: listener %d of %d: %w", session, i+1, len(list), e)
		}
	}
	return participated, nil
}

// A PanicError is the failure of a flush listener that panicked.
type PanicError struct {
	// Value is what the listener panicked with.
	Value any
	// Stack is the listener's goroutine stack at the panic.
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%v: %v", ErrListenerPanic, e.Value)
}

// Unwrap returns ErrListenerPanic.
func (e *PanicError) Unwrap() error { return ErrListenerPanic }

// callListener runs fn, turning a panic into a *PanicError.
func callListener(ctx context.Context, fn FlushFunc) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	return fn(ctx)
}
