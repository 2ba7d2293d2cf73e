//go:build unix && !linux

package procjob

import (
	"errors"
	"os"
	"syscall"
)

// groupRunning reports whether a process of the leader's group is still
// there. Zombies count, which matters only under an init that does not reap
// orphans (launchd and the BSDs' init do).
func groupRunning(leader *os.Process) bool {
	return !errors.Is(syscall.Kill(-leader.Pid, 0), syscall.ESRCH)
}
