package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jobgen/jobgen/launcher"
)

// TestDemo runs the demo as `make demo` does and checks the story it tells:
// the followed job's output with channel labels, the kill, the failed test
// job, and three complete intervals read back from the journal.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs shell commands for a few seconds")
	}
	var out bytes.Buffer
	if err := run(context.Background(), t.TempDir(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"started sh-1: build",
		"  [stdout] compile\n",
		"  [stderr] warning: 1 deprecated call\n",
		"sh-1 completed: exit status 0",
		"sh-2 killed: terminated by SIGTERM; demo is over",
		"sh-3 failed: exit status 1",
		"== execution intervals",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q:\n%s", want, got)
		}
	}
	intervals := got[strings.Index(got, "== execution intervals"):]
	if n := strings.Count(intervals, "demo-session"); n != 3 {
		t.Errorf("%d intervals for the session, want 3:\n%s", n, intervals)
	}
	if strings.Contains(intervals, "incomplete") {
		t.Errorf("an interval is incomplete after an orderly shutdown:\n%s", intervals)
	}
}

// TestInterruptedDemoShutsDownAndSaysSo sends the test process SIGINT while
// the demo follows its first job: the launcher catches it, the registry
// settles the jobs, and run reports the interruption for main's exit status.
func TestInterruptedDemoShutsDownAndSaysSo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs shell commands")
	}
	out := &lockedBuffer{}
	ran := make(chan error, 1)
	go func() { ran <- run(context.Background(), t.TempDir(), out) }()
	deadline := time.Now().Add(5 * time.Second)
	// "following" is printed inside main, after the launcher installed its handlers.
	for !strings.Contains(out.String(), "== following") {
		if time.Now().After(deadline) {
			t.Fatalf("the demo did not start following:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("the interrupted demo did not return")
	}
	if !errors.Is(err, launcher.ErrInterrupted) || launcher.ExitCode(err) != 130 {
		t.Errorf("run = %v (exit status %d), want launcher.ErrInterrupted and 130", err, launcher.ExitCode(err))
	}
	if strings.Contains(out.String(), "== execution intervals") {
		t.Errorf("an interrupted demo went on to print the intervals:\n%s", out.String())
	}
}

// lockedBuffer is a bytes.Buffer the demo may write while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
