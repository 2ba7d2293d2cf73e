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
	"runtime"
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

// The intervals benchmark runs each side as a process of its own, so that
// its peak RSS and CPU time are the side's alone: jobgen's is the jobgen
// command, built from this repository as a user builds it; the peer's is
// this test binary started again with intervalsPeerEnv set, so its figures
// include the test binary's own (etcd's and grpc's packages start it at
// about 18 MB).
const (
	intervalsPeerEnv = "PEERS_INTERVALS_PEER" // the journal the peer reads
	intervalsRecords = 1_000_000
)

func TestMain(m *testing.M) {
	if path := os.Getenv(intervalsPeerEnv); path != "" {
		if err := peerIntervals(path, io.Discard); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// BenchmarkIntervals is intervals of a 1,000,000-record journal (500,000
// jobs, each registered and settled, ten in flight, 16 sessions): `jobgen
// journal intervals FILE`, the command a user runs, against a peer that
// reads the same file with a bufio.Scanner and json.Unmarshal per line,
// projects the same intervals and writes a line per interval — what a user
// would write instead, without checksums. Each op runs each side once, as a
// process writing to /dev/null, in turns; the metrics per side are its wall
// time (ns/op), CPU time, user and system (cpu-ns/op), peak RSS (MB-rss, in
// MiB), the largest of its private memory sampled every few milliseconds
// (MB-anon: RssAnon, the peak less the binary's and libraries' pages), and
// CPU time over wall time (cores); and, once, the peak RSS of
// `jobgen version` (jobgen-version-MB-rss), the binary's own before it
// reads a byte.
func BenchmarkIntervals(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "million.journal")
	writeIntervalsJournal(b, path, intervalsRecords)
	jobgen := buildJobgen(b, dir)
	var took, cpus [2]time.Duration
	var rss, anon, cores [2]float64
	sides := []string{"jobgen", "peer"}
	for i := range b.N {
		for j := range sides {
			k := (i + j) % 2
			cmd := exec.Command(jobgen, "journal", "intervals", path)
			cmd.Dir = dir // no jobgen.yaml: the command reads jobgen's own specs alone
			if sides[k] == "peer" {
				cmd = exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), intervalsPeerEnv+"="+path)
			}
			wall, maxRSS, maxAnon, cpu := runIntervalsChild(b, sides[k], cmd)
			took[k] += wall
			cpus[k] += cpu
			rss[k] = max(rss[k], maxRSS)
			anon[k] = max(anon[k], maxAnon)
			cores[k] += cpu.Seconds() / wall.Seconds()
		}
	}
	// The floor under jobgen's peak: the same binary's `jobgen version`,
	// which reads nothing, its RSS the pages of the binary the runtime and
	// every package's init touch (decision 0245).
	_, floor, _, _ := runIntervalsChild(b, "jobgen version", exec.Command(jobgen, "version"))
	b.ReportMetric(floor, "jobgen-version-MB-rss")
	for k, side := range sides {
		perOp(b, took[k], side+"-ns/op")
		perOp(b, cpus[k], side+"-cpu-ns/op")
		b.ReportMetric(rss[k], side+"-MB-rss")
		b.ReportMetric(anon[k], side+"-MB-anon")
		b.ReportMetric(cores[k]/float64(b.N), side+"-cores")
	}
}

// buildJobgen builds the jobgen command into dir from the module this one
// replaces jobgen's with (../..), with jobgen's own go.mod, as `go install`
// or `go tool` builds it, and returns its path.
func buildJobgen(b *testing.B, dir string) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		b.Fatal(err)
	}
	if mod, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !strings.HasPrefix(string(mod), "module github.com/jobgen/jobgen\n") {
		b.Fatalf("%s is not jobgen's module root: %v", root, err)
	}
	bin := filepath.Join(dir, "jobgen")
	cmd := exec.Command(goCommand(), "build", "-o", bin, "./cmd/jobgen")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd/jobgen: %v\n%s", err, out)
	}
	return bin
}

// goCommand is the go command of the toolchain running the benchmark.
func goCommand() string {
	if goroot := runtime.GOROOT(); goroot != "" {
		if bin := filepath.Join(goroot, "bin", "go"); fileExists(bin) {
			return bin
		}
	}
	return "go"
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// runIntervalsChild runs cmd, one side, and returns its wall time, its own
// peak RSS in MiB, the largest RssAnon read of it in MiB (sampled every
// 5 ms, and at its exit stop) and its CPU time. The peak is the child's VmHWM, read as
// it exits: traced, it stops there before its memory is released. The
// child's ru_maxrss will not do, since Linux records in it, at the exec, the
// peak of the memory the child shared with this process until then: this
// test binary's, 50 MB and more once it has written the journal.
func runIntervalsChild(b *testing.B, side string, cmd *exec.Cmd) (time.Duration, float64, float64, time.Duration) {
	runtime.LockOSThread() // the thread that starts a traced child is its tracer
	defer runtime.UnlockOSThread()
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatalf("%s: %v", side, err)
	}
	pid := cmd.Process.Pid
	stop, sampled := make(chan struct{}), make(chan float64)
	go func() { sampled <- sampleAnon(pid, stop) }()
	defer func() {
		if stop != nil {
			close(stop)
			<-sampled
		}
	}()
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil || !ws.Stopped() { // stopped at its exec
		b.Fatalf("%s: waiting for its exec: %v (%v)", side, err, ws)
	}
	if err := syscall.PtraceSetOptions(pid, syscall.PTRACE_O_TRACEEXIT); err != nil {
		b.Fatalf("%s: %v", side, err)
	}
	hwm, anonAtExit, sig := -1.0, 0.0, 0
	for {
		if err := syscall.PtraceCont(pid, sig); err != nil {
			b.Fatalf("%s: %v", side, err)
		}
		var ru syscall.Rusage
		if _, err := syscall.Wait4(pid, &ws, 0, &ru); err != nil {
			b.Fatalf("%s: %v", side, err)
		}
		switch {
		case ws.Exited() || ws.Signaled():
			if !ws.Exited() || ws.ExitStatus() != 0 || hwm < 0 {
				b.Fatalf("%s: ended %v, its peak RSS read: %v", side, ws, hwm >= 0)
			}
			close(stop)
			peakAnon := max(<-sampled, anonAtExit)
			stop = nil
			return time.Since(start), hwm, peakAnon, time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		case ws.TrapCause() == syscall.PTRACE_EVENT_EXIT:
			hwm, sig = statusMiB(b, pid, "VmHWM:"), 0
			anonAtExit = statusMiB(b, pid, "RssAnon:")
		case ws.StopSignal() == syscall.SIGTRAP:
			sig = 0
		default:
			sig = int(ws.StopSignal()) // delivered on, as untraced
		}
	}
}

// statusMiB returns the field of process pid's /proc status that starts
// with key, such as VmHWM: (its peak RSS), in MiB.
func statusMiB(b *testing.B, pid int, key string) float64 {
	mib, err := readStatusMiB(pid, key)
	if err != nil {
		b.Fatal(err)
	}
	return mib
}

// readStatusMiB is statusMiB with its failure returned.
func readStatusMiB(pid int, key string) (float64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if kb, ok := strings.CutPrefix(line, key); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")))
			if err != nil {
				return 0, fmt.Errorf("%s %q: %w", key, kb, err)
			}
			return float64(n) / 1024, nil
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", key, pid)
}

// sampleAnon reads process pid's RssAnon every 5 ms until stop is closed
// and returns the largest read, in MiB. Linux keeps no peak of it as it
// does of the whole RSS (VmHWM), and the intervals' private peak is gone
// by the exit stop: the settled ids are unmapped as the projection ends.
// A read that fails (the process is gone, or not yet exec'd) is skipped.
func sampleAnon(pid int, stop <-chan struct{}) float64 {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	peak := 0.0
	for {
		if mib, err := readStatusMiB(pid, "RssAnon:"); err == nil {
			peak = max(peak, mib)
		}
		select {
		case <-stop:
			return peak
		case <-tick.C:
		}
	}
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
	if err := jobhistory.WriteIntervals(&ours, journal.Facts(journal.ReadFile(path), jobs.DecodeFact), jobhistory.WithJSON()); err != nil {
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

// The benchmark's memory figures come from /proc status fields in kB,
// returned in MiB; a field the file lacks is an error, not a zero, and the
// sampler reads at least once even when stopped at once.
func TestStatusFieldsReadInMiB(t *testing.T) {
	pid := os.Getpid()
	hwm, err := readStatusMiB(pid, "VmHWM:")
	if err != nil || hwm <= 0 {
		t.Fatalf("VmHWM of this process: %v MiB, %v; want a positive figure", hwm, err)
	}
	anon, err := readStatusMiB(pid, "RssAnon:")
	if err != nil || anon <= 0 || anon > hwm {
		t.Fatalf("RssAnon of this process: %v MiB, %v; want a positive figure at most VmHWM's %v", anon, err, hwm)
	}
	// statm counts the same resident set in pages: the two agree in MiB.
	rss, err := readStatusMiB(pid, "VmRSS:")
	statm, serr := os.ReadFile("/proc/self/statm")
	if err != nil || serr != nil {
		t.Fatal(err, serr)
	}
	pages, err := strconv.Atoi(strings.Fields(string(statm))[1])
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(pages*os.Getpagesize()) / (1 << 20); rss < want*0.8 || rss > want*1.25 {
		t.Fatalf("VmRSS read as %.2f MiB, statm says %.2f MiB", rss, want)
	}
	if got, err := readStatusMiB(pid, "NoSuchField:"); err == nil {
		t.Fatalf("a field /proc/%d/status lacks read as %v MiB, want an error", pid, got)
	}
	stop := make(chan struct{})
	close(stop)
	if got := sampleAnon(pid, stop); got <= 0 {
		t.Fatalf("sampleAnon stopped at once returned %v MiB, want the one read it makes", got)
	}
}
