//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package jobhistory

// allocSlotsMaps says that allocSlots maps memory off the heap.
const allocSlotsMaps = false

// allocSlots returns n zeroed slots of an idSet, on the heap where memory
// is not mapped from the operating system directly.
func allocSlots(n int) []byte { return make([]byte, n*slotBytes) }

// freeSlots leaves slots to the collector.
func freeSlots([]byte) {}
