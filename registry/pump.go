package registry

import (
	"context"
	"errors"
	"fmt"
	"sync"
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

// PumpOptions configure PumpJobOutput.
type PumpOptions struct {
	// Poll is the cadence of the pump's rounds; it must be positive.
	// jobs.DefaultPumpPoll is the spec's default.
	Poll time.Duration
	// Done fires when the producer has finished writing. The pump then drains
	// every source once more and returns.
	Done Signal
	// NewTimer makes the pump's one timer; nil uses the time package.
	NewTimer func(d time.Duration) Timer
	// Pacer, when set, runs the pump's rounds on the pacer's goroutine and
	// timer, shared with every other pump on it, instead of the pump's own
	// timer; Poll is then ignored. Use one for many concurrent jobs: idle
	// rounds cost a few reads each rather than a goroutine wake-up.
	Pacer *Pacer
}

// ErrBadPumpOptions reports PumpOptions the pump cannot run with.
var ErrBadPumpOptions = errors.New("bad pump options")

// PumpJobOutput copies a producer's output from its sources into job's
// record until the producer is done or ctx ends. Each round reads every source
// in order from its own cursor, appending what it finds (a lossy read becomes
// an append marked GapBefore), then waits for the next round or for Done.
//
// The pump's resources do not grow with the number of rounds: it runs on the
// caller's goroutine, subscribes to Done once, and reuses one timer; an idle
// round allocates nothing. Done interrupts the current wait, and one final
// round runs before PumpJobOutput returns, so a producer that returns its
// outcome after the pump has every byte written before it finished in the
// record.
func PumpJobOutput(ctx context.Context, job jobs.RecordingJob, sources []PumpSource, opts PumpOptions) error {
	if opts.Poll <= 0 && opts.Pacer == nil {
		return fmt.Errorf("registry: pump %s: poll interval %v is not positive: %w", job.ID(), opts.Poll, ErrBadPumpOptions)
	}
	if opts.Pacer != nil && opts.Pacer.poll <= 0 {
		return fmt.Errorf("registry: pump %s: pacer not made by NewPacer: %w", job.ID(), ErrBadPumpOptions)
	}
	if opts.Done == nil {
		return fmt.Errorf("registry: pump %s: no done signal: %w", job.ID(), ErrBadPumpOptions)
	}
	done := make(chan struct{})
	var closeOnce sync.Once
	unsubscribe := opts.Done.Subscribe(func() { closeOnce.Do(func() { close(done) }) })
	defer unsubscribe()

	p := newPump(job, sources)
	// On a pacer the rounds run on the pacer's goroutine and tick stays nil;
	// otherwise this goroutine runs them on its own timer.
	newTimer := opts.NewTimer
	if newTimer == nil {
		newTimer = newRealTimer
	}
	var timer Timer
	var tick <-chan time.Time
	if opts.Pacer != nil {
		opts.Pacer.add(p)
		defer opts.Pacer.remove(p)
	} else {
		timer = newTimer(opts.Poll)
		defer timer.Stop()
		tick = timer.C()
	}
	for {
		p.drain()
		select {
		case <-done:
			p.drain()
			return nil
		case <-ctx.Done():
			p.drain()
			return ctx.Err()
		case <-tick:
			timer.Reset(opts.Poll)
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
// goroutine runs only while some pump uses it. The zero value is not usable;
// make one with NewPacer.
type Pacer struct {
	poll     time.Duration
	newTimer func(d time.Duration) Timer
	mu       sync.Mutex
	pumps    []*pump
	running  bool
	batch    []*pump // the pumps of the round under way; only the pacer's goroutine uses it
}

// NewPacer returns a pacer whose rounds come every poll; newTimer may be nil.
func NewPacer(poll time.Duration, newTimer func(d time.Duration) Timer) (*Pacer, error) {
	if poll <= 0 {
		return nil, fmt.Errorf("registry: pacer: poll interval %v is not positive: %w", poll, ErrBadPumpOptions)
	}
	if newTimer == nil {
		newTimer = newRealTimer
	}
	return &Pacer{poll: poll, newTimer: newTimer}, nil
}

func (pc *Pacer) add(p *pump) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.pumps = append(pc.pumps, p)
	if !pc.running {
		pc.running = true
		go pc.run()
	}
}

func (pc *Pacer) remove(p *pump) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for i, q := range pc.pumps {
		if q == p {
			last := len(pc.pumps) - 1
			pc.pumps[i] = pc.pumps[last]
			pc.pumps[last] = nil
			pc.pumps = pc.pumps[:last]
			return
		}
	}
}

// run drains every pump each round until no pump is left.
func (pc *Pacer) run() {
	timer := pc.newTimer(pc.poll)
	defer timer.Stop()
	for range timer.C() {
		if !pc.round() {
			return
		}
		timer.Reset(pc.poll)
	}
}

// round drains every pump once; it reports false, and stops the pacer, when
// no pump is left.
func (pc *Pacer) round() bool {
	pc.mu.Lock()
	if len(pc.pumps) == 0 {
		pc.running = false
		pc.mu.Unlock()
		return false
	}
	batch := append(pc.batch[:0], pc.pumps...)
	pc.mu.Unlock()
	for _, p := range batch {
		p.drain()
	}
	clear(batch)
	pc.batch = batch
	return true
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
