//go:build unix && !linux

package procjob

import (
	"errors"
	"syscall"
)

// processGroupRunning reports whether a process of the group is still
// there. Zombies count, which matters only under an init that does not reap
// orphans (launchd and the BSDs' init do).
func processGroupRunning(pgid int) bool {
	return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}
