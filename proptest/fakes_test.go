package proptest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
)

// A result is what a producer's Done hands the registry: an outcome, an
// error, or a panic.
type result struct {
	out   jobs.JobOutcome
	err   error
	panic any
}

// A reactKind is what a producer does when a Cancel reaches it.
type reactKind int

const (
	reactNone  reactKind = iota // keeps running until the test finishes it
	reactNow                    // reports its result from inside Cancel
	reactAfter                  // reports its result a while after Cancel
)

// A reaction is a producer's answer to a successful Cancel.
type reaction struct {
	kind   reactKind
	after  time.Duration
	result result
	// linger makes Cancel return only lingerTime after it reacted, like a
	// Cancel that signals a process and waits a moment for it to exit. A
	// producer that reports from inside Cancel has then settled, in fake
	// time, before Cancel returns.
	linger bool
}

// lingerTime is half a millisecond: off the millisecond grid, like
// lateDelays.
const lingerTime = 500 * time.Microsecond

// A producer is a fake producer. Done blocks until finish; the first finish
// counts, later ones are no-ops, so a producer reports exactly once. A
// producer viaFace has no Done: finish settles its job through the face's
// Settle, on the goroutine that calls finish.
type producer struct {
	viaFace   bool
	face      jobs.RunningJob // set by the starter; nil until it runs
	mu        sync.Mutex
	cancels   []string
	cancelErr error         // a Cancel returns it and does not reach the producer
	react     reaction      // what a Cancel that reaches the producer makes it do
	hang      chan struct{} // when set, Cancel blocks until it is closed
	finished  bool
	results   chan result
	typed     []string // what its terminal was sent, for a terminal job
}

func newProducer() *producer {
	return &producer{results: make(chan result, 1)}
}

func (p *producer) hooks() jobs.Hooks {
	if p.viaFace {
		return jobs.Hooks{Cancel: p.cancel}
	}
	return jobs.Hooks{Cancel: p.cancel, Done: p.done}
}

// setFace hands the producer its job's face; the starter calls it first.
func (p *producer) setFace(f jobs.RunningJob) {
	p.mu.Lock()
	p.face = f
	p.mu.Unlock()
}

func (p *producer) cancel(reason string) error {
	p.mu.Lock()
	p.cancels = append(p.cancels, reason)
	err, react, hang := p.cancelErr, p.react, p.hang
	p.mu.Unlock()
	if hang != nil {
		<-hang
	}
	if err != nil {
		return err
	}
	switch react.kind {
	case reactNow:
		p.finish(react.result)
	case reactAfter:
		go func() {
			time.Sleep(react.after)
			p.finish(react.result)
		}()
	}
	if react.linger {
		time.Sleep(lingerTime)
	}
	return nil
}

func (p *producer) done() (jobs.JobOutcome, error) {
	r := <-p.results
	if r.panic != nil {
		panic(r.panic)
	}
	return r.out, r.err
}

// finish makes Done return r, unless the producer has reported already.
func (p *producer) finish(r result) bool {
	p.mu.Lock()
	if p.finished {
		p.mu.Unlock()
		return false
	}
	p.finished = true
	face := p.face
	p.mu.Unlock()
	if !p.viaFace {
		p.results <- r
		return true
	}
	if face == nil {
		return true // its starter never ran
	}
	// A producer settling through its face has no Done to panic in; its
	// panic result stands for an error worded as the registry words a
	// panicking Done, so the model predicts both alike.
	err := r.err
	if r.panic != nil {
		err = fmt.Errorf("panic: %v", r.panic)
	}
	face.Settle(r.out, err)
	return true
}

func (p *producer) setCancelErr(err error) {
	p.mu.Lock()
	p.cancelErr = err
	p.mu.Unlock()
}

func (p *producer) cancelReasons() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.cancels...)
}

var (
	errCancel   = errors.New("no such process")
	errProducer = errors.New("pipe closed")
	errJournal  = errors.New("injected journal fault")
)

// An attempt is one call of the registry's Recorder.
type attempt struct {
	fact     jobs.Fact
	accepted bool // false when the fault was on and the call failed
}

// A factLog is the registry's Recorder in the properties: it notes every
// call, fails them while its fault is on, and passes the others to a
// journal Recorder writing a real Store. It holds its lock across the
// append, so the file holds the accepted facts in the order noted.
type factLog struct {
	mu       sync.Mutex
	failing  bool
	attempts []attempt
	next     interface{ Record(jobs.Fact) error }
	// inspect, when set, runs first on every call, without the lock.
	inspect func(jobs.Fact)
}

func (l *factLog) Record(f jobs.Fact) error {
	if l.inspect != nil {
		l.inspect(f)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.attempts = append(l.attempts, attempt{fact: f, accepted: !l.failing})
	if l.failing {
		return errJournal
	}
	if l.next == nil {
		return nil
	}
	return l.next.Record(f)
}

func (l *factLog) setFailing(on bool) {
	l.mu.Lock()
	l.failing = on
	l.mu.Unlock()
}

func (l *factLog) all() []attempt {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]attempt(nil), l.attempts...)
}

// hasName reports whether a fact of type typ for the job named name was
// handed to the Recorder. Names, unlike ids, are never reused.
func (l *factLog) hasName(typ, name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range l.attempts {
		if a.fact.FactType() == typ && factName(a.fact) == name {
			return true
		}
	}
	return false
}

// A syncFreeFile is a journal file whose Sync does nothing: the state
// machine checks which facts reach the file, not their durability, and
// fsyncs would only slow it down.
type syncFreeFile struct{ *os.File }

func (syncFreeFile) Sync() error { return nil }

func openSyncFree(path string) (journal.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return syncFreeFile{f}, nil
}

// journalFiles hands out journal paths in one directory per test.
type journalFiles struct {
	dir string
	n   atomic.Int64
}

func (j *journalFiles) next() string {
	return filepath.Join(j.dir, fmt.Sprintf("%d.journal", j.n.Add(1)))
}

// violations collects what goroutines other than the property's own (the
// registry's listeners, waiters) saw go wrong; the property reports them.
type violations struct {
	mu   sync.Mutex
	list []string
}

func (v *violations) add(format string, args ...any) {
	v.mu.Lock()
	v.list = append(v.list, fmt.Sprintf(format, args...))
	v.mu.Unlock()
}

func (v *violations) take() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := v.list
	v.list = nil
	return out
}
