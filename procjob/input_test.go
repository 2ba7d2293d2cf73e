//go:build unix

package procjob

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// sendAtOnce has senders callers send text to in at the same moment, and
// returns how long each waited for its answer and the errors they got.
func sendAtOnce(in jobs.TerminalInput, senders int, text string) ([]time.Duration, []error) {
	waits, errs := make([]time.Duration, senders), make([]error, senders)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range senders {
		wg.Go(func() {
			<-start
			t0 := time.Now()
			errs[i] = in.Send(text)
			waits[i] = time.Since(t0)
		})
	}
	close(start)
	wg.Wait()
	return waits, errs
}

// unreadInput is more than a terminal's input buffer holds: a Send of it to
// a program that does not read cannot finish.
var unreadInput = strings.Repeat(strings.Repeat("y", 63)+"\n", 1<<10) // 64 KiB

// TestEverySenderToAProgramThatDoesNotReadIsAnsweredWithinTheBound: eight
// callers send input at once to a program that never reads it; each is
// answered, with the bound's error, within the bound of its own call, not
// after the others' bounds in turn.
func TestEverySenderToAProgramThatDoesNotReadIsAnsweredWithinTheBound(t *testing.T) {
	_, hooks, in := startTerminal(t, Options{Command: []string{"sleep", "60"}}, nil)
	defer hooks.Done()
	defer hooks.Cancel("test over")
	waits, errs := sendAtOnce(in, 8, unreadInput)
	for i, err := range errs {
		if err == nil {
			t.Errorf("sender %d: Send of 64 KiB to a program that does not read succeeded", i)
		}
	}
	// slack of one more bound for a loaded machine; senders waiting in turn
	// took 8 × inputWait, the third already 3 ×
	if longest := slices.Max(waits); longest > 2*inputWait {
		t.Errorf("the longest of 8 senders waited %v; want at most about %v, the bound (waits %v, errors %v)", longest, inputWait, waits, errs)
	}
}

// BenchmarkInputWaitOf8SendersToAProgramThatDoesNotRead reports the
// longest and the median wait of 8 callers sending 64 KiB at once to a
// program that does not read its input (each op is one such round, on a
// fresh program), beside the bound one caller gets.
func BenchmarkInputWaitOf8SendersToAProgramThatDoesNotRead(b *testing.B) {
	var longest, median []time.Duration
	for range b.N {
		_, hooks, in := startTerminal(b, Options{Command: []string{"sleep", "60"}}, nil)
		waits, _ := sendAtOnce(in, 8, unreadInput)
		hooks.Cancel("round over")
		hooks.Done()
		slices.Sort(waits)
		longest, median = append(longest, waits[len(waits)-1]), append(median, waits[len(waits)/2])
	}
	b.ReportMetric(slices.Max(longest).Seconds(), "longest-wait-s")
	slices.Sort(median)
	b.ReportMetric(median[len(median)/2].Seconds(), "median-wait-s")
	b.ReportMetric(inputWait.Seconds(), "bound-s")
}
