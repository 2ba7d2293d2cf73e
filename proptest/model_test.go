package proptest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// The model is registry/doc.go as plain Go over plain data: no locks, no
// goroutines, and time as a number the model advances itself. It predicts
// every result the state machine checks. Where the registry is allowed to
// order two things either way (see changedSlack), the model says so.

// An errKind classifies an error the way the properties compare them.
type errKind int

const (
	errNone errKind = iota
	errUnknown
	errForeign
	errNoRecord
	errNegative
	errClosed
	errTooMany
	errInvalid
	errCancelFailed
	errNoTerminal
	errSettled
	errOther // a starter's own error or panic
)

var errKindNames = [...]string{"nil", "unknown job", "foreign job", "no record", "negative offset",
	"closed", "too many jobs", "invalid start", "cancel failed", "no terminal", "settled", "other error"}

func (k errKind) String() string { return errKindNames[k] }

func classify(err error) errKind {
	switch {
	case err == nil:
		return errNone
	case errors.Is(err, registry.ErrUnknownJob):
		return errUnknown
	case errors.Is(err, registry.ErrForeignJob):
		return errForeign
	case errors.Is(err, registry.ErrNoRecord):
		return errNoRecord
	case errors.Is(err, registry.ErrNegativeOffset):
		return errNegative
	case errors.Is(err, registry.ErrClosed):
		return errClosed
	case errors.Is(err, registry.ErrTooManyJobs):
		return errTooMany
	case errors.Is(err, registry.ErrInvalidStart):
		return errInvalid
	case errors.Is(err, errCancel):
		return errCancelFailed
	case errors.Is(err, registry.ErrNoTerminal):
		return errNoTerminal
	case errors.Is(err, registry.ErrSettled):
		return errSettled
	}
	return errOther
}

type jobState int

const (
	jobStaged jobState = iota // refused before or inside its starter: never visible
	jobLive
	jobSettled
)

// A starterMode is how a start's starter behaves.
type starterMode int

const (
	starterOK starterMode = iota
	starterFails
	starterPanics
	startInvalid // an empty label: refused before anything
)

// A stagedWrite is a write the starter makes before it returns.
type stagedWrite struct {
	detail bool // UpdateDetail, else Append
	text   string
	opts   jobs.AppendOptions
}

// A startPlan is everything a start action drew.
type startPlan struct {
	kind        string
	owner       jobs.SessionID
	record      bool
	terminal    bool // a recording job started with RunTerminal (record is set too)
	handle      bool // started with StartTerminal, which returns its TerminalJob
	limit       int64
	mode        starterMode
	staged      []stagedWrite
	id          jobs.JobID
	cancelFails bool
	react       reaction
	self        reaction // reactAfter: the producer reports on its own, after a while
	hang        bool     // Cancel blocks until the test releases it (teardown property only)
	watched     bool
	viaFace     bool    // the producer settles through its face's Settle; its Hooks have no Done
	inStarter   *result // a viaFace producer that settles inside its starter, with this result
	// promotedAfter, when positive, registers the producer with Promote as
	// one already running for that long: a foreground command promoted at
	// its deadline, whose staged writes are the output it wrote before.
	promotedAfter time.Duration
}

// A modelJob is one start: the model's job and the test's handles on it.
type modelJob struct {
	plan startPlan

	id               jobs.JobID
	seq              int // registration order, 0 while never registered
	name             string
	ordinal          int
	ring             *modelRing // nil for a plain job
	retain           int        // live retention
	state            jobState
	status           jobs.JobStatus
	detail           string
	detailPrefix     bool // detail is known only up to this prefix
	output           string
	result           string // the producer's result until the first read after the settlement takes it
	resultBytes      int64  // its size, which stays
	startedAt        int64
	finishedAt       int64
	reported         bool
	producerReported bool
	cause            jobs.SettlementCause
	stopRequested    bool
	stopReason       string
	stopCause        jobs.SettlementCause
	tornDownOnce     bool // a teardown called Cancel
	removed          bool

	// The producer, as the model sees it.
	cancelFails   bool
	finished      bool          // it has reported
	pendingAt     time.Duration // when a reactAfter report is due; <0 for none
	pendingResult result
	cancels       []string

	// The facts the Recorder must have been handed, and whether the fault
	// let them through.
	settledAttempted bool
	regAccepted      bool
	settledAccepted  bool

	// The test's handles.
	prod    *producer
	face    jobs.RunningJob
	recFace jobs.RecordingJob
	term    jobs.TerminalJob // the handle StartTerminal returned; nil otherwise

	// typed is the input the model says reached the producer's terminal.
	typed []string
}

func (j *modelJob) visibleTo(caller jobs.SessionID) bool {
	return j.plan.owner == "" || j.plan.owner == caller
}

func (j *modelJob) snapshot() jobs.JobSnapshot {
	s := jobs.JobSnapshot{
		ID: j.id, Name: j.name, Kind: j.plan.kind, Label: label(j.plan), Ordinal: j.ordinal,
		Owner: j.plan.owner, Record: j.plan.record, Terminal: j.plan.terminal, Status: j.status, Detail: j.detail,
		StartedAt: j.startedAt, FinishedAt: j.finishedAt, Reported: j.reported,
		ProducerReported: j.producerReported,
		HasResult:        j.resultBytes > 0, ResultBytes: j.resultBytes,
	}
	if j.ring != nil {
		s.OutputBytes = j.ring.total
	}
	return s
}

func label(p startPlan) string {
	if p.mode == startInvalid {
		return ""
	}
	return p.kind + " job"
}

// A settlementReq is what one source asks a job to settle as.
type settlementReq struct {
	status           jobs.JobStatus
	detail           string
	detailPrefix     bool
	output           string
	result           string
	producerReported bool
	cause            jobs.SettlementCause
	outcome          bool // the producer's own terminal outcome: the stop rule applies
}

// fromProducer is what Done's result asks for.
func fromProducer(r result) settlementReq {
	switch {
	case r.panic != nil:
		return settlementReq{status: jobs.JobStatusFailed, detail: fmt.Sprintf("producer failed: panic: %v", r.panic)}
	case r.err != nil:
		return settlementReq{status: jobs.JobStatusFailed, detail: "producer failed: " + r.err.Error()}
	case !r.out.Status.Terminal():
		return settlementReq{status: jobs.JobStatusFailed, detail: "producer failed: it reported status", detailPrefix: true}
	}
	return settlementReq{status: r.out.Status, detail: r.out.Detail, output: r.out.Output, result: r.out.Result, producerReported: true, outcome: true}
}

func forced(cause jobs.SettlementCause, detail string) settlementReq {
	return settlementReq{status: jobs.JobStatusFailed, detail: detail, cause: cause}
}

// The model registry.
type model struct {
	limits registry.Limits
	base   time.Time
	now    time.Duration

	byID     map[jobs.JobID]*modelJob // the jobs the registry holds
	starts   []*modelJob              // every start, in order
	seq      int
	ordinals map[string]int
	active   map[jobs.SessionID]int
	closed   bool
	fault    bool

	// Signals the test's listeners must have seen.
	changed int
	// changedSlack is how many more jobs-changed signals the registry may
	// have fired than changed says: a Kill whose Cancel makes the producer
	// report at once may or may not see the job live again and move it to
	// stopping, depending on which goroutine wins.
	changedSlack int
	outputs      map[jobs.JobID]int
	dones        map[string]int

	waitingOn *modelJob // the job a Wait is blocked on
}

func newModel(limits registry.Limits, base time.Time) *model {
	return &model{
		limits: limits, base: base,
		byID: map[jobs.JobID]*modelJob{}, ordinals: map[string]int{}, active: map[jobs.SessionID]int{},
		outputs: map[jobs.JobID]int{}, dones: map[string]int{},
	}
}

// ms is the registry's clock reading now, in Unix milliseconds.
func (m *model) ms() int64 { return m.base.Add(m.now).UnixMilli() }

func (m *model) registered() []*modelJob {
	var out []*modelJob
	for _, j := range m.starts {
		if j.seq > 0 {
			out = append(out, j)
		}
	}
	return out
}

func (m *model) lookup(caller jobs.SessionID, id jobs.JobID) (*modelJob, errKind) {
	j, ok := m.byID[id]
	switch {
	case !ok:
		return nil, errUnknown
	case !j.visibleTo(caller):
		return nil, errForeign
	}
	return j, errNone
}

// start predicts a Start: validate, refuse when closed, admit, issue the
// ordinal, run the starter (staging its writes), refuse a duplicate id, and
// register.
func (m *model) start(j *modelJob) errKind {
	p := j.plan
	j.pendingAt = -1
	j.cancelFails = p.cancelFails
	switch {
	case p.mode == startInvalid:
		return errInvalid
	case m.closed:
		return errClosed
	case m.active[p.owner] >= m.limits.MaxPerOwner:
		return errTooMany
	}
	m.active[p.owner]++
	m.ordinals[p.kind]++
	j.ordinal = m.ordinals[p.kind]
	j.name = p.kind + "-" + strconv.Itoa(j.ordinal)
	j.id = p.id
	j.status = jobs.JobStatusRunning
	if p.record {
		j.retain = m.limits.RetainBytes
		if p.limit > 0 {
			j.retain = int(p.limit)
		}
		j.ring = &modelRing{limit: j.retain}
	}
	for _, w := range p.staged {
		switch {
		case w.detail:
			j.detail = w.text
		case j.ring != nil && w.text != "":
			j.ring.append(w.text, m.ms(), knownChannel(w.opts.Channel), w.opts.GapBefore)
		}
	}
	if p.inStarter != nil {
		j.finished = true // applied by settleStaged once registered, dropped otherwise
	}
	if p.mode != starterOK {
		m.active[p.owner]--
		return errOther
	}
	if _, dup := m.byID[p.id]; dup {
		m.active[p.owner]--
		m.cancelAndLinger(j, "registry: duplicate job id")
		return errInvalid
	}
	note("start: registered (record %v, owned %v, staged %d, via face %v, settled in starter %v)", p.record, p.owner != "", len(p.staged), p.viaFace, p.inStarter != nil)
	m.seq++
	j.seq = m.seq
	j.state = jobLive
	j.startedAt = m.ms()
	m.byID[j.id] = j
	if p.self.kind == reactAfter && !j.finished {
		j.pendingAt, j.pendingResult = m.now+p.self.after, p.self.result
	}
	if p.owner != "" {
		j.regAccepted = !m.fault
	}
	m.signalChanged()
	return errNone
}

func knownChannel(c jobs.Channel) jobs.Channel {
	if c == "" || c.Valid() {
		return c
	}
	return ""
}

func (m *model) signalChanged() {
	if !m.closed {
		m.changed++
	}
}

// cancel predicts a Cancel call reaching j's producer and reports whether it
// succeeded.
func (m *model) cancel(j *modelJob, reason string) bool {
	j.cancels = append(j.cancels, reason)
	if j.plan.hang {
		return true // it answers only after the teardown gave up on it
	}
	if j.cancelFails {
		return false
	}
	switch r := j.plan.react; r.kind {
	case reactNow:
		m.report(j, r.result)
	case reactAfter:
		if at := m.now + r.after; !j.finished && (j.pendingAt < 0 || at < j.pendingAt) {
			j.pendingAt, j.pendingResult = at, r.result
		}
	}
	return true
}

// cancelAndLinger is cancel for a caller that waits for Cancel to return
// (Kill, a refused start), not in a goroutine of its own (teardown).
func (m *model) cancelAndLinger(j *modelJob, reason string) bool {
	if !m.cancel(j, reason) {
		return false
	}
	if j.plan.react.linger {
		m.advanceTo(m.now + lingerTime)
	}
	return true
}

// settleStaged applies the outcome a producer gave inside its starter, right
// after its registration commit (Start returned the registered snapshot).
func (m *model) settleStaged(j *modelJob) {
	if j.plan.inStarter != nil && j.seq > 0 {
		m.settle(j, fromProducer(*j.plan.inStarter))
	}
}

// report is j's producer returning r from Done (or calling Settle), now.
func (m *model) report(j *modelJob, r result) {
	if j.finished {
		return
	}
	j.finished, j.pendingAt = true, -1
	if j.seq > 0 { // Done is only called for registered jobs
		m.settle(j, fromProducer(r))
	}
}

// settle is the registry's settlement: first wins, the stop rule, the
// cause, the detail rules, the fact, the trim and the signals.
func (m *model) settle(j *modelJob, s settlementReq) {
	if j.state != jobLive {
		return
	}
	if s.outcome && j.stopRequested && s.status == jobs.JobStatusFailed {
		s.status = jobs.JobStatusKilled
	}
	if s.cause == "" {
		s.cause = jobs.SettlementCauseProducer
		if j.stopRequested {
			s.cause = j.stopCause
		}
	}
	if s.detail == "" {
		s.detail, s.detailPrefix = j.detail, false
	}
	if s.status == jobs.JobStatusKilled && j.stopReason != "" {
		s.detail = joinDetail(s.detail, j.stopReason)
	}
	note("settle: %s by %s", s.status, s.cause)
	if j.ring != nil && j.ring.used() > int64(m.limits.SettledRetainBytes) {
		note("settle: record trimmed")
	}
	if m.fault && j.plan.owner != "" {
		note("settle: fact refused by the fault")
	}
	j.state = jobSettled
	j.status, j.detail, j.detailPrefix, j.output = s.status, s.detail, s.detailPrefix, s.output
	j.producerReported, j.cause = s.producerReported, s.cause
	j.result, j.resultBytes = s.result, int64(len(s.result))
	j.finishedAt = m.ms()
	if j.plan.watched || m.waitingOn == j {
		j.reported = true
	}
	m.active[j.plan.owner]--
	if j.ring != nil {
		j.ring.settle(m.limits.SettledRetainBytes)
	}
	if j.plan.owner != "" {
		j.settledAttempted, j.settledAccepted = true, !m.fault
	}
	if !m.closed {
		m.changed++
		if j.ring != nil {
			m.outputs[j.id]++
		}
		m.dones[j.name]++
	}
}

func joinDetail(detail, reason string) string {
	switch {
	case detail == "":
		return reason
	case reason == "":
		return detail
	}
	return detail + "; " + reason
}

// advanceTo moves time to t, letting every producer report that is due
// on the way, in time order.
func (m *model) advanceTo(t time.Duration) {
	for {
		var next *modelJob
		for _, j := range m.starts {
			if j.pendingAt >= 0 && j.pendingAt <= t && (next == nil || j.pendingAt < next.pendingAt) {
				next = j
			}
		}
		if next == nil {
			break
		}
		m.now = next.pendingAt
		m.report(next, next.pendingResult)
	}
	m.now = t
}

func (m *model) appendText(j *modelJob, text string, opts jobs.AppendOptions) {
	if text == "" || j.state != jobLive || j.ring == nil {
		return
	}
	if len(text) > j.ring.limit {
		note("append: oversized")
	}
	j.ring.append(text, m.ms(), knownChannel(opts.Channel), opts.GapBefore)
	if !m.closed {
		m.outputs[j.id]++
	}
}

func (m *model) updateDetail(j *modelJob, detail string) {
	if j.state != jobLive {
		return
	}
	if j.detail != detail {
		m.signalChanged()
	}
	j.detail = detail
}

// kill predicts Kill. The stop is asked for as Cancel is called: a
// producer that reports failed from inside Cancel settles killed.
func (m *model) kill(caller jobs.SessionID, id jobs.JobID, reason string) (registry.KillResult, errKind) {
	j, ek := m.lookup(caller, id)
	if ek != errNone {
		return 0, ek
	}
	if j.state == jobSettled {
		return registry.KillAlreadyFinished, errNone
	}
	set := !j.stopRequested
	if set {
		j.stopRequested, j.stopReason, j.stopCause = true, reason, jobs.SettlementCauseKill
	}
	if !m.cancelAndLinger(j, reason) {
		if set {
			j.stopRequested, j.stopReason, j.stopCause = false, "", ""
		}
		return 0, errCancelFailed
	}
	j.reported = true
	if j.state != jobLive {
		// The producer reported from inside Cancel. Unless Cancel lingered
		// until the settlement was done, Kill may have found the job live
		// still and moved it to stopping first.
		if !m.closed && !j.plan.react.linger {
			m.changedSlack++
		}
		return registry.KillRequested, errNone
	}
	if j.status == jobs.JobStatusRunning {
		j.status = jobs.JobStatusStopping
		m.signalChanged()
	}
	return registry.KillRequested, errNone
}

// selectLive predicts the jobs KillAll selects by a filter: the live jobs
// caller sees, of kind (any kind when ""), in registration order.
func (m *model) selectLive(caller jobs.SessionID, kind string) []jobs.JobID {
	var ids []jobs.JobID
	for _, j := range m.registered() {
		if m.byID[j.id] == j && j.visibleTo(caller) && j.state == jobLive && (kind == "" || j.plan.kind == kind) {
			ids = append(ids, j.id)
		}
	}
	return ids
}

// Teardown reasons and details, as the registry words them.
const (
	closeReason   = "registry closed"
	disposeReason = "session disposed"
)

func cancelFailedDetail() string {
	return "cancel failed during teardown; work may be orphaned: " + errCancel.Error()
}

func boundDetail(bound time.Duration) string {
	return fmt.Sprintf("producer did not settle within the teardown bound (%s); work may be orphaned", bound)
}

func ctxDetail() string {
	return fmt.Sprintf("teardown stopped waiting for the producer: %v; work may be orphaned", context.DeadlineExceeded)
}

// teardown predicts the teardown of the jobs match selects, and reports
// whether it returns an error. ctxTimeout, when positive, is the deadline
// of the teardown's context.
func (m *model) teardown(match func(*modelJob) bool, reason string, ctxTimeout time.Duration) bool {
	start := m.now
	deadline, detail := start+m.limits.TeardownBound, boundDetail(m.limits.TeardownBound)
	if ctxTimeout > 0 && ctxTimeout < m.limits.TeardownBound {
		deadline, detail = start+ctxTimeout, ctxDetail()
	}
	var targets, cancel []*modelJob
	moved := false
	for _, j := range m.registered() {
		if j.removed || !match(j) {
			continue
		}
		j.reported = true
		if j.state != jobLive {
			continue
		}
		if !j.stopRequested {
			j.stopRequested, j.stopReason, j.stopCause = true, reason, jobs.SettlementCauseTeardown
		}
		if j.status == jobs.JobStatusRunning {
			j.status, moved = jobs.JobStatusStopping, true
		}
		targets = append(targets, j)
		if !j.tornDownOnce {
			j.tornDownOnce = true
			cancel = append(cancel, j)
		}
	}
	if moved {
		m.signalChanged()
	}
	failed := false
	for _, j := range cancel {
		if !m.cancel(j, reason) {
			failed = true
			m.settle(j, forced(jobs.SettlementCauseCancelFailure, cancelFailedDetail()))
		}
	}
	end, expired := start, false
	for _, j := range targets {
		if j.state != jobLive {
			continue
		}
		if j.pendingAt < 0 || j.pendingAt > deadline {
			expired = true
		} else {
			end = max(end, j.pendingAt)
		}
	}
	note("teardown: %d targets, cancel failed %v, expired %v", min(len(targets), 3), failed, expired)
	if expired {
		m.advanceTo(deadline)
		for _, j := range targets {
			m.settle(j, forced(jobs.SettlementCauseTeardownBound, detail))
		}
	} else {
		m.advanceTo(end)
	}
	return failed || expired
}

func (m *model) dispose(session jobs.SessionID, ctxTimeout time.Duration) bool {
	if session == "" {
		return true
	}
	match := func(j *modelJob) bool { return j.plan.owner == session }
	failed := m.teardown(match, disposeReason, ctxTimeout)
	removed := false
	for _, j := range m.registered() {
		if !j.removed && match(j) && j.state == jobSettled {
			j.removed, removed = true, true
			delete(m.byID, j.id)
		}
	}
	if removed {
		m.signalChanged()
	}
	return failed
}

func (m *model) close(ctxTimeout time.Duration) bool {
	m.closed = true
	return m.teardown(func(*modelJob) bool { return true }, closeReason, ctxTimeout)
}

// wait predicts Wait with a positive timeout.
func (m *model) wait(caller jobs.SessionID, id jobs.JobID, timeout time.Duration) (*modelJob, bool, errKind) {
	j, ek := m.lookup(caller, id)
	if ek != errNone {
		return nil, false, ek
	}
	if j.state == jobSettled {
		j.reported = true
		return j, true, errNone
	}
	until := m.now + timeout
	if j.pendingAt >= 0 && j.pendingAt <= until {
		until = j.pendingAt
	}
	m.waitingOn = j
	m.advanceTo(until)
	m.waitingOn = nil
	if j.state == jobSettled {
		note("wait: settled while waiting")
		j.reported = true
		return j, true, errNone
	}
	note("wait: timed out")
	return j, false, errNone
}

// read predicts Read: the final output once settled (the fakes have no
// ReadOutput), and a settled job becomes reported.
func (m *model) read(caller jobs.SessionID, id jobs.JobID) (*modelJob, string, string, errKind) {
	j, ek := m.lookup(caller, id)
	if ek != errNone {
		return nil, "", "", ek
	}
	if j.state == jobSettled {
		j.reported = true
		result := j.result
		j.result = "" // handed once
		return j, j.output, result, errNone
	}
	return j, "", "", errNone
}

func (m *model) readRecord(caller jobs.SessionID, id jobs.JobID, from int64) (jobs.RecordRead, errKind) {
	if from < 0 {
		return jobs.RecordRead{}, errNegative
	}
	j, ek := m.lookup(caller, id)
	switch {
	case ek != errNone:
		return jobs.RecordRead{}, ek
	case j.ring == nil:
		return jobs.RecordRead{}, errNoRecord
	}
	rd := j.ring.read(from)
	note("readRecord: lossy %v, settled %v", rd.Lossy, j.state == jobSettled)
	return rd, errNone
}

// diffSnapshot describes how got differs from j's model snapshot, or "".
func diffSnapshot(got jobs.JobSnapshot, j *modelJob) string {
	want := j.snapshot()
	if j.detailPrefix {
		if !strings.HasPrefix(got.Detail, want.Detail) {
			return fmt.Sprintf("detail %q, want it to start with %q", got.Detail, want.Detail)
		}
		got.Detail = want.Detail
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("\n got %+v\nwant %+v", got, want)
	}
	return ""
}
