//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package jobhistory

import (
	"errors"
	"syscall"
	"testing"
)

// Every mapping the set makes is unmapped: a segment's when a growth or a
// split replaces it, the rest when the set is freed. syscall.Munmap refuses
// (EINVAL) a mapping it no longer holds, so a second unmapping of each must
// fail.
func TestIDSetUnmapsWhatItMaps(t *testing.T) {
	s := idSet{splitAt: segmentStep}
	var mapped [][]byte
	seen := map[*byte]bool{}
	for i := range 20_000 {
		var id [16]byte
		id[0], id[1], id[2], id[15] = byte(i), byte(i>>8), byte(i>>16), 1
		s.add(id)
		for _, g := range s.segments {
			if !seen[&g.slots[0]] {
				seen[&g.slots[0]] = true
				mapped = append(mapped, g.slots)
			}
		}
	}
	if s.depth < 2 {
		t.Fatalf("directory depth %d: the test did not split segments", s.depth)
	}
	s.free()
	for _, b := range mapped {
		if err := syscall.Munmap(b); !errors.Is(err, syscall.EINVAL) {
			t.Fatalf("unmapping %d slots again: %v, want EINVAL: the set left them mapped", len(b)/slotBytes, err)
		}
	}
}
