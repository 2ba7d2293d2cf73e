package registry

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A shard holds one owner's jobs (the unowned jobs have one too) and what
// admitting, registering and settling them needs. Its mutex guards the
// fields below it and the lifecycle bookkeeping of the owner's jobs, so
// starts and settlements of different owners never meet on one lock.
// Shards are made by the first start of an owner and dropped by
// DisposeOwner once nothing is left in them.
type shard struct {
	owner jobs.SessionID
	order uint64 // creation order: Load takes shards' locks in it

	mu sync.Mutex
	// list holds the registered jobs in registration order, so List and
	// DisposeOwner cost what the owner has.
	list []*job
	seq  uint64 // the last registration's seq
	// lastSeq publishes seq to other shards' registrations, for List's
	// merge with the unowned jobs; only the unowned shard's is read.
	lastSeq atomic.Uint64
	active  int // running + stopping + starting
	// queue holds the owner's StartWait callers in arrival order.
	queue []*slotWaiter
	// running and stopping count live jobs by status, for Load.
	running, stopping int
	closed            bool
	// removed marks a shard DisposeOwner dropped: a start that finds it
	// takes a new one.
	removed bool
	// registering counts jobs whose registered fact is being recorded; a
	// teardown that must wait for them sets regIdle, closed when the count
	// drops back to zero.
	registering int
	regIdle     chan struct{}
	_           [48]byte // 192 bytes: shards of different owners share no cache line
}

// A kindCounter issues the ordinals of one kind.
type kindCounter struct {
	kind string
	last atomic.Int64
}

// lockShard returns owner's shard, made if need be, with its lock held.
func (r *Registry) lockShard(owner jobs.SessionID) *shard {
	for {
		sh := r.shards.get(owner)
		if sh == nil {
			sh = r.shards.getOrInsert(owner, func() *shard { return r.newShard(owner) })
		}
		sh.mu.Lock()
		if !sh.removed {
			return sh
		}
		sh.mu.Unlock()
		r.shards.delete(sh) // its remover may not have got that far yet
	}
}

// newShard makes the shard of owner. It runs under the directory's stripe
// lock, so a Close that has not yet listed that stripe lists the new shard,
// and one that has makes it closed here.
func (r *Registry) newShard(owner jobs.SessionID) *shard {
	return &shard{owner: owner, order: r.shardOrder.Add(1), closed: r.closed.Load()}
}

// allShards returns every shard, in creation order; with locked, the
// directory's stripes are held (see index.lockAll).
func (r *Registry) allShards(locked bool) []*shard {
	all := r.shards.appendAll(nil, locked)
	slices.SortFunc(all, func(a, b *shard) int { return cmp.Compare(a.order, b.order) })
	return all
}

// dropIfEmpty drops a shard DisposeOwner emptied: no jobs, no starts and no
// waiters. sh.mu must be held; the caller deletes it from the directory
// after unlocking (dropShard).
func (sh *shard) dropIfEmpty() bool {
	if sh.owner == "" || len(sh.list) > 0 || sh.active > 0 || len(sh.queue) > 0 || sh.registering > 0 {
		return false
	}
	sh.removed = true
	return true
}

// ordinal issues the next ordinal of kind.
func (r *Registry) ordinal(kind string) int {
	c := r.kinds.get(kind)
	if c == nil {
		c = r.kinds.getOrInsert(kind, func() *kindCounter { return &kindCounter{kind: kind} })
	}
	return int(c.last.Add(1))
}

// register makes j the owner's latest registration. sh.mu must be held.
func (sh *shard) register(j *job, unowned *shard) {
	sh.seq++
	j.seq = sh.seq
	if sh == unowned {
		sh.lastSeq.Store(sh.seq)
	} else {
		j.after = unowned.lastSeq.Load()
	}
	sh.list = append(sh.list, j)
}

// unlist takes a removed job out of the list. sh.mu must be held.
func (sh *shard) unlist(j *job) {
	i, found := slices.BinarySearchFunc(sh.list, j.seq, func(e *job, seq uint64) int { return cmp.Compare(e.seq, seq) })
	if found {
		sh.list = slices.Delete(sh.list, i, i+1)
	}
}

// releaseSlot gives back one admission slot. sh.mu must be held.
func (sh *shard) releaseSlot() {
	if sh.handOff() {
		return
	}
	sh.active--
}

// stop moves a running job to stopping and reports whether it moved.
// sh.mu must be held.
func (sh *shard) stop(j *job) bool {
	if !lifecycle.CanTransition(j.status, jobs.JobStatusStopping) {
		return false
	}
	j.status = jobs.JobStatusStopping
	sh.running--
	sh.stopping++
	return true
}

// unload takes a settling job out of the live counts by the status it
// leaves. sh.mu must be held.
func (sh *shard) unload(from jobs.JobStatus) {
	switch from {
	case jobs.JobStatusRunning:
		sh.running--
	case jobs.JobStatusStopping:
		sh.stopping--
	}
}
