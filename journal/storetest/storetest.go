// Package storetest is the conformance suite of journal.Store: every promise
// of the contract, checked against a backend through the interface alone.
// A backend's test is one call:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, openMyStore, storetest.WithFull(openMyFullStore))
//	}
//
// No backend is done until it passes, under -race.
//
// What the interface cannot reach, the backend's test hands over: Run's open
// reopens a subtest's backing data when called again with the same t, and
// WithFull and WithCrash build a full stream and a crashed store. The suite
// asks the test for these rather than an optional test interface on every
// store (a SetLastSeq, say), which would be test-only API in each backend.
package storetest

import (
	"testing"

	"github.com/jobgen/jobgen/journal"
)

// An Option adds what the suite cannot reach through journal.Store alone.
type Option func(*config)

type config struct {
	full  func(t *testing.T, stream journal.Stream) journal.Store
	crash func(t *testing.T, s journal.Store) journal.Store
}

// WithCrash gives the suite a way to crash a store: crash(t, s) abandons s
// as a killed process would, without Close or Flush, and returns a store
// over what of s's backing data was durable (for the file store, what it
// synced). The suite checks with it that AppendBatch is durable when it
// returns; without it that subtest fails saying so.
func WithCrash(crash func(t *testing.T, s journal.Store) journal.Store) Option {
	return func(c *config) { c.crash = crash }
}

// WithFull gives the suite a store in which stream is full: full(t, stream)
// returns a store over new backing data (independent of open's) whose stream
// holds one record, at seq journal.MaxSeq. The suite checks that the next
// append to it is refused with ErrFull and changes nothing, and that other
// streams still take appends. Without it the ErrFull promise cannot be
// checked, and its subtest fails saying so.
func WithFull(full func(t *testing.T, stream journal.Stream) journal.Store) Option {
	return func(c *config) { c.full = full }
}

// Run checks every promise of journal.Store against the stores open makes,
// each in a subtest.
//
// open(t) returns a store for the subtest t. Called again with the same t,
// after the suite closed the store it returned before, it must return a store
// over the same backing data, as a process restarting on the same file or
// database would: that is how the suite checks that what was flushed or
// closed is still there. Stores of different subtests must be independent
// (a new file, a new schema or database). The suite closes every store it
// opens.
func Run(t *testing.T, open func(t *testing.T) journal.Store, opts ...Option) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	h := &harness{open: open}
	for _, tc := range []struct {
		name string
		run  func(*testing.T, *harness)
	}{
		{"SeqsStartAtOneWithoutGaps", seqsStartAtOne},
		{"ReadStreamAfterSeq", readStreamAfter},
		{"GlobalOrderIsAppendOrder", globalOrder},
		{"ReadAllAfterAnyPosition", readAllAfterAny},
		{"EntriesOfOneCallAreConsecutive", oneCallConsecutive},
		{"IDsAreIdempotentPerStream", idempotentIDs},
		{"FlushThenReopenKeepsEverything", flushThenReopen},
		{"CloseFlushes", closeFlushes},
		{"NothingIsLostWithoutRetention", nothingIsLost},
		{"ConcurrentAppendersOfManyStreams", concurrentAppenders},
		{"GlobalOrderAgreesWithEveryStream", globalOrderAgreesWithStreams},
		{"ReadsSeeWhatAppendReturnedDuringWrites", readsDuringWrites},
		{"ContextEndStopsEveryMethod", contextEnd},
		{"CloseSemantics", closeSemantics},
		{"BadInputChangesNothing", badInput},
		{"PayloadsAreCopies", payloadsAreCopies},
		{"LastSeqFollowsAppends", lastSeqFollowsAppends},
		{"LastSeqDuringAppends", lastSeqDuringAppends},
		{"LastSeqRefusals", lastSeqRefusals},
		{"FullStreamRefusesAppends", func(t *testing.T, h *harness) { fullStream(t, c.full) }},
		{"BatchAppendsPartsInOrder", batchOrder},
		{"BatchIDsAreIdempotent", batchIDs},
		{"BatchBadInputChangesNothing", batchBadInput},
		{"BatchWithAFullStreamIsRefusedWhole", func(t *testing.T, h *harness) { batchFull(t, c.full) }},
		{"BatchIsDurableWhenItReturns", func(t *testing.T, h *harness) { batchDurable(t, h, c.crash) }},
		{"BatchWithAnEndedContextOrAfterClose", batchContextAndClose},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, h) })
	}
}
