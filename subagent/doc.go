// Package subagent is the continuation manager of an agent runtime: it
// starts subagent runs and continuable children, routes follow-ups and
// reports between them, resumes children cold from their durable streams,
// and tears them down. It runs no model: the runtime's agents do the work,
// through the small seam below. The vocabulary is generated/subagents.
//
// # Operations
//
// A [Service] has four intent-named operations, plus drains and Close:
//
//   - [Service.Start]: an ordinary one-shot run, owned by its caller;
//     [Service.StartJob] runs one in the background as a registry job of
//     kind "subagent".
//   - [Service.StartContinuable]: a durable child session, returned with the
//     id of its accepted prompt as soon as its inbox accepted it.
//   - [Service.Followup]: a message to a child from its exact live direct
//     parent; the child is woken, or resumed cold when it is not resident.
//   - [Service.ReportFrom]: a message from a child exactly one edge up.
//   - [Service.Interrupt] cancels a turn and keeps everything else;
//     [Service.DrainDescendants], [Service.DrainChildren] and
//     [Service.Close] tear children down.
//
// There is no public resume, kill, steer or cancel: a follow-up resumes, a
// drain ends. A [Provider] is what its methods make it: a [OneShotProvider]
// starts one-shot runs (whose local agent is a live parent while it runs);
// a [ContinuablePreparer] contributes the seed of a new continuable child
// and never takes part in its resume, which therefore works after the
// provider was removed.
//
// # The seam a runtime implements
//
// A runtime supplies a [Host] (WithHost) whose Materialize makes one live
// [Agent] per residency of a child: at creation from the provider's seed,
// at a cold resume from the child's seed and stream ([Child.History], which
// also holds whatever the runtime appended there itself). The manager then
// delivers messages with Agent.Deliver — the prompt; at a resume first
// every accepted message nobody claimed, in acceptance order, then the
// follow-up — and the agent reports back through the [Inbox] it was given:
// Claimed when it takes messages into a turn (durable when it returns),
// Discarded when it drops one unread, TurnEnded when a turn ends.
// Agent.Idle tells the manager when the agent has nothing to do — a waking
// delivery owes a turn, and waking messages an idle agent never took are
// discarded —; Cancel stops a turn; Dispose ends the residency. An agent
// must be a pointer: authorization compares the very value the host
// returned (or the root passed to [Service.Attach]) with ==, so a copy of a
// parent with the same id is never authorized.
//
// The kit does the bookkeeping: a [QueueAgent] keeps the inbox and runs
// turns through the runtime's [TurnFunc], [HostFunc] makes a Host of a
// function, and [Continuable] is a provider that only prepares continuable
// children. The agent and provider of a runtime then fit in a few lines:
//
//	host := subagent.HostFunc(func(ctx context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
//		return subagent.NewQueueAgent(c.ID, in, model.Turn), nil
//	})
//	svc := subagent.New(subagent.WithStore(store), subagent.WithHost(host))
//	svc.RegisterProvider(subagent.Continuable("researcher", nil))
//
// # States
//
// A child's state is derived, not stored: running while its agent runs a
// turn or a waking message waits to be claimed; waiting while it is
// quiescent but owns live children; settled when quiescent with none, and
// then disposed at once. Its parent then gets a settlement notice (source
// subagentSettled, text per stop reason), if the child's id was ever handed
// out and the parent is live and not closing; the notice of a drain of a
// whole scope, or of Close, wakes no parent.
//
// # Durability
//
// Each child is a session whose stream (journal.Stream(id)) holds, in
// order: subagent/created (header: parent, depth, seed length; descriptor
// with the route decided at creation), one subagent/seeded per seed event,
// then residency-started, and every inbox change: message-accepted before
// the agent sees the message, message-claimed, message-discarded, and
// residency-ended once per started residency, followed in the same append
// by a subagent/checkpoint of what a resume needs. A message whose accepted
// fact was flushed is never lost and, once claimed, never delivered again:
// after a restart (a new Service over the same store) the next residency
// redelivers it, once, by MessageID, unless it was claimed or discarded. A
// residency a crash left open is ended (aborted) at the next resume. A cold
// resume reads the last checkpoint, found through the last record of the
// child's pointer stream (<child>/checkpoint, read by its LastSeq), and only
// what follows it, so its cost does not grow with the child's history.
// Records of other vocabularies on the stream (the runtime's own) are
// skipped; a subagent fact this build does not know — one a newer build
// wrote during a rolling upgrade, at a version or with an enum value this
// build lacks — makes the child not resumable here: the follow-up fails with
// ErrNotResumable naming the fact and this build, and nothing is appended,
// since resuming from the rest could lose or redeliver a message (decision
// 0174); a build that knows the fact resumes it. A scoped drain discards waiting messages with a discarded fact; Close keeps
// them for the next residency, as a crash would. Each resident child is a
// live session of the flush barrier (WithSessions) with the store's Flush
// as a listener; its teardown flushes it best-effort. A root attached with
// [Service.AttachDurable] gets its reports and notices the same way, on its
// own stream. An [Observer] (WithObserver) sees residencies, messages,
// resumes and redeliveries as they happen.
//
// # Teardown
//
// A teardown marks the child and its live descendants disposing at once,
// top down — the admission cutoff: nothing is accepted for them afterwards
// — and cancels their turns; then each is torn down after its own children:
// wait for accepts admitted before the cutoff, wait for the agent to go
// idle, discard waiting messages (drains only), Dispose, record the
// residency's end and checkpoint, flush. Failures are collected as
// ErrActivationTeardown, and logged when nobody waits for them (a child
// that settled on its own). A follow-up to a child being disposed waits for
// it, then resumes it cold.
//
// # Errors and contexts
//
// Failures are an [*Error] whose Code is a generated ErrorCode; branch with
// errors.Is against ErrDraining, ErrUnauthorized, ErrNotResumable and the
// other sentinels. Every operation takes a context that plays the part of
// the upstream abort signal: it is checked between steps and passed to the
// host, the provider and the store; a cancelled call fails with
// ErrCancelled wrapping the context's cause and leaves nothing behind.
package subagent
