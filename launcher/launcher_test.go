package launcher

import (
	"context"
	"errors"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// events records what happened, in order, from many goroutines.
type events struct {
	mu  sync.Mutex
	log []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = append(e.log, s)
}

func (e *events) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.log)
}

func TestDisposersFinishBeforeAnyProviderStarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ev events
		l := New()
		for _, name := range []string{"registry-a", "registry-b"} {
			l.AddDisposer(name, func(ctx context.Context) error {
				ev.add(name + " start")
				time.Sleep(100 * time.Millisecond)
				ev.add(name + " done")
				return nil
			})
		}
		l.AddProvider("journal", func(ctx context.Context) error {
			ev.add("journal start")
			return nil
		})
		if err := l.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		log := ev.get()
		journal := slices.Index(log, "journal start")
		for _, d := range []string{"registry-a done", "registry-b done"} {
			if i := slices.Index(log, d); i < 0 || i > journal {
				t.Fatalf("%q must come before the provider starts: %v", d, log)
			}
		}
	})
}

func TestShutdownFitsTheBoundWhenADisposerHangs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		var ev events
		l := New(WithBound(5 * time.Second))
		l.AddDisposer("stuck registry", func(ctx context.Context) error {
			<-release // ignores ctx on purpose
			return nil
		})
		l.AddProvider("journal", func(ctx context.Context) error {
			ev.add("journal closed")
			return nil
		})
		start := time.Now()
		err := l.Shutdown(context.Background())
		elapsed := time.Since(start)
		if elapsed > 5*time.Second {
			t.Errorf("shutdown took %v, over the 5s bound", elapsed)
		}
		if elapsed != 4*time.Second {
			t.Errorf("disposers were cut off after %v, want 4s (the bound minus the provider reserve)", elapsed)
		}
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "disposers did not finish") {
			t.Errorf("err = %v", err)
		}
		if !slices.Equal(ev.get(), []string{"journal closed"}) {
			t.Errorf("the journal must still be closed after a hung disposer: %v", ev.get())
		}
	})
}

func TestShutdownJoinsErrorsAndContainsPanics(t *testing.T) {
	l := New()
	l.AddDisposer("a", func(context.Context) error { return errors.New("cancel failed") })
	l.AddDisposer("b", func(context.Context) error { panic("boom") })
	l.AddProvider("c", func(context.Context) error { return nil })
	err := l.Shutdown(context.Background())
	for _, want := range []string{"disposer a: cancel failed", "disposer b panicked: boom"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to contain %q", err, want)
		}
	}
	if again := l.Shutdown(context.Background()); again != err {
		t.Error("a second Shutdown must return the first result without running again")
	}
}

// fakeSignals stands in for signal.Notify, so Run can be tested in a
// synctest bubble: the test sends the signals.
type fakeSignals struct {
	mu sync.Mutex
	c  chan<- os.Signal
}

func withFakeSignals(l *Launcher) *fakeSignals {
	f := &fakeSignals{}
	l.notify = func(c chan<- os.Signal, _ ...os.Signal) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.c = c
	}
	l.stop = func(chan<- os.Signal) {}
	return f
}

func (f *fakeSignals) send(sig os.Signal) {
	f.mu.Lock()
	c := f.c
	f.mu.Unlock()
	c <- sig
}

// exits records the calls of a launcher's exit in place of os.Exit.
type exits struct {
	mu    sync.Mutex
	codes []int
	at    []time.Time
}

func (e *exits) exit(code int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.codes = append(e.codes, code)
	e.at = append(e.at, time.Now())
}

func (e *exits) get() ([]int, []time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.codes), slices.Clone(e.at)
}

func TestRunFitsTheBoundWhenMainIgnoresItsContextAndAProviderIsSlow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		l := New(WithBound(5 * time.Second))
		signals := withFakeSignals(l)
		l.AddProvider("slow journal", func(context.Context) error {
			<-release // ignores ctx on purpose
			return nil
		})
		ran := make(chan error)
		go func() {
			ran <- l.Run(context.Background(), func(context.Context) error {
				<-release // ignores ctx on purpose
				return nil
			})
		}()
		synctest.Wait()
		start := time.Now()
		signals.send(syscall.SIGTERM)
		err := <-ran
		if took := time.Since(start); took != 5*time.Second {
			t.Errorf("Run returned %v after the signal, want the 5s bound exactly", took)
		}
		for _, want := range []string{"providers did not finish", "main did not return"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Run = %v, want it to say %q", err, want)
			}
		}
	})
}

func TestASecondSignalForcesExitAfterMainReturnedWithoutWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ex exits
		l := New(WithBound(5*time.Second), WithExit(ex.exit))
		signals := withFakeSignals(l)
		l.AddDisposer("slow registry", func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		})
		ran := make(chan error)
		go func() { ran <- l.Run(context.Background(), func(context.Context) error { return nil }) }()
		start := time.Now()
		time.Sleep(time.Second) // main has returned; the registry is shutting down
		signals.send(syscall.SIGINT)
		time.Sleep(time.Second)
		if codes, _ := ex.get(); len(codes) != 0 {
			t.Fatalf("the first signal exited with %v; it must let the shutdown go on", codes)
		}
		signals.send(syscall.SIGINT)
		synctest.Wait()
		codes, at := ex.get()
		if !slices.Equal(codes, []int{130}) || at[0].Sub(start) != 2*time.Second {
			t.Errorf("exits = %v at %v, want 130 at once on the second signal (2s)", codes, at)
		}
		<-ran
	})
}

func TestRunReportsAnInterruptedRun(t *testing.T) {
	for _, c := range []struct {
		name        string
		sig         syscall.Signal
		mainReturns bool // the signal arrives during the shutdown after main returned
		code        int
	}{
		{"SIGINT while main runs", syscall.SIGINT, false, 130},
		{"SIGTERM while main runs", syscall.SIGTERM, false, 143},
		{"SIGINT during the shutdown after main returned", syscall.SIGINT, true, 130},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := New()
				signals := withFakeSignals(l)
				l.AddDisposer("registry", func(context.Context) error {
					time.Sleep(time.Second)
					return nil
				})
				ran := make(chan error)
				go func() {
					ran <- l.Run(context.Background(), func(ctx context.Context) error {
						if c.mainReturns {
							return nil
						}
						<-ctx.Done()
						return ctx.Err()
					})
				}()
				time.Sleep(time.Millisecond) // main is running, or the registry is closing
				signals.send(c.sig)
				err := <-ran
				if !errors.Is(err, ErrInterrupted) {
					t.Fatalf("Run = %v, want an error that is ErrInterrupted", err)
				}
				var interrupted *Interrupted
				if !errors.As(err, &interrupted) || interrupted.Signal != c.sig {
					t.Errorf("Run = %v, want it to name %v", err, c.sig)
				}
				if errors.Is(err, context.Canceled) {
					t.Errorf("Run = %v; main's context.Canceled is what the signal asked for, not a failure", err)
				}
				if got := ExitCode(err); got != c.code {
					t.Errorf("ExitCode = %d, want %d", got, c.code)
				}
			})
		})
	}
}

func TestExitCodeTellsSuccessFailureAndInterruption(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("main failed"), 1},
		{&Interrupted{Signal: syscall.SIGINT}, 130},
		{errors.Join(errors.New("journal: flush failed"), &Interrupted{Signal: syscall.SIGTERM}), 143},
	} {
		if got := ExitCode(c.err); got != c.want {
			t.Errorf("ExitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

// Run installs real signal handlers, which a synctest bubble does not allow,
// so this test reads the real clock: the provider reserve is a second, and a
// Run that waited for main again would take that long.
func TestRunReturnsNilAfterACleanExit(t *testing.T) {
	var ev events
	l := New()
	l.AddProvider("journal", func(context.Context) error { ev.add("closed"); return nil })
	start := time.Now()
	if err := l.Run(context.Background(), func(context.Context) error { return nil }); err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	if waited := time.Since(start); waited > 500*time.Millisecond {
		t.Errorf("Run took %v after main returned; it must not wait for main again", waited)
	}
	if !slices.Equal(ev.get(), []string{"closed"}) {
		t.Errorf("events = %v", ev.get())
	}
}

func TestRunShutsDownAfterANormalExit(t *testing.T) {
	var ev events
	l := New()
	l.AddDisposer("registry", func(context.Context) error { ev.add("disposed"); return nil })
	l.AddProvider("journal", func(context.Context) error { ev.add("closed"); return nil })
	err := l.Run(context.Background(), func(ctx context.Context) error {
		ev.add("main")
		return errors.New("main failed")
	})
	if err == nil || err.Error() != "main failed" {
		t.Errorf("Run = %v, want main's error", err)
	}
	if got := ev.get(); !slices.Equal(got, []string{"main", "disposed", "closed"}) {
		t.Errorf("events = %v", got)
	}
}

func TestTheLauncherImportsNoJobVocabulary(t *testing.T) {
	// The bound comes in as an option, so any runtime can use the launcher,
	// whatever spec (if any) its vocabulary comes from.
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path := strings.Trim(imp.Path.Value, `"`); strings.HasPrefix(path, "github.com/jobgen/jobgen/") {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}

func TestALauncherWithoutAPositiveBoundUsesDefaultBound(t *testing.T) {
	for _, opts := range [][]Option{nil, {WithBound(0)}, {WithBound(-time.Second)}} {
		synctest.Test(t, func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			l := New(opts...)
			l.AddDisposer("stuck registry", func(context.Context) error { <-release; return nil })
			l.AddProvider("stuck journal", func(context.Context) error { <-release; return nil })
			start := time.Now()
			l.Shutdown(context.Background())
			if took := time.Since(start); took != DefaultBound {
				t.Errorf("with %d options, shutdown took %v, want DefaultBound (%v)", len(opts), took, DefaultBound)
			}
		})
	}
}
