package jobhistory

import (
	"crypto/rand"
	"encoding/binary"
	"math"
	"math/bits"
	"unsafe"
)

// An idSet is an exact set of 16-byte ids: the jobs a projection has seen
// settle. An id takes 14 to 16 bytes and about one more, in memory the
// collector neither scans nor counts toward its heap goal where the
// platform lets it (see allocSlots), so that half a million settled jobs
// hold 7.5 MB of ids and not, as a map would, a heap that the collector
// lets grow to twice that. free returns the memory; the zero idSet is empty
// and ready to use.
//
// Each id is held mixed: put through a keyed permutation of 128 bits (a
// Feistel network, so distinct ids stay distinct and the set exact, under
// keys from crypto/rand, so that no journal can be written to crowd it),
// which spreads any ids evenly. Most ids are merged: one sorted array of
// mixed ids without free slots, kept in chunks of a mebibyte mapped as it
// grows, and a directory of where the ids of each run of leading bits
// start, so a lookup is a search of a few ids. Since the directory says an
// id's leading bits, a merged id is stored without its first byte once the
// directory is eight bits deep, and without its first two at sixteen. The
// ids added since the last merge are in the tail, a small hash table; when
// three quarters full, its ids are sorted and merged, each merged id moving
// up in place to make room, so nothing is ever held twice.
type idSet struct {
	keys   [mixRounds]uint64
	chunks [][]byte // the merged ids, ascending, recordBytes each: id i is in chunks[i>>chunkShift]
	n      int      // how many ids are merged
	dirRaw []byte   // dir's memory, as allocSlots mapped it
	dir    []uint32 // 1<<depth+1 entries: dir[q] is where the merged ids whose top depth bits are q or more start
	depth  uint
	// implied is how many leading bytes of a merged id its place in the
	// directory says, and so are not stored: depth/8, at most maxImplied.
	implied   int
	tail      idChunk // the ids added since the last merge, linear probing from their top bits; a zero entry is free
	tailN     int     // how many ids the tail holds
	tailShift uint    // 64 less the bits of the tail's size
	zero      bool    // the id whose mix is zero, the tail's free mark, is in the set
	// minTail is the fewest entries the tail has: defaultMinTail when 0,
	// fewer in tests, to merge often.
	minTail int
	// spread is how many merged ids a directory entry has at most, on
	// average: defaultSpread when 0, fewer in tests, for deep directories.
	spread int
}

// An entry is an id mixed, its top half first, so that entries sort as
// the 128-bit numbers they are.
type entry [2]uint64

// An idChunk is memory for entries, as allocSlots mapped it.
type idChunk struct {
	raw []byte  // for freeSlots
	ids []entry // raw, seen as entries
}

const (
	entryBytes = int(unsafe.Sizeof(entry{}))
	// A chunk of merged ids holds 1<<chunkShift of them: a mebibyte at 16
	// bytes an id, mapped at once and resident only as far as ids are
	// written.
	chunkShift = 16
	chunkMask  = 1<<chunkShift - 1
	chunkBytes = entryBytes << chunkShift
	// maxImplied is the most leading bytes a merged id goes without.
	maxImplied = 2
	// defaultSpread is how many merged ids a directory entry has at most,
	// on average: the directory takes half a byte to a byte an id, and a
	// lookup searches four to eight ids.
	defaultSpread = 8
	// defaultMinTail is the fewest entries the tail has; it grows to a
	// thirty-second of the merged ids, so that a merge, which moves them
	// all, comes after many adds.
	defaultMinTail = 4096
	mixRounds      = 4
)

// newChunk maps memory for n entries.
func newChunk(n int) idChunk {
	raw := allocSlots(n * entryBytes)
	return idChunk{raw: raw, ids: unsafe.Slice((*entry)(unsafe.Pointer(unsafe.SliceData(raw))), n)}
}

// add puts id in the set and reports whether it was not there before.
func (s *idSet) add(id [16]byte) bool {
	s.start()
	e := s.mix(id)
	if e == (entry{}) {
		added := !s.zero
		s.zero = true
		return added
	}
	if s.merged(e) {
		return false
	}
	i, found := s.inTail(e)
	if found {
		return false
	}
	s.tail.ids[i] = e
	if s.tailN++; s.tailN*4 >= len(s.tail.ids)*3 {
		s.merge()
	}
	return true
}

// has reports whether id is in the set.
func (s *idSet) has(id [16]byte) bool {
	if s.tail.ids == nil {
		return false
	}
	e := s.mix(id)
	if e == (entry{}) {
		return s.zero
	}
	if s.merged(e) {
		return true
	}
	_, found := s.inTail(e)
	return found
}

// start draws the keys and maps the tail of a set not yet used.
func (s *idSet) start() {
	if s.tail.ids != nil {
		return
	}
	var b [8 * mixRounds]byte
	rand.Read(b[:])
	for k := range s.keys {
		s.keys[k] = binary.LittleEndian.Uint64(b[8*k:])
	}
	n := s.tailFor(0)
	s.tail, s.tailShift = newChunk(n), uint(64-bits.TrailingZeros(uint(n)))
}

// mix returns id put through the set's permutation: four rounds of a
// Feistel network whose round multiplies the right half, under a key, into
// 128 bits and folds them, as wyhash mixes. Any round function makes a
// Feistel network a permutation, so no two ids mix alike.
func (s *idSet) mix(id [16]byte) entry {
	l, r := binary.BigEndian.Uint64(id[:8]), binary.BigEndian.Uint64(id[8:])
	for _, k := range s.keys {
		hi, lo := bits.Mul64(r^k, 0x9e3779b97f4a7c15)
		l, r = r, l^hi^lo
	}
	return entry{l, r}
}

// recordBytes is how many bytes a merged id takes: 16, less the leading
// bytes the directory implies.
func (s *idSet) recordBytes() int { return entryBytes - s.implied }

// record returns the bytes of merged id i and those after it in its chunk:
// at least 16, so that the first half of an id, stored after its second,
// reads as one word.
func (s *idSet) record(i int) []byte {
	return s.chunks[i>>chunkShift][(i&chunkMask)*s.recordBytes():]
}

// keyOf returns what is stored of e: its first half less the implied
// leading bytes, and its second half. Within the ids of one directory
// entry, which share those bytes, keys sort as the ids do.
func (s *idSet) keyOf(e entry) entry {
	return entry{e[0] & (math.MaxUint64 >> (8 * s.implied)), e[1]}
}

// keyAt returns the key of merged id i.
func (s *idSet) keyAt(i int) entry {
	r := s.record(i)
	return entry{binary.LittleEndian.Uint64(r[8:16]) & (math.MaxUint64 >> (8 * s.implied)), binary.LittleEndian.Uint64(r)}
}

// put stores the key of e as merged id i, leaving the bytes after it as
// they are.
func (s *idSet) put(i int, e entry) {
	r := s.record(i)
	binary.LittleEndian.PutUint64(r, e[1])
	var hi [8]byte
	binary.LittleEndian.PutUint64(hi[:], e[0])
	copy(r[8:entryBytes-s.implied], hi[:])
}

// merged reports whether e is among the merged ids.
func (s *idSet) merged(e entry) bool {
	i := s.rank(e, s.n)
	return i < s.n && i < int(s.dir[e[0]>>(64-s.depth)+1]) && s.keyAt(i) == s.keyOf(e)
}

// rank returns how many of the merged ids below end are less than e: a
// search of the few whose top bits are e's. The directory must hold for
// the ids below end, and those at end or above must be greater than e.
func (s *idSet) rank(e entry, end int) int {
	if s.dir == nil {
		return 0
	}
	q := e[0] >> (64 - s.depth)
	lo, hi := int(s.dir[q]), min(int(s.dir[q+1]), end)
	key := s.keyOf(e)
	if hi-lo <= 16 {
		for ; lo < hi && less(s.keyAt(lo), key); lo++ {
		}
		return lo
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if less(s.keyAt(m), key) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// inTail returns the tail's slot that holds e, or the free slot where it
// belongs. An id's slot is first tried by its top bits, so that the tail's
// ids, read slot by slot, are nearly in order for the merge.
func (s *idSet) inTail(e entry) (slot int, found bool) {
	mask := len(s.tail.ids) - 1
	for i := int(e[0] >> s.tailShift); ; i = (i + 1) & mask {
		switch s.tail.ids[i] {
		case e:
			return i, true
		case entry{}:
			return i, false
		}
	}
}

// merge sorts the tail's ids into the merged ones and empties the tail.
// The merge runs from the top down: for each of the tail's ids, greatest
// first, the merged ids above it move up, each run once, by a copy, to
// their places, and it takes its own below them.
func (s *idSet) merge() {
	t := s.tail.ids
	k := 0
	for _, e := range t {
		if e != (entry{}) {
			t[k] = e
			k++
		}
	}
	t = t[:k]
	sortNearlySorted(t)
	if s.n+k > math.MaxUint32 {
		panic("jobhistory: more settled jobs than a projection holds (2^32-1)")
	}
	spread := s.spread
	if spread == 0 {
		spread = defaultSpread
	}
	if depth := uint(bits.Len(uint((s.n + k) / spread))); s.dir == nil || depth != s.depth {
		s.redirect(depth)
	}
	for len(s.chunks)<<chunkShift < s.n+k {
		s.chunks = append(s.chunks, allocSlots(chunkBytes))
	}
	for i, j := s.n, k-1; j >= 0; j-- { // the merged ids from i up have moved
		p := s.rank(t[j], i)
		s.moveUp(p, i, j+1)
		s.put(p+j, t[j])
		i = p
	}
	// Each directory entry's start moves up by the ids of t before it.
	j := 0
	for q := range s.dir {
		for j < len(t) && int(t[j][0]>>(64-s.depth)) < q {
			j++
		}
		s.dir[q] += uint32(j)
	}
	s.n += k
	clear(s.tail.ids)
	s.tailN = 0
	if n := s.tailFor(s.n); n != len(s.tail.ids) {
		freeSlots(s.tail.raw)
		s.tail = newChunk(n)
		s.tailShift = uint(64 - bits.TrailingZeros(uint(n)))
	}
}

// redirect makes the directory anew at depth for the merged ids, storing
// them without the leading bytes it implies: a pass from the first id up,
// in place, since an id never takes more bytes than before.
func (s *idSet) redirect(depth uint) {
	raw := allocSlots((1<<depth + 1) * 4)
	dir := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(raw))), 1<<depth+1)
	was := *s
	s.depth, s.implied = depth, min(int(depth/8), maxImplied)
	q, old := 0, 0 // the new directory's entry, and the old one of id i
	for i := range s.n {
		for int(was.dir[old+1]) <= i {
			old++
		}
		k := was.keyAt(i)
		e := entry{k[0] | uint64(old)<<(64-was.depth)&^(math.MaxUint64>>(8*was.implied)), k[1]}
		for b := int(e[0] >> (64 - depth)); q <= b; q++ {
			dir[q] = uint32(i)
		}
		s.put(i, e)
	}
	for ; q < len(dir); q++ {
		dir[q] = uint32(s.n)
	}
	freeSlots(s.dirRaw)
	s.dirRaw, s.dir = raw, dir
	if was.implied != s.implied {
		for _, c := range s.chunks {
			releaseSlots(c[(1<<chunkShift)*s.recordBytes()+8:])
		}
	}
}

// moveUp moves the merged ids [lo, hi) up by by places, a piece within one
// chunk at a time, the highest first.
func (s *idSet) moveUp(lo, hi, by int) {
	size := s.recordBytes()
	for hi > lo {
		src, dst := hi-1, hi-1+by // the last id of the piece, and where it goes
		n := min(hi-lo, src&chunkMask+1, dst&chunkMask+1)
		to := s.chunks[dst>>chunkShift][(dst&chunkMask+1-n)*size : (dst&chunkMask+1)*size]
		copy(to, s.chunks[src>>chunkShift][(src&chunkMask+1-n)*size:(src&chunkMask+1)*size])
		hi -= n
	}
}

// sortNearlySorted sorts t by insertion, which costs about one move an id
// for ids read from the tail slot by slot: each is out of place only by the
// ids that probed past it, a few, and the few that wrapped around to the
// tail's start.
func sortNearlySorted(t []entry) {
	for i := 1; i < len(t); i++ {
		x := t[i]
		j := i
		for j > 0 && less(x, t[j-1]) {
			j--
		}
		if j < i {
			copy(t[j+1:i+1], t[j:i])
			t[j] = x
		}
	}
}

// tailFor returns how many entries the tail has once n ids are merged: a
// power of two, at least minTail and a thirty-second of n.
func (s *idSet) tailFor(n int) int {
	least := s.minTail
	if least == 0 {
		least = defaultMinTail
	}
	return max(least, 1<<bits.Len(uint(n/32)))
}

// free returns the set's memory and empties it.
func (s *idSet) free() {
	for _, c := range s.chunks {
		freeSlots(c)
	}
	freeSlots(s.tail.raw)
	freeSlots(s.dirRaw)
	*s = idSet{}
}

// len returns how many ids the set holds.
func (s *idSet) len() int {
	n := s.n + s.tailN
	if s.zero {
		n++
	}
	return n
}

func less(a, b entry) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }
