package registry

import (
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry/registrytest"
)

func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestPumpResourcesAreConstantOverADay runs the pump for a simulated 24 hours
// at the spec's 150 ms cadence (576,000 rounds) with idle sources, on its own
// timer and on a pacer.
func TestPumpResourcesAreConstantOverADay(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a day of rounds")
	}
	for _, paced := range []bool{false, true} {
		name := map[bool]string{false: "own-timer", true: "pacer"}[paced]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { pumpForADay(t, paced) })
		})
	}
}

func pumpForADay(t *testing.T, paced bool) {
	job := &registrytest.Job{}
	src := &registrytest.Source{}
	done := &registrytest.CountingSignal{Signal: &OnceSignal{}}
	timers := &registrytest.TimerFactory{}
	newTimer := func(d time.Duration) Timer { return timers.New(d) }
	opts := []PumpOption{WithTimer(newTimer)}
	if paced {
		pacer, _ := NewPacer(jobs.DefaultPumpPoll, WithTimer(newTimer))
		opts = append(opts, WithPacer(pacer))
	}
	result := make(chan error, 1)
	go func() {
		result <- PumpJobOutput(context.Background(), job, []PumpSource{{Reader: src, Channel: jobs.ChannelStdout}}, done, opts...)
	}()
	synctest.Wait()
	src.Write("hello\n")
	time.Sleep(time.Hour) // warm up: the first rounds may grow runtime structures
	synctest.Wait()

	goroutines, allocs := goroutinesCreated(), heapAllocs()
	const idle = 23 * time.Hour
	time.Sleep(idle)
	synctest.Wait()
	rounds := uint64(idle / jobs.DefaultPumpPoll)
	created, n := goroutinesCreated()-goroutines, heapAllocs()-allocs
	t.Logf("%d rounds: %d goroutines created, %d heap allocations", rounds, created, n)
	if created > 1 {
		t.Errorf("%d goroutines created during %d rounds, want at most 1", created, rounds)
	}
	// The counter is the process's: the test goroutine's own sleep and
	// goroutines other tests left winding down may cost some hundreds of
	// allocations (908 seen once at load 8). One per round would show as
	// hundreds of thousands, so the bound is a hundredth of that.
	if n > rounds/100 {
		t.Errorf("%d heap allocations during %d idle rounds, want none per round", n, rounds)
	}
	src.Write("bye\n")
	done.Fire()
	if err := <-result; err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // a pacer's goroutine notices it has no pumps left
	synctest.Wait()
	if done.Subscriptions() != 1 {
		t.Errorf("the pump subscribed to done %d times, want once", done.Subscriptions())
	}
	if made, maxLive, live := timers.Counts(); made != 1 || maxLive != 1 || live != 0 {
		t.Errorf("timers: made %d, at most %d live, %d left live; want 1, 1, 0", made, maxLive, live)
	}
	var text strings.Builder
	for _, a := range job.Appends() {
		text.WriteString(a.Text)
	}
	if text.String() != "hello\nbye\n" {
		t.Errorf("record = %q", text.String())
	}
}

func TestPacerDrivesManyPumpsAndStopsWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pacer, err := NewPacer(time.Second)
		if err != nil {
			t.Fatal(err)
		}
		const n = 50
		jobsOut := make([]*registrytest.Job, n)
		srcs := make([]*registrytest.Source, n)
		dones := make([]*OnceSignal, n)
		var wg sync.WaitGroup
		for i := range n {
			jobsOut[i], srcs[i], dones[i] = &registrytest.Job{}, &registrytest.Source{}, &OnceSignal{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				PumpJobOutput(context.Background(), jobsOut[i], []PumpSource{{Reader: srcs[i]}}, dones[i], WithPacer(pacer))
			}()
		}
		synctest.Wait()
		for i := range n {
			srcs[i].Write("x")
		}
		time.Sleep(time.Second)
		synctest.Wait()
		for i := range n {
			if got := jobsOut[i].Appends(); len(got) != 1 || got[0].Text != "x" {
				t.Fatalf("pump %d: appends %+v after one paced round", i, got)
			}
			srcs[i].Write("last")
			dones[i].Fire()
		}
		wg.Wait()
		for i := range n {
			if got := jobsOut[i].Appends(); len(got) != 2 || got[1].Text != "last" {
				t.Fatalf("pump %d: the final drain did not land: %+v", i, got)
			}
		}
		// synctest.Test fails if the pacer's goroutine outlives the bubble.
		time.Sleep(time.Second)
	})
}

// On a pacer, a pump whose sources all notify is read only in the round
// after a notice: through an idle stretch its sources are not
// read at all, while a polled pump's are read every round; a write after
// the stretch reaches the record one Poll after it was made; and a pump
// that returns ends its sources' notices.
func TestPacerReadsNotifyingSourcesOnlyAfterANotice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pacer, err := NewPacer(time.Second)
		if err != nil {
			t.Fatal(err)
		}
		quiet, busy := &registrytest.Source{LogOffsets: true}, &registrytest.Source{LogOffsets: true}
		quietJob, busyJob := &registrytest.Job{}, &registrytest.Job{}
		quietDone, busyDone := &OnceSignal{}, &OnceSignal{}
		var wg sync.WaitGroup
		wg.Go(func() {
			PumpJobOutput(context.Background(), quietJob, []PumpSource{{Reader: quiet}}, quietDone, WithPacer(pacer))
		})
		wg.Go(func() {
			PumpJobOutput(context.Background(), busyJob, []PumpSource{{Reader: registrytest.Polled{Reader: busy}}}, busyDone, WithPacer(pacer))
		})
		synctest.Wait()
		time.Sleep(100 * time.Second)
		synctest.Wait()
		if got := len(quiet.Offsets()); got != 1 {
			t.Errorf("the notifying source was read %d times in 100 idle rounds; want once, by the pump's first drain", got)
		}
		if got := len(busy.Offsets()); got < 100 {
			t.Errorf("the polled source was read %d times in 100 rounds; want every round", got)
		}
		busyDone.Fire() // now no pump needs a round: the pacer sleeps
		time.Sleep(10*time.Second + 300*time.Millisecond)
		wrote := time.Now()
		quiet.Write("after the idle stretch")
		time.Sleep(time.Second)
		synctest.Wait()
		got := quietJob.Appends()
		if len(got) != 1 || got[0].Text != "after the idle stretch" || got[0].At.Sub(wrote) != time.Second {
			t.Errorf("appends %+v; want the text one Poll (1s) after the write at %v", got, wrote)
		}
		quietDone.Fire()
		wg.Wait()
		if quiet.Notified() {
			t.Error("the returned pump left its notify in the source")
		}
		time.Sleep(time.Second) // the pacer's goroutine ends with its last pump
	})
}

func TestPumpReadsEachSourceFromItsOwnCursorAtTheCadence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		job := &registrytest.Job{}
		out := &registrytest.Source{LogOffsets: true}
		errs := &registrytest.Source{LogOffsets: true}
		done := &OnceSignal{}
		start := time.Now()
		result := make(chan error, 1)
		// Written before the pump starts, so its first round finds them
		// whichever goroutine runs first.
		out.Write("abc")
		errs.Write("E1")
		go func() {
			result <- PumpJobOutput(context.Background(), job,
				[]PumpSource{{Reader: out, Channel: jobs.ChannelStdout}, {Reader: errs, Channel: jobs.ChannelStderr}},
				done, WithPoll(time.Second))
		}()
		time.Sleep(1500 * time.Millisecond) // rounds at 0s and 1s
		out.Write("de")
		time.Sleep(time.Second) // round at 2s
		done.Fire()
		if err := <-result; err != nil {
			t.Fatal(err)
		}
		got := job.Appends()
		want := []struct {
			text string
			ch   jobs.Channel
			at   time.Duration
		}{{"abc", jobs.ChannelStdout, 0}, {"E1", jobs.ChannelStderr, 0}, {"de", jobs.ChannelStdout, 2 * time.Second}}
		if len(got) != len(want) {
			t.Fatalf("appends = %+v", got)
		}
		for i, w := range want {
			if got[i].Text != w.text || got[i].Opts.Channel != w.ch || got[i].At.Sub(start) != w.at {
				t.Errorf("append %d = %q %s at %v, want %q %s at %v", i, got[i].Text, got[i].Opts.Channel, got[i].At.Sub(start), w.text, w.ch, w.at)
			}
		}
		// Rounds at 0, 1 and 2 s, then the final drain after done at 2.5 s.
		if want := []int64{0, 3, 3, 5}; !equalInts(out.Offsets(), want) {
			t.Errorf("stdout read at %v, want %v", out.Offsets(), want)
		}
		if want := []int64{0, 2, 2, 2}; !equalInts(errs.Offsets(), want) {
			t.Errorf("stderr read at %v, want %v", errs.Offsets(), want)
		}
	})
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPumpTurnsALossyReadIntoAGap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		job := &registrytest.Job{}
		src := &registrytest.Source{Window: 4}
		done := &OnceSignal{}
		result := make(chan error, 1)
		go func() {
			result <- PumpJobOutput(context.Background(), job, []PumpSource{{Reader: src}}, done, WithPoll(time.Second))
		}()
		src.Write("ab")
		synctest.Wait()     // round at 0s reads "ab"
		src.Write("cdefgh") // "cd" falls out of the 4-byte window before the next round
		time.Sleep(time.Second)
		done.Fire()
		<-result
		got := job.Appends()
		if len(got) != 2 || got[0].Text != "ab" || got[0].Opts.GapBefore || got[1].Text != "efgh" || !got[1].Opts.GapBefore {
			t.Errorf("appends = %+v, want \"ab\" then \"efgh\" with a gap before it", got)
		}
	})
}

func TestPumpDoneWakesTheWaitAndDrainsTheLastBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		job := &registrytest.Job{}
		src := &registrytest.Source{}
		done := &OnceSignal{}
		result := make(chan error, 1)
		go func() {
			result <- PumpJobOutput(context.Background(), job, []PumpSource{{Reader: src}}, done, WithPoll(time.Hour))
		}()
		synctest.Wait()
		// The producer writes its last words and fails; it reports done right away.
		src.Write("fatal: disk full\n")
		start := time.Now()
		done.Fire()
		if err := <-result; err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("the pump returned %v after done; it must not wait out the cadence", waited)
		}
		if got := job.Appends(); len(got) != 1 || got[0].Text != "fatal: disk full\n" {
			t.Errorf("the final drain lost the last bytes: %+v", got)
		}
	})
}

func TestPumpStopsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		result := make(chan error, 1)
		go func() {
			result <- PumpJobOutput(ctx, &registrytest.Job{}, []PumpSource{{Reader: &registrytest.Source{}}}, &OnceSignal{}, WithPoll(time.Second))
		}()
		time.Sleep(5 * time.Second)
		cancel()
		if err := <-result; !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

// A pump refuses what it cannot run with, saying which argument or option
// and why, instead of running at a cadence nobody asked for.
func TestPumpRefusesBadOptions(t *testing.T) {
	for _, tc := range []struct {
		done Signal
		opt  PumpOption
		want string
	}{
		{&OnceSignal{}, WithPoll(0), "WithPoll(0s): poll interval is not positive"},
		{&OnceSignal{}, WithPoll(-time.Second), "WithPoll(-1s)"},
		{nil, WithPoll(time.Second), "no done signal"},
		{&OnceSignal{}, WithPacer(&Pacer{}), "WithPacer: pacer not made by NewPacer"},
	} {
		err := PumpJobOutput(context.Background(), &registrytest.Job{}, nil, tc.done, tc.opt)
		if !errors.Is(err, ErrBadPumpOptions) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("PumpJobOutput = %v, want ErrBadPumpOptions saying %q", err, tc.want)
		}
	}
}

// Without options a pump runs its rounds every jobs.DefaultPumpPoll on its
// own timer, and a nil pacer or timer factory is no option.
func TestPumpWithoutOptionsPollsAtTheSpecsDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		job := &registrytest.Job{}
		src := &registrytest.Source{}
		done := &OnceSignal{}
		result := make(chan error, 1)
		go func() {
			result <- PumpJobOutput(context.Background(), job, []PumpSource{{Reader: src}}, done, WithPacer(nil), WithTimer(nil))
		}()
		synctest.Wait()
		src.Write("late\n")
		time.Sleep(jobs.DefaultPumpPoll - time.Millisecond)
		synctest.Wait()
		if got := job.Text(""); got != "" {
			t.Fatalf("before one poll interval the record holds %q, want nothing", got)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if got := job.Text(""); got != "late\n" {
			t.Fatalf("after one poll interval the record holds %q, want %q", got, "late\n")
		}
		done.Fire()
		if err := <-result; err != nil {
			t.Fatal(err)
		}
	})
}

func TestOnceSignal(t *testing.T) {
	var s OnceSignal
	calls := 0
	cancel := s.Subscribe(func() { calls++ })
	cancelled := 0
	s.Subscribe(func() { cancelled++ })()
	s.Fire()
	s.Fire()
	cancel()
	s.Subscribe(func() { calls++ }) // after firing: called at once
	if calls != 2 || cancelled != 0 || !s.Fired() {
		t.Errorf("calls = %d, cancelled = %d, fired = %v", calls, cancelled, s.Fired())
	}
	runtime.KeepAlive(cancel)
}
