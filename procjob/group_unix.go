//go:build unix

package procjob

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// A jobGroup is every process of one job: the process group the command
// leads, and with Options.Cgroup (Linux) the cgroup it was started in, which
// also holds what left the process group.
type jobGroup struct {
	leader *os.Process
	cg     *cgroup // nil without Options.Cgroup
}

// prepareGroup makes the command the leader of a process group of its own,
// whose id is its pid, and with a cgroup parent, starts it in a new cgroup
// under it. Everything it starts joins the process group unless it leaves it
// (setsid, setpgid), and the cgroup, which it cannot leave. Under a
// terminal the command leads a session of its own instead, whose
// controlling terminal is its stdin: a session leader leads a process group
// of the same id, so the group is the same, and setpgid would fail on it.
func prepareGroup(cmd *exec.Cmd, cgroupParent string, terminal bool) (*jobGroup, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: !terminal, Setsid: terminal, Setctty: terminal}
	g := &jobGroup{}
	if cgroupParent != "" {
		cg, err := newCgroup(cgroupParent)
		if err != nil {
			return nil, err
		}
		cg.startIn(cmd.SysProcAttr)
		g.cg = cg
	}
	return g, nil
}

// started records the leader once the command has started.
func (g *jobGroup) started(leader *os.Process) { g.leader = leader }

// running reports whether a process of the job is still running.
func (g *jobGroup) running() bool {
	if g.cg != nil {
		return g.cg.populated()
	}
	return processGroupRunning(g.leader.Pid)
}

// terminate sends SIGTERM to the process group, and to every process of the
// cgroup. A group that has already ended is not an error.
func (g *jobGroup) terminate() error {
	if err := signalGroup(g.leader.Pid, syscall.SIGTERM); err != nil {
		return err
	}
	if g.cg != nil {
		return g.cg.signal(syscall.SIGTERM)
	}
	return nil
}

// kill sends SIGKILL to the process group and kills the cgroup.
func (g *jobGroup) kill() {
	signalGroup(g.leader.Pid, syscall.SIGKILL)
	if g.cg != nil {
		g.cg.kill()
	}
}

// release removes the cgroup, once the job's processes have ended (or the
// command did not start).
func (g *jobGroup) release() error {
	if g.cg == nil {
		return nil
	}
	return g.cg.remove()
}

func signalGroup(pgid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
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

// exitOf reads how the leader ended: its exit code, or -1 and the name of
// the signal that ended it.
func exitOf(exit *exec.ExitError) (code int, signal string) {
	status, _ := exit.Sys().(syscall.WaitStatus)
	if status.Signaled() {
		return -1, signalName(status.Signal())
	}
	return exit.ExitCode(), ""
}
