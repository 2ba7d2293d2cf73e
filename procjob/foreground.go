package procjob

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// A DeadlinePolicy says what a foreground execution does when its deadline
// passes and the command is still running (docs/decisions/0191).
type DeadlinePolicy string

const (
	// DeadlineKill stops the command at the deadline, as Cancel would.
	DeadlineKill DeadlinePolicy = "kill"
	// DeadlineOffer hands the caller an Offer of the running command at the
	// deadline: accepted, it becomes a job; declined or unanswered, it is
	// killed.
	DeadlineOffer DeadlinePolicy = "offer"
	// DeadlineNone waits for the command however long it runs.
	DeadlineNone DeadlinePolicy = "none"
)

// ErrOfferClosed is returned by an Offer that was already accepted or
// declined (or declined itself, unanswered).
var ErrOfferClosed = errors.New("procjob: the offer was already answered")

// A Wait is how a foreground caller waits for its command.
type Wait struct {
	// Deadline is how long the caller waits; it must be positive unless
	// Policy is DeadlineNone, which ignores it.
	Deadline time.Duration
	// Policy says what happens at the deadline; empty means DeadlineKill.
	Policy DeadlinePolicy
	// AnswerWithin is how long an Offer waits to be accepted or declined
	// before it declines itself and kills the command; zero means 10s.
	AnswerWithin time.Duration
	// OutputBytes, when positive, caps the Output of an Offer, cut on a
	// rune boundary: what does not fit stays unread, so the job's first
	// read after the promotion begins with it. The Output of a command that
	// ended within the wait is never cut.
	OutputBytes int
	// Log hears of an offer declined for the caller (unanswered, or refused
	// by the registry in Accept); nil discards.
	Log *slog.Logger
}

// A Foreground is what a foreground execution returns when its wait ends.
type Foreground struct {
	// Output is what the consuming cursor took by the end of the wait: all
	// of the command's output when it settled, what it had written so far
	// when the deadline passed. After an accepted Offer, the job's
	// ReadOutput continues exactly after it.
	Output string
	// Outcome is the command's outcome when it ended within the wait (or
	// was killed at the deadline); zero when Offer is set.
	Outcome jobs.JobOutcome
	// Offer is the running command, when the deadline passed under
	// DeadlineOffer; nil otherwise.
	Offer *Offer
}

// RunForeground starts the command and waits for it as w says. A command
// that ends within the wait returns its outcome and output with no Offer,
// whatever the policy. At the deadline, DeadlineKill stops it and returns
// its outcome (killed); DeadlineOffer returns an Offer of the still-running
// process, with the output so far. A ctx that ends first stops the command
// as DeadlineKill does and returns its outcome with ctx's error: before an
// Offer the caller alone owns the process. Once an Offer is returned, ctx no
// longer matters.
func RunForeground(ctx context.Context, opts Options, w Wait) (Foreground, error) {
	switch w.Policy {
	case "":
		w.Policy = DeadlineKill
	case DeadlineKill, DeadlineOffer, DeadlineNone:
	default:
		return Foreground{}, fmt.Errorf("procjob: deadline policy %q is not kill, offer or none", w.Policy)
	}
	if w.Policy != DeadlineNone && w.Deadline <= 0 {
		return Foreground{}, fmt.Errorf("procjob: foreground deadline %s is not positive", w.Deadline)
	}
	if w.AnswerWithin <= 0 {
		w.AnswerWithin = 10 * time.Second
	}
	p, err := spawn(opts)
	if err != nil {
		return Foreground{}, err
	}
	exited := make(chan struct{})
	p.exited.Subscribe(func() { close(exited) })
	var deadline <-chan time.Time
	if w.Policy != DeadlineNone {
		timer := time.NewTimer(w.Deadline)
		defer timer.Stop()
		deadline = timer.C
	}
	select {
	case <-exited:
		outcome, err := p.done()
		return Foreground{Output: p.consumer.read(), Outcome: outcome}, err
	case <-ctx.Done():
		outcome, err := p.stop("the foreground caller went away")
		return Foreground{Output: p.consumer.read(), Outcome: outcome}, errors.Join(ctx.Err(), err)
	case <-deadline:
	}
	if w.Policy == DeadlineKill {
		outcome, err := p.stop(fmt.Sprintf("timeout: the foreground deadline of %s passed", w.Deadline))
		return Foreground{Output: p.consumer.read(), Outcome: outcome}, err
	}
	o := &Offer{p: p, opts: opts, log: w.Log}
	o.mu.Lock() // answer, from the timer too, waits for the timer to be set
	defer o.mu.Unlock()
	o.timer = time.AfterFunc(w.AnswerWithin, func() {
		if _, _, err := o.Decline("the offer of the running command was not answered within " + w.AnswerWithin.String()); err == nil && o.log != nil {
			o.log.Warn("procjob: an offer was not answered; the command was killed", "command", commandLine(opts.Command))
		}
	})
	return Foreground{Output: p.consumer.readUpTo(w.OutputBytes), Offer: o}, nil
}

// stop cancels the process and waits for its outcome.
func (p *process) stop(reason string) (jobs.JobOutcome, error) {
	if err := p.cancel(reason); err != nil {
		return jobs.JobOutcome{}, err
	}
	return p.done()
}

// An Offer is a foreground command still running at its deadline, offered
// to the caller: Accept (or the start of Start, registered) makes it a job,
// the same process with nothing respawned, whose output cursor continues
// right after the Foreground's Output; Decline kills it. An Offer answers
// once, and declines itself, killing the command, when its Wait's
// AnswerWithin passes unanswered.
type Offer struct {
	p     *process
	opts  Options
	log   *slog.Logger
	timer *time.Timer

	mu       sync.Mutex
	answered bool
}

// StartedAt is when the command started, before its deadline passed.
func (o *Offer) StartedAt() time.Time { return o.p.startedAt }

// Start returns the start that registers the running command as a
// recording job (a terminal job with Options.Terminal), with the kind,
// label, owner and tool call of its Options. Its starter spawns nothing:
// it accepts the offer and attaches the running process to the job, whose
// record then holds its output from the start (as much as the window still
// keeps) and whose ReadOutput continues the foreground's cursor. A starter
// called after the offer was answered fails with ErrOfferClosed. Register
// it with registry.Registry.Promote (or Accept, which does).
func (o *Offer) Start() jobs.RecordingJobStart {
	start := Start(o.opts)
	start.Run, start.RunTerminal = nil, nil
	if o.opts.Terminal != nil {
		start.RunTerminal = func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, jobs.TerminalInput, error) {
			if err := o.take(job); err != nil {
				return jobs.Hooks{}, jobs.TerminalInput{}, err
			}
			return o.p.hooks(), o.p.term.input(), nil
		}
		return start
	}
	start.Run = func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
		if err := o.take(job); err != nil {
			return jobs.Hooks{}, err
		}
		return o.p.hooks(), nil
	}
	return start
}

// take answers the offer by attaching the process to job.
func (o *Offer) take(job jobs.RecordingJob) error {
	if !o.answer() {
		return ErrOfferClosed
	}
	o.p.attach(job)
	return nil
}

// answer claims the offer's one answer.
func (o *Offer) answer() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.answered {
		return false
	}
	o.answered = true
	o.timer.Stop()
	return true
}

// Accept registers the running command in reg as a job promoted from the
// foreground (registry.Registry.Promote): admitted and fenced as any start.
// A registration that fails — admission refuses it, the registry is closed
// — declines the offer, killing the command, logs it and returns the
// registry's error.
func (o *Offer) Accept(ctx context.Context, reg *registry.Registry) (jobs.JobSnapshot, error) {
	return o.AcceptStart(ctx, reg, o.Start())
}

// AcceptStart is Accept of start, which is the offer's Start with what the
// runtime adds to it (a face that turns output lines into progress, say):
// its starter must call Start's.
func (o *Offer) AcceptStart(ctx context.Context, reg *registry.Registry, start jobs.RecordingJobStart) (jobs.JobSnapshot, error) {
	snap, err := reg.Promote(ctx, start, o.StartedAt())
	if err == nil {
		return snap, nil
	}
	// A starter that ran and then lost the registration was cancelled by
	// the registry already; one that never ran is declined here.
	if _, _, derr := o.Decline("promotion refused: " + err.Error()); derr == nil && o.log != nil {
		o.log.Warn("procjob: the registry refused a promotion; the command was killed", "command", commandLine(o.opts.Command), "err", err)
	}
	return jobs.JobSnapshot{}, fmt.Errorf("procjob: promote %s: %w", commandLine(o.opts.Command), err)
}

// Decline answers the offer with no: it stops the command as Cancel does,
// waits for it to end and returns its outcome and the output the cursor
// took since the Foreground's Output. It is ErrOfferClosed once the offer
// was answered.
func (o *Offer) Decline(reason string) (jobs.JobOutcome, string, error) {
	if !o.answer() {
		return jobs.JobOutcome{}, "", ErrOfferClosed
	}
	if reason == "" {
		reason = "the offer of the running command was declined"
	}
	outcome, err := o.p.stop(reason)
	return outcome, o.p.consumer.read(), err
}
