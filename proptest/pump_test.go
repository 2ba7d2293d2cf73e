package proptest

import (
	"context"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// TestPumpResources is issue 6, item 3. For random cadences, on the pump's
// own timer or a shared pacer, random sources (unbounded, or keeping a small
// window so reads turn lossy), random bursts of output and idle stretches of
// thousands of rounds — up to simulated days — the pump's resources do not
// grow with the rounds: no goroutine is created and nothing is allocated
// while it idles, it subscribes to done once and uses one timer, stopped
// when it returns. And whatever the pattern, every append is a source's
// read in order, a lossy read becomes a gap, and the final drain lands
// every byte written before done.
func TestPumpResources(t *testing.T) {
	readMetric("/sched/goroutines-created:goroutines")
	readMetric("/gc/heap/allocs:objects")
	rapid.Check(t, func(rt *rapid.T) {
		rapid.SyncTest(rt, pumpResources)
	})
	logStats(t)
}

// idleAllocs bounds the heap allocations a whole idle stretch may show:
// the property goroutine's own sleep may cost a few, one per round would
// show as thousands.
const idleAllocs = 64

type pumpUnderTest struct {
	job     *recordingJob
	sources []*windowSource
	done    *countingSignal
	result  chan error
}

func pumpResources(rt *rapid.T) {
	poll := rapid.SampledFrom([]time.Duration{time.Millisecond, 50 * time.Millisecond, jobs.DefaultPumpPoll, time.Second, 10 * time.Second, time.Minute}).Draw(rt, "poll")
	paced := rapid.Bool().Draw(rt, "paced")
	timers := &timerFactory{}
	var pacer *registry.Pacer
	if paced {
		var err error
		if pacer, err = registry.NewPacer(poll, timers.new); err != nil {
			rt.Fatal(err)
		}
	}
	pumps := make([]*pumpUnderTest, rapid.IntRange(1, 3).Draw(rt, "pumps"))
	channels := []jobs.Channel{jobs.ChannelStdout, jobs.ChannelStderr, jobs.ChannelLog}
	for i := range pumps {
		p := &pumpUnderTest{job: &recordingJob{}, done: &countingSignal{}, result: make(chan error, 1)}
		var srcs []registry.PumpSource
		for c := range rapid.IntRange(1, 3).Draw(rt, "sources") {
			s := &windowSource{window: rapid.SampledFrom([]int{0, 0, 4, 16}).Draw(rt, "window")}
			p.sources = append(p.sources, s)
			srcs = append(srcs, registry.PumpSource{Reader: s, Channel: channels[c]})
		}
		opts := registry.PumpOptions{Poll: poll, Done: p.done, NewTimer: timers.new, Pacer: pacer}
		go func() { p.result <- registry.PumpJobOutput(context.Background(), p.job, srcs, opts) }()
		pumps[i] = p
	}
	// However the check ends, stop every pump and outsleep the pacer, or
	// synctest reports a deadlock in place of the failure.
	rt.Cleanup(func() {
		for _, p := range pumps {
			p.done.Fire()
		}
		time.Sleep(2 * poll)
	})
	synctest.Wait()

	burst := func(label string) {
		for range rapid.IntRange(0, 6).Draw(rt, label) {
			d := rapid.SampledFrom([]time.Duration{0, poll / 3, poll, 5 * poll / 2, 7 * poll}).Draw(rt, label+"Wait")
			time.Sleep(d)
			p := pumps[rapid.IntRange(0, len(pumps)-1).Draw(rt, label+"Pump")]
			s := p.sources[rapid.IntRange(0, len(p.sources)-1).Draw(rt, label+"Source")]
			s.write(drawText(rt, label+"Text"))
		}
	}
	burst("burst")

	// Warm up, then idle: thousands of rounds with nothing to read.
	time.Sleep(20 * poll)
	synctest.Wait()
	rounds := rapid.SampledFrom([]int{2000, 5000, 20000}).Draw(rt, "idleRounds")
	idle := time.Duration(rounds) * poll
	note("pump: idle %d rounds, %s simulated, paced %v", rounds, idleLength(idle), paced)
	// A collection during the stretch costs the runtime a few allocations;
	// collect now, so that the idle pump, which allocates nothing, gives it
	// no reason to start one.
	runtime.GC()
	goroutines, allocs := readMetric("/sched/goroutines-created:goroutines"), readMetric("/gc/heap/allocs:objects")
	time.Sleep(idle)
	synctest.Wait()
	created, allocated := readMetric("/sched/goroutines-created:goroutines")-goroutines, readMetric("/gc/heap/allocs:objects")-allocs
	if created > 0 {
		rt.Fatalf("%d goroutines created during %d idle rounds, want none", created, rounds)
	}
	if allocated > idleAllocs {
		rt.Fatalf("%d heap allocations during %d idle rounds, want none per round", allocated, rounds)
	}

	burst("late")
	for _, i := range rapid.Permutation(indexes(len(pumps))).Draw(rt, "endOrder") {
		p := pumps[i]
		if rapid.Bool().Draw(rt, "lastWords") {
			p.sources[0].write("last words\n") // written just before the producer reports done
		}
		p.done.Fire()
		if err := <-p.result; err != nil {
			rt.Fatalf("pump %d: %v", i, err)
		}
		checkPumped(rt, i, p)
		if n := p.done.subscriptions(); n != 1 {
			rt.Fatalf("pump %d subscribed to done %d times, want once", i, n)
		}
	}
	time.Sleep(2 * poll) // a pacer's goroutine notices it has no pumps left
	synctest.Wait()
	want := len(pumps)
	if paced {
		want = 1
	}
	if made, maxLive, live := timers.counts(); made != want || maxLive != want || live != 0 {
		rt.Fatalf("timers: made %d, at most %d live, %d left live; want %d, %d, 0", made, maxLive, live, want, want)
	}
}

// checkPumped checks a returned pump's appends against its sources' reads:
// each non-empty read became one append in order, with a gap exactly when a
// read since the last append was lossy, and the final drain read every
// source to its end.
func checkPumped(rt *rapid.T, i int, p *pumpUnderTest) {
	appends := p.job.appends()
	channels := []jobs.Channel{jobs.ChannelStdout, jobs.ChannelStderr, jobs.ChannelLog}
	for c, s := range p.sources {
		var got []jobs.AppendOptions
		var texts []string
		for _, a := range appends {
			if a.opts.Channel == channels[c] {
				got, texts = append(got, a.opts), append(texts, a.text)
			}
		}
		reads, end, lastNext := s.log()
		if lastNext != end {
			rt.Fatalf("pump %d source %d: the last read ended at %d, but %d bytes were written before done", i, c, lastNext, end)
		}
		if len(reads) != len(texts) {
			rt.Fatalf("pump %d source %d: %d appends for %d non-empty reads", i, c, len(texts), len(reads))
		}
		lossy := false
		for k, r := range reads {
			lossy = lossy || r.lossy
			if r.text != texts[k] || got[k].GapBefore != lossy {
				rt.Fatalf("pump %d source %d, append %d: %q gap %v, want the read %q gap %v", i, c, k, texts[k], got[k].GapBefore, r.text, lossy)
			}
			if lossy {
				note("pump: a lossy read became a gap")
			}
			lossy = false
		}
		if s.window == 0 {
			if all := strings.Join(texts, ""); all != s.all() {
				rt.Fatalf("pump %d source %d: record %q, want the whole output %q", i, c, all, s.all())
			}
		}
		note("pump: source window %d, %d appends", s.window, min(len(texts), 5))
	}
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func idleLength(d time.Duration) string {
	switch {
	case d >= 24*time.Hour:
		return "days"
	case d >= time.Hour:
		return "hours"
	case d >= time.Minute:
		return "minutes"
	}
	return "seconds"
}

// readMetric reads one runtime metric. The first read of the package
// allocates as it sets itself up, so TestPumpResources reads once before
// it measures anything.
func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A recordingJob is a RecordingJob that keeps its appends.
type recordingJob struct {
	mu   sync.Mutex
	list []appendCall
}

type appendCall struct {
	text string
	opts jobs.AppendOptions
}

func (j *recordingJob) ID() jobs.JobID                { return jobs.JobID{1} }
func (j *recordingJob) UpdateDetail(string)           {}
func (j *recordingJob) Settle(jobs.JobOutcome, error) {}
func (j *recordingJob) Append(text string, opts jobs.AppendOptions) {
	j.mu.Lock()
	j.list = append(j.list, appendCall{text, opts})
	j.mu.Unlock()
}

func (j *recordingJob) appends() []appendCall {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]appendCall(nil), j.list...)
}

// A windowSource is a producer's output that keeps only its last window
// bytes (all of them when window is 0), read by absolute offset. It logs
// the reads that return text or are lossy; an empty read, which is what an
// idle round makes, allocates nothing.
type windowSource struct {
	mu       sync.Mutex
	window   int
	written  strings.Builder
	buf      string // the retained window
	start    int64  // offset of buf[0]
	reads    []sourceRead
	lastNext int64
}

type sourceRead struct {
	text  string
	lossy bool
}

func (s *windowSource) write(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.written.WriteString(text)
	s.buf += text
	if s.window > 0 && len(s.buf) > s.window {
		cut := len(s.buf) - s.window
		s.buf = s.buf[cut:]
		s.start += int64(cut)
	}
}

func (s *windowSource) ReadFrom(offset int64) (string, int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	end := s.start + int64(len(s.buf))
	lossy := offset < s.start
	if lossy {
		offset = s.start
	}
	text := s.buf[offset-s.start:]
	if text != "" || lossy {
		s.reads = append(s.reads, sourceRead{text, lossy})
	}
	s.lastNext = end
	return text, end, lossy
}

// log returns the non-empty reads (a lossy empty read counts towards the
// next one's gap), the bytes written so far and where the last read ended.
func (s *windowSource) log() ([]sourceRead, int64, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []sourceRead
	pending := false
	for _, r := range s.reads {
		if r.text == "" {
			pending = pending || r.lossy
			continue
		}
		out = append(out, sourceRead{r.text, r.lossy || pending})
		pending = false
	}
	return out, int64(s.written.Len()), s.lastNext
}

func (s *windowSource) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written.String()
}

// A countingSignal is a OnceSignal that counts subscriptions.
type countingSignal struct {
	registry.OnceSignal
	mu   sync.Mutex
	subs int
}

func (s *countingSignal) Subscribe(fn func()) func() {
	s.mu.Lock()
	s.subs++
	s.mu.Unlock()
	return s.OnceSignal.Subscribe(fn)
}

func (s *countingSignal) subscriptions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subs
}

// A timerFactory makes real timers and counts how many it made and how many
// were live (made and not yet stopped) at once.
type timerFactory struct {
	mu                  sync.Mutex
	made, live, maxLive int
}

type countedTimer struct {
	*time.Timer
	f       *timerFactory
	stopped bool
}

func (f *timerFactory) new(d time.Duration) registry.Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.made++
	f.live++
	f.maxLive = max(f.maxLive, f.live)
	return &countedTimer{Timer: time.NewTimer(d), f: f}
}

func (f *timerFactory) counts() (made, maxLive, live int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.made, f.maxLive, f.live
}

func (t *countedTimer) C() <-chan time.Time { return t.Timer.C }

func (t *countedTimer) Stop() bool {
	t.f.mu.Lock()
	if !t.stopped {
		t.stopped = true
		t.f.live--
	}
	t.f.mu.Unlock()
	return t.Timer.Stop()
}
