package procjob

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// A slowInput is a terminal's input whose program takes a byte every per,
// or, stuck, none at all; a write ends at its deadline as a terminal's
// does. It notes what it took and whether two writes ever overlapped.
type slowInput struct {
	per   time.Duration
	stuck bool

	mu         sync.Mutex
	deadline   time.Time
	took       strings.Builder
	writing    int
	overlapped bool
}

func (s *slowInput) SetWriteDeadline(t time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deadline = t
	return nil
}

func (s *slowInput) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.writing++
	s.overlapped = s.overlapped || s.writing > 1
	deadline := s.deadline
	s.mu.Unlock()
	defer func() { s.mu.Lock(); s.writing--; s.mu.Unlock() }()
	for i := range p {
		if s.stuck || !time.Now().Add(s.per).Before(deadline) {
			time.Sleep(time.Until(deadline))
			return i, os.ErrDeadlineExceeded
		}
		time.Sleep(s.per)
		s.mu.Lock()
		s.took.WriteByte(p[i])
		s.mu.Unlock()
	}
	return len(p), nil
}

// Callers sending at once or one after another to a program that takes no
// input are each answered exactly at the bound of their own call: the turn
// they waited for counts against it.
func TestATypistAnswersEachSenderWithinItsOwnBound(t *testing.T) {
	for _, stagger := range []time.Duration{0, inputWait / 4, inputWait} {
		t.Run(fmt.Sprintf("one every %v", stagger), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				in := &slowInput{stuck: true}
				k := newTypist(in)
				var wg sync.WaitGroup
				for i := range 8 {
					wg.Go(func() {
						time.Sleep(time.Duration(i) * stagger)
						t0 := time.Now()
						err := k.send("ls\n")
						if waited := time.Since(t0); waited != inputWait || err == nil || !strings.Contains(err.Error(), "has not read its input") {
							t.Errorf("sender %d waited %v for %v; want the bound, %v, and its error", i, waited, err, inputWait)
						}
					})
				}
				wg.Wait()
			})
		})
	}
}

// The texts of callers sending at once to a program that reads slowly
// reach it whole, one after another, never interleaved, and each caller
// is answered once its text is taken.
func TestATypistNeverInterleavesTexts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := &slowInput{per: 10 * time.Millisecond}
		k := newTypist(in)
		texts := []string{"first line\n", "second\n", "third, longer line\n", "4\n"}
		var wg sync.WaitGroup
		for _, text := range texts {
			wg.Go(func() {
				if err := k.send(text); err != nil {
					t.Errorf("send %q: %v", text, err)
				}
			})
		}
		wg.Wait()
		took := in.took.String()
		if in.overlapped {
			t.Error("two writes to the terminal overlapped")
		}
		rest := took
		for range texts {
			found := false
			for _, text := range texts {
				if after, ok := strings.CutPrefix(rest, text); ok {
					rest, found = after, true
					break
				}
			}
			if !found {
				t.Fatalf("the program took %q: not the texts one after another, whole", took)
			}
		}
		if rest != "" || len(took) != len(strings.Join(texts, "")) {
			t.Fatalf("the program took %q; want each of %q once", took, texts)
		}
	})
}
