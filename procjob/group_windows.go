package procjob

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// newProcessGroup starts the command in a new console process group, so a
// console interrupt aimed at the caller does not reach it.
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// terminateGroup ends the leader with TerminateProcess. Windows has no
// SIGTERM to ask politely, and what the leader started is out of reach (a
// job object would be needed); see the package doc.
func terminateGroup(leader *os.Process) error {
	if err := leader.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

func killGroup(leader *os.Process) { leader.Kill() }

// groupRunning is false once the leader has exited: procjob cannot see what
// it started on Windows.
func groupRunning(*os.Process) bool { return false }

// describeExit says how the leader ended. A process ended by TerminateProcess
// exits with status 1; after Cancel that is taken as the termination.
func describeExit(exit *exec.ExitError, cancelled bool) (string, bool) {
	if cancelled && exit.ExitCode() == 1 {
		return "terminated", true
	}
	return fmt.Sprintf("exit status %d", exit.ExitCode()), false
}
