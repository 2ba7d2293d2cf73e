//go:build !unix

package jobhttp_test

// processCPU is the CPU time this process has used: not measured here, so
// the paired fan-out benchmark's CPU figures read 0.
func processCPU() int64 { return 0 }
