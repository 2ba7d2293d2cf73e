package agenttools

import (
	"sync"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// cursors holds the output cursor of every job job_output has read, by id.
// The registry's Read consumes: what a read returns is the producer's to
// give once. job_output returns at most a budget per call, so the rest of a
// read waits here for the next call, whichever Toolset of the job's session
// makes it. Every use is fenced first by a registry call with the caller's
// session, so what waits here for one session is never shown to another.
// The carry and the done mark exist because of what Read does; they would go
// if the registry's Read handed a final output out once, as it hands the
// result, and took a byte limit that left the rest with the producer.
type cursors struct {
	mu sync.Mutex
	m  map[jobs.JobID]*cursor
}

// A cursor is the state of job_output on one job.
type cursor struct {
	mu      sync.Mutex // held across a whole job_output call on the job
	owner   jobs.SessionID
	carry   string // read from the registry, valid UTF-8, not yet shown
	partial string // the start of a rune the last read cut, held for the next
	done    bool   // a read of the settled job was taken: nothing more will come
	result  string // the job's result, taken by that read, shown with the last of the carry
}

// get returns the cursor of id, making it when there is none.
func (cs *cursors) get(id jobs.JobID) *cursor {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.m == nil {
		cs.m = map[jobs.JobID]*cursor{}
	}
	c := cs.m[id]
	if c == nil {
		c = &cursor{}
		cs.m[id] = c
	}
	return c
}

// forget drops the cursor of a job the registry no longer holds.
func (cs *cursors) forget(id jobs.JobID) {
	cs.mu.Lock()
	delete(cs.m, id)
	cs.mu.Unlock()
}

// drop drops the cursors of ids, jobs the registry removed.
func (cs *cursors) drop(ids []jobs.JobID) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, id := range ids {
		delete(cs.m, id)
	}
}

// dropOwner drops the cursors of owner's jobs: its session was disposed.
func (cs *cursors) dropOwner(owner jobs.SessionID) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for id, c := range cs.m {
		if c.owner == owner {
			delete(cs.m, id)
		}
	}
}

// prune drops the cursors of owner's jobs that are not in live, the ids a
// List for owner returned: jobs removed or disposed since they were read.
func (cs *cursors) prune(owner jobs.SessionID, live map[jobs.JobID]bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for id, c := range cs.m {
		if c.owner == owner && !live[id] {
			delete(cs.m, id)
		}
	}
}

// take adds what a read returned to the carry. A live job's producer may
// hand out half a rune at the end of a read; it is held until the rest
// comes. The last read (final) lets nothing wait: a rune still incomplete
// then is invalid, and every invalid byte becomes U+FFFD, one per byte as
// the record has it (registry.ValidUTF8), so the text does not depend on
// how the producer's reads split it, the carry is valid UTF-8 and its byte
// counts are the ones the model sees in JSON.
func (c *cursor) take(text string, final bool) {
	text = c.partial + text
	c.partial = ""
	if !final {
		if i := registry.CompleteUTF8(text); i < len(text) {
			text, c.partial = text[:i], text[i:]
		}
	}
	c.carry += registry.ValidUTF8(text)
}

// next removes and returns up to n bytes of the carry, cut on a rune
// boundary, and how many bytes stay.
func (c *cursor) next(n int) (out string, left int) {
	out = cutUTF8(c.carry, n)
	c.carry = c.carry[len(out):]
	return out, len(c.carry)
}
