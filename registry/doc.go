// Package registry is the job registry of a background-job runtime: it starts
// producers through the generated [jobs.JobStart] union, tracks each job's
// lifecycle, keeps the record of recording jobs, fences reads by session and
// hands lifecycle facts to a [Recorder] (the journal) at commit.
//
// # Lifecycle
//
// Start runs, in order: validate (non-empty kind and label, output limit not
// negative, a Run function) → admission (running + stopping jobs per owner,
// counting starts still inside their starter, at most Limits.MaxPerOwner;
// unowned jobs share one bucket) → issue the per-kind ordinal and the JobID →
// run the starter with the job's face → the registration commit. A refusal
// consumes nothing; a starter that fails or panics registers nothing and
// skips its ordinal. Writes and detail updates made before the registration
// commit are staged: they become visible at the commit, with no signal of
// their own; the commit fires exactly one jobs-changed signal. Validation
// also refuses a negative Timeout. The commit takes the job's id before it
// records the registered fact: a start whose id another job holds, or is
// registering with, is refused (ErrInvalidStart) and its producer cancelled.
//
// StartWait is the opt-in start that waits, bounded by its context, for an
// admission slot instead of failing with ErrTooManyJobs. Waiters queue per
// owner, first come first served: a slot freed (by a settlement, or a start
// whose starter failed) while someone waits is handed to the longest
// waiting, never returned to the pool, so no later StartWait or Start takes
// it first. A waiter whose context ends leaves the queue (its error wraps
// ErrTooManyJobs and the context's error), passing on a slot handed to it in
// that moment; Close wakes every waiter with ErrClosed. DisposeOwner does
// not: a waiter of a disposed owner registers once a slot frees, like a
// start inside its starter. A waiter costs no goroutine beyond its caller's.
// Waiting is a method rather than a field of JobStart because it is how one
// caller calls, not a property of the job or of what the journal records;
// handing the slot over, rather than waking every waiter on a release, keeps
// the order first come first served and wakes one goroutine, not all.
// Waiting lists the waiters a caller may see (fenced as jobs are: its own
// session's and the unowned), with their kind, label, since when they wait
// and their place in their owner's line; a waiter has no id until admitted.
//
// Promote registers a producer that is already running (a foreground
// command offered at its deadline: procjob's Offer) by the same steps, with
// admission that never waits; its job/registered fact (version 3) says it
// was promoted and when the command started, and its interval, StartedAt
// and Timeout start at the promotion. A refused promotion calls no starter,
// so the caller, still holding the producer, stops it (docs/decisions/0192).
//
// A job is running until a kill, its deadline or a teardown moves it to
// stopping, and settles once, first-wins, as completed, killed or failed.
// Every move is checked against the generated [jobs.JobLifecycle]. The
// sources of a settlement are the producer's outcome, a teardown or a
// deadline that force-settles, and a kill. A producer reports its outcome
// either by calling its face's Settle, which settles the job on the
// producer's goroutine and costs the registry no goroutine, or through a
// Done hook, in which one registry goroutine per job blocks; only its first
// outcome counts. A Settle made inside the starter (or while the registered
// fact is recorded) is kept and applied right after the registration
// commit, before Start returns; a start that fails drops it. After a kill,
// a deadline or a teardown asked the producer to stop, a producer that then reports failed (or killed) settles
// killed, with the stop's reason merged into the detail as
// "<detail>; <reason>"; a producer that reports completed stays completed.
// The stop is asked as Cancel is called, so a producer that reports while
// its Cancel still runs is covered too; a kill whose Cancel fails withdraws
// its request, unless another kill's Cancel is running or has succeeded. A
// kill whose Cancel succeeds marks the job reported: its caller has the
// job's end in hand, as a teardown's has. A Done that returns an error or panics, a Settle with an error, and an
// outcome whose status is not terminal are producer failures: failed,
// producerReported=false. A stopping job holds
// its admission slot until it settles. The settled fact names the winning
// source as its cause: producer (its outcome, unasked), kill, teardown or
// timeout (its outcome after that stop asked for it; timeout also when the
// deadline force-settles), cancelFailure or teardownBound (force-settled).
//
// A start whose Timeout is positive has a deadline, counted from its
// registration commit and kept by one time.AfterFunc timer (no goroutine
// until it fires), stopped at settlement. When it passes, the registry asks
// the job to stop as Kill does, with the reason "timeout: the job's deadline
// of <d> passed" and cause timeout, except that the job is not marked
// reported, and a Cancel that fails force-settles it failed (cause timeout,
// producerReported=false) rather than leave it running past its deadline. A
// job that a kill or teardown is already stopping is left to that stop.
// The deadline counts from the commit, not from the Start call, so a slow
// starter does not eat into the job's time, and nothing unknown before the
// commit could be killed; a deadline on Start's context would bound only
// the starter, since producers are told to stop through Cancel.
//
// # Settlement order
//
// A settlement first claims the job and decides its status, detail (an
// outcome without detail keeps the last progress line), output, result and
// finishedAt. A result (JobOutcome.Result) is the model's: the first Read
// after the settlement carries it and drops it, the snapshot says there is
// one and its size, and the settled fact (version 3) only that there was
// one (docs/decisions/0194). It then records the job/settled fact (owned jobs only), then in
// one critical section applies them, marks the job reported if waiters exist,
// frees its slot, trims the record to SettledRetainBytes and takes the
// snapshot; then it releases waiters, fires jobs-changed, the final output
// signal (recording jobs) and finally the done listeners. Until the apply,
// readers see the job live; writes after the claim are dropped (the first is
// logged). So nothing can observe a settlement — not a reader, a waiter, a
// listener, nor a start admitted into the freed slot — before its fact is
// recorded. The job/registered fact is likewise recorded before the job
// becomes visible and before its jobs-changed signal.
//
// An [Observer] (WithObserver) hears of a start once the registration is
// visible, before its jobs-changed signal, and of a settlement once it is
// applied, before waiters are released; so whoever sees a job settle sees
// it counted. [Registry.Load] adds up the running, stopping and waiting
// counts each owner's shard keeps as its jobs move. Without an Observer no
// call is made.
//
// # Locking
//
// The registry is sharded by owner: each owner's shard (the unowned jobs
// have one too) has a mutex guarding that owner's admission count, StartWait
// queue, registration list and live counts, and the lifecycle bookkeeping
// (status, reported, stop requests, waiters) of the owner's jobs. Each job's
// own lock guards what its producer writes: its record, its detail and the
// signal its follow streams wait on; a job's state is written holding both
// and read holding either. The job table is read without a lock (writes take
// one of a few stripe locks), per-kind ordinals are atomic counters and the
// listener lists are published copy-on-write, so starts and settlements of
// different owners take no lock in common, and a producer's Append or
// UpdateDetail takes only its job's lock: appends of different jobs never
// meet on one lock, and a record read, fenced, takes only the job's lock. A
// shard's mutex is always taken before a job's lock. Every invariant that
// spans jobs is an owner's (admission, the StartWait queue) or a job's
// (first-wins settlement), so it stays under one shard mutex, simple to state
// and to check under the race detector. List holds the unowned shard's mutex
// and then the caller's, so its snapshot is consistent; Load holds every
// owner's at once. Critical sections are short and do no I/O: bookkeeping, a
// snapshot copy, or copying one append's bytes into the record.
//
// No user code runs with either lock held: starters, Cancel, Done, ReadOutput,
// the Clock, the ID generator, listeners, the logger and the Recorder are all
// called after unlocking. The Recorder is called between a commit's decision
// and its application, as described above; it may be called concurrently for
// different jobs and must return promptly. Listeners run on the goroutine
// that caused the event (output listeners inside the producer's Append) and
// are contained: a panic is logged and the other listeners still run. A
// settlement runs on the goroutine of its source: the producer inside Settle
// (so the Recorder and the listeners run before Settle returns), the Done
// goroutine, Kill's caller when the producer settles inside Cancel, or
// teardown.
//
// # Fence
//
// Every read, every kill and all input by id names the caller's
// [jobs.SessionID]. An owned job
// is visible only to a caller of the same session, an unowned job to every
// caller; a caller with no session ("") sees only unowned jobs. An id the
// registry does not hold is [ErrUnknownJob]; a job of another session is
// [ErrForeignJob]. A job is unknown while its starter runs.
//
// # Record
//
// A recording job's record is a ring of chunks {offset, at, text, channel,
// gapBefore} at absolute UTF-8 byte offsets. The record holds valid UTF-8:
// Append replaces each byte that begins no valid sequence with U+FFFD
// (three bytes, as encoding/json and a Go range loop read it; one per byte,
// so a run of invalid bytes is as many replacements: [ValidUTF8]), each
// Append on its own (a rune split across two Appends is invalid; procjob's
// pump appends whole runes only), and offsets
// count the stored text, so Offset+len(Text) == Next holds in Go and on the
// JSON wire alike. After each append, whole head
// chunks are dropped while the retained bytes exceed the job's retention
// (OutputLimitBytes, else Limits.RetainBytes) and more than one chunk
// remains; a single oversized append keeps its tail, cut forward to a rune
// start, marked gapBefore. Empty appends are dropped without a signal. Text
// is copied into one circular byte buffer that grows by doubling up to the
// retention (never preallocated to it), so memory follows what was written,
// a producer's larger buffer is never pinned, and once the buffer is full an
// append allocates nothing. Chunk metadata costs 28 bytes per retained chunk.
// At settlement the record is trimmed to SettledRetainBytes by the same rules
// and its storage shrunk to fit. ReadRecord is non-consuming and never marks
// a job reported.
//
// # Terminal
//
// A terminal job is a recording job whose start sets RunTerminal instead of
// Run: its producer runs under a pseudo-terminal and takes input. Its
// starter returns a [jobs.TerminalInput] (Send and Resize) beside its Hooks;
// one without either is cancelled and the start refused. StartTerminal
// returns the job's [jobs.TerminalJob], the runtime's handle that writes to
// the terminal; a start without RunTerminal is refused before admission, so
// a job without a terminal has no such handle, and neither the producer's
// faces nor the snapshot Start returns have a Send: writing input to a job
// without a terminal does not compile (registry/testdata/sendrule). Input
// that arrives by id (the wire, a tool) goes through Send and Resize, fenced
// by session as reads are: a job that is not a terminal job is
// [ErrNoTerminal], one that has settled (or is settling) [ErrSettled], for
// the handle as well. Input takes only the job's own lock, released before
// the producer's Send runs; a Send racing the settlement may still reach
// the producer, which refuses it once its terminal has closed.
//
// # Teardown
//
// DisposeOwner and Close mark every matching job reported, move live ones to
// stopping and call their Cancel hooks concurrently. A Cancel that fails
// force-settles its job failed at once; the others are waited for, bounded by
// Limits.TeardownBound and the context, and force-settled failed at the
// bound. Force-settled jobs carry producerReported=false; their producers'
// later outcomes are ignored. DisposeOwner then removes the owner's jobs.
// Close first stops all listeners and refuses new starts; a start whose
// starter finishes after Close is cancelled and refused, and one that was
// recording its registered fact is waited for and torn down too. Teardown
// calls each job's Cancel at most once (a kill's earlier Cancel does not
// count). Remove forgets one settled job; settled jobs are otherwise kept,
// with their records trimmed, until their owner is disposed. Both tell the
// OnRemoved listeners (a [Removal]: the jobs removed, and for DisposeOwner
// that the session ended, even one that had no jobs), so state others keep
// by job or by session ends with it.
package registry
