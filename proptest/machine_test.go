package proptest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
)

// TestRegistryMachine is the model-based state machine of registry and
// journal. Random sequences of starts, appends, detail
// updates, producer reports, kills, disposals, closes, reads, record reads,
// waits, journal faults and fake-time advances run against a registry that
// records into a real journal file, inside a synctest bubble. The model
// (model_test.go) predicts every result; after every action check compares
// the whole registry with it and checks the invariants of registry/doc.go.
func TestRegistryMachine(t *testing.T) {
	files := &journalFiles{dir: t.TempDir()}
	rapid.Check(t, func(rt *rapid.T) {
		rapid.SyncTest(rt, func(rt *rapid.T) {
			h := newMachine(rt, files, registry.Limits{
				MaxPerOwner:        rapid.IntRange(1, 3).Draw(rt, "maxPerOwner"),
				RetainBytes:        rapid.SampledFrom([]int{8, 16, 32}).Draw(rt, "retainBytes"),
				SettledRetainBytes: rapid.SampledFrom([]int{4, 8, 16}).Draw(rt, "settledRetainBytes"),
				TeardownBound:      time.Second,
			})
			rt.Repeat(h.actions())
			h.finish(rt)
		})
	})
	logStats(t)
}

// The sessions of the machine: two owners, the unowned jobs' "", and a
// session that owns nothing and only reads.
var (
	owners  = []jobs.SessionID{"a", "b", ""}
	callers = []jobs.SessionID{"a", "b", "", "c"}
)

const idPool = 6 // ids are drawn from a pool this small, so they collide

// A machine is the state machine's harness: the registry under test and
// its journal, the model, and what the test's listeners and waiters saw.
type machine struct {
	m     *model
	reg   *registry.Registry
	facts *factLog
	store *journal.FileStore
	path  string
	pool  []jobs.JobID
	next  jobs.JobID // the id the registry's generator issues next
	viol  violations

	changed atomic.Int64
	// released counts waiters Wait has released, settled.
	released atomic.Int64
	mu       sync.Mutex
	outputs  map[jobs.JobID]int
	dones    map[string]int
	// seen is the status check last saw of each job, by name, and window
	// its record window; ended is the terminal status anyone saw.
	seen   map[string]jobs.JobStatus
	window map[string][2]int64
	ended  map[string]jobs.JobStatus
	// waited holds what each released waiter got, by job name.
	waited map[string]jobs.JobSnapshot
}

func newMachine(rt *rapid.T, files *journalFiles, limits registry.Limits) *machine {
	h := &machine{
		m:       newModel(limits, time.Now()),
		facts:   &factLog{},
		path:    files.next(),
		outputs: map[jobs.JobID]int{},
		dones:   map[string]int{},
		seen:    map[string]jobs.JobStatus{},
		ended:   map[string]jobs.JobStatus{},
		window:  map[string][2]int64{},
		waited:  map[string]jobs.JobSnapshot{},
	}
	for i := range idPool {
		h.pool = append(h.pool, jobs.JobID{15: byte(i + 1)})
	}
	store, err := journal.Open(h.path, journal.WithOpenFile(openSyncFree), journal.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		rt.Fatal(err)
	}
	h.store = store
	rt.Cleanup(func() {
		store.Close(context.Background())
		os.Remove(h.path)
	})
	h.facts.next = journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)
	h.reg = registry.New(
		registry.WithRecorder(h.facts),
		registry.WithClock(registry.ClockFunc(time.Now)),
		registry.WithIDs(func() jobs.JobID { return h.next }),
		registry.WithLimits(limits),
	)
	h.facts.inspect = h.beforeCommit
	// However a check ends, leave nothing blocked in the bubble, or synctest
	// reports a deadlock in place of the failure: settle everything, let
	// every producer still blocked in Done return, and outsleep every late
	// producer, all due within a minute (time stops in a bubble once its
	// main goroutine returns).
	rt.Cleanup(func() {
		h.releaseHangs()
		h.reg.Close(context.Background())
		for _, j := range h.m.starts {
			j.prod.finish(result{out: jobs.JobOutcome{Status: jobs.JobStatusCompleted}})
		}
		time.Sleep(time.Minute)
	})
	h.reg.OnJobsChanged(func() {
		h.changed.Add(1)
		h.observeAll("jobs-changed listener")
	})
	h.reg.OnOutput(func(id jobs.JobID) {
		h.mu.Lock()
		h.outputs[id]++
		h.mu.Unlock()
		h.observeAll("output listener")
	})
	h.reg.OnJobDone(func(s jobs.JobSnapshot) {
		h.mu.Lock()
		h.dones[s.Name]++
		h.mu.Unlock()
		h.observe("done listener", s)
		if !s.Status.Terminal() {
			h.viol.add("done listener: %s delivered as %s", s.Name, s.Status)
		}
		// Waiters are released before done listeners run, so a disposal
		// may already have removed the job; if not, it is visibly settled.
		got, err := h.reg.Get(s.Owner, s.ID)
		if (err != nil && !errors.Is(err, registry.ErrUnknownJob)) || (err == nil && got.Name == s.Name && got.Status != s.Status) {
			h.viol.add("done listener: %s is not visibly settled: %+v, %v", s.Name, got, err)
		}
	})
	return h
}

// beforeCommit runs as the Recorder is handed a fact: the Recorder reads
// the registry as it was before the commit, so a job being registered is
// not visible yet and a job being settled is still live.
func (h *machine) beforeCommit(f jobs.Fact) {
	switch f := f.(type) {
	case jobs.JobRegistered:
		if s, err := h.reg.Get(f.Owner, f.JobID); !errors.Is(err, registry.ErrUnknownJob) {
			h.viol.add("recorder: %s is visible (%s, %v) while its registered fact is recorded", factName(f), s.Name, err)
		}
	case jobs.JobSettled:
		s, err := h.reg.Get(f.Registration.Owner, f.JobID)
		if err != nil || s.Name != factName(f) || s.Status.Terminal() {
			h.viol.add("recorder: %s is %s (%v) while its settled fact is recorded; want it live", factName(f), s.Status, err)
		}
	}
}

// observe checks one snapshot that a listener, a waiter or check sees: a
// job shows at most one terminal status, ever, and the facts of what it
// shows were handed to the Recorder before anyone could see it.
// (Listeners run concurrently, so the order in which their snapshots
// arrive here is not the order they were taken in; checkJobs checks each
// move against the lifecycle, in order.)
func (h *machine) observe(where string, s jobs.JobSnapshot) {
	if s.Status.Terminal() {
		h.mu.Lock()
		end, ok := h.ended[s.Name]
		h.ended[s.Name] = s.Status
		h.mu.Unlock()
		if ok && end != s.Status {
			h.viol.add("%s: %s settled %s and then %s", where, s.Name, end, s.Status)
		}
	}
	if s.Owner == "" {
		return
	}
	if !h.facts.hasName(jobs.JobRegisteredType, s.Name) {
		h.viol.add("%s: %s is visible before its registered fact was recorded", where, s.Name)
	}
	if s.Status.Terminal() && !h.facts.hasName(jobs.JobSettledType, s.Name) {
		h.viol.add("%s: %s is visibly %s before its settled fact was recorded", where, s.Name, s.Status)
	}
}

func (h *machine) observeAll(where string) {
	for _, s := range []jobs.SessionID{"a", "b"} {
		for _, snap := range h.reg.List(s) {
			h.observe(where, snap)
		}
	}
}

// watch starts a waiter that, when released, checks that the settled fact
// was recorded first.
func (h *machine) watch(j *modelJob) {
	owner, id, name := j.plan.owner, j.id, j.name
	go func() {
		snap, settled, err := h.reg.Wait(context.Background(), owner, id, 0)
		if err != nil || !settled {
			h.viol.add("waiter of %s: Wait = settled %v, %v", name, settled, err)
			return
		}
		h.observe("waiter", snap)
		h.mu.Lock()
		h.waited[name] = snap
		h.mu.Unlock()
		h.released.Add(1)
	}()
}

func (h *machine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"":            h.check,
		"start":       h.start,
		"startMore":   h.start,
		"startAgain":  h.start,
		"append":      h.append,
		"detail":      h.detail,
		"producerEnd": h.producerEnd,
		"kill":        h.kill,
		"killMore":    h.kill,
		"killAll":     h.killAll,
		"dispose":     h.dispose,
		"close":       h.close,
		"read":        h.read,
		"readRecord":  h.readRecord,
		"wait":        h.wait,
		"fault":       h.fault,
		"advance":     h.advance,
		"send":        h.send,
	}
}

// Generators.

// textPieces include bytes that are not UTF-8 ("\xff", a truncated rune),
// which the record replaces.
var textPieces = []string{"a", "bc", "é", "日本", "\n", "xyz", "\xff", "\xe6\x97"}

func drawText(rt *rapid.T, label string) string {
	pieces := rapid.SliceOfN(rapid.SampledFrom(textPieces), 0, 4).Draw(rt, label)
	text := strings.Join(pieces, "")
	if rapid.IntRange(0, 7).Draw(rt, label+"Big") == 0 {
		text = strings.Repeat(text+"日", 6) // larger than most retentions
	}
	return text
}

func drawAppendOptions(rt *rapid.T) jobs.AppendOptions {
	return jobs.AppendOptions{
		Channel:   rapid.SampledFrom([]jobs.Channel{"", jobs.ChannelStdout, jobs.ChannelStderr, jobs.ChannelLog, "bogus"}).Draw(rt, "channel"),
		GapBefore: rapid.IntRange(0, 4).Draw(rt, "gap") == 0,
	}
}

func drawResult(rt *rapid.T, label string) result {
	switch rapid.IntRange(0, 5).Draw(rt, label) {
	case 3:
		return result{err: errProducer}
	case 4:
		return result{panic: "producer bug"}
	case 5:
		return result{out: jobs.JobOutcome{Status: rapid.SampledFrom([]jobs.JobStatus{jobs.JobStatusRunning, "exploded"}).Draw(rt, label+"Status")}}
	}
	return result{out: jobs.JobOutcome{
		Status: rapid.SampledFrom([]jobs.JobStatus{jobs.JobStatusCompleted, jobs.JobStatusFailed, jobs.JobStatusKilled}).Draw(rt, label+"Status"),
		Detail: rapid.SampledFrom([]string{"", "exit 1"}).Draw(rt, label+"Detail"),
		Output: rapid.SampledFrom([]string{"", "out"}).Draw(rt, label+"Output"),
		Result: rapid.SampledFrom([]string{"", "", `{"answer":42}`}).Draw(rt, label+"Result"),
	}}
}

// Time in the machine runs on grids, so that no two events whose order
// matters ever fall on the same instant of fake time (where goroutines
// would race): every action starts on a whole millisecond, and so do
// timeouts, bounds and advances; a producer reacting to a Cancel reports a
// lateDelay after it, on the half millisecond; a producer reporting on its
// own reports a selfDelay after its start, on the quarter millisecond.
var (
	lateDelays = offsetGrid(500 * time.Microsecond)
	selfDelays = offsetGrid(250 * time.Microsecond)
)

func offsetGrid(off time.Duration) []time.Duration {
	return []time.Duration{
		200*time.Millisecond + off,
		700*time.Millisecond + off,
		1500*time.Millisecond + off,
		4*time.Second + off,
	}
}

func drawReaction(rt *rapid.T) reaction {
	r := reaction{kind: rapid.SampledFrom([]reactKind{reactNone, reactNow, reactAfter}).Draw(rt, "react")}
	if r.kind == reactAfter {
		r.after = rapid.SampledFrom(lateDelays).Draw(rt, "reactAfter")
	}
	if r.kind != reactNone {
		r.result = drawResult(rt, "reactResult")
		r.linger = rapid.IntRange(0, 2).Draw(rt, "linger") != 0
	}
	return r
}

// drawTarget draws who calls and which id: three times in four a job the
// registry holds (a recording one when record is set), mostly called by its
// owner; else any caller and any id of the pool, so that unknown and
// foreign ids come up too.
func (h *machine) drawTarget(rt *rapid.T, record bool) (jobs.SessionID, jobs.JobID) {
	var from []*modelJob
	for _, j := range h.m.registered() {
		if !j.removed && (!record || j.ring != nil) {
			from = append(from, j)
		}
	}
	if len(from) == 0 || rapid.IntRange(0, 3).Draw(rt, "anyTarget") == 0 {
		return rapid.SampledFrom(callers).Draw(rt, "caller"), h.drawID(rt)
	}
	j := from[rapid.IntRange(0, len(from)-1).Draw(rt, "target")]
	caller := j.plan.owner
	if caller == "" || rapid.IntRange(0, 4).Draw(rt, "otherCaller") == 0 {
		caller = rapid.SampledFrom(callers).Draw(rt, "caller")
	}
	return caller, j.id
}

// drawID draws an id from the pool, half the time one the registry holds.
// drawSelf draws whether a producer reports on its own, a while after it
// started.
func drawSelf(rt *rapid.T) reaction {
	if !rapid.Bool().Draw(rt, "selfReport") {
		return reaction{}
	}
	return reaction{
		kind:   reactAfter,
		after:  rapid.SampledFrom(selfDelays).Draw(rt, "selfAfter"),
		result: drawResult(rt, "selfResult"),
	}
}

func (h *machine) drawID(rt *rapid.T) jobs.JobID {
	var held []jobs.JobID
	for _, id := range h.pool {
		if _, ok := h.m.byID[id]; ok {
			held = append(held, id)
		}
	}
	if len(held) > 0 && rapid.Bool().Draw(rt, "heldID") {
		return held[rapid.IntRange(0, len(held)-1).Draw(rt, "id")]
	}
	return h.pool[rapid.IntRange(0, idPool-1).Draw(rt, "id")]
}

// Actions.

func (h *machine) start(rt *rapid.T) {
	p := startPlan{
		kind:        rapid.SampledFrom([]string{"bash", "grep"}).Draw(rt, "kind"),
		owner:       rapid.SampledFrom(owners).Draw(rt, "owner"),
		record:      rapid.Bool().Draw(rt, "record"),
		limit:       rapid.SampledFrom([]int64{0, 0, 5, 40}).Draw(rt, "outputLimit"),
		mode:        rapid.SampledFrom([]starterMode{starterOK, starterOK, starterOK, starterOK, starterFails, starterPanics, startInvalid}).Draw(rt, "starter"),
		id:          h.pool[rapid.IntRange(0, idPool-1).Draw(rt, "id")],
		cancelFails: rapid.IntRange(0, 3).Draw(rt, "cancelFails") == 0,
		react:       drawReaction(rt),
		self:        drawSelf(rt),
		watched:     rapid.IntRange(0, 3).Draw(rt, "watched") == 0,
		viaFace:     rapid.Bool().Draw(rt, "viaFace"),
	}
	if p.record && rapid.Bool().Draw(rt, "terminal") {
		p.terminal, p.handle = true, rapid.Bool().Draw(rt, "handle")
	}
	if p.viaFace && rapid.IntRange(0, 3).Draw(rt, "settleInStarter") == 0 {
		r := drawResult(rt, "inStarterResult")
		p.inStarter = &r
	}
	if !p.handle && rapid.IntRange(0, 3).Draw(rt, "promoted") == 0 {
		p.promotedAfter = rapid.SampledFrom([]time.Duration{time.Millisecond, 2 * time.Second}).Draw(rt, "promotedAfter")
	}
	p.staged = drawStaged(rt)
	h.startJob(rt, p)
}

func drawStaged(rt *rapid.T) []stagedWrite {
	var staged []stagedWrite
	for i := range rapid.IntRange(0, 3).Draw(rt, "staged") {
		w := stagedWrite{detail: rapid.Bool().Draw(rt, fmt.Sprint("stagedDetail", i))}
		if w.detail {
			w.text = rapid.SampledFrom([]string{"", "starting", "step 0"}).Draw(rt, "stagedText")
		} else {
			w.text, w.opts = drawText(rt, "stagedText"), drawAppendOptions(rt)
		}
		staged = append(staged, w)
	}
	return staged
}

// startJob starts the job p plans, in the model and in the registry, and
// compares what Start returns.
func (h *machine) startJob(rt *rapid.T, p startPlan) *modelJob {
	j := &modelJob{plan: p, prod: newProducer()}
	j.prod.react = p.react
	j.prod.viaFace = p.viaFace
	if p.cancelFails {
		j.prod.cancelErr = errCancel
	}
	if p.hang {
		j.prod.hang = make(chan struct{})
	}
	h.m.starts = append(h.m.starts, j)
	want := h.m.start(j)

	h.next = p.id
	var snap jobs.JobSnapshot
	var err error
	switch {
	case p.handle:
		snap, j.term, err = h.reg.StartTerminal(context.Background(), h.jobStart(j).(jobs.RecordingJobStart))
	case p.promotedAfter > 0:
		snap, err = h.reg.Promote(context.Background(), h.jobStart(j), time.Now().Add(-p.promotedAfter))
	default:
		snap, err = h.reg.Start(context.Background(), h.jobStart(j))
	}
	note("start: %s", want)
	if got := classify(err); got != want {
		rt.Fatalf("Start = %v (%s), want %s", err, got, want)
	}
	if err != nil {
		return j
	}
	if d := diffSnapshot(snap, j); d != "" {
		rt.Fatalf("Start returned %s", d)
	}
	h.m.settleStaged(j)
	if p.watched {
		h.watch(j)
	}
	if p.self.kind == reactAfter {
		go func() {
			time.Sleep(p.self.after)
			j.prod.finish(p.self.result)
		}()
	}
	return j
}

// releaseHangs lets every Cancel that hangs return.
func (h *machine) releaseHangs() {
	for _, j := range h.m.starts {
		if j.prod.hang != nil {
			select {
			case <-j.prod.hang:
			default:
				close(j.prod.hang)
			}
		}
	}
}

// jobStart is the JobStart of j: its starter keeps the face, makes the
// staged writes and then returns the producer's hooks, fails or panics.
func (h *machine) jobStart(j *modelJob) jobs.JobStart {
	p := j.plan
	common := jobs.JobStartCommon{Kind: p.kind, Label: label(p), Owner: p.owner, OutputLimitBytes: p.limit}
	run := func(face jobs.RunningJob, rec jobs.RecordingJob) (jobs.Hooks, error) {
		j.face, j.recFace = face, rec
		j.prod.setFace(face)
		for _, w := range p.staged {
			switch {
			case w.detail:
				face.UpdateDetail(w.text)
			case rec != nil:
				rec.Append(w.text, w.opts)
			}
		}
		if p.inStarter != nil {
			j.prod.finish(*p.inStarter)
		}
		switch p.mode {
		case starterFails:
			return jobs.Hooks{}, errors.New("starter failed")
		case starterPanics:
			panic("starter bug")
		}
		return j.prod.hooks(), nil
	}
	switch {
	case p.terminal:
		return jobs.RecordingJobStart{JobStartCommon: common, RunTerminal: func(_ context.Context, f jobs.RecordingJob) (jobs.Hooks, jobs.TerminalInput, error) {
			hooks, err := run(f, f)
			return hooks, j.prod.terminalInput(), err
		}}
	case p.record:
		return jobs.RecordingJobStart{JobStartCommon: common, Run: func(_ context.Context, f jobs.RecordingJob) (jobs.Hooks, error) {
			return run(f, f)
		}}
	}
	return jobs.PlainJobStart{JobStartCommon: common, Run: func(_ context.Context, f jobs.RunningJob) (jobs.Hooks, error) {
		return run(f, nil)
	}}
}

// pick draws one of the starts that satisfy ok, or returns nil. (Actions
// with nothing to act on do nothing rather than skip: rapid ends a run
// whose skips outnumber its actions.)
func (h *machine) pick(rt *rapid.T, what string, ok func(*modelJob) bool) *modelJob {
	var from []*modelJob
	for _, j := range h.m.starts {
		if ok(j) {
			from = append(from, j)
		}
	}
	if len(from) == 0 {
		return nil
	}
	return from[rapid.IntRange(0, len(from)-1).Draw(rt, what)]
}

// append writes through a recording face: of a live job, a settled one, or
// one whose start failed.
func (h *machine) append(rt *rapid.T) {
	j := h.pick(rt, "recording face", func(j *modelJob) bool { return j.recFace != nil })
	if j == nil {
		return
	}
	note("append: to a job %v", j.state)
	text, opts := drawText(rt, "text"), drawAppendOptions(rt)
	h.m.appendText(j, text, opts)
	j.recFace.Append(text, opts)
}

func (h *machine) detail(rt *rapid.T) {
	j := h.pick(rt, "face", func(j *modelJob) bool { return j.face != nil })
	if j == nil {
		return
	}
	text := rapid.SampledFrom([]string{"", "step 1", "step 2"}).Draw(rt, "detailText")
	h.m.updateDetail(j, text)
	j.face.UpdateDetail(text)
}

// producerEnd makes a registered job's producer return from Done.
func (h *machine) producerEnd(rt *rapid.T) {
	j := h.pick(rt, "running producer", func(j *modelJob) bool { return j.seq > 0 && !j.finished })
	if j == nil {
		return
	}
	note("producerEnd: job %v", j.state)
	r := drawResult(rt, "result")
	h.m.report(j, r)
	if !j.prod.finish(r) {
		rt.Fatalf("the producer of %s had already reported; the model thought not", j.name)
	}
	synctest.Wait()
}

func (h *machine) kill(rt *rapid.T) {
	caller, id := h.drawTarget(rt, false)
	reason := rapid.SampledFrom([]string{"user asked", ""}).Draw(rt, "reason")
	if j, ok := h.m.byID[id]; ok {
		j.cancelFails = rapid.IntRange(0, 2).Draw(rt, "cancelFails") == 0
		j.prod.setCancelErr(nil)
		if j.cancelFails {
			j.prod.setCancelErr(errCancel)
		}
	}
	wantRes, wantErr := h.m.kill(caller, id, reason)
	note("kill: %v, %s", wantRes, wantErr)
	res, err := h.reg.Kill(caller, id, reason)
	if classify(err) != wantErr || res != wantRes {
		rt.Fatalf("Kill(%q, %s) = %v, %v; want %v, %s", caller, h.idName(id), res, err, wantRes, wantErr)
	}
	synctest.Wait()
}

// killAll stops a selection at once, by ids (some repeated, some foreign
// or unknown) or by a kind filter, and checks KillAll's promises beside the
// model's prediction: no job the caller may not see is asked to stop, each
// Cancel gets the one reason, and every selected job the fence let through
// ends stopping, settled, or (its Cancel failed) untouched.
func (h *machine) killAll(rt *rapid.T) {
	caller := rapid.SampledFrom(callers).Draw(rt, "caller")
	var sel registry.Selection
	var kind string
	if rapid.Bool().Draw(rt, "byFilter") {
		kind = rapid.SampledFrom([]string{"bash", "grep", ""}).Draw(rt, "filterKind")
		if kind != "" {
			sel.Match = func(s jobs.JobSnapshot) bool { return s.Kind == kind }
		}
	} else {
		for range rapid.IntRange(1, 4).Draw(rt, "ids") {
			_, id := h.drawTarget(rt, false)
			sel.IDs = append(sel.IDs, id)
		}
	}
	reason := rapid.SampledFrom([]string{"bulk stop", ""}).Draw(rt, "reason")
	ids := sel.IDs
	if len(ids) == 0 {
		ids = h.m.selectLive(caller, kind)
	}
	before := map[jobs.JobID]int{}
	for id, j := range h.m.byID {
		j.cancelFails = rapid.IntRange(0, 3).Draw(rt, "cancelFails") == 0
		j.prod.setCancelErr(nil)
		if j.cancelFails {
			j.prod.setCancelErr(errCancel)
		}
		before[id] = len(j.prod.cancelReasons())
	}
	type want struct {
		res registry.KillResult
		err errKind
	}
	var wants []want
	seen := map[jobs.JobID]bool{}
	var order []jobs.JobID
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		order = append(order, id)
		res, ek := h.m.kill(caller, id, reason)
		wants = append(wants, want{res, ek})
	}
	note("killAll: %d selected", len(order))
	got := h.reg.KillAll(caller, sel, reason)
	if len(got) != len(order) {
		rt.Fatalf("KillAll(%q) answered %d results %v; want %d", caller, len(got), got, len(order))
	}
	for i, k := range got {
		if k.ID != order[i] || k.Result != wants[i].res || classify(k.Err) != wants[i].err {
			rt.Fatalf("KillAll(%q) result %d = %v; want %s %v, %s", caller, i, k, h.idName(order[i]), wants[i].res, wants[i].err)
		}
	}
	for id, j := range h.m.byID {
		reasons := j.prod.cancelReasons()[before[id]:]
		if !j.visibleTo(caller) && len(reasons) > 0 {
			rt.Fatalf("KillAll(%q) called the Cancel of %s, owned by %q: the fence must hold", caller, j.name, j.plan.owner)
		}
		for _, r := range reasons {
			if r != reason {
				rt.Fatalf("KillAll(%q) cancelled %s with %q; want the one reason %q", caller, j.name, r, reason)
			}
		}
	}
	for i, k := range got {
		j := h.m.byID[k.ID]
		if k.Err != nil || j == nil {
			continue
		}
		if s, err := h.reg.Get(caller, k.ID); err != nil || (s.Status != jobs.JobStatusStopping && !s.Status.Terminal()) {
			rt.Fatalf("after KillAll, selected job %d (%s) is %v, %v; want stopping or settled", i, j.name, s.Status, err)
		}
	}
	synctest.Wait()
}

func drawCtxTimeout(rt *rapid.T) time.Duration {
	return rapid.SampledFrom([]time.Duration{0, 0, 300 * time.Millisecond}).Draw(rt, "ctxTimeout")
}

func withTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(context.Background())
	}
	return context.WithTimeout(context.Background(), d)
}

func (h *machine) dispose(rt *rapid.T) {
	session := rapid.SampledFrom([]jobs.SessionID{"a", "b", "c", ""}).Draw(rt, "session")
	timeout := drawCtxTimeout(rt)
	wantErr := h.m.dispose(session, timeout)
	note("dispose: error %v", wantErr)
	ctx, cancel := withTimeout(timeout)
	defer cancel()
	if err := h.reg.DisposeOwner(ctx, session); (err != nil) != wantErr {
		rt.Fatalf("DisposeOwner(%q) = %v, want an error: %v", session, err, wantErr)
	}
}

// close closes the registry, one time in eight it is drawn: a closed
// registry refuses every start, which would end most runs early.
func (h *machine) close(rt *rapid.T) {
	if rapid.IntRange(0, 7).Draw(rt, "closeNow") != 0 {
		return
	}
	h.closeWith(rt, drawCtxTimeout(rt))
}

func (h *machine) closeWith(rt *rapid.T, timeout time.Duration) {
	wantErr := h.m.close(timeout)
	ctx, cancel := withTimeout(timeout)
	defer cancel()
	if err := h.reg.Close(ctx); (err != nil) != wantErr {
		rt.Fatalf("Close = %v, want an error: %v", err, wantErr)
	}
}

func (h *machine) read(rt *rapid.T) {
	caller, id := h.drawTarget(rt, false)
	j, wantOut, wantResult, wantErr := h.m.read(caller, id)
	note("read: %s", wantErr)
	res, err := h.reg.Read(caller, id)
	if got := classify(err); got != wantErr {
		rt.Fatalf("Read(%q, %s) = %v (%s), want %s", caller, h.idName(id), err, got, wantErr)
	}
	if err != nil {
		return
	}
	if d := diffSnapshot(res.Job, j); d != "" || res.Output != wantOut || res.Result != wantResult {
		rt.Fatalf("Read(%q, %s) = output %q, result %q, want %q, %q; snapshot %s", caller, j.name, res.Output, res.Result, wantOut, wantResult, d)
	}
}

func (h *machine) readRecord(rt *rapid.T) {
	caller, id := h.drawTarget(rt, true)
	// Offsets near the edges of the window are where reads go wrong.
	earliest, total := int64(0), int64(3)
	if j, ok := h.m.byID[id]; ok && j.ring != nil {
		earliest, total = j.ring.start, j.ring.total
	}
	from := rapid.SampledFrom([]int64{-1, 0, earliest - 1, earliest, earliest + 1, total - 1, total, total + 1}).Draw(rt, "from")
	if rapid.Bool().Draw(rt, "anywhere") {
		from = rapid.Int64Range(0, total+2).Draw(rt, "fromAnywhere")
	}
	want, wantErr := h.m.readRecord(caller, id, from)
	note("readRecord: %s", wantErr)
	got, err := h.reg.ReadRecord(caller, id, from)
	if k := classify(err); k != wantErr {
		rt.Fatalf("ReadRecord(%q, %s, %d) = %v (%s), want %s", caller, h.idName(id), from, err, k, wantErr)
	}
	if err == nil && !sameRead(got, want) {
		rt.Fatalf("ReadRecord(%q, %s, %d) =\n%+v\nwant\n%+v", caller, h.idName(id), from, got, want)
	}
	// Every other caller's read of the same id, from the same offset, is
	// fenced as the model says.
	for _, other := range callers {
		_, wantErr := h.m.readRecord(other, id, from)
		if _, err := h.reg.ReadRecord(other, id, from); classify(err) != wantErr {
			rt.Fatalf("ReadRecord(%q, %s, %d) after %q's: %v, want %s", other, h.idName(id), from, caller, err, wantErr)
		}
	}
}

func sameRead(a, b jobs.RecordRead) bool {
	if len(a.Chunks) == 0 && len(b.Chunks) == 0 {
		a.Chunks, b.Chunks = nil, nil
	}
	return reflect.DeepEqual(a, b)
}

func (h *machine) wait(rt *rapid.T) {
	caller, id := h.drawTarget(rt, false)
	timeout := rapid.SampledFrom([]time.Duration{100 * time.Millisecond, 600 * time.Millisecond, 2500 * time.Millisecond}).Draw(rt, "timeout")
	j, wantSettled, wantErr := h.m.wait(caller, id, timeout)
	note("wait: %s", wantErr)
	snap, settled, err := h.reg.Wait(context.Background(), caller, id, timeout)
	if got := classify(err); got != wantErr || settled != wantSettled {
		rt.Fatalf("Wait(%q, %s, %v) = settled %v, %v; want %v, %s", caller, h.idName(id), timeout, settled, err, wantSettled, wantErr)
	}
	if err != nil {
		return
	}
	if d := diffSnapshot(snap, j); d != "" {
		rt.Fatalf("Wait(%q, %s) returned %s", caller, j.name, d)
	}
	if settled {
		h.observe("Wait", snap)
	}
}

func (h *machine) fault(rt *rapid.T) {
	h.m.fault = !h.m.fault
	note("fault: on %v", h.m.fault)
	h.facts.setFailing(h.m.fault)
}

func (h *machine) advance(rt *rapid.T) {
	d := rapid.SampledFrom([]time.Duration{time.Millisecond, 150 * time.Millisecond, 999 * time.Millisecond, 2 * time.Second, time.Hour}).Draw(rt, "advance")
	time.Sleep(d)
	h.m.advanceTo(h.m.now + d)
}

func (h *machine) idName(id jobs.JobID) string {
	if j, ok := h.m.byID[id]; ok {
		return j.name
	}
	return fmt.Sprintf("id %d", id[15])
}

// finish closes the registry, checks that everything settled, lets every
// producer still blocked in Done report (their words must change nothing),
// and checks the journal file once more after closing it.
func (h *machine) finish(rt *rapid.T) {
	h.closeWith(rt, 0)
	h.check(rt)
	for _, j := range h.m.registered() {
		if j.state != jobSettled {
			rt.Fatalf("%s is %s after Close", j.name, j.status)
		}
	}
	before := len(h.facts.all())
	h.releaseHangs()
	for _, j := range h.m.registered() {
		if !j.finished {
			r := result{out: jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "late"}}
			h.m.report(j, r)
			j.prod.finish(r)
		}
	}
	synctest.Wait()
	if n := len(h.facts.all()); n != before {
		rt.Fatalf("%d facts recorded after every job had settled", n-before)
	}
	h.check(rt)
	if err := h.store.Close(context.Background()); err != nil {
		rt.Fatal(err)
	}
	h.checkFile(rt)
}

// check runs after every action: it lets the bubble settle, puts time back
// on the millisecond grid, and compares everything observable with the
// model.
func (h *machine) check(rt *rapid.T) {
	synctest.Wait()
	if off := h.m.now % time.Millisecond; off != 0 {
		time.Sleep(time.Millisecond - off)
		h.m.advanceTo(h.m.now + time.Millisecond - off)
		synctest.Wait()
	}
	if got := time.Since(h.m.base); got != h.m.now {
		rt.Fatalf("fake time is %v, the model says %v", got, h.m.now)
	}
	if v := h.viol.take(); len(v) > 0 {
		rt.Fatalf("%s", strings.Join(v, "\n"))
	}
	watchedSettled := 0
	for _, j := range h.m.registered() {
		if j.plan.watched && j.state == jobSettled {
			watchedSettled++
		}
	}
	if n := h.released.Load(); n != int64(watchedSettled) {
		rt.Fatalf("%d waiters released, want %d: one per settled job that had one", n, watchedSettled)
	}
	h.checkJobs(rt)
	h.checkRecords(rt)
	h.checkFacts(rt)
	if err := h.store.Flush(context.Background()); err != nil {
		rt.Fatal(err)
	}
	h.checkFile(rt)
	h.checkSignals(rt)
	if v := h.viol.take(); len(v) > 0 {
		rt.Fatalf("%s", strings.Join(v, "\n"))
	}
}

// checkJobs compares List and Get, for every caller and every id of the
// pool, with the model, and every producer's Cancel calls.
func (h *machine) checkJobs(rt *rapid.T) {
	for _, caller := range callers {
		var want []*modelJob
		for _, j := range h.m.registered() {
			if !j.removed && j.visibleTo(caller) {
				want = append(want, j)
			}
		}
		got := h.reg.List(caller)
		if len(got) != len(want) {
			rt.Fatalf("List(%q) has %d jobs, want %d", caller, len(got), len(want))
		}
		for i, j := range want {
			if d := diffSnapshot(got[i], j); d != "" {
				rt.Fatalf("List(%q)[%d] (%s): %s", caller, i, j.name, d)
			}
			h.observe("List", got[i])
			if last, ok := h.seen[j.name]; ok && last != got[i].Status && !(jobs.JobLifecycle{}).CanTransition(last, got[i].Status) {
				rt.Fatalf("%s moved %s → %s, which the lifecycle forbids", j.name, last, got[i].Status)
			}
			h.seen[j.name] = got[i].Status
		}
		for _, id := range h.pool {
			_, wantErr := h.m.lookup(caller, id)
			if _, err := h.reg.Get(caller, id); classify(err) != wantErr {
				rt.Fatalf("Get(%q, %s) = %v, want %s", caller, h.idName(id), err, wantErr)
			}
		}
	}
	// The live counts the registry keeps for gauges agree with the statuses
	// the model holds (removed jobs are settled, so counting them is harmless).
	var want registry.Load
	for _, j := range h.m.registered() {
		switch j.status {
		case jobs.JobStatusRunning:
			want.Running++
		case jobs.JobStatusStopping:
			want.Stopping++
		}
	}
	if got := h.reg.Load(); got != want {
		rt.Fatalf("Load() = %+v, want %+v from the model's statuses", got, want)
	}
	for _, j := range h.m.starts {
		if got := j.prod.cancelReasons(); !reflect.DeepEqual(got, j.cancels) {
			rt.Fatalf("the producer of %s (start %+v) was cancelled with %q, want %q", j.name, j.plan.mode, got, j.cancels)
		}
	}
}

// checkRecords reads every record whole and checks it against the model
// and against the record's own rules: contiguous chunks at offsets that
// never go back, and a retained window within its cap.
func (h *machine) checkRecords(rt *rapid.T) {
	for _, j := range h.m.registered() {
		if j.removed || j.ring == nil {
			continue
		}
		rd, err := h.reg.ReadRecord(j.plan.owner, j.id, 0)
		if err != nil {
			rt.Fatalf("ReadRecord of %s: %v", j.name, err)
		}
		if want := j.ring.read(0); !sameRead(rd, want) {
			rt.Fatalf("record of %s =\n%+v\nwant\n%+v", j.name, rd, want)
		}
		limit := int64(j.retain)
		if j.state == jobSettled {
			limit = min(limit, int64(h.m.limits.SettledRetainBytes))
		}
		if rd.Next-rd.Earliest > limit {
			rt.Fatalf("%s retains %d bytes, over its cap of %d", j.name, rd.Next-rd.Earliest, limit)
		}
		at := rd.Earliest
		for _, c := range rd.Chunks {
			if c.Offset != at || c.Text == "" {
				rt.Fatalf("%s: chunk at %d, want one at %d: %+v", j.name, c.Offset, at, rd.Chunks)
			}
			at += int64(len(c.Text))
		}
		if at != rd.Next {
			rt.Fatalf("%s: chunks end at %d, Next is %d", j.name, at, rd.Next)
		}
		// The window's edge, the offset a read goes wrong at most easily: a
		// read from just below it is lossy, one from it is not.
		if rd.Earliest > 0 {
			for from, lossy := range map[int64]bool{rd.Earliest - 1: true, rd.Earliest: false} {
				if edge, err := h.reg.ReadRecord(j.plan.owner, j.id, from); err != nil || edge.Lossy != lossy {
					rt.Fatalf("ReadRecord of %s from %d (window from %d) is lossy %v, %v; want lossy %v", j.name, from, rd.Earliest, edge.Lossy, err, lossy)
				}
			}
		}
		if last, ok := h.window[j.name]; ok && (rd.Earliest < last[0] || rd.Next < last[1]) {
			rt.Fatalf("%s: record window went back from %v to [%d %d]", j.name, last, rd.Earliest, rd.Next)
		}
		h.window[j.name] = [2]int64{rd.Earliest, rd.Next}
	}
}

// checkFacts compares the Recorder's calls with the model: one registered
// fact per registered owned job, then at most one settled fact, nothing for
// unowned jobs or failed starts, each with the model's content, and the
// fault's refusals exactly where it was on.
func (h *machine) checkFacts(rt *rapid.T) {
	byName := map[string][]attempt{}
	for _, a := range h.facts.all() {
		n := factName(a.fact)
		byName[n] = append(byName[n], a)
		if s, ok := a.fact.(jobs.JobSettled); ok && s.ProducerReported &&
			(s.Cause == jobs.SettlementCauseCancelFailure || s.Cause == jobs.SettlementCauseTeardownBound) {
			rt.Fatalf("%s: a forced settlement (%s) claims producerReported", n, s.Cause)
		}
	}
	for _, j := range h.m.registered() {
		got := byName[j.name]
		delete(byName, j.name)
		if j.plan.owner == "" {
			if len(got) != 0 {
				rt.Fatalf("unowned %s has facts %+v", j.name, got)
			}
			continue
		}
		registered := jobs.JobRegistered{
			JobID: j.id, At: j.startedAt, Owner: j.plan.owner, Kind: j.plan.kind, Label: label(j.plan),
			Ordinal: j.ordinal, Record: j.plan.record,
		}
		if j.plan.promotedAfter > 0 {
			// A promoted job's interval starts at the promotion; the fact
			// says when the command started, before it.
			registered.Promoted = true
			registered.CommandStartedAt = j.startedAt - j.plan.promotedAfter.Milliseconds()
		}
		want := []attempt{{fact: registered, accepted: j.regAccepted}}
		if j.settledAttempted {
			want = append(want, attempt{fact: jobs.JobSettled{
				JobID: j.id, At: j.finishedAt, Status: j.status, Detail: j.detail,
				ProducerReported: j.producerReported, Cause: j.cause, HasResult: j.resultBytes > 0,
				Registration: jobs.JobRegistration{
					RegisteredAt: j.startedAt, Owner: j.plan.owner, Kind: j.plan.kind, Label: label(j.plan),
					Ordinal: j.ordinal, Record: j.plan.record,
				},
			}, accepted: j.settledAccepted})
		}
		if len(got) == 2 && j.detailPrefix {
			if s := got[1].fact.(jobs.JobSettled); strings.HasPrefix(s.Detail, j.detail) {
				s.Detail = j.detail
				got[1].fact = s
			}
		}
		if !reflect.DeepEqual(got, want) {
			rt.Fatalf("facts of %s:\n got %+v\nwant %+v", j.name, got, want)
		}
	}
	for n, got := range byName {
		rt.Fatalf("facts for %s, which never registered: %+v", n, got)
	}
}

// checkFile flushes the store and reads the journal file back: it holds
// exactly the facts the Recorder accepted, in order.
func (h *machine) checkFile(rt *rapid.T) {
	var want []jobs.Fact
	for _, a := range h.facts.all() {
		if a.accepted {
			want = append(want, a.fact)
		}
	}
	var got []jobs.Fact
	for f, err := range journal.Facts(journal.ReadFile(h.path), jobs.DecodeFact) {
		if err != nil {
			rt.Fatalf("reading the journal: %v", err)
		}
		got = append(got, f)
	}
	if !reflect.DeepEqual(got, want) {
		rt.Fatalf("the journal holds\n%+v\nthe recorder accepted\n%+v", got, want)
	}
}

func (h *machine) checkSignals(rt *rapid.T) {
	got := int(h.changed.Load())
	if got < h.m.changed || got > h.m.changed+h.m.changedSlack {
		rt.Fatalf("%d jobs-changed signals, want %d (up to %d more)", got, h.m.changed, h.m.changedSlack)
	}
	h.m.changed, h.m.changedSlack = got, 0
	h.mu.Lock()
	defer h.mu.Unlock()
	if !reflect.DeepEqual(h.outputs, h.m.outputs) {
		rt.Fatalf("output signals %v, want %v", h.outputs, h.m.outputs)
	}
	if !reflect.DeepEqual(h.dones, h.m.dones) {
		rt.Fatalf("done signals %v, want %v", h.dones, h.m.dones)
	}
}

func factName(f jobs.Fact) string {
	switch f := f.(type) {
	case jobs.JobRegistered:
		return fmt.Sprintf("%s-%d", f.Kind, f.Ordinal)
	case jobs.JobSettled:
		return fmt.Sprintf("%s-%d", f.Registration.Kind, f.Registration.Ordinal)
	}
	return fmt.Sprintf("%T", f)
}
