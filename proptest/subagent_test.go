package proptest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"testing/synctest"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// TestSubagentMachine is the model-based state machine of the continuation
// manager. Random starts, follow-ups (by the parent, by
// a copy of it, by another parent), turns (also ones that fail before
// taking their input), reports, interrupts, drains (also ones that linger
// while a turn ignores its cancellation), flushes, provider removal,
// crashes and graceful restarts run inside a synctest bubble against a
// Service over an in-memory store that can crash, and a scripted host.
// Each process draws whether it checkpoints, so cold resumes start from
// checkpoints and pointers that earlier processes wrote (or read whole
// streams), and misdirected pointers lead anywhere, while the model folds
// every stream from its start and trusts no checkpoint. After every action check verifies:
//
//   - no message lost: every id handed out before a flush is on the stream
//     after any later crash; a cold resume delivers exactly the accepted
//     messages nobody claimed or discarded, in acceptance order, then the
//     follow-up;
//   - none duplicated: each message has at most one accepted and at most
//     one claimed-or-discarded fact; no agent gets a message twice; a
//     message claimed in one residency is never delivered to a later
//     residency of the same process;
//   - reports reach only the direct parent's agents;
//   - nothing is accepted after a drain's cutoff: while a drain lingers its
//     scope refuses follow-ups, starts and reports, and when it returns
//     every drained child's stream has nothing waiting and ends its
//     residency;
//   - teardown disposes children before parents; a quiescent child with no
//     live children is disposed at once;
//   - each residency has exactly one started and one ended fact (checked
//     at the end, once every child was resumed and the manager closed);
//   - a copy of a parent, or another parent, is never authorized.
func TestSubagentMachine(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		rapid.SyncTest(rt, func(rt *rapid.T) {
			m := newSubMachine(rt)
			defer func() {
				for _, p := range m.procs {
					p.svc.Close(context.Background())
				}
			}()
			rt.Repeat(m.actions())
			m.finish(rt)
		})
	})
}

var childPool = []jobs.SessionID{"c1", "c2", "c3", "c4", "c5"}

// A subMachine is the harness: the store, the current process, and what
// the model knows.
type subMachine struct {
	rt    *rapid.T
	store *subagenttest.MemStore
	proc  *subProc
	procs []*subProc // every process, the current one last
	// parent is each created child's direct parent.
	parent map[jobs.SessionID]jobs.SessionID
	// handed are the message ids handed to callers, by child.
	handed map[jobs.SessionID][]subagents.MessageID
	// flushed are the ids handed out before the last explicit flush.
	flushed map[subagents.MessageID]jobs.SessionID
	// reports maps each delivered report to the parent it was for.
	reports     map[subagents.MessageID]jobs.SessionID
	providerOff bool
	misdirected int // pointers appended by misdirect
}

// A subProc is one process: a Service, its host and its attached root.
type subProc struct {
	svc    *subagent.Service
	host   *subagenttest.Host
	root   *subagenttest.Agent
	remove func()
	closed bool
}

func newSubMachine(rt *rapid.T) *subMachine {
	m := &subMachine{
		rt:      rt,
		store:   subagenttest.NewMemStore(),
		parent:  map[jobs.SessionID]jobs.SessionID{},
		handed:  map[jobs.SessionID][]subagents.MessageID{},
		flushed: map[subagents.MessageID]jobs.SessionID{},
		reports: map[subagents.MessageID]jobs.SessionID{},
	}
	m.proc = m.newProc()
	return m
}

func (m *subMachine) newProc() *subProc {
	p := &subProc{host: subagenttest.NewHost(), root: subagenttest.NewAgent("root")}
	p.host.OnDispose = func(a *subagenttest.Agent) {
		for _, b := range p.host.Agents() {
			if b != a && !b.Disposed() && b.Child.Header.ParentSession == a.ID() {
				m.rt.Errorf("teardown disposed %s before its live child %s", a.ID(), b.ID())
			}
		}
		// Let the other teardowns run while this agent is still being
		// disposed, so that a parent not waiting for its children shows.
		for range 3 {
			runtime.Gosched()
		}
	}
	// Each process draws whether it checkpoints: off, every resume reads
	// the whole stream, checkpoints of other processes included.
	checkpoints := rapid.IntRange(0, 3).Draw(m.rt, "checkpoints") > 0
	p.svc = subagent.New(subagent.WithStore(m.store), subagent.WithHost(p.host), subagent.WithCheckpoints(checkpoints))
	if _, err := p.svc.Attach(p.root); err != nil {
		m.rt.Fatal(err)
	}
	if !m.providerOff {
		p.remove = m.register(p)
	}
	m.procs = append(m.procs, p)
	return p
}

func (m *subMachine) register(p *subProc) func() {
	remove, err := p.svc.RegisterProvider(&subagenttest.Provider{ProviderName: "fork"})
	if err != nil {
		m.rt.Fatal(err)
	}
	return remove
}

func (m *subMachine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"start":          m.start,
		"followup":       m.followup,
		"turn":           m.turn,
		"begin":          m.begin,
		"end":            m.end,
		"failTurn":       m.failTurn,
		"report":         m.report,
		"interrupt":      m.interrupt,
		"drainChildren":  m.drainChildren,
		"drainLingering": m.drainLingering,
		"flush":          m.flush,
		"crash":          m.crash,
		"restart":        m.restart,
		"toggleProvider": m.toggleProvider,
		"misdirect":      m.misdirect,
		"":               m.check,
	}
}

func text(s string) []subagents.ContentBlock {
	return []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: s}}
}

// resident returns the live agents of the current process, in creation order.
func (m *subMachine) resident() []*subagenttest.Agent {
	var out []*subagenttest.Agent
	for _, a := range m.proc.host.Agents() {
		if !a.Disposed() {
			out = append(out, a)
		}
	}
	return out
}

// agentOf returns the live agent of session id in the current process:
// the root, a resident child's, or nil.
func (m *subMachine) agentOf(id jobs.SessionID) *subagenttest.Agent {
	if id == "root" {
		return m.proc.root
	}
	return m.proc.host.Agent(id)
}

func (m *subMachine) hasHistory(id jobs.SessionID) bool {
	return m.store.Len(journal.Stream(id)) > 0
}

// parentChoice draws who acts as a parent: a live agent (root or resident
// child), or a copy of one, which must never be authorized.
func (m *subMachine) parentChoice(t *rapid.T) (agent subagent.Agent, exact bool) {
	cands := append([]*subagenttest.Agent{m.proc.root}, m.resident()...)
	a := cands[rapid.IntRange(0, len(cands)-1).Draw(t, "parent")]
	if rapid.IntRange(0, 5).Draw(t, "copy") == 0 {
		return subagenttest.NewAgent(a.ID()), false
	}
	return a, true
}

func (m *subMachine) start(t *rapid.T) {
	parent, exact := m.parentChoice(t)
	m.startUnder(t, parent, exact)
}

func (m *subMachine) startUnder(t *rapid.T, parent subagent.Agent, exact bool) {
	var free []jobs.SessionID
	for _, id := range childPool {
		if !m.hasHistory(id) && m.proc.host.Agent(id) == nil {
			free = append(free, id)
		}
	}
	pool := childPool
	if len(free) > 0 && rapid.IntRange(0, 3).Draw(t, "fresh") > 0 {
		pool = free
	}
	id := rapid.SampledFrom(pool).Draw(t, "child")
	before := m.store.Len(journal.Stream(id))
	live := m.proc.host.Agent(id) != nil
	got, msg, err := m.proc.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{
		Provider: "fork", Label: "child " + string(id), ChildID: id, Parent: parent, Prompt: text("prompt"),
	})
	var want error
	switch {
	case m.providerOff:
		want = subagent.ErrNoProvider
	case id == parent.ID() || live:
		want = subagent.ErrDuplicateChild
	case !exact:
		want = subagent.ErrUnauthorized
	case before > 0:
		want = subagent.ErrDuplicateChild
	}
	synctest.Wait()
	if want != nil {
		if !errors.Is(err, want) {
			t.Fatalf("start %s under %s (exact %v): %v, want %v", id, parent.ID(), exact, err, want)
		}
		if m.store.Len(journal.Stream(id)) != before {
			t.Fatalf("a refused start of %s wrote to its stream", id)
		}
		return
	}
	if err != nil || got != id {
		t.Fatalf("start %s under %s: %v", id, parent.ID(), err)
	}
	m.parent[id] = parent.ID()
	m.accepted(t, id, msg)
}

// accepted notes a message handed out for child and checks that its
// accepted fact was written before the id was returned.
func (m *subMachine) accepted(t *rapid.T, child jobs.SessionID, msg subagents.MessageID) {
	m.handed[child] = append(m.handed[child], msg)
	for _, f := range m.facts(child) {
		if a, ok := f.(subagents.SubagentMessageAccepted); ok && a.Message == msg {
			return
		}
	}
	t.Fatalf("message %v was handed out for %s without an accepted fact", msg, child)
}

func (m *subMachine) followup(t *rapid.T) {
	var created []jobs.SessionID
	for _, id := range childPool {
		if m.hasHistory(id) {
			created = append(created, id)
		}
	}
	if len(created) == 0 {
		t.Skip("no child yet")
	}
	id := rapid.SampledFrom(created).Draw(t, "child")
	parentID := m.parent[id]
	var parent subagent.Agent
	exact := false
	switch rapid.IntRange(0, 5).Draw(t, "who") {
	case 0:
		parent = subagenttest.NewAgent(parentID) // a copy
	case 1:
		parent = m.proc.root
		exact = parentID == "root"
	default:
		if a := m.agentOf(parentID); a != nil {
			parent, exact = a, true
		} else {
			parent = subagenttest.NewAgent(parentID) // the parent is not live: only its id is at hand
		}
	}
	before := m.store.Len(journal.Stream(id))
	prev := m.proc.host.Agent(id)
	pending := m.pendingOnStream(id)
	msg, err := m.proc.svc.Followup(context.Background(), parent, id, text("more"), subagent.FollowupOptions{})
	synctest.Wait()
	if !exact {
		if !errors.Is(err, subagent.ErrUnauthorized) {
			t.Fatalf("follow-up to %s by %s (not its exact live parent %s): %v, want ErrUnauthorized", id, parent.ID(), parentID, err)
		}
		if m.store.Len(journal.Stream(id)) != before {
			t.Fatalf("an unauthorized follow-up wrote to %s", id)
		}
		return
	}
	if err != nil {
		t.Fatalf("follow-up to %s by its parent %s: %v", id, parentID, err)
	}
	m.accepted(t, id, msg)
	now := m.proc.host.Agent(id)
	if now == nil {
		return // it may have settled at once only if it claimed; never without a turn
	}
	if prev != nil {
		if now != prev {
			t.Fatalf("a follow-up to resident %s made a new agent", id)
		}
		return
	}
	want := append(ids(pending), msg)
	if got := ids(now.Delivered()); !slices.Equal(got, want) {
		t.Fatalf("cold resume of %s delivered %v, want the unclaimed %v then the follow-up", id, got, want)
	}
}

func ids(msgs []subagents.Message) []subagents.MessageID {
	var out []subagents.MessageID
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return out
}

func (m *subMachine) pickResident(t *rapid.T, ok func(*subagenttest.Agent) bool) *subagenttest.Agent {
	var cands []*subagenttest.Agent
	for _, a := range m.resident() {
		if ok == nil || ok(a) {
			cands = append(cands, a)
		}
	}
	if len(cands) == 0 {
		t.Skip("no resident child fits")
	}
	return cands[rapid.IntRange(0, len(cands)-1).Draw(t, "agent")]
}

var stopReasons = subagents.StopReasonValues()

func (m *subMachine) turn(t *rapid.T) {
	a := m.pickResident(t, func(a *subagenttest.Agent) bool { return !a.InTurn() })
	a.BeginTurn()
	a.EndTurn(rapid.SampledFrom(stopReasons).Draw(t, "reason"), rapid.SampledFrom([]string{"", "done"}).Draw(t, "last"))
	synctest.Wait()
}

func (m *subMachine) begin(t *rapid.T) {
	a := m.pickResident(t, func(a *subagenttest.Agent) bool { return !a.InTurn() })
	a.BeginTurn()
	synctest.Wait()
}

func (m *subMachine) end(t *rapid.T) {
	a := m.pickResident(t, func(a *subagenttest.Agent) bool { return a.InTurn() })
	a.EndTurn(rapid.SampledFrom(stopReasons).Draw(t, "reason"), "")
	synctest.Wait()
}

// failTurn ends a turn owed to a waking delivery before it takes anything:
// the manager discards what no turn took, unless the agent waits on live
// children.
func (m *subMachine) failTurn(t *rapid.T) {
	a := m.pickResident(t, func(a *subagenttest.Agent) bool { return !a.InTurn() && a.Wanted() })
	a.FailTurn(subagents.StopReasonError)
	synctest.Wait()
}

func (m *subMachine) report(t *rapid.T) {
	a := m.pickResident(t, nil)
	var from subagent.Agent = a
	copied := rapid.IntRange(0, 5).Draw(t, "copy") == 0
	if copied {
		from = subagenttest.NewAgent(a.ID())
	}
	delivery := rapid.SampledFrom(subagents.DeliveryValues()).Draw(t, "delivery")
	parentID := a.Child.Header.ParentSession
	parent := m.agentOf(parentID)
	msg, err := m.proc.svc.ReportFrom(context.Background(), from, text("report"), subagent.ReportOptions{Delivery: delivery})
	synctest.Wait()
	switch {
	case copied:
		if !errors.Is(err, subagent.ErrUnauthorized) {
			t.Fatalf("report from a copy of %s: %v, want ErrUnauthorized", a.ID(), err)
		}
	case parent == nil:
		if !errors.Is(err, subagent.ErrParentUnavailable) {
			t.Fatalf("report from %s to absent %s: %v, want ErrParentUnavailable", a.ID(), parentID, err)
		}
	default:
		if err != nil {
			t.Fatalf("report from %s to %s: %v", a.ID(), parentID, err)
		}
		m.reports[msg] = parentID
		if parentID != "root" {
			m.accepted(t, parentID, msg)
		}
		if !slices.Contains(ids(parent.Delivered()), msg) {
			t.Fatalf("report from %s did not reach its parent %s", a.ID(), parentID)
		}
	}
}

func (m *subMachine) interrupt(t *rapid.T) {
	a := m.pickResident(t, nil)
	queued := len(a.Queued())
	by := subagent.ByUser(a.Child.Header.ParentSession)
	if rapid.Bool().Draw(t, "byAncestor") {
		by = subagent.ByAncestor(m.proc.root)
	}
	if err := m.proc.svc.Interrupt(a.ID(), by); err != nil {
		t.Fatalf("interrupt %s: %v", a.ID(), err)
	}
	if len(a.Queued()) != queued {
		t.Fatalf("interrupt of %s dropped its inbox", a.ID())
	}
	synctest.Wait()
}

// subtree lists the live agents at or below the given sessions.
func (m *subMachine) subtree(tops []jobs.SessionID) []*subagenttest.Agent {
	var out []*subagenttest.Agent
	in := map[jobs.SessionID]bool{}
	for _, id := range tops {
		in[id] = true
	}
	for changed := true; changed; {
		changed = false
		for _, a := range m.resident() {
			if !in[a.ID()] && in[a.Child.Header.ParentSession] {
				in[a.ID()] = true
				changed = true
			}
		}
	}
	for _, a := range m.resident() {
		if in[a.ID()] {
			out = append(out, a)
		}
	}
	return out
}

func (m *subMachine) drainChildren(t *rapid.T) {
	cands := append([]*subagenttest.Agent{m.proc.root}, m.resident()...)
	p := cands[rapid.IntRange(0, len(cands)-1).Draw(t, "parent")]
	var kids []jobs.SessionID
	for _, a := range m.resident() {
		if a.Child.Header.ParentSession == p.ID() && rapid.Bool().Draw(t, "pick "+string(a.ID())) {
			kids = append(kids, a.ID())
		}
	}
	all := rapid.Bool().Draw(t, "descendants")
	if all {
		kids = nil
		for _, a := range m.resident() {
			if a.Child.Header.ParentSession == p.ID() {
				kids = append(kids, a.ID())
			}
		}
	}
	drained := m.subtree(kids)
	var err error
	if all {
		err = m.proc.svc.DrainDescendants(context.Background(), []subagent.Agent{p})
	} else {
		err = m.proc.svc.DrainChildren(context.Background(), p, kids)
	}
	synctest.Wait()
	if err != nil {
		t.Fatalf("drain under %s: %v", p.ID(), err)
	}
	m.checkDrained(t, drained)
}

// checkDrained checks the drained agents are gone and their streams have
// nothing waiting and end their residency.
func (m *subMachine) checkDrained(t *rapid.T, drained []*subagenttest.Agent) {
	for _, a := range drained {
		if !a.Disposed() {
			t.Fatalf("drained %s was not disposed", a.ID())
		}
		if w := m.pendingOnStream(a.ID()); len(w) > 0 {
			t.Fatalf("drained %s still has %d accepted messages waiting", a.ID(), len(w))
		}
		fs := m.facts(a.ID())
		if _, ok := fs[len(fs)-1].(subagents.SubagentCheckpoint); ok {
			fs = fs[:len(fs)-1]
		}
		if _, ok := fs[len(fs)-1].(subagents.SubagentResidencyEnded); !ok {
			t.Fatalf("drained %s's stream ends with %s, not its residency's end (and checkpoint)", a.ID(), fs[len(fs)-1].FactType())
		}
	}
}

// drainLingering drains the descendants of a parent while one of them runs
// a turn that ignores its cancellation, and tries to get messages in
// meanwhile.
func (m *subMachine) drainLingering(t *rapid.T) {
	c := m.pickResident(t, nil)
	pid := c.Child.Header.ParentSession
	p := m.agentOf(pid)
	c.IgnoreCancel = true
	c.BeginTurn()
	drained := m.subtree([]jobs.SessionID{c.ID()})
	for _, a := range m.resident() {
		if a.Child.Header.ParentSession == pid {
			drained = append(drained, m.subtree([]jobs.SessionID{a.ID()})...)
		}
	}
	done := make(chan error, 1)
	go func() { done <- m.proc.svc.DrainDescendants(context.Background(), []subagent.Agent{p}) }()
	synctest.Wait()
	if _, err := m.proc.svc.Followup(context.Background(), p, c.ID(), text("late"), subagent.FollowupOptions{}); !errors.Is(err, subagent.ErrDraining) {
		t.Fatalf("follow-up to %s during its drain: %v, want ErrDraining", c.ID(), err)
	}
	if _, err := m.proc.svc.ReportFrom(context.Background(), c, text("late"), subagent.ReportOptions{}); err == nil {
		t.Fatalf("report from %s during its drain was accepted", c.ID())
	}
	id := rapid.SampledFrom(childPool).Draw(t, "lateChild")
	if _, _, err := m.proc.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{Provider: "fork", Label: "late", ChildID: id, Parent: p}); err == nil {
		t.Fatalf("start under %s during its drain succeeded", pid)
	}
	c.IgnoreCancel = false
	c.EndTurn(subagents.StopReasonAborted, "")
	if err := <-done; err != nil {
		t.Fatalf("drain under %s: %v", pid, err)
	}
	synctest.Wait()
	m.checkDrained(t, drained)
}

func (m *subMachine) flush(t *rapid.T) {
	if err := m.store.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	for child, msgs := range m.handed {
		for _, id := range msgs {
			m.flushed[id] = child
		}
	}
}

// crash ends the process abruptly: the next one finds only what was
// flushed. The old process is closed afterwards, against the old store, so
// that its goroutines end.
func (m *subMachine) crash(t *rapid.T) {
	next := m.store.Crash()
	old := m.proc
	if err := old.svc.Close(context.Background()); err != nil {
		t.Fatalf("close the crashed process: %v", err)
	}
	old.closed = true
	synctest.Wait()
	m.store = next
	m.afterRestart(t)
}

// restart ends the process gracefully: Close, then a new process.
func (m *subMachine) restart(t *rapid.T) {
	waiting := map[jobs.SessionID][]subagents.MessageID{}
	for _, id := range childPool {
		waiting[id] = ids(m.pendingOnStream(id))
	}
	if err := m.proc.svc.Close(context.Background()); err != nil {
		t.Fatalf("close: %v", err)
	}
	m.proc.closed = true
	synctest.Wait()
	for _, id := range childPool {
		if got := ids(m.pendingOnStream(id)); !slices.Equal(got, waiting[id]) {
			t.Fatalf("Close changed what waits for %s: %v, was %v", id, got, waiting[id])
		}
	}
	m.store = m.store.Crash()
	m.afterRestart(t)
}

func (m *subMachine) afterRestart(t *rapid.T) {
	for id, child := range m.flushed {
		found := false
		for _, f := range m.facts(child) {
			if a, ok := f.(subagents.SubagentMessageAccepted); ok && a.Message == id {
				found = true
			}
		}
		if !found {
			t.Fatalf("message %v to %s was flushed and is lost after a restart", id, child)
		}
	}
	for id := range m.parent {
		if !m.hasHistory(id) {
			delete(m.parent, id)
		}
	}
	// what a crash lost was never durable: forget it
	for child, msgs := range m.handed {
		onStream := map[subagents.MessageID]bool{}
		for _, f := range m.facts(child) {
			if a, ok := f.(subagents.SubagentMessageAccepted); ok {
				onStream[a.Message] = true
			}
		}
		kept := msgs[:0]
		for _, id := range msgs {
			if onStream[id] {
				kept = append(kept, id)
			}
		}
		m.handed[child] = kept
	}
	m.proc = m.newProc()
}

// misdirect appends a pointer that may lead anywhere — a seq of the
// child's stream, or past it, under any index — to a child's pointer
// stream, as damage or a hand-edited journal would: the pointer is a hint,
// and what a resume delivers is still what the model folds from the
// stream.
func (m *subMachine) misdirect(t *rapid.T) {
	var created []jobs.SessionID
	for _, id := range childPool {
		if m.hasHistory(id) {
			created = append(created, id)
		}
	}
	if len(created) == 0 {
		t.Skip("no child yet")
	}
	id := rapid.SampledFrom(created).Draw(t, "child")
	seq := rapid.IntRange(1, m.store.Len(journal.Stream(id))+2).Draw(t, "seq")
	ptr := subagents.SubagentCheckpointed{Child: id, Index: rapid.IntRange(1, 8).Draw(t, "index"), Seq: int64(seq)}
	payload, err := subagents.EncodeFact(ptr)
	if err != nil {
		t.Fatal(err)
	}
	m.misdirected++
	if _, err := m.store.Append(context.Background(), journal.Stream(id+"/checkpoint"), journal.Entry{ID: fmt.Sprint("misdirect/", m.misdirected), Payload: payload}); err != nil {
		t.Fatal(err)
	}
}

func (m *subMachine) toggleProvider(t *rapid.T) {
	if m.providerOff {
		m.proc.remove = m.register(m.proc)
	} else if m.proc.remove != nil {
		m.proc.remove()
	}
	m.providerOff = !m.providerOff
}

// facts decodes a child's stream in the current store.
func (m *subMachine) facts(id jobs.SessionID) []subagents.Fact {
	var out []subagents.Fact
	for rec, err := range m.store.ReadStream(context.Background(), journal.Stream(id), 0) {
		if err != nil {
			m.rt.Fatal(err)
		}
		f, err := subagents.DecodeFact(rec.Payload)
		if err != nil {
			m.rt.Fatalf("%s seq %d: %v", id, rec.Seq, err)
		}
		out = append(out, f)
	}
	return out
}

// pendingOnStream folds a stream, independently of the manager: the
// accepted messages with neither a claimed nor a discarded fact.
func (m *subMachine) pendingOnStream(id jobs.SessionID) []subagents.Message {
	var acc []subagents.Message
	gone := map[subagents.MessageID]bool{}
	for _, f := range m.facts(id) {
		switch f := f.(type) {
		case subagents.SubagentMessageAccepted:
			acc = append(acc, subagents.Message{ID: f.Message})
		case subagents.SubagentMessageClaimed:
			gone[f.Message] = true
		case subagents.SubagentMessageDiscarded:
			gone[f.Message] = true
		}
	}
	var out []subagents.Message
	for _, a := range acc {
		if !gone[a.ID] {
			out = append(out, a)
		}
	}
	return out
}

// check runs after every action.
func (m *subMachine) check(t *rapid.T) {
	for _, id := range childPool {
		m.checkStream(t, id, false)
	}
	for _, a := range m.resident() {
		seen := map[subagents.MessageID]bool{}
		for _, id := range ids(a.Delivered()) {
			if seen[id] {
				t.Fatalf("%s got message %v twice", a.ID(), id)
			}
			seen[id] = true
		}
		if a.InTurn() || a.Wanted() {
			continue
		}
		busy := false
		for _, b := range m.resident() {
			busy = busy || b.Child.Header.ParentSession == a.ID()
		}
		if !busy {
			t.Fatalf("%s is quiescent with no live children and was not disposed", a.ID())
		}
	}
	// a message claimed in one residency never reaches a later one of the same process
	agents := m.proc.host.Agents()
	for i, a := range agents {
		for _, b := range agents[i+1:] {
			if b.ID() != a.ID() {
				continue
			}
			for _, id := range a.Claimed() {
				if slices.Contains(ids(b.Delivered()), id) {
					t.Fatalf("message %v claimed by one residency of %s was delivered to a later one", id, a.ID())
				}
			}
		}
	}
	for _, p := range m.procs {
		for _, a := range append([]*subagenttest.Agent{p.root}, p.host.Agents()...) {
			for _, id := range ids(a.Delivered()) {
				if want, ok := m.reports[id]; ok && a.ID() != want {
					t.Fatalf("a report for %s reached %s", want, a.ID())
				}
			}
		}
	}
}

// checkStream checks one stream's facts: one accepted per message, then at
// most one claimed or discarded; at most one start and one end per
// residency, in that order; with complete, exactly one of each.
func (m *subMachine) checkStream(t *rapid.T, id jobs.SessionID, complete bool) {
	accepted := map[subagents.MessageID]bool{}
	settled := map[subagents.MessageID]string{}
	runs := map[subagents.RunID]int{} // 1 started, 2 ended
	for i, f := range m.facts(id) {
		switch f := f.(type) {
		case subagents.SubagentCreated:
			if i != 0 {
				t.Fatalf("%s: created fact at %d", id, i)
			}
		case subagents.SubagentMessageAccepted:
			if accepted[f.Message] {
				t.Fatalf("%s: message %v accepted twice", id, f.Message)
			}
			accepted[f.Message] = true
		case subagents.SubagentMessageClaimed, subagents.SubagentMessageDiscarded:
			mid := messageOf(f)
			if !accepted[mid] {
				t.Fatalf("%s: %s of %v before its acceptance", id, f.FactType(), mid)
			}
			if prev, dup := settled[mid]; dup {
				t.Fatalf("%s: message %v has %s and %s: delivered twice", id, mid, prev, f.FactType())
			}
			settled[mid] = f.FactType()
		case subagents.SubagentResidencyStarted:
			if runs[f.Run] != 0 {
				t.Fatalf("%s: residency %v started twice", id, f.Run)
			}
			runs[f.Run] = 1
		case subagents.SubagentResidencyEnded:
			if runs[f.Run] != 1 {
				t.Fatalf("%s: residency %v ended without a start, or twice", id, f.Run)
			}
			runs[f.Run] = 2
		}
	}
	if complete {
		for run, st := range runs {
			if st != 2 {
				t.Fatalf("%s: residency %v never ended", id, run)
			}
		}
	}
}

func messageOf(f subagents.Fact) subagents.MessageID {
	switch f := f.(type) {
	case subagents.SubagentMessageClaimed:
		return f.Message
	case subagents.SubagentMessageDiscarded:
		return f.Message
	}
	return subagents.MessageID{}
}

// finish resumes every child with history, parents first, so residencies a
// crash left open are ended, then closes the manager and checks that every
// residency has exactly one start and one end.
func (m *subMachine) finish(t *rapid.T) {
	if m.providerOff {
		m.toggleProvider(t)
	}
	for depth := 1; depth <= len(childPool); depth++ {
		for _, id := range childPool {
			fs := m.facts(id)
			if len(fs) == 0 {
				continue
			}
			c := fs[0].(subagents.SubagentCreated)
			if c.Header.DelegationDepth != depth || m.proc.host.Agent(id) != nil {
				continue
			}
			parent := m.agentOf(c.Header.ParentSession)
			if parent == nil {
				t.Fatalf("finish: the parent %s of %s is not live", c.Header.ParentSession, id)
			}
			msg, err := m.proc.svc.Followup(context.Background(), parent, id, text("last"), subagent.FollowupOptions{})
			if err != nil {
				t.Fatalf("finish: resume %s: %v", id, err)
			}
			m.accepted(t, id, msg)
			synctest.Wait()
		}
	}
	m.check(t)
	if err := m.proc.svc.Close(context.Background()); err != nil {
		t.Fatalf("close: %v", err)
	}
	synctest.Wait()
	for _, id := range childPool {
		m.checkStream(t, id, true)
	}
}

var _ = fmt.Sprintf
var _ testing.TB = (*testing.T)(nil)
