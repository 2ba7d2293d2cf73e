package registry

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
)

type entry struct {
	key int
	val int
}

// badHash puts every key on one stripe and most on one probe chain, so
// tombstones, wrap-around and rebuilds are all exercised.
func badHash(k int) uint64 { return uint64(k % 3) }

// The index answers every lookup as a map does, through inserts, deletes,
// rebuilds and shrinks, with a hash as good as the job table's and with one
// that puts every key on one chain.
func TestIndexAgreesWithAMap(t *testing.T) {
	for name, hash := range map[string]func(int) uint64{
		"mixed": func(k int) uint64 { return mix64(uint64(k)) },
		"bad":   badHash,
	} {
		t.Run(name, func(t *testing.T) {
			x := newIndex(2, func(e *entry) int { return e.key }, hash)
			want := map[int]*entry{}
			rng := rand.New(rand.NewPCG(1, 2))
			for step := range 20_000 {
				k := rng.IntN(300)
				switch op := rng.IntN(3); {
				case op < 2:
					e := &entry{key: k, val: step}
					got := x.insert(e)
					if old, ok := want[k]; ok {
						if got != old {
							t.Fatalf("step %d: insert(%d) replaced the held value", step, k)
						}
					} else {
						if got != e {
							t.Fatalf("step %d: insert(%d) of a new key returned another value", step, k)
						}
						want[k] = e
					}
				default:
					if old, ok := want[k]; ok {
						x.delete(old)
						delete(want, k)
					} else {
						x.delete(&entry{key: k}) // not held: nothing changes
					}
				}
				if step%97 == 0 {
					for k := range 300 {
						if got := x.get(k); got != want[k] {
							t.Fatalf("step %d: get(%d) = %v, want %v", step, k, got, want[k])
						}
					}
					if got := len(x.appendAll(nil, false)); got != len(want) {
						t.Fatalf("step %d: %d values listed, want %d", step, got, len(want))
					}
				}
			}
		})
	}
}

// Readers that take no lock see, for a key that stays held, always that
// value, while other keys are inserted and deleted and the table is rebuilt
// around it (run with -race).
func TestIndexReadsWithoutLockDuringWrites(t *testing.T) {
	x := newIndex(6, func(j *job) jobs.JobID { return j.id }, hashJobID)
	stay := &job{id: jobs.JobID{1}}
	x.insert(stay)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if got := x.get(stay.id); got != stay {
					t.Errorf("get = %v, want the held job", got)
					return
				}
			}
		})
	}
	for round := range 200 {
		var batch []*job
		for i := range 64 {
			j := &job{id: jobs.JobID{0: 2, 1: byte(round), 2: byte(i)}}
			x.insert(j)
			batch = append(batch, j)
		}
		for _, j := range batch {
			x.delete(j)
		}
	}
	close(stop)
	wg.Wait()
	if n := len(x.appendAll(nil, false)); n != 1 {
		t.Fatalf("%d values left, want 1", n)
	}
}
