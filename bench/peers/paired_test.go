package peers

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// paired runs b.N ops through each side in alternating blocks of up to
// block ops, rotating which side goes first, and returns the time each side
// took. sides[i](k) runs k ops of side i. Pairing the sides in one loop lets
// them see the same drift in the machine's speed; fsync latency drifts with
// every other process's I/O.
func paired(b *testing.B, block int, sides ...func(k int)) []time.Duration {
	took := make([]time.Duration, len(sides))
	for done, turn := 0, 0; done < b.N; done, turn = done+block, turn+1 {
		k := min(block, b.N-done)
		for j := range sides {
			i := (turn + j) % len(sides)
			start := time.Now()
			sides[i](k)
			took[i] += time.Since(start)
		}
	}
	return took
}

// committers runs k calls of commit across n goroutines.
func committers(b *testing.B, n, k int, commit func() error) {
	var left atomic.Int64
	left.Store(int64(k))
	var wg sync.WaitGroup
	for range min(n, k) {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := commit(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// perOp reports d over b.N ops as a metric in ns.
func perOp(b *testing.B, d time.Duration, unit string) {
	b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), unit)
}
