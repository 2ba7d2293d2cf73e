package registry

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// firstEndingAfter's guess from the average chunk size never changes its
// answer: for rings of alike and of wildly different chunks, wrapped or
// not, it agrees with a linear scan at every offset around the window.
func TestFirstEndingAfterAgreesWithAScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		r := newRing(64 + rng.IntN(512))
		for range rng.IntN(300) {
			size := 1 + rng.IntN(8)
			if round%2 == 1 {
				size = 1 + rng.IntN(200) // some of them past the limit
			}
			r.append(strings.Repeat("z", size), 0, 0, false)
		}
		for from := r.start - 3; from <= r.total+3; from++ {
			want := 0
			for want < r.count && r.end(want) <= from {
				want++
			}
			if got := r.firstEndingAfter(from); got != want {
				t.Fatalf("round %d: firstEndingAfter(%d) = %d, want %d (window [%d, %d), %d chunks)", round, from, got, want, r.start, r.total, r.count)
			}
		}
	}
}
