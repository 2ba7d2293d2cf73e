//go:build unix

package proptest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/procjob"
	"github.com/jobgen/jobgen/registry"
)

// TestPromotionCursorLosesAndRepeatsNothing: a real command (cat of a FIFO
// the test writes, each byte also narrated on fd 3 by tee) runs in the
// foreground with a short deadline and is
// promoted at it; its output is written in three phases — before the
// deadline, between the deadline and the promotion, after it — each in
// pieces, with the job's consuming reads (Registry.Read) drawn in between.
// Whatever the timing splits where, the foreground's output followed by
// every read is exactly what the command wrote, once, in order, and none
// of the narration; the record holds all of both from the command's
// start; the job is the same process, registered as promoted.
func TestPromotionCursorLosesAndRepeatsNothing(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		fifo := filepath.Join(dir, "out")
		os.Remove(fifo)
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			rt.Fatal(err)
		}
		// Read and write: the open does not wait for cat, and cat's does
		// not wait for a writer. Closing it is the end of the output.
		w, err := os.OpenFile(fifo, os.O_RDWR, 0)
		if err != nil {
			rt.Fatal(err)
		}
		defer w.Close()
		facts := &registeredFacts{}
		reg := registry.New(registry.WithRecorder(facts))
		defer reg.Close(context.Background())

		var written strings.Builder
		write := func(label string) {
			for _, piece := range rapid.SliceOfN(rapid.SampledFrom([]string{"a", "bc\n", "日本", "xyz\n"}), 0, 3).Draw(rt, label) {
				if _, err := w.WriteString(piece); err != nil {
					rt.Fatal(err)
				}
				written.WriteString(piece)
			}
		}
		opts := procjob.Options{Command: []string{"sh", "-c", `cat "$0" | tee /dev/fd/3`, fifo}, Owner: "s", Kind: "cat", Poll: 5 * time.Millisecond, Narration: true}
		write("beforeStart")
		fg, err := procjob.RunForeground(context.Background(), opts, procjob.Wait{Deadline: 50 * time.Millisecond, Policy: procjob.DeadlineOffer})
		if err != nil {
			rt.Fatal(err)
		}
		if fg.Offer == nil {
			rt.Fatalf("cat of an open FIFO ended within its wait: %+v", fg)
		}
		write("beforePromotion")
		snap, err := fg.Offer.Accept(context.Background(), reg)
		if err != nil {
			rt.Fatal(err)
		}
		got := fg.Output
		for range rapid.IntRange(0, 3).Draw(rt, "phases") {
			write("afterPromotion")
			if rapid.Bool().Draw(rt, "read") {
				read, err := reg.Read("s", snap.ID)
				if err != nil {
					rt.Fatal(err)
				}
				got += read.Output
			}
		}
		// The end of the output is a closed FIFO, which cat sees only if it
		// has opened it: a last line, once recorded, says it has.
		if _, err := w.WriteString("end\n"); err != nil {
			rt.Fatal(err)
		}
		written.WriteString("end\n")
		for deadline := time.Now().Add(10 * time.Second); !strings.HasSuffix(stdout(rt, reg, snap.ID), "end\n"); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				rt.Fatalf("cat did not copy the FIFO within 10s: %q", stdout(rt, reg, snap.ID))
			}
		}
		w.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, settled, err := reg.Wait(ctx, "s", snap.ID, 0); err != nil || !settled {
			rt.Fatalf("the promoted cat did not settle: %v, %v", settled, err)
		}
		read, err := reg.Read("s", snap.ID)
		if err != nil {
			rt.Fatal(err)
		}
		got += read.Output
		if want := written.String(); got != want {
			rt.Fatalf("the foreground's output %q and the job's reads make %q; the command wrote %q", fg.Output, got, want)
		}
		if read.Job.Status != jobs.JobStatusCompleted {
			rt.Fatalf("the promoted job settled %s (%s); want completed", read.Job.Status, read.Job.Detail)
		}
		rec, err := reg.ReadRecord("s", snap.ID, 0)
		if err != nil {
			rt.Fatal(err)
		}
		var record, narration strings.Builder
		for _, c := range rec.Chunks {
			switch c.Channel {
			case jobs.ChannelStdout:
				record.WriteString(c.Text)
			case jobs.ChannelLog:
				narration.WriteString(c.Text)
			default:
				rt.Fatalf("a chunk on %q: %q", c.Channel, c.Text)
			}
		}
		if record.String() != written.String() || narration.String() != written.String() {
			rt.Fatalf("record = %q, narration %q; want all the command wrote, from its start: %q", record.String(), narration.String(), written.String())
		}
		regs := facts.get()
		if len(regs) != 1 || !regs[0].Promoted || regs[0].CommandStartedAt != fg.Offer.StartedAt().UnixMilli() || regs[0].At < regs[0].CommandStartedAt {
			rt.Fatalf("registered facts = %+v; want one, promoted, after the command's start", regs)
		}
	})
}

// stdout is the stdout channel of a job's record.
func stdout(rt *rapid.T, reg *registry.Registry, id jobs.JobID) string {
	rd, err := reg.ReadRecord("s", id, 0)
	if err != nil {
		rt.Fatal(err)
	}
	var b strings.Builder
	for _, c := range rd.Chunks {
		if c.Channel == jobs.ChannelStdout {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// registeredFacts keeps the job/registered facts a registry records.
type registeredFacts struct {
	mu   sync.Mutex
	regs []jobs.JobRegistered
}

func (r *registeredFacts) Record(f jobs.Fact) error {
	if reg, ok := f.(jobs.JobRegistered); ok {
		r.mu.Lock()
		r.regs = append(r.regs, reg)
		r.mu.Unlock()
	}
	return nil
}

func (r *registeredFacts) get() []jobs.JobRegistered {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]jobs.JobRegistered(nil), r.regs...)
}
