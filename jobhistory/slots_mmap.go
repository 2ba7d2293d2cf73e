//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package jobhistory

import "syscall"

// allocSlotsMaps says that allocSlots maps memory off the heap.
const allocSlotsMaps = true

// allocSlots returns size zeroed bytes for an idSet, mapped from the
// operating system rather than allocated on Go's heap: the collector
// neither scans them (they hold no pointers) nor counts them toward its
// goal, which would let the heap grow to twice their size before
// collecting garbage. Pages are touched, and so resident, only as ids are
// stored in them.
func allocSlots(size int) []byte {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, size)
	}
	return b
}

// freeSlots returns slots from allocSlots; a slice that was allocated on the
// heap, when mapping failed, is left to the collector.
func freeSlots(b []byte) {
	_ = syscall.Munmap(b)
}
