//go:build unix

package procjob

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// newProcessGroup makes the command the leader of a process group of its
// own, whose id is its pid; everything it starts joins that group unless it
// leaves it (setsid, setpgid).
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminateGroup sends SIGTERM to the leader's process group. A group that
// has already ended is not an error.
func terminateGroup(leader *os.Process) error {
	return signalGroup(leader, syscall.SIGTERM)
}

// killGroup sends SIGKILL to the leader's process group.
func killGroup(leader *os.Process) {
	signalGroup(leader, syscall.SIGKILL)
}

func signalGroup(leader *os.Process, sig syscall.Signal) error {
	if err := syscall.Kill(-leader.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// describeExit says how the leader ended and whether a signal ended it.
func describeExit(exit *exec.ExitError, cancelled bool) (string, bool) {
	status, _ := exit.Sys().(syscall.WaitStatus)
	if status.Signaled() {
		return "terminated by " + signalName(status.Signal()), true
	}
	return fmt.Sprintf("exit status %d", exit.ExitCode()), false
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGINT:
		return "SIGINT"
	}
	return s.String()
}
