package registry

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jobgen/jobgen/generated/jobs"
)

// lifecycle is the generated job state machine; every status move is checked
// against it.
var lifecycle jobs.JobLifecycle

// A jobState is where a job is in the registry's own bookkeeping, which is
// finer than its JobStatus: a job is staged while its starter runs and while
// its registered fact is recorded, and settling while its settled fact is
// recorded. Readers see a staged job as unknown and a settling job as live.
type jobState uint8

const (
	stateStaged    jobState = iota // starter running or registration in progress; writes stage silently
	stateLive                      // registered, visible, writes signal
	stateSettling                  // settlement claimed, fact being recorded; writes dropped
	stateSettled                   // terminal and visible
	stateDiscarded                 // the starter failed or the registry closed first; writes dropped
)

// A job is one job's state. Fields above the line are set before the job is
// shared and never change. Of the rest, those below mu are guarded by it,
// the job's own lock, so that appends and detail updates of different jobs
// never meet on one lock; state and removed are written holding both locks
// and may be read holding either; everything else is guarded by the mutex
// of the owner's shard, sh. The shard's mutex is always taken first. The
// flags sit together so that a job, allocated once per start, fits 320
// bytes; its owner is its shard's.
type job struct {
	r        *Registry
	sh       *shard // the owner's shard
	id       jobs.JobID
	name     string
	kind     string
	label    string
	ordinal  int
	toolCall jobs.ToolCallID
	timeout  time.Duration     // the JobStart's Timeout; zero for no deadline
	labels   map[string]string // the JobStart's Labels, copied; nil for none. Never changed, so snapshots share it
	// ------------------------------------------------------------------
	// done is closed when the settlement is visible, releasing waiters. It
	// is made only when something waits (see Registry.doneOf): most jobs
	// settle with nobody blocked on them.
	done       chan struct{}
	seq        uint64 // registration order within the shard
	after      uint64 // the unowned shard's seq at registration, for List
	status     jobs.JobStatus
	output     string // the final output of the producer's outcome
	startedAt  int64
	finishedAt int64
	stopReason string               // set by the first kill or teardown
	stopCause  jobs.SettlementCause // kill or teardown: whichever asked first
	// pending is a Settle made inside the starter, applied at the
	// registration commit; once settled, a job whose producer settled with
	// a result keeps it here (result, and its size resultBytes, which
	// stays when the first Read takes the value): the field is free then,
	// and a job without a result pays nothing for it.
	pending  *settlement
	hooks    jobs.Hooks
	deadline *time.Timer // armed at registration when timeout > 0, stopped at settlement

	killsCancelling  int32 // kills whose Cancel is running
	waiters          int32
	reported         bool
	producerReported bool
	stopRequested    bool
	stopTentative    bool // the stop was asked by kills whose Cancels have not succeeded yet
	teardownCancel   bool // a teardown has called (or is calling) Cancel
	outcomeSeen      bool // the producer reported (Done returned or Settle was called)

	mu            sync.Mutex
	state         jobState
	removed       bool // Remove or DisposeOwner took the job out of the registry
	droppedLogged bool
	record        *ring // nil for a plain job; set before the job is shared
	detail        string
	// outputWait is closed, and cleared, by the next committed append: one
	// close wakes every follow stream waiting on it, so an append costs the
	// same with a thousand followers as with none. nil while nobody waits.
	outputWait chan struct{}
}

// owner is the session that owns the job, "" for an unowned one.
func (j *job) owner() jobs.SessionID { return j.sh.owner }

// setState moves the job to state. j.sh.mu must be held (and j.mu not).
func (j *job) setState(state jobState) {
	j.mu.Lock()
	j.state = state
	j.mu.Unlock()
}

func (j *job) visibleTo(caller jobs.SessionID) bool {
	owner := j.sh.owner
	return owner == "" || owner == caller
}

// listed reports whether readers see the job: registered and not removed.
// j.sh.mu or j.mu must be held.
func (j *job) listed() bool {
	return !j.removed && (j.state == stateLive || j.state == stateSettling || j.state == stateSettled)
}

// snapshot copies the job's state. j.sh.mu must be held (and j.mu not).
func (j *job) snapshot() jobs.JobSnapshot {
	var s jobs.JobSnapshot
	j.mu.Lock()
	j.snapshotInto(&s)
	j.mu.Unlock()
	return s
}

// snapshotInto copies the job's state into s. j.sh.mu and j.mu must be
// held.
func (j *job) snapshotInto(s *jobs.JobSnapshot) {
	*s = jobs.JobSnapshot{
		ID:               j.id,
		Name:             j.name,
		Kind:             j.kind,
		Label:            j.label,
		Ordinal:          j.ordinal,
		Owner:            j.owner(),
		ToolCall:         j.toolCall,
		Record:           j.record != nil,
		Terminal:         j.terminal() != nil,
		Status:           j.status,
		Detail:           j.detail,
		StartedAt:        j.startedAt,
		FinishedAt:       j.finishedAt,
		Reported:         j.reported,
		ProducerReported: j.producerReported,
		Labels:           j.labels,
	}
	if j.state == stateSettled && j.pending != nil {
		s.HasResult, s.ResultBytes = true, j.pending.resultBytes
	}
	if j.record != nil {
		s.OutputBytes = j.record.total
	}
}

// terminal is the job's terminal input, nil unless it is a terminal job.
func (j *job) terminal() *jobs.TerminalInput {
	if j.record == nil {
		return nil
	}
	return j.record.input
}

func (j *job) registration() jobs.JobRegistration {
	return jobs.JobRegistration{
		RegisteredAt: j.startedAt,
		Owner:        j.owner(),
		Kind:         j.kind,
		Label:        j.label,
		Ordinal:      j.ordinal,
		ToolCall:     j.toolCall,
		Record:       j.record != nil,
	}
}

// A plainFace is what the producer of a plain job holds. It has no Append
// method, so neither a call nor a type assertion can reach one.
type plainFace struct{ j *job }

// ID returns the job's identifier.
func (f plainFace) ID() jobs.JobID { return f.j.id }

// UpdateDetail replaces the job's progress line.
func (f plainFace) UpdateDetail(detail string) { f.j.r.updateDetail(f.j, detail) }

// Settle settles the job with the producer's outcome, on the caller's
// goroutine; see [jobs.RunningJob].
func (f plainFace) Settle(outcome jobs.JobOutcome, err error) {
	s := producerSettlement(outcome, err)
	f.j.r.producerOutcome(f.j, &s)
}

// A recordingFace is what the producer of a recording job holds.
type recordingFace struct{ plainFace }

// Append adds text to the job's record; empty text is dropped. Invalid UTF-8
// is replaced first (see ValidUTF8), so the record holds valid UTF-8.
func (f recordingFace) Append(text string, opts jobs.AppendOptions) {
	if text == "" {
		return
	}
	f.j.r.append(f.j, ValidUTF8(text), opts)
}

// ValidUTF8 returns text with each byte that does not begin a valid UTF-8
// sequence replaced by U+FFFD, the way encoding/json and a Go range loop
// read it: a run of n invalid bytes is n replacements, never one, so text
// cut anywhere and mended piece by piece reads the same as mended whole,
// provided a rune split at a cut is joined before it is mended (procjob's
// streams and the consuming cursor of package agenttools hold a rune's
// start until its rest arrives). An Append is mended on its own: a
// producer that splits one rune across two Appends gets a U+FFFD for each
// of its bytes. The record's byte offsets count the text as stored, so
// they mean the same in Go and in JSON on the wire. Valid text is returned
// as is. It is the one rule of the runtime's output: the record, the
// consuming cursor of package agenttools and the wire all read invalid
// bytes by it.
func ValidUTF8(text string) string {
	if isASCII(text) || utf8.ValidString(text) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 2*utf8.UTFMax)
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(string(utf8.RuneError))
		} else {
			b.WriteString(text[i : i+size])
		}
		i += size
	}
	return b.String()
}

// CompleteUTF8 returns the length of text without a trailing incomplete
// UTF-8 sequence: the start of a rune whose rest has not arrived yet. Bytes
// that no rune can complete are not held back. A reader that joins a rune a
// producer's reads split holds text[CompleteUTF8(text):] for the next read,
// then mends with ValidUTF8.
func CompleteUTF8(text string) int {
	for i := len(text) - 1; i >= 0 && i >= len(text)-utf8.UTFMax; i-- {
		if utf8.RuneStart(text[i]) {
			if !utf8.FullRuneInString(text[i:]) {
				return i
			}
			break
		}
	}
	return len(text)
}

// isASCII reports whether text is all ASCII, reading 64 bytes a step in
// eight words: most output is, and utf8.ValidString reads 8 bytes a step
// before it gets to its answer for it.
func isASCII(text string) bool {
	const high = 0x8080808080808080
	i := 0
	for ; i+64 <= len(text); i += 64 {
		s := text[i : i+64]
		if (load64(s[0:8])|load64(s[8:16])|load64(s[16:24])|load64(s[24:32])|
			load64(s[32:40])|load64(s[40:48])|load64(s[48:56])|load64(s[56:64]))&high != 0 {
			return false
		}
	}
	var acc uint64
	for ; i+8 <= len(text); i += 8 {
		acc |= load64(text[i : i+8])
	}
	for ; i < len(text); i++ {
		acc |= uint64(text[i])
	}
	return acc&high == 0
}

// load64 reads the first 8 bytes of s as one little-endian word, which the
// compiler makes a single load.
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

var (
	_ jobs.RunningJob   = plainFace{}
	_ jobs.RecordingJob = recordingFace{}
)

// append commits or stages one non-empty write.
func (r *Registry) append(j *job, text string, opts jobs.AppendOptions) {
	at := r.chunkNow()
	code, known := channelCode(opts.Channel)
	j.mu.Lock()
	switch j.state {
	case stateStaged:
		j.record.append(text, at, code, opts.GapBefore)
		j.mu.Unlock()
	case stateLive:
		j.record.append(text, at, code, opts.GapBefore)
		if j.outputWait != nil {
			close(j.outputWait)
			j.outputWait = nil
		}
		j.mu.Unlock()
		r.fireOutput(r.output.load(), j.id)
	default:
		first := !j.droppedLogged
		j.droppedLogged = true
		j.mu.Unlock()
		if first {
			r.log.Warn("registry: append after settlement dropped", "job", j.id, "bytes", len(text))
		}
		return
	}
	if !known {
		r.log.Warn("registry: append with an unknown channel kept unlabelled", "job", j.id, "channel", string(opts.Channel))
	}
}

// updateDetail commits or stages a progress line.
func (r *Registry) updateDetail(j *job, detail string) {
	j.mu.Lock()
	switch j.state {
	case stateStaged:
		j.detail = detail
		j.mu.Unlock()
	case stateLive:
		changed := j.detail != detail
		j.detail = detail
		j.mu.Unlock()
		if changed {
			r.fireChanged(r.changed.load())
		}
	default:
		first := !j.droppedLogged
		j.droppedLogged = true
		j.mu.Unlock()
		if first {
			r.log.Warn("registry: detail after settlement dropped", "job", j.id, "detail", detail)
		}
	}
}
