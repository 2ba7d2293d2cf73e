package jobhistory

import (
	"crypto/rand"
	"encoding/binary"
	"math/bits"
)

// An idSet is an exact set of 16-byte ids: the jobs a projection has seen
// settle. An id takes a 16-byte slot, in memory the collector neither scans
// nor counts toward its heap goal where the platform lets it (see
// allocSlots), so that half a million settled jobs hold about 10 MB of ids
// and not, as a map would, a heap that the collector lets grow to twice
// that. free returns the memory; the zero idSet is empty and ready to use.
//
// It is an extendible hash table: the top bits of an id's hash pick a
// segment, a table with linear probing that grows by a quarter when four
// fifths full and splits in two once it has maxSegmentSlots, so a growth
// copies one segment, never the whole set.
type idSet struct {
	seed     [2]uint64    // of the hash, random, so that no journal can be written to collide in it
	dir      []*idSegment // 1<<depth entries; a segment of depth d has 1<<(depth-d) of them, side by side
	segments []*idSegment // each once
	depth    uint
	zero     bool // the zero id, which marks a free slot, is in the set
	splitAt  int  // slots at which a segment splits; maxSegmentSlots when 0, smaller in tests
}

// An idSegment holds the ids whose hash starts with the same depth bits.
type idSegment struct {
	slots []byte // 16 bytes a slot; a free slot is all zero
	n     int    // the ids held
	depth uint
}

const (
	slotBytes = 16
	// segmentStep is how many slots a segment grows by at least: a page.
	segmentStep = 256
	// maxSegmentSlots is the size at which a full segment splits rather
	// than grows: 256 KB.
	maxSegmentSlots = 1 << 14
	// maxDepth bounds the directory: a segment this deep grows instead of
	// splitting, which only ids whose hashes share 32 bits would need.
	maxDepth = 32
)

// add puts id in the set and reports whether it was not there before.
func (s *idSet) add(id [16]byte) bool {
	if id == ([16]byte{}) {
		added := !s.zero
		s.zero = true
		return added
	}
	if s.dir == nil {
		var seed [16]byte
		rand.Read(seed[:])
		s.seed = [2]uint64{binary.LittleEndian.Uint64(seed[:]), binary.LittleEndian.Uint64(seed[8:])}
		g := &idSegment{slots: allocSlots(segmentStep)}
		s.dir, s.segments = []*idSegment{g}, []*idSegment{g}
	}
	h := s.hash(id)
	g := s.dir[h>>(64-s.depth)]
	i, found := g.find(id, h)
	if found {
		return false
	}
	if (g.n+1)*5 > g.len()*4 {
		s.grow(g, h)
		g = s.dir[h>>(64-s.depth)]
		i, _ = g.find(id, h)
	}
	copy(g.slots[i*slotBytes:], id[:])
	g.n++
	return true
}

// has reports whether id is in the set.
func (s *idSet) has(id [16]byte) bool {
	if id == ([16]byte{}) {
		return s.zero
	}
	if s.dir == nil {
		return false
	}
	h := s.hash(id)
	_, found := s.dir[h>>(64-s.depth)].find(id, h)
	return found
}

// hash returns the hash of id: two rounds of multiplying 64-bit halves
// into 128 bits and folding them, as wyhash mixes, under the set's seed.
func (s *idSet) hash(id [16]byte) uint64 {
	hi, lo := bits.Mul64(binary.LittleEndian.Uint64(id[:8])^s.seed[0], binary.LittleEndian.Uint64(id[8:])^s.seed[1])
	hi, lo = bits.Mul64(hi^lo^s.seed[1], 0x9e3779b97f4a7c15)
	return hi ^ lo
}

// free returns the set's memory and empties it.
func (s *idSet) free() {
	for _, g := range s.segments {
		freeSlots(g.slots)
	}
	*s = idSet{}
}

// len returns how many slots g has.
func (g *idSegment) len() int { return len(g.slots) / slotBytes }

// find returns the slot that holds id, whose hash is h, or the free slot
// where it belongs.
func (g *idSegment) find(id [16]byte, h uint64) (slot int, found bool) {
	lo, hi := binary.LittleEndian.Uint64(id[:8]), binary.LittleEndian.Uint64(id[8:])
	n := g.len()
	i := int(uint64(uint32(h)) * uint64(n) >> 32)
	for {
		at := g.slots[i*slotBytes : i*slotBytes+slotBytes]
		a, b := binary.LittleEndian.Uint64(at), binary.LittleEndian.Uint64(at[8:])
		if a == lo && b == hi {
			return i, true
		}
		if a|b == 0 {
			return i, false
		}
		if i++; i == n {
			i = 0
		}
	}
}

// grow makes room in g, the segment of the hash h: two segments in its
// place once it is as large as a segment grows and its ids divide between
// them, else a quarter more slots. Ids whose hashes share their leading
// bits do not divide; splitting them would only deepen the directory.
func (s *idSet) grow(g *idSegment, h uint64) {
	n := g.len()
	if n >= s.maxSlots() && g.depth < maxDepth {
		// Count the ids of each half first, to size each for 70% full.
		var half [2]int
		for id := range g.ids() {
			half[s.bit(id, g.depth)]++
		}
		if max(half[0], half[1])*4 <= g.n*3 {
			s.split(g, h, half)
			return
		}
	}
	s.replace(g, []*idSegment{{slots: allocSlots(roundSlots(n + n/4)), depth: g.depth}}, h)
}

// split replaces g, the segment of the hash h, by two segments a bit
// deeper, sized for the half counts of g's ids that go to each.
func (s *idSet) split(g *idSegment, h uint64, half [2]int) {
	if g.depth == s.depth {
		dir := make([]*idSegment, 2*len(s.dir))
		for j := range dir {
			dir[j] = s.dir[j>>1]
		}
		s.dir, s.depth = dir, s.depth+1
	}
	parts := make([]*idSegment, 2)
	for k := range parts {
		parts[k] = &idSegment{slots: allocSlots(roundSlots(half[k]*10/7 + 1)), depth: g.depth + 1}
	}
	s.replace(g, parts, h)
}

// maxSlots returns the size at which a full segment splits rather than
// grows.
func (s *idSet) maxSlots() int {
	if s.splitAt > 0 {
		return s.splitAt
	}
	return maxSegmentSlots
}

// bit returns the bit of id's hash after its first depth bits.
func (s *idSet) bit(id [16]byte, depth uint) int {
	return int(s.hash(id) >> (63 - depth) & 1)
}

// replace moves the ids of g, the segment of the hash h, into parts: one
// segment as deep as g, or two a bit deeper, each taking the half of g's
// directory entries its bit names.
func (s *idSet) replace(g *idSegment, parts []*idSegment, h uint64) {
	for id := range g.ids() {
		p := parts[0]
		if len(parts) == 2 {
			p = parts[s.bit(id, g.depth)]
		}
		i, _ := p.find(id, s.hash(id))
		copy(p.slots[i*slotBytes:], id[:])
		p.n++
	}
	span := 1 << (s.depth - g.depth) // g's directory entries
	first := int(h>>(64-s.depth)) &^ (span - 1)
	for j := range span {
		s.dir[first+j] = parts[j*len(parts)/span]
	}
	for k, seg := range s.segments {
		if seg == g {
			s.segments = append(append(s.segments[:k:k], parts...), s.segments[k+1:]...)
			break
		}
	}
	freeSlots(g.slots)
}

// ids yields the ids g holds.
func (g *idSegment) ids() func(yield func([16]byte) bool) {
	return func(yield func([16]byte) bool) {
		for i := 0; i < len(g.slots); i += slotBytes {
			if id := [16]byte(g.slots[i:]); id != ([16]byte{}) && !yield(id) {
				return
			}
		}
	}
}

// roundSlots rounds n up to a whole number of segment steps.
func roundSlots(n int) int {
	return (n + segmentStep - 1) / segmentStep * segmentStep
}
