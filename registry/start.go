package registry

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A startSpec is a validated JobStart: its common fields and exactly one Run.
type startSpec struct {
	common    jobs.JobStartCommon
	plain     func(context.Context, jobs.RunningJob) (jobs.Hooks, error)
	recording func(context.Context, jobs.RecordingJob) (jobs.Hooks, error)
	terminal  func(context.Context, jobs.RecordingJob) (jobs.Hooks, jobs.TerminalInput, error)
	// commandStartedAt is set by Promote: when the running producer's
	// command started, in Unix milliseconds.
	commandStartedAt int64
}

// parseStart validates start.
func parseStart(start jobs.JobStart) (startSpec, error) {
	var spec startSpec
	switch s := start.(type) {
	case jobs.PlainJobStart:
		spec = startSpec{common: s.JobStartCommon, plain: s.Run}
	case *jobs.PlainJobStart:
		if s != nil {
			spec = startSpec{common: s.JobStartCommon, plain: s.Run}
		}
	case jobs.RecordingJobStart:
		spec = startSpec{common: s.JobStartCommon, recording: s.Run, terminal: s.RunTerminal}
	case *jobs.RecordingJobStart:
		if s != nil {
			spec = startSpec{common: s.JobStartCommon, recording: s.Run, terminal: s.RunTerminal}
		}
	default:
		return spec, fmt.Errorf("registry: start: %T is not a PlainJobStart or RecordingJobStart: %w", start, ErrInvalidStart)
	}
	var problem string
	switch c := spec.common; {
	case spec.plain == nil && spec.recording == nil && spec.terminal == nil:
		problem = "no Run function"
	case spec.recording != nil && spec.terminal != nil:
		problem = "both Run and RunTerminal"
	case c.Kind == "":
		problem = "empty kind"
	case c.Label == "":
		problem = "empty label"
	case c.OutputLimitBytes < 0:
		problem = fmt.Sprintf("output limit %d is not positive", c.OutputLimitBytes)
	case c.Timeout < 0:
		problem = fmt.Sprintf("timeout %s is negative", c.Timeout)
	default:
		problem = checkLabels(c.Labels)
	}
	if problem != "" {
		return spec, fmt.Errorf("registry: start %q: %s: %w", spec.common.Kind, problem, ErrInvalidStart)
	}
	return spec, nil
}

// Start validates start, admits it, issues its id and per-kind ordinal, runs
// its starter with the job's face and registers the job. It returns the
// registered snapshot.
//
// A refusal (validation, admission, closed registry) consumes no ordinal and
// never calls the starter. A starter that returns an error or panics
// registers nothing, and its ordinal is skipped. Writes and detail updates
// made inside the starter are staged: they surface at the registration
// commit, which records the registered fact (owned jobs) and then fires
// exactly one jobs-changed signal.
func (r *Registry) Start(ctx context.Context, start jobs.JobStart) (jobs.JobSnapshot, error) {
	spec, err := parseStart(start)
	if err != nil {
		return jobs.JobSnapshot{}, err
	}
	_, snap, err := r.start(ctx, spec, false)
	return snap, err
}

// start is Start of a parsed start, and with waitSlot StartWait. It
// returns the registered job too.
func (r *Registry) start(ctx context.Context, spec startSpec, waitSlot bool) (*job, jobs.JobSnapshot, error) {
	common := spec.common
	if err := ctx.Err(); err != nil {
		return nil, jobs.JobSnapshot{}, fmt.Errorf("registry: start %q: %w", common.Kind, err)
	}

	sh, ordinal, err := r.admit(ctx, &common, waitSlot)
	if err != nil {
		return nil, jobs.JobSnapshot{}, err
	}

	j := &job{
		r:        r,
		sh:       sh,
		name:     displayName(common.Kind, ordinal),
		kind:     common.Kind,
		label:    common.Label,
		ordinal:  ordinal,
		toolCall: common.ToolCall,
		timeout:  common.Timeout,
		labels:   cloneLabels(common.Labels),
		status:   lifecycle.Initial(),
	}
	if spec.plain == nil {
		j.record = newRing(r.retainFor(common.OutputLimitBytes))
	}
	hooks, err := r.runStarter(ctx, spec, j)
	if err != nil {
		r.discard(j)
		return nil, jobs.JobSnapshot{}, fmt.Errorf("registry: start %s: %w", j.name, err)
	}
	snap, err := r.register(j, hooks, spec.commandStartedAt)
	return j, snap, err
}

// displayName joins kind and ordinal ("bash-3") in one allocation.
func displayName(kind string, ordinal int) string {
	var buf [48]byte
	b := append(buf[:0], kind...)
	b = append(b, '-')
	return string(strconv.AppendInt(b, int64(ordinal), 10))
}

// runStarter issues the job's id and runs its starter, turning a panic or
// unusable Hooks into an error.
func (r *Registry) runStarter(ctx context.Context, spec startSpec, j *job) (hooks jobs.Hooks, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("starter panicked: %v", v)
		}
	}()
	j.id = r.newID()
	switch {
	case spec.plain != nil:
		hooks, err = spec.plain(ctx, plainFace{j})
	case spec.terminal != nil:
		var in jobs.TerminalInput
		hooks, in, err = spec.terminal(ctx, recordingFace{plainFace{j}})
		j.record.input = &in
	default:
		hooks, err = spec.recording(ctx, recordingFace{plainFace{j}})
	}
	if err != nil {
		return hooks, err
	}
	if hooks.Cancel == nil {
		return hooks, fmt.Errorf("starter returned Hooks without Cancel: %w", ErrInvalidStart)
	}
	if in := j.terminal(); in != nil && (in.Send == nil || in.Resize == nil) {
		r.cancelOrphan(j, hooks.Cancel, "registry: the terminal starter returned no Send or Resize")
		return hooks, fmt.Errorf("starter returned a TerminalInput without Send or Resize: %w", ErrInvalidStart)
	}
	return hooks, nil
}

// discard gives back the slot of a job that never registered.
func (r *Registry) discard(j *job) {
	j.sh.mu.Lock()
	j.setState(stateDiscarded)
	j.sh.releaseSlot()
	j.sh.mu.Unlock()
}

// cancelOrphan cancels a producer the registry will not track.
func (r *Registry) cancelOrphan(j *job, cancel func(string) error, reason string) {
	if err := r.callCancel(cancel, reason); err != nil {
		r.log.Error("registry: cancel of an unregistered producer failed; work may be orphaned",
			"job", j.id, "name", j.name, "err", err)
	}
}

// register is the registration commit: take the job's id in the registry's
// table (a reader still sees it unknown), record the registered fact (which
// says, for a promotion, when the command started: commandStartedAt, Unix
// ms, zero otherwise), then
// make the job visible, fire jobs-changed, and then apply the outcome the
// producer gave inside its starter or start the goroutine that waits in its
// Done.
func (r *Registry) register(j *job, hooks jobs.Hooks, commandStartedAt int64) (jobs.JobSnapshot, error) {
	at := r.now()
	sh := j.sh
	sh.mu.Lock()
	var refusal error
	reason := closeReason
	if sh.closed {
		refusal = ErrClosed
	} else if r.ids.insert(j) != j {
		refusal = fmt.Errorf("id %s is already taken: %w", j.id, ErrInvalidStart)
		reason = "registry: duplicate job id"
	}
	if refusal != nil {
		j.setState(stateDiscarded)
		sh.releaseSlot()
		sh.mu.Unlock()
		r.cancelOrphan(j, hooks.Cancel, reason)
		return jobs.JobSnapshot{}, fmt.Errorf("registry: start %s: %w", j.name, refusal)
	}
	j.hooks = hooks
	j.startedAt = at
	sh.registering++
	sh.mu.Unlock()

	if j.owner() != "" {
		r.record(jobs.JobRegistered{
			JobID:    j.id,
			At:       j.startedAt,
			Owner:    j.owner(),
			Kind:     j.kind,
			Label:    j.label,
			Ordinal:  j.ordinal,
			ToolCall: j.toolCall,
			Record:   j.record != nil,
			Labels:   j.labels,

			Promoted:         commandStartedAt != 0,
			CommandStartedAt: commandStartedAt,
		}, j.id)
	}

	sh.mu.Lock()
	j.setState(stateLive)
	sh.register(j, r.unowned)
	if sh.registering--; sh.registering == 0 && sh.regIdle != nil {
		close(sh.regIdle)
		sh.regIdle = nil
	}
	sh.running++ // live from here on, for Load
	// A producer that settled inside its starter (or while the fact was
	// recorded) settles now, right after the registration is visible.
	pending := j.pending
	j.pending = nil
	lateClose := r.stopClosedLate(j, pending != nil)
	if pending == nil && !lateClose {
		r.armDeadline(j)
	}
	snap := j.snapshot()
	sh.mu.Unlock()

	if r.obs != nil {
		r.obs.JobStarted(j.kind)
	}
	r.fireChanged(r.changed.load())
	switch {
	case pending != nil:
		r.settle(j, pending)
	case hooks.Done != nil:
		go r.awaitProducer(j)
	}
	if lateClose && pending == nil {
		r.cancelClosedLate(j, hooks.Cancel)
	}
	return snap, nil
}

// callCancel calls a Cancel hook, turning a panic into an error.
func (r *Registry) callCancel(cancel func(string) error, reason string) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("cancel panicked: %v", v)
		}
	}()
	return cancel(reason)
}
