//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package jobhistory

import (
	"errors"
	"syscall"
	"testing"
)

// Every mapping the set makes is unmapped: the tail's and the directory's
// when a merge replaces them, the rest when the set is freed.
// syscall.Munmap refuses (EINVAL) a mapping it no longer holds, so a second
// unmapping of each must fail.
func TestIDSetUnmapsWhatItMaps(t *testing.T) {
	s := idSet{minTail: 64}
	var mapped [][]byte
	seen := map[*byte]bool{}
	note := func(b []byte) {
		if len(b) > 0 && !seen[&b[0]] {
			seen[&b[0]] = true
			mapped = append(mapped, b)
		}
	}
	for i := range 200_000 {
		var id [16]byte
		id[0], id[1], id[2], id[15] = byte(i), byte(i>>8), byte(i>>16), 1
		s.add(id)
		for _, c := range s.chunks {
			note(c)
		}
		note(s.tail.raw)
		note(s.dirRaw)
	}
	if len(s.chunks) < 2 || s.depth < 10 {
		t.Fatalf("%d chunks, directory depth %d: the test did not grow the set", len(s.chunks), s.depth)
	}
	s.free()
	for _, b := range mapped {
		if err := syscall.Munmap(b); !errors.Is(err, syscall.EINVAL) {
			t.Fatalf("unmapping %d bytes again: %v, want EINVAL: the set left them mapped", len(b), err)
		}
	}
}
