package journal

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/testjobs"
)

var crashRounds = flag.Int("journal.crashrounds", 50, "rounds of TestCrashLoop")

const (
	crashChildEnv = "JOURNAL_CRASH_CHILD" // the journal path, in the child
	crashRoundEnv = "JOURNAL_CRASH_ROUND"
)

// crashFact is the fact a crash child appends as item j of batch i in round r.
func crashFact(r, i, j int) jobs.Fact {
	f := testjobs.Registered(j)
	f.Label = fmt.Sprintf("round %d batch %d item %d", r, i, j)
	return f
}

// TestCrashLoop kills a process that appends and flushes at a random moment,
// reopens its journal and checks that every record whose flush the process
// reported is there and intact. Each round continues the same file, so
// recovery runs on what the last kill left, including a half-created file.
func TestCrashLoop(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	seed := rand.Uint64()
	t.Logf("seed %d; -journal.crashrounds=%d", seed, *crashRounds)
	rng := rand.New(rand.NewPCG(seed, seed))
	path := filepath.Join(t.TempDir(), "crash.journal")
	total, repairs, tails := 0, 0, 0
	for round := range *crashRounds {
		reported := crashRound(t, path, round, rng)
		total += len(reported)
		if crashedReadable(t, path, round, reported) {
			tails++
		}

		log, logged := quietLog()
		s, err := Open(path, WithLogger(log))
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		if bytes.Contains([]byte(logged.String()), []byte("torn tail")) {
			repairs++
		}
		last := lastSeq(t, s, testStream)
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
		got := map[uint64][]byte{}
		for rec, err := range ReadFile(path) {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			got[rec.Seq] = rec.Payload
		}
		for _, r := range reported {
			want, _ := jobs.EncodeFact(crashFact(round, r.batch, r.item))
			if !bytes.Equal(got[r.seq], want) {
				t.Fatalf("round %d: flushed seq %d reads %q, want %q (journal ends at %d)", round, r.seq, got[r.seq], want, last)
			}
		}
	}
	t.Logf("%d rounds, %d flushed records checked, %d torn tails cut, %d preallocated tails read past", *crashRounds, total, repairs, tails)
	if total == 0 {
		t.Fatal("no child ever reported a flush: the loop tested nothing")
	}
}

// crashedReadable checks that a reader sees every record the killed child
// reported flushed before Open repairs anything: whatever the kill left
// after them (a torn record, a preallocated zero tail, both) ends the
// records and is no corruption. It reports whether the file had a zero tail
// after its last record.
func crashedReadable(t *testing.T, path string, round int, reported []flushed) bool {
	t.Helper()
	seen := map[uint64]bool{}
	for rec, err := range ReadFile(path) {
		if errors.Is(err, ErrCorrupt) || errors.Is(err, ErrNotJournal) && !errors.Is(err, errEmpty) {
			t.Fatalf("round %d: before Open: %v", round, err)
		}
		if err != nil {
			break
		}
		seen[rec.Seq] = true
	}
	for _, r := range reported {
		if !seen[r.seq] {
			t.Fatalf("round %d: before Open, flushed seq %d does not read", round, r.seq)
		}
	}
	sum, _ := Check(path)
	fi, err := os.Stat(path)
	return err == nil && sum.Good > 0 && fi.Size() > sum.Good && zeroFrom(t, path, sum.Good)
}

// zeroFrom reports whether the file at path holds only zero bytes from off.
func zeroFrom(t *testing.T, path string, off int64) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return allZero(b[off:])
}

type flushed struct {
	seq         uint64
	batch, item int
}

// crashRound runs one child against path, kills it at a random moment and
// returns the records it reported flushed.
func crashRound(t *testing.T, path string, round int, rng *rand.Rand) []flushed {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashLoop$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path, fmt.Sprintf("%s=%d", crashRoundEnv, round))
	cmd.ExtraFiles = []*os.File{pw}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()

	var (
		mu       sync.Mutex
		reported []flushed
		first    = make(chan struct{})
		done     = make(chan struct{})
	)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var r flushed
			if _, err := fmt.Sscanf(sc.Text(), "%d %d %d", &r.seq, &r.batch, &r.item); err != nil {
				continue // a line cut by the kill
			}
			mu.Lock()
			if reported == nil {
				close(first)
			}
			reported = append(reported, r)
			mu.Unlock()
		}
	}()
	// Half the rounds kill at any moment from the start, often during
	// start-up or Open; the others once the child is flushing.
	if round%2 == 1 {
		select {
		case <-first:
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: the child reported nothing", round)
		}
	}
	time.Sleep(time.Duration(rng.Int64N(int64(30 * time.Millisecond))))
	cmd.Process.Kill()
	cmd.Wait()
	<-done
	pr.Close()
	mu.Lock()
	defer mu.Unlock()
	return reported
}

// A chunkedFile writes in small pieces, one system call each, so that a kill
// can land inside a record as a power cut can.
type chunkedFile struct {
	*os.File
	rng *rand.Rand
}

func openChunked(path string) (File, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	return &chunkedFile{f.(*os.File), rand.New(rand.NewPCG(rand.Uint64(), 0))}, nil
}

func (f *chunkedFile) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := f.File.Write(p[n:min(len(p), n+1+f.rng.IntN(64))])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Sync is fdatasync, as for the default file.
func (f *chunkedFile) Sync() error { return datasync(f.File) }

// Allocate preallocates, as for the default file, so that kills land
// before, inside and after preallocated tails.
func (f *chunkedFile) Allocate(off, n int64) error { return fallocate(f.File, off, n) }

// crashChild appends batches of facts and flushes after each, reporting each
// flushed record on file descriptor 3, until it is killed.
func crashChild(path string) {
	var round int
	fmt.Sscan(os.Getenv(crashRoundEnv), &round)
	report := bufio.NewWriter(os.NewFile(3, "report"))
	s, err := Open(path, WithLogger(discard()), WithOpenFile(openChunked))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	deadline := time.Now().Add(10 * time.Second) // in case the parent is gone
	for i := 0; time.Now().Before(deadline); i++ {
		var batch []flushed
		for j := range 1 + i%4 {
			p, _ := jobs.EncodeFact(crashFact(round, i, j))
			seq, err := s.append1(p)
			if err != nil {
				os.Exit(3)
			}
			batch = append(batch, flushed{seq, i, j})
		}
		if err := s.Flush(context.Background()); err != nil {
			os.Exit(4)
		}
		for _, r := range batch {
			fmt.Fprintf(report, "%d %d %d\n", r.seq, r.batch, r.item)
		}
		report.Flush()
	}
	os.Exit(0)
}
