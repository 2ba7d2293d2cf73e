//go:build unix

package guidetest

import (
	"bytes"
	"sync"
	"syscall"
	"testing"
	"time"

	"os/exec"
)

// ReadyWithin bounds how long a background command may take to print what
// the guide shows it printing (a server's address, say).
const ReadyWithin = 60 * time.Second

// syncBuffer is a command's output, written by the command and read by the
// runner while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// start runs a command ending in " &" as the guide's reader does: in the
// background, for the rest of the guide. It returns once the command's
// output holds what the guide shows, and fails t if the command ends first
// or takes longer than ReadyWithin. When the test ends, a failed test logs
// what the command printed, and the command's process group is sent
// SIGTERM, then SIGKILL if it is still there after ten seconds.
func (r Run) start(t testing.TB, c Cmd) {
	t.Helper()
	cmd := exec.Command("sh", "-c", c.Cmd)
	cmd.Dir, cmd.Env = r.Dir, r.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s:%d: %s: %v", r.Guide, c.Line, c.Cmd, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s:%d: %s, in the background, printed:\n%s", r.Guide, c.Line, c.Cmd, out)
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(ReadyWithin)
	for {
		if _, ok := Holds(out.String(), c.Want); ok {
			return
		}
		select {
		case err := <-exited:
			exited <- err
			if _, ok := Holds(out.String(), c.Want); ok {
				return
			}
			t.Fatalf("%s:%d: %s ended (%v) before printing what the guide shows:\n%s", r.Guide, c.Line, c.Cmd, err, out)
		case <-deadline:
			w, _ := Holds(out.String(), c.Want)
			t.Fatalf("%s:%d: %s did not print %q within %v:\n%s", r.Guide, c.Line, c.Cmd, w, ReadyWithin, out)
		case <-tick.C:
		}
	}
}
