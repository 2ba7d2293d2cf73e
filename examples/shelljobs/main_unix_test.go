//go:build unix

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

	"github.com/jobgen/jobgen/internal/demo"
	"github.com/jobgen/jobgen/launcher"
)

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
	if !errors.Is(err, launcher.ErrInterrupted) || demo.Code(err) != 0 {
		t.Errorf("run = %v (exit status %d), want launcher.ErrInterrupted and 0", err, demo.Code(err))
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
