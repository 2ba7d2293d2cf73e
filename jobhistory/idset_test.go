package jobhistory

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"testing"

	"pgregory.net/rapid"
)

// unmix is the inverse of s.mix: the id whose mix is e.
func (s *idSet) unmix(e entry) [16]byte {
	l, r := e[0], e[1]
	for k := len(s.keys) - 1; k >= 0; k-- {
		hi, lo := bits.Mul64(l^s.keys[k], 0x9e3779b97f4a7c15)
		l, r = r^hi^lo, l
	}
	var id [16]byte
	binary.BigEndian.PutUint64(id[:8], l)
	binary.BigEndian.PutUint64(id[8:], r)
	return id
}

// entries returns the merged ids, read back with the leading bytes their
// directory entries imply.
func (s *idSet) entries() []entry {
	out := make([]entry, 0, s.n)
	q := 0
	for i := range s.n {
		for int(s.dir[q+1]) <= i {
			q++
		}
		k := s.keyAt(i)
		out = append(out, entry{k[0] | uint64(q)<<(64-s.depth)&^(math.MaxUint64>>(8*s.implied)), k[1]})
	}
	return out
}

// check reports how s breaks its own shape, or nil: merged ids strictly
// ascending, each directory start where its ids start, as many leading
// bytes left out as the directory's depth allows, the tail's count true
// and under three quarters of it, no id both merged and in the tail.
func (s *idSet) check() error {
	merged := s.entries()
	for i := 1; i < len(merged); i++ {
		if !less(merged[i-1], merged[i]) {
			return fmt.Errorf("merged ids %d and %d are not ascending", i-1, i)
		}
	}
	if s.n > 0 {
		if len(s.dir) != 1<<s.depth+1 {
			return fmt.Errorf("a directory of %d entries at depth %d", len(s.dir), s.depth)
		}
		if want := min(int(s.depth/8), maxImplied); s.implied != want {
			return fmt.Errorf("%d leading bytes implied at depth %d, want %d", s.implied, s.depth, want)
		}
		want := 0
		for q := range s.dir {
			for want < s.n && int(merged[want][0]>>(64-s.depth)) < q {
				want++
			}
			if int(s.dir[q]) != want {
				return fmt.Errorf("the directory says bucket %d starts at %d, its ids start at %d", q, s.dir[q], want)
			}
		}
	}
	held := 0
	for _, e := range s.tail.ids {
		if e == (entry{}) {
			continue
		}
		held++
		if s.merged(e) {
			return fmt.Errorf("%x is merged and in the tail", e)
		}
	}
	if held != s.tailN || held*4 >= len(s.tail.ids)*3 && held > 0 {
		return fmt.Errorf("the tail holds %d ids of %d slots, counted %d", held, len(s.tail.ids), s.tailN)
	}
	return nil
}

// The set holds exactly what a map holds, through many merges and
// directories made anew, the id whose mix is zero included.
func TestIDSetIsASet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := idSet{minTail: 64, spread: 2}
	defer s.free()
	s.start()
	zero := s.unmix(entry{})
	want := map[[16]byte]bool{}
	var seen [][16]byte
	for range 200_000 {
		var id [16]byte
		switch k := r.IntN(100); {
		case k < 2:
			id = zero
		case k < 4:
			// the zero id
		case k < 20 && len(seen) > 0:
			id = seen[r.IntN(len(seen))]
		case k < 25:
			id[15] = byte(r.IntN(256)) // ids that differ in one byte
		default:
			for i := range id {
				id[i] = byte(r.Uint32())
			}
		}
		if got := s.has(id); got != want[id] {
			t.Fatalf("has(%x) = %v before adding, want %v", id, got, want[id])
		}
		if added := s.add(id); added == want[id] {
			t.Fatalf("add(%x) = %v, but it was in the set: %v", id, added, want[id])
		}
		want[id] = true
		seen = append(seen, id)
	}
	if s.depth < 16 || s.implied != 2 {
		t.Fatalf("directory depth %d, %d bytes implied: the test did not grow the set", s.depth, s.implied)
	}
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
	if s.len() != len(want) || !s.zero {
		t.Fatalf("the set holds %d ids (the one whose mix is zero: %v), the map %d", s.len(), s.zero, len(want))
	}
	for id := range want {
		if !s.has(id) {
			t.Fatalf("lost %x", id)
		}
	}
	s.free()
	if s.has(seen[len(seen)-1]) || s.has(zero) {
		t.Fatal("an id outlived free")
	}
}

// Half a million ids take 14 bytes each, the directory implying their
// first two, and about one more for the directory and the tail, kept off
// the collected heap where the platform maps memory.
func TestIDSetMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("adds 500,000 ids")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var s idSet
	defer s.free()
	const n = 500_000
	for i := range n {
		var id [16]byte
		id[0], id[1], id[2], id[3] = byte(i), byte(i>>8), byte(i>>16), 0xa5
		s.add(id)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	const page = 4096
	touched := (s.n*s.recordBytes()+page-1)/page*page + len(s.tail.raw) + len(s.dirRaw)
	if perID := float64(touched) / n; perID > 15.5 {
		t.Errorf("%.1f bytes an id (%d merged at %d bytes, a tail of %d, a directory of %d), want at most 15.5", perID, s.n, s.recordBytes(), len(s.tail.ids), len(s.dir))
	}
	if heap := int64(after.HeapAlloc) - int64(before.HeapAlloc); allocSlotsMaps && heap > 1<<20 {
		t.Errorf("the set grew the heap by %d bytes; its ids belong off the heap", heap)
	}
}

// Merged ids are stored without the leading bytes their directory entry
// implies, so two ids whose mixes differ in those bytes alone are stored
// alike, in different entries: the set still tells them apart, whether
// the one added sorts before the one looked up or after it, at the edge of
// its entry or inside it.
func TestIDSetTellsApartIDsStoredAlike(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	filler := func() [16]byte {
		var id [16]byte
		binary.LittleEndian.PutUint64(id[:], r.Uint64())
		return id
	}
	for _, implied := range []int{1, 2} {
		s := idSet{minTail: 64, spread: 1}
		for s.add(filler()); s.implied < implied; {
			s.add(filler())
		}
		var ids, twins [][16]byte
		for range 2000 {
			e := entry{r.Uint64(), r.Uint64()}
			twin := e
			twin[0] ^= uint64(1+r.IntN(255)) << (64 - 8*s.implied) // another leading byte, the rest alike
			if s.keyOf(e) != s.keyOf(twin) {
				t.Fatalf("%x and %x are not stored alike", e, twin)
			}
			ids, twins = append(ids, s.unmix(e)), append(twins, s.unmix(twin))
			s.add(ids[len(ids)-1])
		}
		for s.tailN > 0 { // merge them
			s.add(filler())
		}
		for i := range ids {
			if !s.has(ids[i]) || s.has(twins[i]) {
				t.Fatalf("with %d bytes implied: has = %v for the id added, %v for its twin", s.implied, s.has(ids[i]), s.has(twins[i]))
			}
		}
		s.free()
	}
}

// Ids alike but for a few bits (sequential, or one byte apart) spread over
// the directory as random ids do: no run of leading bits holds many more
// of them than the four to eight a bucket holds on average, so a lookup
// stays a short search.
func TestIDSetSpreadsAlikeIDs(t *testing.T) {
	for name, id := range map[string]func(i int) [16]byte{
		"sequential, last bytes": func(i int) (id [16]byte) { binary.BigEndian.PutUint64(id[8:], uint64(i)); return },
		"sequential, first bytes": func(i int) (id [16]byte) {
			binary.BigEndian.PutUint64(id[:8], uint64(i)<<40)
			return
		},
		"a byte apart": func(i int) (id [16]byte) { id[i%16] = byte(i/16 + 1); id[(i/4096)%16] |= 0x80; return },
	} {
		t.Run(name, func(t *testing.T) {
			var s idSet
			defer s.free()
			for i := range 100_000 {
				s.add(id(i))
			}
			most := 0
			for q := 0; q+1 < len(s.dir); q++ {
				most = max(most, int(s.dir[q+1]-s.dir[q]))
			}
			if mean := float64(s.n) / float64(len(s.dir)-1); float64(most) > 8*mean+16 {
				t.Fatalf("a bucket holds %d of %d ids, %.1f on average", most, s.n, mean)
			}
		})
	}
}

// The set answers as a map of the same ids does, whatever is added in
// whatever order, through merges at any tail size and directories deep
// enough to leave an id's first byte out: the zero id, the id
// whose mix is zero, ids that differ in a byte, runs of sequential ids.
// Every id added is found, no id not added is, add reports which is which,
// and the set keeps its shape.
func TestIDSetProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		minTail := 1 << rapid.IntRange(2, 10).Draw(t, "minTail")
		spread := rapid.SampledFrom([]int{1, 2, 8}).Draw(t, "spread")
		s := idSet{minTail: minTail, spread: spread}
		defer s.free()
		s.start()
		want := map[[16]byte]bool{}
		id := func(t *rapid.T) [16]byte {
			var id [16]byte
			switch rapid.IntRange(0, 4).Draw(t, "kind") {
			case 0: // the zero id
			case 1: // one byte set
				id[rapid.IntRange(0, 15).Draw(t, "at")] = rapid.Byte().Draw(t, "b")
			case 2: // the id whose mix is zero, the tail's free mark
				id = s.unmix(entry{})
			default:
				binary.LittleEndian.PutUint64(id[:8], rapid.Uint64().Draw(t, "lo"))
				binary.LittleEndian.PutUint64(id[8:], rapid.Uint64().Draw(t, "hi"))
			}
			return id
		}
		t.Repeat(map[string]func(*rapid.T){
			"add": func(t *rapid.T) {
				id := id(t)
				if added := s.add(id); added == want[id] {
					t.Fatalf("add(%x) = %v with the id in the set %v", id, added, want[id])
				}
				want[id] = true
			},
			"add many": func(t *rapid.T) {
				n := rapid.IntRange(1, 600).Draw(t, "n")
				seq := rapid.Uint64().Draw(t, "seq")
				for i := range uint64(n) {
					var id [16]byte
					binary.BigEndian.PutUint64(id[8:], seq+i)
					if added := s.add(id); added == want[id] {
						t.Fatalf("add(%x) = %v with the id in the set %v", id, added, want[id])
					}
					want[id] = true
				}
			},
			"has": func(t *rapid.T) {
				id := id(t)
				if got := s.has(id); got != want[id] {
					t.Fatalf("has(%x) = %v, want %v", id, got, want[id])
				}
			},
			"free": func(t *rapid.T) {
				s.free()
				s.minTail, s.spread = minTail, spread
				s.start()
				clear(want)
			},
			"": func(t *rapid.T) {
				if err := s.check(); err != nil {
					t.Fatal(err)
				}
				if s.len() != len(want) {
					t.Fatalf("the set holds %d ids, the map %d", s.len(), len(want))
				}
			},
		})
		for id := range want {
			if !s.has(id) {
				t.Fatalf("lost %x", id)
			}
		}
	})
}
