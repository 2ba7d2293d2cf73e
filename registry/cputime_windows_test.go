package registry

import (
	"syscall"
	"time"
)

// cpuTime is the process's user plus kernel CPU time so far.
func cpuTime() time.Duration {
	var creation, exit, kernel, user syscall.Filetime
	h, _ := syscall.GetCurrentProcess()
	syscall.GetProcessTimes(h, &creation, &exit, &kernel, &user)
	// A Filetime here is a duration in 100 ns units, not a date.
	ticks := func(ft syscall.Filetime) int64 { return int64(ft.HighDateTime)<<32 | int64(ft.LowDateTime) }
	return time.Duration(ticks(kernel)+ticks(user)) * 100
}
