package jobhistory

import (
	"syscall"
	"unsafe"
)

// releaseSlots gives the pages wholly inside b, part of what allocSlots
// returned, back to the operating system: they read as zeros afterwards,
// and are resident again only once written.
func releaseSlots(b []byte) {
	page := syscall.Getpagesize()
	start := (page - int(uintptr(unsafe.Pointer(unsafe.SliceData(b))))%page) % page
	if end := len(b) - (len(b)-start)%page; start < end {
		_ = syscall.Madvise(b[start:end], syscall.MADV_DONTNEED)
	}
}
