//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package jobhistory

// allocSlotsMaps says that allocSlots maps memory off the heap.
const allocSlotsMaps = false

// allocSlots returns size zeroed bytes for an idSet, on the heap where
// memory is not mapped from the operating system directly.
func allocSlots(size int) []byte { return make([]byte, size) }

// freeSlots leaves slots to the collector.
func freeSlots([]byte) {}
