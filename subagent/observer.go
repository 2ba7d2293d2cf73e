package subagent

import (
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
)

// An Observer sees the lifecycle of the manager's children, for a metrics
// adapter such as package otelmetrics. The manager calls it without its
// lock held, on the goroutine of the event (an operation's caller, an
// agent's Inbox call, a teardown), so it may be called concurrently and
// must return promptly. Its arguments are plain values: a call allocates
// nothing. Without WithObserver every call goes to a no-op.
type Observer interface {
	// ResidencyStarted: a residency's opening facts are on the child's
	// stream; resumed tells a cold resume from a creation.
	ResidencyStarted(child jobs.SessionID, run subagents.RunID, resumed bool)
	// ResidencyEnded: a residency's end is recorded, with its stop reason.
	ResidencyEnded(child jobs.SessionID, run subagents.RunID, reason subagents.StopReason)
	// MessageAccepted: the child's inbox accepted a message (its fact is
	// written); wake tells whether it was to wake the child.
	MessageAccepted(child jobs.SessionID, msg subagents.MessageID, wake bool)
	// MessageClaimed: the agent took a message into a turn.
	MessageClaimed(child jobs.SessionID, msg subagents.MessageID)
	// MessageDiscarded: a message will never be delivered, and why.
	MessageDiscarded(child jobs.SessionID, msg subagents.MessageID, why string)
	// Resumed: a cold resume opened a residency, took latency from the
	// follow-up's call, and read facts records of the child's stream.
	Resumed(child jobs.SessionID, latency time.Duration, facts int)
	// Redelivered: a resume delivered again a message an earlier residency
	// accepted and nobody claimed or discarded.
	Redelivered(child jobs.SessionID, msg subagents.MessageID)
}

// WithObserver sets the Observer of the manager's lifecycle events; nil,
// or no WithObserver, is a no-op.
func WithObserver(o Observer) Option {
	return func(s *Service) {
		if o != nil {
			s.obs = o
		}
	}
}

// NopObserver is an Observer that does nothing; embed it to implement only
// the methods of interest.
type NopObserver struct{}

func (NopObserver) ResidencyStarted(jobs.SessionID, subagents.RunID, bool)               {}
func (NopObserver) ResidencyEnded(jobs.SessionID, subagents.RunID, subagents.StopReason) {}
func (NopObserver) MessageAccepted(jobs.SessionID, subagents.MessageID, bool)            {}
func (NopObserver) MessageClaimed(jobs.SessionID, subagents.MessageID)                   {}
func (NopObserver) MessageDiscarded(jobs.SessionID, subagents.MessageID, string)         {}
func (NopObserver) Resumed(jobs.SessionID, time.Duration, int)                           {}
func (NopObserver) Redelivered(jobs.SessionID, subagents.MessageID)                      {}
