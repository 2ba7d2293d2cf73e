package jobhistory

import (
	"math/rand/v2"
	"runtime"
	"testing"
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
