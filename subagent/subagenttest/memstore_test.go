package subagenttest_test

import (
	"sync"
	"testing"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/storetest"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// TestMemStoreConformance holds the test double to the contract every
// journal backend keeps, so that what the manager's tests prove over it
// holds over a real store. A reopen is a restart: Crash of a closed store
// is everything it held.
func TestMemStoreConformance(t *testing.T) {
	var mu sync.Mutex
	stores := map[*testing.T]*subagenttest.MemStore{}
	storetest.Run(t, func(t *testing.T) journal.Store {
		mu.Lock()
		defer mu.Unlock()
		s := subagenttest.NewMemStore()
		if prev, ok := stores[t]; ok {
			s = prev.Crash()
		}
		stores[t] = s
		return s
	}, storetest.WithCrash(func(t *testing.T, s journal.Store) journal.Store {
		return s.(*subagenttest.MemStore).Crash()
	}), storetest.WithFull(func(t *testing.T, stream journal.Stream) journal.Store {
		s := subagenttest.NewMemStore()
		s.StartStreamAt(stream, journal.MaxSeq)
		if _, err := s.Append(t.Context(), stream, journal.Entry{Payload: []byte(`{"last":true}`)}); err != nil {
			t.Fatal(err)
		}
		return s
	}))
}
