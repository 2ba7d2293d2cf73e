package jobhistory

import (
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"testing"

	"pgregory.net/rapid"
)

// The set holds exactly what a map holds, through segment growths, splits
// and directory doublings, the zero id included.
func TestIDSetIsASet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var s idSet
	defer s.free()
	want := map[[16]byte]bool{}
	var seen [][16]byte
	for range 200_000 {
		var id [16]byte
		switch k := r.IntN(100); {
		case k < 2:
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
	if s.depth < 2 {
		t.Fatalf("directory depth %d: the test did not split segments", s.depth)
	}
	held := 0
	for _, g := range s.segments {
		held += g.n
		if g.n*5 > g.len()*4 {
			t.Fatalf("a segment holds %d ids in %d slots", g.n, g.len())
		}
	}
	if s.zero {
		held++
	}
	if held != len(want) {
		t.Fatalf("the segments hold %d ids, the map %d", held, len(want))
	}
	for id := range want {
		if !s.has(id) {
			t.Fatalf("lost %x", id)
		}
	}
	s.free()
	if s.has(seen[len(seen)-1]) || s.has([16]byte{}) {
		t.Fatal("an id outlived free")
	}
}

// Half a million ids take 16-byte slots at most 64-80% full, kept off the
// collected heap where the platform maps memory.
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
	slots := 0
	for _, g := range s.segments {
		slots += g.len()
	}
	if perID := float64(slots*slotBytes) / n; perID > 16/0.6 {
		t.Errorf("%.1f bytes an id, want at most %.1f", perID, 16/0.6)
	}
	if heap := int64(after.HeapAlloc) - int64(before.HeapAlloc); allocSlotsMaps && heap > 1<<20 {
		t.Errorf("the set grew the heap by %d bytes; its slots belong off the heap", heap)
	}
}

// The set answers as a map of the same ids does, whatever is added in
// whatever order, through growths and splits at any segment size, with ids
// whose hashes collide in full, the zero id and ids that differ in a byte:
// every id added is found, no id not added is, and add reports which is
// which.
func TestIDSetProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := idSet{splitAt: segmentStep * rapid.IntRange(1, 8).Draw(t, "splitAt")}
		defer s.free()
		want := map[[16]byte]bool{}
		colliding := 0 // ids added in "add many" whose hashes are the same
		id := func(t *rapid.T) [16]byte {
			var id [16]byte
			switch rapid.IntRange(0, 4).Draw(t, "kind") {
			case 0: // the zero id
			case 1: // one byte set
				id[rapid.IntRange(0, 15).Draw(t, "at")] = rapid.Byte().Draw(t, "b")
			case 2: // the same hash as every other such id
				binary.LittleEndian.PutUint64(id[:8], s.seed[0])
				binary.LittleEndian.PutUint64(id[8:], rapid.Uint64().Draw(t, "hi"))
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
				// Ids of one hash probe a segment from end to end, so keep
				// to a few hundred of them.
				collide := rapid.Bool().Draw(t, "collide") && colliding < 600
				n := rapid.IntRange(1, 400).Draw(t, "n")
				seq := rapid.Uint64().Draw(t, "seq")
				for i := range uint64(n) {
					var id [16]byte
					binary.LittleEndian.PutUint64(id[:8], seq+i*0x9e3779b97f4a7c15)
					if collide {
						binary.LittleEndian.PutUint64(id[:8], s.seed[0])
						colliding++
					}
					binary.LittleEndian.PutUint64(id[8:], seq+i)
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
				splitAt := s.splitAt
				s.free()
				s.splitAt = splitAt
				clear(want)
				colliding = 0
			},
			"": func(t *rapid.T) {
				held := 0
				for _, g := range s.segments {
					held += g.n
					if g.n*5 > g.len()*4 {
						t.Fatalf("a segment holds %d ids in %d slots", g.n, g.len())
					}
				}
				if s.zero {
					held++
				}
				if held != len(want) {
					t.Fatalf("the set holds %d ids, the map %d", held, len(want))
				}
				if s.depth > 12 {
					t.Fatalf("directory depth %d for %d ids", s.depth, held)
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

// Ids whose hashes are the same do not divide between two segments, so a
// full segment of them grows rather than splitting: the directory stays as
// deep as the ids that do divide need, and each id is still found.
func TestIDSetCollisionsDoNotDeepenTheDirectory(t *testing.T) {
	s := idSet{splitAt: segmentStep}
	defer s.free()
	s.add([16]byte{1})
	var ids [][16]byte
	var first uint64
	for i := range uint64(2000) {
		var id [16]byte
		binary.LittleEndian.PutUint64(id[:8], s.seed[0])
		binary.LittleEndian.PutUint64(id[8:], i+1)
		if i == 0 {
			first = s.hash(id)
		} else if s.hash(id) != first {
			t.Fatalf("%x does not collide", id)
		}
		if !s.add(id) {
			t.Fatalf("add(%x) = false for a new id", id)
		}
		ids = append(ids, id)
	}
	if s.depth > 1 {
		t.Errorf("directory depth %d for ids of one hash", s.depth)
	}
	for _, id := range ids {
		if !s.has(id) {
			t.Fatalf("lost %x", id)
		}
		id[15] ^= 0x80
		if s.has(id) {
			t.Fatalf("found %x, never added", id)
		}
	}
}
