package jobhistory

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSettledSet is the projection's use of its set of settled jobs,
// against the map it replaced: for each job a miss when it registers, and a
// miss and an add when it settles. Each op is one job.
func BenchmarkSettledSet(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	ids := make([][16]byte, 500_000)
	for i := range ids {
		for k := range ids[i] {
			ids[i][k] = byte(r.Uint32())
		}
	}
	b.Run("idSet", func(b *testing.B) {
		var s idSet
		defer s.free()
		for i := 0; b.Loop(); i++ {
			if i%len(ids) == 0 {
				s.free()
			}
			id := ids[i%len(ids)]
			if s.has(id) || !s.add(id) {
				b.Fatal("seen twice")
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		m := map[[16]byte]struct{}{}
		for i := 0; b.Loop(); i++ {
			if i%len(ids) == 0 {
				m = map[[16]byte]struct{}{}
			}
			id := ids[i%len(ids)]
			if _, ok := m[id]; ok {
				b.Fatal("seen twice")
			}
			if _, ok := m[id]; ok {
				b.Fatal("seen twice")
			}
			m[id] = struct{}{}
		}
	})
}
