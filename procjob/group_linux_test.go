package procjob

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry/registrytest"
)

// stubbornGrandchild is a command that escapes a naive teardown: a grandchild that
// ignores SIGTERM and detaches its output, beside a leader that does not. The
// leader goes on only once the grandchild ignores SIGTERM (it touches a file
// after its trap), so a loaded machine cannot deliver the signal before the
// trap and let the grandchild die of it.
func stubbornGrandchild(t *testing.T) string {
	ready := filepath.Join(t.TempDir(), "trapped")
	return fmt.Sprintf("(trap '' TERM; : >'%[1]s'; exec sleep 300) >/dev/null 2>&1 </dev/null & "+
		"until [ -e '%[1]s' ]; do sleep 0.01; done; ", ready)
}

// startProcess runs a command like start does, and returns the process too,
// for its process group.
func startProcess(t *testing.T, opts Options) *process {
	t.Helper()
	if opts.Poll == 0 {
		opts.Poll = 20 * time.Millisecond
	}
	p, err := run(&registrytest.Job{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	pgid := p.cmd.Process.Pid
	// A failing test must not leave its sleeps behind either.
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	return p
}

// liveMembers lists the processes of a process group that are not zombies,
// read from /proc. Zombies are left out: they have exited, and nothing reaps
// the orphans of this machine's init.
func liveMembers(t *testing.T, pgid int) []int {
	t.Helper()
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("no /proc to look for the group's processes: %v", err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(fields[2]); g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestCancelKillsAGrandchildThatIgnoresSIGTERMAfterTheLeaderDies(t *testing.T) {
	p := startProcess(t, Options{Command: []string{"sh", "-c", stubbornGrandchild(t) + "exec sleep 300"}, Grace: 200 * time.Millisecond})
	pgid := p.cmd.Process.Pid
	waitFor(t, func() bool { return len(liveMembers(t, pgid)) == 2 })
	hooks := p.hooks()
	if err := hooks.Cancel("stop"); err != nil {
		t.Fatal(err)
	}
	outcome, err := hooks.Done()
	if err != nil {
		t.Fatal(err)
	}
	if left := liveMembers(t, pgid); len(left) > 0 {
		t.Errorf("processes %v of the job's group outlived Done", left)
	}
	if outcome.Status != jobs.JobStatusKilled || outcome.Detail != "terminated by SIGTERM" {
		t.Errorf("outcome = %+v; the leader died of SIGTERM", outcome)
	}
}

func TestNormalExitStopsWhatTheLeaderLeftRunning(t *testing.T) {
	p := startProcess(t, Options{Command: []string{"sh", "-c", stubbornGrandchild(t) + "echo started"}, Grace: 200 * time.Millisecond})
	pgid := p.cmd.Process.Pid
	begin := time.Now()
	outcome, err := p.hooks().Done()
	if err != nil {
		t.Fatal(err)
	}
	if left := liveMembers(t, pgid); len(left) > 0 {
		t.Errorf("processes %v of the job's group outlived Done", left)
	}
	if outcome.Status != jobs.JobStatusCompleted || !strings.HasPrefix(outcome.Detail, "exit status 0; ") {
		t.Errorf("outcome = %+v; want completed, saying what was stopped", outcome)
	}
	if took := time.Since(begin); took < 200*time.Millisecond || took > 2*time.Second {
		t.Errorf("Done took %v; a grandchild that ignores SIGTERM gets the 200ms grace, then SIGKILL", took)
	}
}

func TestDoneDoesNotWaitForAProcessThatLeftTheGroup(t *testing.T) {
	// setsid puts the sleep in a session and group of its own: out of the
	// job's reach (see the package doc). It keeps stdout open, so Done cuts
	// the output off after the grace instead of waiting for it.
	pidFile := t.TempDir() + "/escapee"
	script := `setsid sh -c 'echo $$ >"$0.tmp"; mv "$0.tmp" "$0"; echo escaped; exec sleep 300' "$0" &
until [ -s "$0" ]; do sleep 0.01; done`
	p, err := run(&registrytest.Job{}, Options{Command: []string{"sh", "-c", script, pidFile}, Grace: 200 * time.Millisecond, Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) })
	var escapee int
	waitFor(t, func() bool {
		b, _ := os.ReadFile(pidFile)
		escapee, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return escapee > 0
	})
	t.Cleanup(func() { syscall.Kill(escapee, syscall.SIGKILL) })
	begin := time.Now()
	done := make(chan jobs.JobOutcome)
	go func() { o, _ := p.hooks().Done(); done <- o }()
	select {
	case outcome := <-done:
		if !strings.Contains(outcome.Detail, "cut off") {
			t.Errorf("outcome = %+v; want the cut-off output said", outcome)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Done waited for a process outside the job's group")
	}
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("Done took %v, want about the 200ms grace", took)
	}
	if err := syscall.Kill(escapee, 0); err != nil {
		t.Errorf("the setsid escapee is gone (%v): the package doc says it is out of reach; update it", err)
	}
}
