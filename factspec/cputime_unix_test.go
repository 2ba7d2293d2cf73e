//go:build unix

package factspec_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, its own threads' and the
// runtime's alike.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		panic(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
