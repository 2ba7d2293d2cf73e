package procjob

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// A jobGroup is the job's leader: on Windows, procjob cannot see or reach
// what the leader started (that would take a job object); see the package doc.
type jobGroup struct {
	leader *os.Process
}

// prepareGroup starts the command in a new console process group, so a
// console interrupt aimed at the caller does not reach it. Cgroups are
// Linux's, and refused; a terminal never gets here (openTerminal refuses it).
func prepareGroup(cmd *exec.Cmd, cgroupParent string, _ bool) (*jobGroup, error) {
	if cgroupParent != "" {
		return nil, fmt.Errorf("procjob: cgroup %s: cgroups exist only on Linux, not windows", cgroupParent)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
	return &jobGroup{}, nil
}

func (g *jobGroup) started(leader *os.Process) { g.leader = leader }

// running is false once the leader has exited.
func (g *jobGroup) running() bool { return false }

// terminate ends the leader with TerminateProcess: Windows has no SIGTERM to
// ask politely.
func (g *jobGroup) terminate() error {
	if err := g.leader.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

func (g *jobGroup) kill() { g.leader.Kill() }

func (g *jobGroup) release() error { return nil }

// describeExit says how the leader ended. A process ended by TerminateProcess
// exits with status 1; after Cancel that is taken as the termination.
func describeExit(exit *exec.ExitError, cancelled bool) (string, bool) {
	if cancelled && exit.ExitCode() == 1 {
		return "terminated", true
	}
	return fmt.Sprintf("exit status %d", exit.ExitCode()), false
}

// exitOf reads how the leader ended: Windows has no signals, so its exit
// code alone (TerminateProcess's, 1, after Cancel).
func exitOf(exit *exec.ExitError) (code int, signal string) {
	return exit.ExitCode(), ""
}
