package proptest

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// A behaviour is how a producer in the teardown property meets teardown.
type behaviour int

const (
	settlesAtOnce behaviour = iota // reports from inside Cancel
	settlesLate                    // reports a while after Cancel: within the bound or not
	neverSettles                   // ignores Cancel
	cancelFails                    // Cancel returns an error
	cancelHangs                    // Cancel blocks past the teardown, then answers
	reportsAlone                   // reports on its own, before or during the teardown
)

var behaviourNames = [...]string{"settles at once", "settles late", "never settles", "cancel fails", "cancel hangs", "reports alone"}

func (b behaviour) String() string { return behaviourNames[b] }

// TestForcedTeardown is the forced teardown property: a registry full of producers that
// settle at once, settle late (within the bound or after it), never settle,
// fail or hang in Cancel, or report on their own, with the journal failing
// or not, is torn down by disposals and a close. Every teardown returns
// within its bound (or its context's deadline) in fake time, exactly when
// the model says; every job settles exactly once, forced settlements
// without producerReported; and every waiter is released, journal fault or
// not. The machine's full check runs after every teardown.
func TestForcedTeardown(t *testing.T) {
	files := &journalFiles{dir: t.TempDir()}
	rapid.Check(t, func(rt *rapid.T) {
		rapid.SyncTest(rt, func(rt *rapid.T) { forcedTeardown(rt, files) })
	})
	logStats(t)
}

func forcedTeardown(rt *rapid.T, files *journalFiles) {
	bound := rapid.SampledFrom([]time.Duration{500 * time.Millisecond, time.Second, 5 * time.Second}).Draw(rt, "bound")
	h := newMachine(rt, files, registry.Limits{MaxPerOwner: 10, RetainBytes: 16, SettledRetainBytes: 8, TeardownBound: bound})
	n := rapid.IntRange(1, 8).Draw(rt, "jobs")
	for i := range n {
		b := rapid.SampledFrom([]behaviour{settlesAtOnce, settlesLate, neverSettles, cancelFails, cancelHangs, reportsAlone}).Draw(rt, "behaviour")
		note("teardown property: a producer that %s", b)
		p := startPlan{
			kind:    "bash",
			owner:   rapid.SampledFrom(owners).Draw(rt, "owner"),
			record:  rapid.Bool().Draw(rt, "record"),
			mode:    starterOK,
			id:      jobs.JobID{14: 1, 15: byte(i)},
			watched: true,
			viaFace: rapid.Bool().Draw(rt, "viaFace"),
		}
		switch b {
		case settlesAtOnce:
			p.react = reaction{kind: reactNow, result: drawResult(rt, "result"), linger: rapid.Bool().Draw(rt, "linger")}
		case settlesLate:
			// A quarter to twice the bound, half a millisecond off its grid.
			k := rapid.SampledFrom([]time.Duration{1, 2, 3, 5, 8}).Draw(rt, "quarters")
			p.react = reaction{kind: reactAfter, after: bound*k/4 + 500*time.Microsecond, result: drawResult(rt, "result")}
		case cancelFails:
			p.cancelFails = true
		case cancelHangs:
			p.hang = true
			p.cancelFails = rapid.Bool().Draw(rt, "hangThenFail")
		case reportsAlone:
			p.self = reaction{kind: reactAfter, after: rapid.SampledFrom(selfDelays).Draw(rt, "selfAfter"), result: drawResult(rt, "result")}
		}
		j := h.startJob(rt, p)
		if j.seq == 0 {
			rt.Fatalf("%s was not registered", j.name)
		}
		if p.record {
			h.m.appendText(j, "output", jobs.AppendOptions{})
			j.recFace.Append("output", jobs.AppendOptions{})
		}
	}
	h.check(rt)
	if d := rapid.SampledFrom([]time.Duration{0, 300 * time.Millisecond, time.Second}).Draw(rt, "before"); d > 0 {
		time.Sleep(d)
		h.m.advanceTo(h.m.now + d)
		h.check(rt)
	}
	if rapid.Bool().Draw(rt, "journalFails") {
		h.fault(rt)
	}

	steps := []jobs.SessionID{"a", "b"}
	steps = steps[:rapid.IntRange(0, 2).Draw(rt, "disposals")]
	for _, session := range append(steps, "close") {
		timeout := rapid.SampledFrom([]time.Duration{0, 0, bound / 2, 2 * bound}).Draw(rt, "ctxTimeout")
		ctx, cancel := withTimeout(timeout)
		begin, modelBegin := time.Now(), h.m.now
		var err error
		var wantErr bool
		if session == "close" {
			wantErr = h.m.close(timeout)
			err = h.reg.Close(ctx)
		} else {
			wantErr = h.m.dispose(session, timeout)
			err = h.reg.DisposeOwner(ctx, session)
		}
		cancel()
		took, want := time.Since(begin), h.m.now-modelBegin
		limit := bound
		if timeout > 0 {
			limit = min(limit, timeout)
		}
		note("teardown property: %s took %d%% of its limit", session, 100*took/limit)
		if took > limit || took != want {
			rt.Fatalf("teardown of %s took %v; want %v, within %v", session, took, want, limit)
		}
		if (err != nil) != wantErr {
			rt.Fatalf("teardown of %s = %v; want an error: %v", session, err, wantErr)
		}
		h.check(rt)
		h.checkSettledOnce(rt, session)
	}
	h.finish(rt)
}

// checkSettledOnce checks, beyond the model, what teardown promises: every
// job the teardown covered settled exactly once, its waiter was released
// with the settlement whether or not the journal took the fact, and a
// forced settlement carries producerReported=false.
func (h *machine) checkSettledOnce(rt *rapid.T, session jobs.SessionID) {
	settled := map[string][]jobs.JobSettled{}
	for _, a := range h.facts.all() {
		if s, ok := a.fact.(jobs.JobSettled); ok {
			settled[factName(s)] = append(settled[factName(s)], s)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, j := range h.m.registered() {
		if session != "close" && j.plan.owner != session {
			continue
		}
		snap, ok := h.waited[j.name]
		if !ok || !snap.Status.Terminal() {
			rt.Fatalf("the waiter of %s was not released with its settlement after the teardown of %s", j.name, session)
		}
		if j.plan.owner == "" {
			continue
		}
		facts := settled[j.name]
		if len(facts) != 1 {
			rt.Fatalf("%s has %d settled facts, want 1", j.name, len(facts))
		}
		f := facts[0]
		if forced := f.Cause == jobs.SettlementCauseCancelFailure || f.Cause == jobs.SettlementCauseTeardownBound; forced && f.ProducerReported {
			rt.Fatalf("%s was force-settled (%s) but claims producerReported", j.name, f.Cause)
		}
		if f.ProducerReported != snap.ProducerReported || f.Status != snap.Status {
			rt.Fatalf("%s: the waiter saw %s producerReported=%v, the fact says %s %v", j.name, snap.Status, snap.ProducerReported, f.Status, f.ProducerReported)
		}
	}
}
