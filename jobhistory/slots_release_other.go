//go:build !linux

package jobhistory

// releaseSlots keeps memory as it is where the platform has no madvise in
// package syscall: the pages an idSet no longer needs stay resident until
// it is freed.
func releaseSlots([]byte) {}
