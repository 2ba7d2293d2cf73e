package registry

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/jobgen/jobgen/generated/jobs"
)

// An index finds values by a key each value carries, without a lock: a read
// is two atomic loads and a probe of an open-addressed table. Writes take
// the lock of the key's stripe and publish every change with an atomic
// store, growing a stripe by building a new table and publishing it whole,
// so a reader sees either the old table or the new one, never a half-built
// one. A reader holding an older table may miss a value inserted meanwhile or
// find one deleted meanwhile: it reads as if it came just before that write.
// Values are pointers the index stores as they are; it allocates only when a
// stripe grows.
type index[K comparable, V any] struct {
	key     func(*V) K
	hash    func(K) uint64
	tomb    *V // marks a deleted slot, so probes run past it
	shift   uint8
	stripes []indexStripe[V] // a power of two of them
}

type indexStripe[V any] struct {
	mu    sync.Mutex
	table atomic.Pointer[[]atomic.Pointer[V]] // length a power of two; nil until the first insert
	live  int                                 // values held; guarded by mu
	dead  int                                 // tombstones; guarded by mu
	_     [32]byte                            // keep stripes' locks on lines of their own
}

// newIndex returns an index of 1<<stripeBits stripes: writes to different
// stripes take different locks.
func newIndex[K comparable, V any](stripeBits uint8, key func(*V) K, hash func(K) uint64) *index[K, V] {
	return &index[K, V]{key: key, hash: hash, tomb: new(V), shift: 64 - stripeBits, stripes: make([]indexStripe[V], 1<<stripeBits)}
}

func (x *index[K, V]) stripe(h uint64) *indexStripe[V] {
	return &x.stripes[h>>x.shift&uint64(len(x.stripes)-1)]
}

// get returns the value whose key is k, or nil.
func (x *index[K, V]) get(k K) *V {
	h := x.hash(k)
	return x.find(x.stripe(h), k, h)
}

// insert adds v unless a value with its key is held, and returns the value
// held under that key afterwards: v, or the one that was there.
func (x *index[K, V]) insert(v *V) *V {
	return x.getOrInsert(x.key(v), func() *V { return v })
}

// getOrInsert returns the value held under k, or else inserts and returns
// the one made by newV. newV runs under the stripe's lock, so it is ordered
// with appendAll: a value made after an appendAll passed its stripe sees
// everything written before that appendAll took the stripe's lock.
func (x *index[K, V]) getOrInsert(k K, newV func() *V) *V {
	h := x.hash(k)
	s := x.stripe(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := x.find(s, k, h); old != nil {
		return old
	}
	if t := s.table.Load(); t == nil || 4*(s.live+s.dead+1) > 3*len(*t) {
		x.rebuild(s, s.live+1)
	}
	v := newV()
	slots := *s.table.Load()
	mask := uint64(len(slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if cur := slots[i].Load(); cur == nil || cur == x.tomb {
			if cur == x.tomb {
				s.dead--
			}
			slots[i].Store(v)
			s.live++
			return v
		}
	}
}

// delete removes v, if it is held. A slot whose successor is empty ends
// every probe that reaches it, so it is emptied rather than marked, and so
// are the marks before it: a table that values pass through leaves no
// tombstones behind, and needs no rebuild.
func (x *index[K, V]) delete(v *V) {
	h := x.hash(x.key(v))
	s := x.stripe(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.table.Load()
	if t == nil {
		return
	}
	slots := *t
	mask := uint64(len(slots) - 1)
	i := h & mask
	for {
		cur := slots[i].Load()
		if cur == nil {
			return
		}
		if cur == v {
			break
		}
		i = (i + 1) & mask
	}
	s.live--
	if slots[(i+1)&mask].Load() != nil {
		slots[i].Store(x.tomb)
		s.dead++
	} else {
		slots[i].Store(nil)
		for j := (i - 1) & mask; slots[j].Load() == x.tomb; j = (j - 1) & mask {
			slots[j].Store(nil)
			s.dead--
		}
	}
	if s.dead > s.live && len(slots) > minIndexSlots {
		x.rebuild(s, s.live) // mostly tombstones: shrink, so probes stay short
	}
}

// find returns the value held under k in s, or nil. It reads the table
// and its slots through atomic loads, so get calls it without s.mu; a
// writer calls it holding s.mu, so that what it finds stays true.
func (x *index[K, V]) find(s *indexStripe[V], k K, h uint64) *V {
	t := s.table.Load()
	if t == nil {
		return nil
	}
	slots := *t
	mask := uint64(len(slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		v := slots[i].Load()
		if v == nil {
			return nil
		}
		if v != x.tomb && x.key(v) == k {
			return v
		}
	}
}

const minIndexSlots = 8

// rebuild publishes a new table for s, sized for n values at most half
// full, holding every value of the old one and no tombstones. s.mu must be
// held.
func (x *index[K, V]) rebuild(s *indexStripe[V], n int) {
	size := minIndexSlots
	for size < 2*n {
		size *= 2
	}
	slots := make([]atomic.Pointer[V], size)
	mask := uint64(size - 1)
	if t := s.table.Load(); t != nil {
		for i := range *t {
			v := (*t)[i].Load()
			if v == nil || v == x.tomb {
				continue
			}
			j := x.hash(x.key(v)) & mask
			for slots[j].Load() != nil {
				j = (j + 1) & mask
			}
			slots[j].Store(v)
		}
	}
	s.dead = 0
	s.table.Store(&slots)
}

// lockAll takes every stripe's lock, so no write runs until unlockAll.
func (x *index[K, V]) lockAll() {
	for i := range x.stripes {
		x.stripes[i].mu.Lock()
	}
}

func (x *index[K, V]) unlockAll() {
	for i := range x.stripes {
		x.stripes[i].mu.Unlock()
	}
}

// appendAll appends every value held to out. Called under lockAll it
// returns what the index holds at that moment; otherwise each stripe is
// read as its lock sees it.
func (x *index[K, V]) appendAll(out []*V, locked bool) []*V {
	for i := range x.stripes {
		s := &x.stripes[i]
		if !locked {
			s.mu.Lock()
		}
		if t := s.table.Load(); t != nil {
			for k := range *t {
				if v := (*t)[k].Load(); v != nil && v != x.tomb {
					out = append(out, v)
				}
			}
		}
		if !locked {
			s.mu.Unlock()
		}
	}
	return out
}

// hashJobID spreads a JobID over 64 bits. Default ids are random, but ids
// from WithIDs may differ in one byte only: the high half is rotated so that
// none of its bytes lines up with the low half's, and the finaliser moves
// every input bit to every output bit.
func hashJobID(id jobs.JobID) uint64 {
	lo := binary.LittleEndian.Uint64(id[:8])
	hi := binary.LittleEndian.Uint64(id[8:])
	return mix64(lo ^ bits.RotateLeft64(hi, 29))
}

// mix64 is the finaliser of SplitMix64: every input bit moves every output
// bit.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// stringHasher hashes owner sessions and kinds, which callers choose, with a
// seed of the registry's own, so no chosen set of names lands on one stripe
// of every registry.
func stringHasher() func(string) uint64 {
	seed := maphash.MakeSeed()
	return func(s string) uint64 { return maphash.String(seed, s) }
}
