package registry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// An OffsetReader is one source of a producer's output, read by absolute byte
// offset. ReadFrom returns the text available from offset on, the offset just
// past it, and whether bytes between offset and the returned text were lost
// (the source keeps a bounded window and offset fell out of it).
type OffsetReader interface {
	ReadFrom(offset int64) (text string, next int64, lossy bool)
}

// A NotifyingReader is an OffsetReader that tells when it has been written
// to. A pump on a [Pacer] whose sources all notify reads them only in the
// round after a notice, instead of in every round, so an idle pump costs
// nothing at all; the rounds keep their cadence, so output written after an
// idle stretch is read within one round of the notice.
type NotifyingReader interface {
	OffsetReader
	// NotifyWrites makes the reader call notify after each write, once the
	// written text can be read, until stop is called; it replaces a notify
	// given before. notify returns at once and may be called from any
	// goroutine.
	NotifyWrites(notify func()) (stop func())
}

// A PumpSource is an OffsetReader and the channel its text is labelled with.
type PumpSource struct {
	Reader  OffsetReader
	Channel jobs.Channel // empty leaves the text unlabelled
}

// A Signal is an event that happens once, such as a producer finishing.
// Subscribe arranges for fn to be called when it happens — at once if it
// already has — and returns a func that cancels the subscription.
type Signal interface {
	Subscribe(fn func()) (cancel func())
}

// A Timer is the part of *time.Timer the pump uses.
type Timer interface {
	C() <-chan time.Time
	Reset(d time.Duration) bool
	Stop() bool
}

// A PumpOption configures PumpJobOutput: its cadence, or a Pacer that runs
// its rounds, and its timer. Without any, a pump runs its rounds every
// jobs.DefaultPumpPoll on a timer of the time package.
type PumpOption interface {
	applyPump(*pumpConfig) error
}

// A PacerOption configures NewPacer.
type PacerOption interface {
	applyPacer(*Pacer)
}

// A TimerOption sets how timers are made, for a pump and a pacer alike:
// it is a PumpOption and a PacerOption both.
type TimerOption interface {
	PumpOption
	PacerOption
}

// A pumpOption sets part of a pump's configuration.
type pumpOption func(*pumpConfig) error

func (o pumpOption) applyPump(c *pumpConfig) error { return o(c) }

// A timerOption sets the timer factory of a pump or a pacer.
type timerOption func(d time.Duration) Timer

func (o timerOption) applyPump(c *pumpConfig) error {
	if o != nil {
		c.newTimer = o
	}
	return nil
}

func (o timerOption) applyPacer(p *Pacer) {
	if o != nil {
		p.newTimer = o
	}
}

// pumpConfig is a pump's configuration: its options applied to the
// defaults.
type pumpConfig struct {
	poll     time.Duration
	newTimer func(d time.Duration) Timer
	pacer    *Pacer
}

// WithPoll sets the cadence of the pump's rounds; without it,
// jobs.DefaultPumpPoll, the spec's default. It must be positive. A pump on
// a Pacer (WithPacer) runs at the pacer's cadence instead.
func WithPoll(d time.Duration) PumpOption {
	return pumpOption(func(c *pumpConfig) error {
		if d <= 0 {
			return fmt.Errorf("WithPoll(%v): poll interval is not positive: %w", d, ErrBadPumpOptions)
		}
		c.poll = d
		return nil
	})
}

// WithTimer sets how a pump makes its one timer, or a pacer its own.
// Without it, or with nil, the time package's.
func WithTimer(newTimer func(d time.Duration) Timer) TimerOption {
	return timerOption(newTimer)
}

// WithPacer runs the pump's rounds on p's goroutine and timer, shared with
// every other pump on it, instead of the pump's own timer, at p's cadence.
// Use one for many concurrent jobs: idle rounds cost a few reads each
// rather than a goroutine wake-up, and nothing when every source is a
// NotifyingReader. Without it, or with nil, the pump runs on its own timer.
// p must come from NewPacer.
func WithPacer(p *Pacer) PumpOption {
	return pumpOption(func(c *pumpConfig) error {
		if p != nil && p.poll <= 0 {
			return fmt.Errorf("WithPacer: pacer not made by NewPacer: %w", ErrBadPumpOptions)
		}
		c.pacer = p
		return nil
	})
}

// ErrBadPumpOptions reports arguments or options PumpJobOutput cannot run
// with.
var ErrBadPumpOptions = errors.New("bad pump options")

// PumpJobOutput copies a producer's output from its sources into job's
// record until the producer is done or ctx ends. Each round reads every source
// in order from its own cursor, appending what it finds (a lossy read becomes
// an append marked GapBefore), then waits for the next round or for done.
//
// done fires when the producer has finished writing; the pump then drains
// every source once more and returns. The pump's resources do not grow with
// the number of rounds: it runs on the caller's goroutine, subscribes to
// done once, and reuses one timer; an idle round allocates nothing. done
// interrupts the current wait, and one final round runs before
// PumpJobOutput returns, so a producer that returns its outcome after the
// pump has every byte written before it finished in the record.
func PumpJobOutput(ctx context.Context, job jobs.RecordingJob, sources []PumpSource, done Signal, opts ...PumpOption) error {
	if done == nil {
		return fmt.Errorf("registry: pump %s: no done signal: %w", job.ID(), ErrBadPumpOptions)
	}
	cfg := pumpConfig{poll: jobs.DefaultPumpPoll, newTimer: newRealTimer}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt.applyPump(&cfg); err != nil {
			return fmt.Errorf("registry: pump %s: %w", job.ID(), err)
		}
	}
	finished := make(chan struct{})
	var closeOnce sync.Once
	unsubscribe := done.Subscribe(func() { closeOnce.Do(func() { close(finished) }) })
	defer unsubscribe()

	p := newPump(job, sources)
	// On a pacer the rounds run on the pacer's goroutine and tick stays nil;
	// otherwise this goroutine runs them on its own timer.
	var timer Timer
	var tick <-chan time.Time
	if cfg.pacer != nil {
		cfg.pacer.add(p)
		defer cfg.pacer.remove(p)
	} else {
		timer = cfg.newTimer(cfg.poll)
		defer timer.Stop()
		tick = timer.C()
	}
	for {
		p.drain()
		select {
		case <-finished:
			p.drain()
			return nil
		case <-ctx.Done():
			p.drain()
			return ctx.Err()
		case <-tick:
			timer.Reset(cfg.poll)
		}
	}
}

// A cursor is the pump's position in one source, and a gap it has seen but
// not yet been able to attach to text.
type cursor struct {
	offset int64
	gap    bool
}

// A pump is one PumpJobOutput's state. A pacer drains thousands of them a
// round, so each is laid out to be read in one pass: its sources sit next to
// their cursors, inside the pump itself when there are at most two (stdout
// and stderr), which keeps an idle round to the pump and its readers.
type pump struct {
	mu      sync.Mutex // a pacer's round and the pump's final drain may meet
	job     jobs.RecordingJob
	sources []pumpSource // inline[:n] when they fit
	inline  [2]pumpSource

	// On a pacer: notified says every source notifies, so rounds read the
	// pump only after a notice; noticed marks a notice since its last
	// round. gone (guarded by the pacer's mu) marks a pump that left.
	notified bool
	noticed  atomic.Bool
	gone     bool
	stops    []func() // end the sources' notices
}

// A pumpSource is a source with the pump's cursor in it.
type pumpSource struct {
	reader  OffsetReader
	channel jobs.Channel
	cursor
}

func newPump(job jobs.RecordingJob, sources []PumpSource) *pump {
	p := &pump{job: job}
	if len(sources) <= len(p.inline) {
		p.sources = p.inline[:len(sources)]
	} else {
		p.sources = make([]pumpSource, len(sources))
	}
	for i, s := range sources {
		p.sources[i] = pumpSource{reader: s.Reader, channel: s.Channel}
	}
	return p
}

// notifying returns the pump's sources as NotifyingReaders, or nil when one
// of them cannot notify (or there are none).
func (p *pump) notifying() []NotifyingReader {
	var out []NotifyingReader
	for _, s := range p.sources {
		n, ok := s.reader.(NotifyingReader)
		if !ok {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// drain reads every source once, in order.
func (p *pump) drain() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.sources {
		s := &p.sources[i]
		text, next, lossy := s.reader.ReadFrom(s.offset)
		s.gap = s.gap || lossy
		if next > s.offset {
			s.offset = next
		}
		if text == "" {
			continue // an empty append would be dropped, gap and all; keep the gap for the next text
		}
		p.job.Append(text, jobs.AppendOptions{Channel: s.channel, GapBefore: s.gap})
		s.gap = false
	}
}

// A Pacer runs the rounds of many pumps on one goroutine and one timer. Its
// goroutine runs only while some pump uses it, and sleeps, its timer
// unarmed, while no pump needs a round: every pump's sources notify and none
// has noticed a write. The zero value is not usable; make one with NewPacer.
type Pacer struct {
	poll     time.Duration
	newTimer func(d time.Duration) Timer
	wake     chan struct{} // ends the goroutine's sleep; buffered

	mu       sync.Mutex
	polled   []*pump // read every round: some source cannot notify
	notified int     // pumps read only after a notice
	noticed  []*pump // notified pumps with a notice since their last round
	running  bool
	asleep   bool
	batch    []*pump // the pumps of the round under way; only the pacer's goroutine uses it
}

// NewPacer returns a pacer whose rounds come every poll, on a timer of the
// time package unless WithTimer says otherwise.
func NewPacer(poll time.Duration, opts ...PacerOption) (*Pacer, error) {
	if poll <= 0 {
		return nil, fmt.Errorf("registry: pacer: poll interval %v is not positive: %w", poll, ErrBadPumpOptions)
	}
	pc := &Pacer{poll: poll, newTimer: newRealTimer, wake: make(chan struct{}, 1)}
	for _, opt := range opts {
		if opt != nil {
			opt.applyPacer(pc)
		}
	}
	return pc, nil
}

// add puts p on the pacer: polled, or read after its sources' notices. A
// notice may come at once; the pump's own first drain reads what came
// before.
func (pc *Pacer) add(p *pump) {
	readers := p.notifying()
	pc.mu.Lock()
	if readers != nil {
		p.notified = true
		pc.notified++
	} else {
		pc.polled = append(pc.polled, p)
	}
	if !pc.running {
		pc.running = true
		go pc.run()
	}
	pc.mu.Unlock()
	for _, r := range readers {
		p.stops = append(p.stops, r.NotifyWrites(func() { pc.notice(p) }))
	}
}

// notice queues a notified pump for the next round, waking the pacer if it
// sleeps. A pump already queued costs one atomic load.
func (pc *Pacer) notice(p *pump) {
	if p.noticed.Load() || !p.noticed.CompareAndSwap(false, true) {
		return
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if p.gone {
		return
	}
	pc.noticed = append(pc.noticed, p)
	pc.rouse()
}

// rouse ends the goroutine's sleep. pc.mu must be held.
func (pc *Pacer) rouse() {
	if pc.asleep {
		pc.asleep = false
		pc.wake <- struct{}{}
	}
}

func (pc *Pacer) remove(p *pump) {
	for _, stop := range p.stops {
		stop()
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	p.gone = true
	if p.notified {
		pc.notified--
		pc.noticed = deletePump(pc.noticed, p)
	} else {
		pc.polled = deletePump(pc.polled, p)
	}
	if len(pc.polled) == 0 && pc.notified == 0 {
		pc.rouse() // to end
	}
}

// deletePump removes p from list, not keeping order.
func deletePump(list []*pump, p *pump) []*pump {
	for i, q := range list {
		if q == p {
			last := len(list) - 1
			list[i] = list[last]
			list[last] = nil
			return list[:last]
		}
	}
	return list
}

// A pacerStep is what the pacer's goroutine does after a round.
type pacerStep int

const (
	pacerTick  pacerStep = iota // another round after poll
	pacerSleep                  // wait for a notice, then a round after poll
	pacerStop                   // no pump is left
)

// run drains the pumps each round until no pump is left, sleeping while
// none needs a round.
func (pc *Pacer) run() {
	timer := pc.newTimer(pc.poll)
	defer timer.Stop()
	for range timer.C() {
		switch pc.round() {
		case pacerStop:
			return
		case pacerSleep:
			<-pc.wake
			if !pc.stillNeeded() {
				return
			}
		}
		timer.Reset(pc.poll)
	}
}

// stillNeeded reports whether some pump is left, and stops the pacer when
// none is.
func (pc *Pacer) stillNeeded() bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if len(pc.polled) == 0 && pc.notified == 0 {
		pc.running = false
		return false
	}
	return true
}

// round drains every polled pump and every noticed one once. It returns
// pacerStop, and stops the pacer, when no pump is left, and pacerSleep when
// no pump needed the round.
func (pc *Pacer) round() pacerStep {
	pc.mu.Lock()
	if len(pc.polled) == 0 && pc.notified == 0 {
		pc.running = false
		pc.mu.Unlock()
		return pacerStop
	}
	batch := append(pc.batch[:0], pc.polled...)
	for _, p := range pc.noticed {
		p.noticed.Store(false) // before the read: a write after it notices again
		batch = append(batch, p)
	}
	clear(pc.noticed)
	pc.noticed = pc.noticed[:0]
	step := pacerTick
	if len(batch) == 0 {
		step, pc.asleep = pacerSleep, true
	}
	pc.mu.Unlock()
	for _, p := range batch {
		p.drain()
	}
	clear(batch)
	pc.batch = batch
	return step
}

type realTimer struct{ t *time.Timer }

func newRealTimer(d time.Duration) Timer       { return realTimer{time.NewTimer(d)} }
func (r realTimer) C() <-chan time.Time        { return r.t.C }
func (r realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }
func (r realTimer) Stop() bool                 { return r.t.Stop() }

// A OnceSignal is a Signal fired by calling Fire. The zero value is ready to use.
type OnceSignal struct {
	mu    sync.Mutex
	fired bool
	subs  map[int]func()
	next  int
}

// Subscribe calls fn when the signal fires, or at once if it has.
func (s *OnceSignal) Subscribe(fn func()) (cancel func()) {
	s.mu.Lock()
	if s.fired {
		s.mu.Unlock()
		fn()
		return func() {}
	}
	if s.subs == nil {
		s.subs = map[int]func(){}
	}
	id := s.next
	s.next++
	s.subs[id] = fn
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.subs, id)
		s.mu.Unlock()
	}
}

// Fire fires the signal; later calls do nothing.
func (s *OnceSignal) Fire() {
	s.mu.Lock()
	if s.fired {
		s.mu.Unlock()
		return
	}
	s.fired = true
	subs := s.subs
	s.subs = nil
	s.mu.Unlock()
	for _, fn := range subs {
		fn()
	}
}

// Fired reports whether Fire has been called.
func (s *OnceSignal) Fired() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fired
}
