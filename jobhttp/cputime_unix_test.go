//go:build unix

package jobhttp_test

import "syscall"

// processCPU is the CPU time this process has used (user and system, ns).
func processCPU() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
