//go:build unix

package launcher

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests below run this test binary as a child process that installs a
// launcher, and send it real signals.

const childEnv = "LAUNCHER_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(m.Run())
}

// child runs a launcher whose main waits for a signal. It prints "ready" when
// the signal handlers are installed, and one line per shutdown event.
func child(mode string) int {
	say := func(s string) { fmt.Println(s) }
	opts := []Option{WithBound(2 * time.Second)}
	if mode == "returned" {
		// The launcher's log says when it has seen a signal.
		opts = append(opts, WithLogger(slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey || a.Key == slog.LevelKey {
					return slog.Attr{}
				}
				return a
			},
		}))))
	}
	l := New(opts...)
	l.AddDisposer("registry", func(ctx context.Context) error {
		say("disposer start")
		if mode == "hang" || mode == "returned" {
			select {} // only a second signal gets the process out
		}
		time.Sleep(50 * time.Millisecond)
		say("disposer done")
		return nil
	})
	l.AddProvider("journal", func(ctx context.Context) error {
		say("provider done")
		return nil
	})
	err := l.Run(context.Background(), func(ctx context.Context) error {
		say("ready")
		if mode == "returned" {
			return nil // shutdown starts with no signal
		}
		<-ctx.Done()
		return ctx.Err()
	})
	switch {
	case errors.Is(err, ErrInterrupted):
		say("interrupted")
	case err != nil:
		say("error " + err.Error())
	default:
		say("exit")
	}
	return ExitCode(err)
}

func startChild(t *testing.T, mode string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "ready" {
		cmd.Process.Kill()
		t.Fatalf("child did not get ready: %q", lines.Text())
	}
	return cmd, lines
}

func rest(lines *bufio.Scanner) []string {
	var out []string
	for lines.Scan() {
		out = append(out, lines.Text())
	}
	return out
}

// An interrupted child exits as a shell reports a process the signal ended:
// 130 after SIGINT, 143 after SIGTERM.
func TestSignalRunsDisposersThenProviders(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, lines := startChild(t, "clean")
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			got := rest(lines)
			exitsAsSignalled(t, cmd, sig, got)
			want := []string{"disposer start", "disposer done", "provider done", "interrupted"}
			if !slices.Equal(got, want) {
				t.Errorf("child printed %v, want %v", got, want)
			}
		})
	}
}

func TestSecondSignalForcesExit(t *testing.T) {
	cmd, lines := startChild(t, "hang")
	cmd.Process.Signal(syscall.SIGINT)
	if !lines.Scan() || lines.Text() != "disposer start" {
		t.Fatalf("child did not start shutting down: %q", lines.Text())
	}
	if got := forceExit(t, cmd, lines); len(got) != 0 {
		t.Errorf("a forced exit must not run the rest of shutdown; child printed %v", got)
	}
}

func TestSecondSignalForcesExitAfterMainReturned(t *testing.T) {
	cmd, lines := startChild(t, "returned")
	if !lines.Scan() || lines.Text() != "disposer start" {
		cmd.Process.Kill()
		t.Fatalf("child did not start shutting down: %q", lines.Text())
	}
	cmd.Process.Signal(syscall.SIGINT)
	if !lines.Scan() || !strings.Contains(lines.Text(), "signal=interrupt") {
		cmd.Process.Kill()
		t.Fatalf("the first signal during shutdown went unseen; child printed %q", lines.Text())
	}
	forceExit(t, cmd, lines)
}

// exitsAsSignalled waits for the child and fails the test unless it exited
// as a shell reports a process that sig ended: 128+sig.
func exitsAsSignalled(t *testing.T, cmd *exec.Cmd, sig syscall.Signal, output []string) {
	t.Helper()
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sig) {
		t.Fatalf("child exited with %v, want status %d; output %v", err, 128+int(sig), output)
	}
}

// forceExit sends the child, which is shutting down, a second SIGINT and
// checks that it exits at once as interrupted, without waiting out the
// bound. It returns what the child printed after the signal.
func forceExit(t *testing.T, cmd *exec.Cmd, lines *bufio.Scanner) []string {
	t.Helper()
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	got := rest(lines)
	exitsAsSignalled(t, cmd, syscall.SIGINT, got)
	if waited := time.Since(start); waited > time.Second {
		t.Errorf("forced exit took %v; it must not wait out the bound", waited)
	}
	return got
}
