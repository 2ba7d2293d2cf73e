package peers

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/testjobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
)

// The intervals benchmark runs each side as a process of its own, the test
// binary started again with intervalsChildEnv naming the side, so that its
// peak RSS and CPU time are the side's alone.
const (
	intervalsChildEnv = "PEERS_INTERVALS_CHILD" // "jobgen" or "peer"
	intervalsPathEnv  = "PEERS_INTERVALS_PATH"
	intervalsRecords  = 1_000_000
)

func TestMain(m *testing.M) {
	if side := os.Getenv(intervalsChildEnv); side != "" {
		if err := intervalsChild(side, os.Getenv(intervalsPathEnv), io.Discard); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// BenchmarkIntervals is issue 24's intervals of a 1,000,000-record journal
// (500,000 jobs, each registered and settled, ten in flight, 16 sessions):
// jobhistory.WriteIntervals of journal.ReadFile, as `jobgen journal
// intervals` runs it, against a peer that reads the same file with a
// bufio.Scanner and json.Unmarshal per line, projects the same intervals
// and writes a line per interval — what a user would write instead, without
// checksums. Each op runs each side once, as a process, in turns; the
// metrics per side are its wall time (ns/op), peak RSS (MB-rss) and CPU
// time over wall time (cores).
func BenchmarkIntervals(b *testing.B) {
	path := filepath.Join(b.TempDir(), "million.journal")
	writeIntervalsJournal(b, path, intervalsRecords)
	var took [2]time.Duration
	var rss, cores [2]float64
	sides := []string{"jobgen", "peer"}
	for i := range b.N {
		for j := range sides {
			k := (i + j) % 2
			wall, maxRSS, cpu := runIntervalsChild(b, sides[k], path)
			took[k] += wall
			rss[k] = max(rss[k], maxRSS)
			cores[k] += cpu.Seconds() / wall.Seconds()
		}
	}
	for k, side := range sides {
		perOp(b, took[k], side+"-ns/op")
		b.ReportMetric(rss[k], side+"-MB-rss")
		b.ReportMetric(cores[k]/float64(b.N), side+"-cores")
	}
}

// runIntervalsChild runs one side on path and returns its wall time, peak
// RSS in MB and CPU time.
func runIntervalsChild(b *testing.B, side, path string) (time.Duration, float64, time.Duration) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), intervalsChildEnv+"="+side, intervalsPathEnv+"="+path)
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v", side, err)
	}
	wall := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return wall, float64(ru.Maxrss) / 1024, cpu // Maxrss is in KiB on Linux
}

func intervalsChild(side, path string, w io.Writer) error {
	switch side {
	case "jobgen":
		return jobhistory.WriteIntervals(w, journal.Facts(journal.ReadFile(path), jobs.DecodeFact), false)
	case "peer":
		return peerIntervals(path, w)
	}
	return fmt.Errorf("unknown side %q", side)
}

// writeIntervalsJournal writes n records, n/2 jobs each registered and
// settled, ten at a time in flight, across 16 sessions, as jobhistory's own
// benchmark does.
func writeIntervalsJournal(tb testing.TB, path string, n int) {
	s, err := journal.Open(path, journal.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		tb.Fatal(err)
	}
	rec := journal.NewRecorder(s, jobs.EncodeFact, jobhistory.StreamOf)
	for i := 0; i < n/2; i++ {
		r := testjobs.Registered(i)
		r.Owner = jobs.SessionID("session-" + strconv.Itoa(i%16))
		if err := rec.Record(r); err != nil {
			tb.Fatal(err)
		}
		if i >= 10 {
			st := testjobs.Settled(i-10, jobs.JobStatusCompleted, true)
			st.Registration.Owner = jobs.SessionID("session-" + strconv.Itoa((i-10)%16))
			if err := rec.Record(st); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := s.Close(context.Background()); err != nil {
		tb.Fatal(err)
	}
}

// peerLine is a journal line as the peer decodes it: the record's fields
// and the fact's, whatever its type.
type peerLine struct {
	Fact struct {
		Type string `json:"type"`
		Data struct {
			JobID            string `json:"jobId"`
			At               int64  `json:"at"`
			Owner            string `json:"owner"`
			Kind             string `json:"kind"`
			Label            string `json:"label"`
			Ordinal          int    `json:"ordinal"`
			Status           string `json:"status"`
			Detail           string `json:"detail"`
			ProducerReported bool   `json:"producerReported"`
			Cause            string `json:"cause"`
			Registration     struct {
				RegisteredAt int64  `json:"registeredAt"`
				Owner        string `json:"owner"`
				Kind         string `json:"kind"`
				Label        string `json:"label"`
				Ordinal      int    `json:"ordinal"`
			} `json:"registration"`
		} `json:"data"`
	} `json:"fact"`
}

type peerInterval struct {
	owner, kind, label string
	ordinal            int
	registeredAt       int64
}

// peerIntervals is the peer: lines in, json.Unmarshal each, a map of open
// intervals and a set of settled jobs, a line out per settled interval and
// then per open one.
func peerIntervals(path string, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), journal.MaxRecordBytes)
	out := bufio.NewWriter(w)
	open := map[string]*peerInterval{}
	settled := map[string]bool{}
	var order []string
	sc.Scan() // the header
	for sc.Scan() {
		var l peerLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return err
		}
		d := &l.Fact.Data
		switch l.Fact.Type {
		case "job/registered":
			if open[d.JobID] != nil || settled[d.JobID] {
				return fmt.Errorf("job %s registered twice", d.JobID)
			}
			open[d.JobID] = &peerInterval{d.Owner, d.Kind, d.Label, d.Ordinal, d.At}
			order = append(order, d.JobID)
		case "job/settled":
			if settled[d.JobID] {
				return fmt.Errorf("job %s settled twice", d.JobID)
			}
			settled[d.JobID] = true
			iv := open[d.JobID]
			if iv == nil {
				r := &d.Registration
				iv = &peerInterval{r.Owner, r.Kind, r.Label, r.Ordinal, r.RegisteredAt}
			}
			delete(open, d.JobID)
			fmt.Fprintf(out, "%s\t%s-%d\t%s\t%s\t%s\t%s\t%s\t%s\t%t\n", d.JobID, iv.kind, iv.ordinal, iv.owner, iv.label,
				time.UnixMilli(iv.registeredAt).UTC().Format(time.RFC3339Nano), time.UnixMilli(d.At).UTC().Format(time.RFC3339Nano),
				d.Status, d.Cause, d.ProducerReported)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for _, id := range order {
		if iv := open[id]; iv != nil {
			fmt.Fprintf(out, "%s\t%s-%d\t%s\t%s\tincomplete\n", id, iv.kind, iv.ordinal, iv.owner, iv.label)
		}
	}
	return out.Flush()
}

// The peer projects what jobhistory projects: one line per interval, as
// many as jobhistory's JSON lines, on a journal whose last jobs are open.
func TestPeerIntervalsAgreeWithJobhistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "small.journal")
	writeIntervalsJournal(t, path, 2000)
	var ours, peer strings.Builder
	if err := jobhistory.WriteIntervals(&ours, journal.Facts(journal.ReadFile(path), jobs.DecodeFact), true); err != nil {
		t.Fatal(err)
	}
	if err := peerIntervals(path, &peer); err != nil {
		t.Fatal(err)
	}
	want, got := strings.Count(ours.String(), "\n"), strings.Count(peer.String(), "\n")
	if want != 1000 || got != want {
		t.Fatalf("jobhistory wrote %d intervals, the peer %d; want 1000 each", want, got)
	}
	if open := strings.Count(peer.String(), "incomplete"); open != 10 {
		t.Fatalf("the peer wrote %d incomplete intervals, want 10", open)
	}
}
