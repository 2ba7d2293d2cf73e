package procjob

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// startTerminalProcess runs a command under a terminal as startProcess does.
func startTerminalProcess(t *testing.T, opts Options) *process {
	t.Helper()
	opts.Terminal = &jobs.TerminalSize{}
	return startProcess(t, opts)
}

// TestKillingATerminalJobLeavesNoProcess: a kill through the registry
// stops the terminal job's whole group, a grandchild that ignores SIGTERM
// and SIGHUP included, and nothing of it is left once the job has settled.
func TestKillingATerminalJobLeavesNoProcess(t *testing.T) {
	r := registry.New()
	defer r.Close(context.Background())
	ready := filepath.Join(t.TempDir(), "trapped")
	script := "(trap '' TERM HUP; : >'" + ready + "'; exec sleep 300) & until [ -e '" + ready + "' ]; do sleep 0.01; done; echo $$; exec sleep 300"
	snap, _, err := r.StartTerminal(t.Context(), Start(Options{Command: []string{"sh", "-c", script}, Owner: "s",
		Terminal: &jobs.TerminalSize{}, Grace: 200 * time.Millisecond, Poll: 10 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	var pgid int
	waitFor(t, func() bool {
		rec, _ := r.ReadRecord("s", snap.ID, 0)
		if len(rec.Chunks) > 0 {
			pgid, _ = strconv.Atoi(strings.TrimSpace(rec.Chunks[0].Text))
		}
		return pgid > 0
	})
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	if sid := statField(t, pgid, 3); sid != strconv.Itoa(pgid) {
		t.Fatalf("the job's leader %d is in session %s; want a session of its own, the terminal's", pgid, sid)
	}
	waitFor(t, func() bool { return len(liveMembers(t, pgid)) == 2 })
	if _, err := r.Kill("s", snap.ID, "demo over"); err != nil {
		t.Fatal(err)
	}
	end, settled, err := r.Wait(t.Context(), "s", snap.ID, 10*time.Second)
	if err != nil || !settled || end.Status != jobs.JobStatusKilled {
		t.Fatalf("Wait = %+v, %v, %v; want killed", end, settled, err)
	}
	if left := liveMembers(t, pgid); len(left) > 0 {
		t.Errorf("processes %v of the terminal job's group outlived its settlement", left)
	}
}

// TestATerminalJobInACgroupStopsWhatLeftItsSession: a process that leaves
// the terminal's session (setsid) and keeps the terminal open is stopped
// with the job when the job has a cgroup.
func TestATerminalJobInACgroupStopsWhatLeftItsSession(t *testing.T) {
	parent := testCgroup(t)
	pidFile := filepath.Join(t.TempDir(), "escapee")
	p := startTerminalProcess(t, Options{Command: []string{"sh", "-c", escapeScript + "; exec sleep 300", pidFile}, Cgroup: parent, Grace: 200 * time.Millisecond})
	var escapee int
	waitFor(t, func() bool {
		b, _ := os.ReadFile(pidFile)
		escapee, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return escapee > 0
	})
	t.Cleanup(func() { syscall.Kill(escapee, syscall.SIGKILL) })
	hooks := p.hooks()
	if err := hooks.Cancel("stop"); err != nil {
		t.Fatal(err)
	}
	outcome, err := hooks.Done()
	if err != nil || outcome.Status != jobs.JobStatusKilled {
		t.Fatalf("outcome %+v, %v; want killed", outcome, err)
	}
	if alive(escapee) {
		t.Errorf("process %d left the terminal's session and outlived Done", escapee)
	}
}

// TestDoneDoesNotWaitForAProcessHoldingTheTerminal: without a cgroup, a
// process that left the session holding the terminal is out of reach; Done
// still returns (the terminal is read from a file the poller watches, so
// closing it ends the read).
func TestDoneDoesNotWaitForAProcessHoldingTheTerminal(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "escapee")
	p := startTerminalProcess(t, Options{Command: []string{"sh", "-c", escapeScript, pidFile}, Grace: 200 * time.Millisecond})
	var escapee int
	waitFor(t, func() bool {
		b, _ := os.ReadFile(pidFile)
		escapee, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return escapee > 0
	})
	t.Cleanup(func() { syscall.Kill(escapee, syscall.SIGKILL) })
	done := make(chan jobs.JobOutcome)
	go func() { o, _ := p.hooks().Done(); done <- o }()
	select {
	case outcome := <-done:
		if outcome.Status != jobs.JobStatusCompleted || !strings.Contains(outcome.Detail, "cut off") {
			t.Errorf("outcome = %+v; want completed, the output held open cut off", outcome)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Done waited for a process outside the job's session")
	}
}

func TestNothingOutlivesATerminalJob(t *testing.T) {
	goroutines, fds := runtime.NumGoroutine(), openFDs(t)
	for range 5 {
		_, hooks, in := startTerminal(t, Options{Command: []string{"sh", "-c", "read x; echo $x"}}, nil)
		in.Send("hi\n")
		hooks.Done()
		_, hooks, _ = startTerminal(t, Options{Command: []string{"sleep", "60"}}, nil)
		hooks.Cancel("leak check")
		hooks.Done()
	}
	waitFor(t, func() bool { return runtime.NumGoroutine() <= goroutines })
	if n := runtime.NumGoroutine(); n > goroutines {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines left over:\n%s", n-goroutines, buf[:runtime.Stack(buf, true)])
	}
	if n := openFDs(t); n > fds {
		t.Errorf("%d file descriptors left open", n-fds)
	}
}

func TestATerminalRunsInTheJobsOwnSessionAndGroup(t *testing.T) {
	p := startTerminalProcess(t, Options{Command: []string{"sleep", "60"}})
	pid := p.cmd.Process.Pid
	if pgid, _ := syscall.Getpgid(pid); pgid != pid {
		t.Errorf("the leader's process group is %d; want its own, %d", pgid, pid)
	}
	if sid := statField(t, pid, 3); sid != strconv.Itoa(pid) {
		t.Errorf("the leader's session is %s; want its own, %d", sid, pid)
	}
	if tty := statField(t, pid, 4); tty == "0" {
		t.Error("the leader has no controlling terminal")
	}
	p.hooks().Cancel("test over")
	p.hooks().Done()
}

// statField is field i of /proc/PID/stat after the command name: 0 the
// state, 1 the parent, 2 the process group, 3 the session, 4 the
// controlling terminal (0 for none).
func statField(t *testing.T, pid, i int) string {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatalf("process %d: %v", pid, err)
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(fields) <= i {
		t.Fatalf("process %d: stat %q is short", pid, stat)
	}
	return fields[i]
}
