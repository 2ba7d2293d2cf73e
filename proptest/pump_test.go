package proptest

import (
	"context"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/registry/registrytest"
)

// TestPumpResources is the pump's resources property. For random cadences, on the pump's
// own timer or a shared pacer, random sources (unbounded, or keeping a small
// window so reads turn lossy; notifying their writes, or polled), random
// bursts of output and idle stretches of thousands of rounds — up to
// simulated days — the pump's resources do not grow with the rounds: no
// goroutine is created and nothing is allocated while it idles, it
// subscribes to done once and uses one timer, stopped when it returns. On a
// pacer, an idle source that notifies is not read at all. Output
// written after the idle stretch reaches the record within one Poll. And
// whatever the pattern, every append is a source's read in order, a lossy
// read becomes a gap, and the final drain lands every byte written before
// done.
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
	job     *registrytest.Job
	sources []*registrytest.Source
	polled  bool // some source hides its notices
	done    *registrytest.CountingSignal
	result  chan error
}

func pumpResources(rt *rapid.T) {
	poll := rapid.SampledFrom([]time.Duration{time.Millisecond, 50 * time.Millisecond, jobs.DefaultPumpPoll, time.Second, 10 * time.Second, time.Minute}).Draw(rt, "poll")
	paced := rapid.Bool().Draw(rt, "paced")
	timers := &registrytest.TimerFactory{}
	newTimer := func(d time.Duration) registry.Timer { return timers.New(d) }
	var pacer *registry.Pacer
	if paced {
		var err error
		if pacer, err = registry.NewPacer(poll, registry.WithTimer(newTimer)); err != nil {
			rt.Fatal(err)
		}
	}
	pumps := make([]*pumpUnderTest, rapid.IntRange(1, 3).Draw(rt, "pumps"))
	channels := []jobs.Channel{jobs.ChannelStdout, jobs.ChannelStderr, jobs.ChannelLog}
	for i := range pumps {
		p := &pumpUnderTest{job: &registrytest.Job{}, done: &registrytest.CountingSignal{Signal: &registry.OnceSignal{}}, result: make(chan error, 1)}
		var srcs []registry.PumpSource
		for c := range rapid.IntRange(1, 3).Draw(rt, "sources") {
			s := &registrytest.Source{LogReads: true, Window: rapid.SampledFrom([]int{0, 0, 4, 16}).Draw(rt, "window")}
			p.sources = append(p.sources, s)
			var reader registry.OffsetReader = s
			if rapid.Bool().Draw(rt, "polled") {
				reader, p.polled = registrytest.Polled{Reader: s}, true
			}
			srcs = append(srcs, registry.PumpSource{Reader: reader, Channel: channels[c]})
		}
		opts := []registry.PumpOption{registry.WithPoll(poll), registry.WithTimer(newTimer), registry.WithPacer(pacer)}
		go func() { p.result <- registry.PumpJobOutput(context.Background(), p.job, srcs, p.done, opts...) }()
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
			s.Write(drawText(rt, label+"Text"))
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
	calls := readCalls(pumps)
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
	for i, p := range pumps {
		if n := readCalls(pumps)[i] - calls[i]; paced && !p.polled && n != 0 {
			rt.Fatalf("pump %d, whose sources all notify, was read %d times on its pacer during %d idle rounds, want none", i, n, rounds)
		}
	}

	// The first output after the stretch is in the record one Poll later.
	p := pumps[rapid.IntRange(0, len(pumps)-1).Draw(rt, "wakePump")]
	before := len(p.job.Appends())
	p.sources[rapid.IntRange(0, len(p.sources)-1).Draw(rt, "wakeSource")].Write("awake\n")
	time.Sleep(poll)
	synctest.Wait()
	if got := p.job.Appends(); len(got) == before {
		rt.Fatalf("output written after %d idle rounds was not in the record one Poll (%s) later", rounds, poll)
	}

	burst("late")
	for _, i := range rapid.Permutation(indexes(len(pumps))).Draw(rt, "endOrder") {
		p := pumps[i]
		if rapid.Bool().Draw(rt, "lastWords") {
			p.sources[0].Write("last words\n") // written just before the producer reports done
		}
		p.done.Fire()
		if err := <-p.result; err != nil {
			rt.Fatalf("pump %d: %v", i, err)
		}
		checkPumped(rt, i, p)
		if n := p.done.Subscriptions(); n != 1 {
			rt.Fatalf("pump %d subscribed to done %d times, want once", i, n)
		}
	}
	time.Sleep(2 * poll) // a pacer's goroutine notices it has no pumps left
	synctest.Wait()
	want := len(pumps)
	if paced {
		want = 1
	}
	if made, maxLive, live := timers.Counts(); made != want || maxLive != want || live != 0 {
		rt.Fatalf("timers: made %d, at most %d live, %d left live; want %d, %d, 0", made, maxLive, live, want, want)
	}
}

// checkPumped checks a returned pump's appends against its sources' reads:
// each non-empty read became one append in order, with a gap exactly when a
// read since the last append was lossy, and the final drain read every
// source to its end.
func checkPumped(rt *rapid.T, i int, p *pumpUnderTest) {
	appends := p.job.Appends()
	channels := []jobs.Channel{jobs.ChannelStdout, jobs.ChannelStderr, jobs.ChannelLog}
	for c, s := range p.sources {
		var got []jobs.AppendOptions
		var texts []string
		for _, a := range appends {
			if a.Opts.Channel == channels[c] {
				got, texts = append(got, a.Opts), append(texts, a.Text)
			}
		}
		reads, end, lastNext := s.Reads()
		if lastNext != end {
			rt.Fatalf("pump %d source %d: the last read ended at %d, but %d bytes were written before done", i, c, lastNext, end)
		}
		if len(reads) != len(texts) {
			rt.Fatalf("pump %d source %d: %d appends for %d non-empty reads", i, c, len(texts), len(reads))
		}
		lossy := false
		for k, r := range reads {
			lossy = lossy || r.Lossy
			if r.Text != texts[k] || got[k].GapBefore != lossy {
				rt.Fatalf("pump %d source %d, append %d: %q gap %v, want the read %q gap %v", i, c, k, texts[k], got[k].GapBefore, r.Text, lossy)
			}
			if lossy {
				note("pump: a lossy read became a gap")
			}
			lossy = false
		}
		if s.Window == 0 {
			if all := strings.Join(texts, ""); all != s.Written() {
				rt.Fatalf("pump %d source %d: record %q, want the whole output %q", i, c, all, s.Written())
			}
		}
		note("pump: source window %d, %d appends", s.Window, min(len(texts), 5))
	}
}

// readCalls returns the ReadFrom calls each pump's sources have had.
func readCalls(pumps []*pumpUnderTest) []int {
	out := make([]int, len(pumps))
	for i, p := range pumps {
		for _, s := range p.sources {
			out[i] += s.ReadCalls()
		}
	}
	return out
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
