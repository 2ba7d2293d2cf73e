// Package launcher shuts a process down in order. A runtime registers its
// resource disposers (registries: they settle every live job and record the
// settlement facts) and its providers (journals: they flush and close what the
// disposers recorded). On a normal exit and on SIGINT or SIGTERM, every
// disposer runs before any provider, and the whole shutdown fits in one bound,
// the teardown bound (DefaultBound unless WithBound says otherwise), including
// the wait for a main that a signal interrupted. A second signal at any point,
// also during a shutdown that began because main returned, forces the process
// out at once with status 128+signal.
//
// Within the bound, disposers get everything but a reserve kept for providers
// (a fifth of the bound by default): a registry that cannot settle its jobs in
// time is cut off by its context, and the journals still get their turn to make
// the facts durable.
//
// A run that a signal interrupted is not a success: Run's error wraps
// ErrInterrupted, and a main should exit with ExitCode(err) — 130 after
// SIGINT and 143 after SIGTERM, as a shell reports a process the signal
// ended, so that an interrupted CI step fails:
//
//	err := launcher.New().Run(ctx, work)
//	if err != nil && !errors.Is(err, launcher.ErrInterrupted) {
//		fmt.Fprintln(os.Stderr, err)
//	}
//	os.Exit(launcher.ExitCode(err))
//
// A signal during the shutdown after main returned by itself counts too: the
// user interrupted the process, and a script waiting on it should see that.
// Run reports the signal in its error rather than through a method such as
// Interrupted, which a caller could forget to ask, and it does not re-raise
// the signal to give the parent a real "killed by signal" status, since a
// library must not end the process on its caller's behalf and main's deferred
// work would not run.
//
// # Platforms
//
// The signals are os.Interrupt and syscall.SIGTERM everywhere. On Windows,
// os.Interrupt is Ctrl-C or Ctrl-Break in the console, and SIGTERM stands for
// the console's close, logoff and shutdown events (see os/signal); the exit
// statuses are the same numbers, 130 and 143.
package launcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// A Func releases one resource. It should return once the resource is released
// or ctx is done, whichever is first.
type Func func(ctx context.Context) error

type resource struct {
	name string
	fn   Func
}

// A Launcher holds the shutdown order of a process. It is safe for concurrent use.
type Launcher struct {
	logger   *slog.Logger
	bound    time.Duration
	reserve  time.Duration
	signals  []os.Signal
	exit     func(code int)
	notify   func(c chan<- os.Signal, sig ...os.Signal)
	stop     func(c chan<- os.Signal)
	mu       sync.Mutex
	disposer []resource
	provider []resource
	once     sync.Once
	err      error
}

// An Option configures a Launcher.
type Option func(*Launcher)

// WithLogger sets where shutdown progress and failures are logged. Without it, or with nil, nothing is logged: the library logs only to a logger it is given.
func WithLogger(l *slog.Logger) Option {
	return func(x *Launcher) {
		if l != nil {
			x.logger = l
		}
	}
}

// DefaultBound is the teardown bound of a Launcher made without WithBound.
// It is the five seconds the job vocabulary's teardown_bound says today; a
// runtime built on a spec passes the spec's own bound
// (WithBound(jobs.DefaultTeardownBound)), so the launcher needs no vocabulary.
const DefaultBound = 5 * time.Second

// WithBound sets the teardown bound: the most a shutdown may take. A bound
// that is not positive leaves DefaultBound.
func WithBound(d time.Duration) Option {
	return func(x *Launcher) {
		if d > 0 {
			x.bound = d
		}
	}
}

// WithProviderReserve sets how much of the bound is kept for providers.
func WithProviderReserve(d time.Duration) Option { return func(x *Launcher) { x.reserve = d } }

// WithExit replaces os.Exit, which a second signal calls; for tests.
func WithExit(exit func(code int)) Option { return func(x *Launcher) { x.exit = exit } }

// New returns a Launcher; its bound is DefaultBound unless WithBound says otherwise.
func New(opts ...Option) *Launcher {
	l := &Launcher{
		logger:  slog.New(slog.DiscardHandler),
		bound:   DefaultBound,
		signals: []os.Signal{os.Interrupt, syscall.SIGTERM},
		exit:    os.Exit,
		notify:  signal.Notify,
		stop:    signal.Stop,
	}
	for _, o := range opts {
		o(l)
	}
	if l.reserve <= 0 || l.reserve >= l.bound {
		l.reserve = l.bound / 5
	}
	return l
}

// AddDisposer registers a resource to release first, such as a registry's Close.
func (l *Launcher) AddDisposer(name string, fn Func) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.disposer = append(l.disposer, resource{name, fn})
}

// AddProvider registers a resource to release after every disposer, such as
// a journal's Close.
func (l *Launcher) AddProvider(name string, fn Func) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.provider = append(l.provider, resource{name, fn})
}

// Run runs main with a context that is cancelled by the first SIGINT or
// SIGTERM, then shuts down: after main returns, or as soon as the signal
// arrives, whichever is first. The whole shutdown, including the wait for a
// main that was interrupted to return, fits in the bound. A second signal,
// at any point (also after main returned by itself), exits the process with
// status 128+signal. Run returns main's error joined with any shutdown error,
// and with an *Interrupted error when a signal arrived; main's
// context.Canceled is left out then, since the signal asked for it.
func (l *Launcher) Run(ctx context.Context, main func(ctx context.Context) error) error {
	sigs := make(chan os.Signal, 2)
	l.notify(sigs, l.signals...)
	defer l.stop(sigs)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &watcher{l: l, sigs: sigs, cancel: cancel, interrupted: make(chan struct{}), finished: make(chan struct{}), gone: make(chan struct{})}
	go w.watch()
	defer w.end()

	done := make(chan error, 1)
	go func() { done <- main(ctx) }()

	var mainErr error
	mainReturned := false
	select {
	case mainErr = <-done:
		mainReturned = true
	case <-w.interrupted:
	}
	deadline := time.Now().Add(l.bound)
	shutdownErr := l.shutdown(context.WithoutCancel(ctx), deadline)
	if !mainReturned {
		// main saw its context cancelled; it may take what is left of the bound.
		wait := time.NewTimer(time.Until(deadline))
		defer wait.Stop()
		select {
		case mainErr = <-done:
		case <-wait.C:
			mainErr = errors.New("launcher: main did not return within the bound after the signal")
		}
	}
	w.end() // from here on a signal is not watched; once Run returns it has its default effect
	sig := w.signal()
	if sig == nil {
		return errors.Join(mainErr, shutdownErr)
	}
	if errors.Is(mainErr, context.Canceled) {
		mainErr = nil // the signal asked for it
	}
	return errors.Join(&Interrupted{Signal: sig}, mainErr, shutdownErr)
}

// ErrInterrupted is what Run's error wraps when SIGINT or SIGTERM arrived
// during the run, before main returned or during the shutdown after it.
var ErrInterrupted = errors.New("launcher: interrupted")

// An Interrupted error says which signal interrupted a run. It matches
// ErrInterrupted.
type Interrupted struct {
	Signal os.Signal
}

func (e *Interrupted) Error() string { return "launcher: interrupted by " + e.Signal.String() }

// Is reports whether target is ErrInterrupted.
func (e *Interrupted) Is(target error) bool { return target == ErrInterrupted }

// ExitCode is 128 plus the signal's number: 130 for SIGINT, 143 for SIGTERM.
func (e *Interrupted) ExitCode() int { return exitCode(e.Signal) }

// ExitCode returns the status a main should exit with after Run returned
// err: 0 for nil; 128+signal for an interrupted run (130 for SIGINT, 143 for
// SIGTERM), even when shutdown failed too; 1 for any other error.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	if i := (*Interrupted)(nil); errors.As(err, &i) {
		return i.ExitCode()
	}
	return 1
}

// A watcher receives the signals of one Run for as long as it lasts: the
// first cancels main's context and starts the shutdown, the second forces
// the process out, whatever Run is doing by then.
type watcher struct {
	l           *Launcher
	sigs        <-chan os.Signal
	cancel      context.CancelFunc
	interrupted chan struct{} // closed on the first signal
	finished    chan struct{} // closed when Run is returning
	gone        chan struct{} // closed when watch has returned
	ending      sync.Once

	mu  sync.Mutex
	sig os.Signal // the first signal
}

func (w *watcher) watch() {
	defer close(w.gone)
	select {
	case sig := <-w.sigs:
		w.mu.Lock()
		w.sig = sig
		w.mu.Unlock()
		w.l.logger.Info("signal: shutting down; a second one exits at once", "signal", sig.String())
		close(w.interrupted)
		w.cancel()
	case <-w.finished:
		return
	}
	select {
	case sig := <-w.sigs:
		w.l.logger.Error("second signal: exiting without finishing shutdown", "signal", sig.String())
		w.l.exit(exitCode(sig))
	case <-w.finished:
	}
}

// signal returns the first signal, or nil if none arrived.
func (w *watcher) signal() os.Signal {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sig
}

// end stops the watcher and waits for it to return. Later calls do nothing.
func (w *watcher) end() {
	w.ending.Do(func() { close(w.finished) })
	<-w.gone
}

// exitCode is the status a shell gives a process a signal ended: 128+signal.
func exitCode(sig os.Signal) int {
	if s, isSys := sig.(syscall.Signal); isSys {
		return 128 + int(s)
	}
	return 1
}

// Shutdown releases every disposer, then every provider, within the bound.
// Resources of one kind are released concurrently. It runs once; later calls
// return the first call's result.
func (l *Launcher) Shutdown(ctx context.Context) error {
	return l.shutdown(ctx, time.Now().Add(l.bound))
}

// shutdown gives disposers until the provider reserve before deadline, and
// providers until deadline.
func (l *Launcher) shutdown(ctx context.Context, deadline time.Time) error {
	l.once.Do(func() {
		l.mu.Lock()
		disposers, providers := l.disposer, l.provider
		l.mu.Unlock()
		dctx, cancel := context.WithDeadline(ctx, deadline.Add(-l.reserve))
		derr := l.release(dctx, "disposer", disposers)
		cancel()
		pctx, cancel := context.WithDeadline(ctx, deadline)
		perr := l.release(pctx, "provider", providers)
		cancel()
		l.err = errors.Join(derr, perr)
	})
	return l.err
}

// release runs fns concurrently and waits for all of them or for ctx, so one
// resource that ignores its context cannot hold the shutdown past the bound.
func (l *Launcher) release(ctx context.Context, kind string, rs []resource) error {
	results := make(chan error, len(rs))
	for _, r := range rs {
		go func() {
			defer func() {
				if p := recover(); p != nil {
					results <- fmt.Errorf("launcher: %s %s panicked: %v", kind, r.name, p)
				}
			}()
			if err := r.fn(ctx); err != nil {
				results <- fmt.Errorf("launcher: %s %s: %w", kind, r.name, err)
				return
			}
			results <- nil
		}()
	}
	var errs []error
	for range rs {
		select {
		case err := <-results:
			if err != nil {
				l.logger.Error("release failed", "kind", kind, "err", err)
				errs = append(errs, err)
			}
		case <-ctx.Done():
			err := fmt.Errorf("launcher: %ss did not finish within the bound: %w", kind, ctx.Err())
			l.logger.Error("release cut off", "kind", kind)
			return errors.Join(append(errs, err)...)
		}
	}
	return errors.Join(errs...)
}
