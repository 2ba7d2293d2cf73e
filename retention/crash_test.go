package retention_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
	"github.com/jobgen/jobgen/retention"
)

// TestMain runs the archiver of TestArchiveRoundsSurviveKills when that
// test starts this binary with RETENTION_ARCHIVER set, and the tests
// otherwise.
func TestMain(m *testing.M) {
	if os.Getenv("RETENTION_ARCHIVER") != "" {
		if err := archiver(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "archiver:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// archiver does what `jobgen journal archive --before 0s` does, as a
// process of its own that the test may SIGKILL: it judges every stream of
// the schema, prints the plan ("judged STREAM THROUGH" lines, then
// "ready"), waits for a line on in, and archives into RETENTION_ARCHIVE.
func archiver(in io.Reader, out io.Writer) error {
	ctx := context.Background()
	store, err := pgstore.Open(ctx, os.Getenv("RETENTION_DSN"), pgstore.WithSchema(os.Getenv("RETENTION_SCHEMA")), pgstore.WithoutMigrate())
	if err != nil {
		return err
	}
	defer store.Close(ctx)
	plan, err := retention.Choose(ctx, store, retention.Options{Before: time.Now()})
	if err != nil {
		return err
	}
	for _, j := range plan.Archive {
		fmt.Fprintf(out, "judged %s %d\n", j.Stream, j.Through)
	}
	fmt.Fprintln(out, "ready")
	if _, err := bufio.NewReader(in).ReadString('\n'); err != nil {
		return err
	}
	file, err := journal.Open(os.Getenv("RETENTION_ARCHIVE"))
	if err != nil {
		return err
	}
	moved, err := store.Archive(ctx, plan.Archive, file)
	if cerr := file.Close(ctx); err == nil {
		err = cerr
	}
	fmt.Fprintf(out, "archived %d\n", len(moved))
	return err
}

// An archiverRun is one archiver process: its plan, and a way to let it
// archive.
type archiverRun struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	judged map[journal.Stream]uint64
	done   chan error
}

// startArchiver starts an archiver into file and reads its plan.
func startArchiver(t *testing.T, dsn, schema, file string) *archiverRun {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RETENTION_ARCHIVER=1", "RETENTION_DSN="+dsn, "RETENTION_SCHEMA="+schema, "RETENTION_ARCHIVE="+file)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &archiverRun{cmd: cmd, stdin: stdin, judged: map[journal.Stream]uint64{}, done: make(chan error, 1)}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		line := lines.Text()
		if line == "ready" {
			break
		}
		if f := strings.Fields(line); len(f) == 3 && f[0] == "judged" {
			n, _ := strconv.ParseUint(f[2], 10, 64)
			a.judged[journal.Stream(f[1])] = n
		}
	}
	go func() {
		io.Copy(io.Discard, stdout)
		err := cmd.Wait()
		if err != nil {
			err = fmt.Errorf("%w: %s", err, stderr.String())
		}
		a.done <- err
	}()
	return a
}

// archive lets the archiver archive what it judged.
func (a *archiverRun) archive() { fmt.Fprintln(a.stdin, "go"); a.stdin.Close() }

// wait waits for the archiver to end, killing it after a minute.
func (a *archiverRun) wait() error {
	select {
	case err := <-a.done:
		return err
	case <-time.After(time.Minute):
		a.cmd.Process.Kill()
		return fmt.Errorf("the archiver ran for a minute: %w", <-a.done)
	}
}

// An ackLog is what the appenders of the crash rounds were told: the
// record ids acknowledged per stream.
type ackLog struct {
	mu    sync.Mutex
	acked map[journal.Stream][]string
}

func (l *ackLog) ack(stream journal.Stream, ids ...string) {
	l.mu.Lock()
	l.acked[stream] = append(l.acked[stream], ids...)
	l.mu.Unlock()
}

// appendAcked appends one fact with id to stream, retrying until it is
// acknowledged (the id makes a retry of a commit whose outcome was lost
// land once), and notes it in log.
func appendAcked(ctx context.Context, s *pgstore.Store, log *ackLog, stream journal.Stream, id string, f jobs.Fact) error {
	p, err := jobs.EncodeFact(f)
	if err != nil {
		return err
	}
	for ctx.Err() == nil {
		if _, err := s.Append(ctx, stream, journal.Entry{ID: id, Payload: p}); err == nil {
			log.ack(stream, id)
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return ctx.Err()
}

// Archive rounds under SIGKILLs. Appenders register and settle jobs in four
// sessions, retrying with ids until acknowledged, while a tail reads the
// global order through everything. Each round writes a session that is
// over and a long one (more than a read page), starts a reader of the long
// one and reads part of it, starts an archiver process that judges every
// stream, registers a job in the session it judged over (a live job, never
// settled), lets it archive, and SIGKILLs the archiver or PostgreSQL part
// way (or neither); then an archiver runs to the end into the same file.
// Afterwards every stream reads, from the store and the archive files the
// store names for its archived runs, as seqs 1 to N without a gap, every
// acknowledged fact exactly once; no live job's registration is in an
// archive; the reader went on with every seq in order and then an
// ArchivedError naming exactly what it missed; the tail delivered every
// record the store still holds, once, in order.
func TestArchiveRoundsSurviveKills(t *testing.T) {
	t.Parallel() // with the other crash loops: each waits on a server of its own
	srv := pgtest.StartPrivateServer(t)
	rounds := pgtest.CrashRounds(t)
	const schema = "crash"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func(opts ...pgstore.Option) *pgstore.Store {
		s, err := pgstore.Open(ctx, srv.DSN, append([]pgstore.Option{pgstore.WithSchema(schema)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close(context.Background()) })
		return s
	}
	writer, reader := open(pgstore.WithCommitters(2)), open()
	tail := pgtest.StartTail(ctx, open(pgstore.WithPollInterval(20*time.Millisecond)), journal.Position{})
	dir := t.TempDir()

	const sessions = 4
	log := &ackLog{acked: map[journal.Stream][]string{}}
	acks := make([]atomic.Int64, sessions)
	appendCtx, stopAppending := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for w := range sessions {
		wg.Go(func() {
			stream := journal.Stream(fmt.Sprintf("w%d", w))
			for i := 0; appendCtx.Err() == nil; i++ {
				r := jobs.JobRegistered{JobID: jobs.NewJobID(), At: time.Now().UnixMilli(), Owner: jobs.SessionID(stream), Kind: "crash", Label: "l", Ordinal: i + 1}
				if appendAcked(appendCtx, writer, log, stream, fmt.Sprintf("%s-%d-r", stream, i), r) != nil {
					return
				}
				time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond) // the job runs
				if appendAcked(appendCtx, writer, log, stream, fmt.Sprintf("%s-%d-s", stream, i), settled(r)) != nil {
					return
				}
				acks[w].Add(1)
			}
		})
	}
	reackAll := func(r int) {
		t.Helper()
		before := make([]int64, sessions)
		for w := range sessions {
			before[w] = acks[w].Load()
		}
		deadline := time.Now().Add(time.Minute)
		for w := range sessions {
			for acks[w].Load() <= before[w] {
				if time.Now().After(deadline) {
					t.Fatalf("round %d: session %d's appender was not acknowledged again", r, w)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
	}

	var figures struct{ archiverKills, serverKills, skipped int }
	live := map[journal.Stream]string{} // the live job's registration id, by session
	for r := range rounds {
		over, long := journal.Stream(fmt.Sprintf("over-%d", r)), journal.Stream(fmt.Sprintf("long-%d", r))
		done := registered(jobs.SessionID(over), 1)
		if err := appendAcked(ctx, writer, log, over, string(over)+"-0", done); err != nil {
			t.Fatal(err)
		}
		if err := appendAcked(ctx, writer, log, over, string(over)+"-1", settled(done)); err != nil {
			t.Fatal(err)
		}
		longFacts := 2 * (200 + rand.IntN(100))
		for i := 0; i < longFacts; i += 2 {
			j := registered(jobs.SessionID(long), i/2+1)
			if err := appendAcked(ctx, writer, log, long, fmt.Sprintf("%s-%d", long, i), j); err != nil {
				t.Fatal(err)
			}
			if err := appendAcked(ctx, writer, log, long, fmt.Sprintf("%s-%d", long, i+1), settled(j)); err != nil {
				t.Fatal(err)
			}
		}
		rd := startRoundReader(ctx, reader, long, longFacts, 1+rand.IntN(255))
		time.Sleep(5 * time.Millisecond)

		file := filepath.Join(dir, fmt.Sprintf("archive-%d.journal", r))
		a := startArchiver(t, srv.DSN, schema, file)
		if a.judged[over] != 2 || a.judged[long] != uint64(longFacts) {
			t.Fatalf("round %d: the archiver judged %s through %d and %s through %d; want 2 and %d (every job settled)", r, over, a.judged[over], long, a.judged[long], longFacts)
		}
		// A job registered in a session the archiver judged over, before it
		// moves anything: live, and never settled.
		id := string(over) + "-live"
		if err := appendAcked(ctx, writer, log, over, id, registered(jobs.SessionID(over), 2)); err != nil {
			t.Fatal(err)
		}
		live[over] = id
		a.archive()
		time.Sleep(time.Duration(rand.IntN(150)) * time.Millisecond)
		switch kill := r % 3; kill {
		case 0:
			a.cmd.Process.Kill()
			figures.archiverKills++
			a.wait()
		case 1:
			srv.Restart(time.Duration(50+rand.IntN(200)) * time.Millisecond)
			figures.serverKills++
			a.wait() // it may have finished, or failed with the server
			reackAll(r)
		default:
			if err := a.wait(); err != nil {
				t.Fatalf("round %d: the archiver: %v", r, err)
			}
		}
		// An archiver run to the end completes what a killed one began.
		again := startArchiver(t, srv.DSN, schema, file)
		if _, ok := again.judged[over]; ok {
			t.Fatalf("round %d: %s holds a job that never settled, and the archiver judged it over", r, over)
		}
		again.archive()
		if err := again.wait(); err != nil {
			t.Fatalf("round %d: the archiver run to the end: %v", r, err)
		}
		figures.skipped += rd.finish(t, dir)
	}
	stopAppending()
	wg.Wait()

	all := readAllOf(t, reader)
	tailed, err := tail.WaitFor(time.Minute, func(recs []journal.Record) bool {
		return len(all) == 0 || len(recs) > 0 && recs[len(recs)-1].Pos.Compare(all[len(all)-1].Pos) >= 0
	})
	if err != nil {
		t.Errorf("the tail ended: %v", err)
	}
	streams := map[journal.Stream]bool{}
	for stream := range log.acked {
		streams[stream] = true
	}
	var acked, archived, lost, doubled, liveArchived int
	for stream := range streams {
		recs, runs := wholeStream(t, reader, stream)
		ids := map[string]int{}
		for i, rec := range recs {
			if rec.Seq != uint64(i+1) {
				t.Fatalf("stream %s: record %d has seq %d: a fact was lost or doubled", stream, i, rec.Seq)
			}
			ids[rec.ID]++
		}
		for _, run := range runs {
			archived += int(run.Through - run.First + 1)
			if id, ok := live[stream]; ok {
				for _, rec := range recs[run.First-1 : run.Through] {
					if rec.ID == id {
						liveArchived++
						t.Errorf("stream %s: the live job's registration %s is in the archive %s", stream, id, run.Archive)
					}
				}
			}
		}
		for _, id := range log.acked[stream] {
			acked++
			switch ids[id] {
			case 0:
				lost++
				t.Errorf("stream %s: acknowledged %s is missing", stream, id)
			case 1:
			default:
				doubled += ids[id] - 1
				t.Errorf("stream %s: %s stored %d times", stream, id, ids[id])
			}
		}
	}
	checkTail(t, tailed, all)
	if _, err := reader.Check(ctx); err != nil {
		t.Errorf("Check after the rounds: %v", err)
	}
	t.Logf("%d rounds (%d archivers and %d servers SIGKILLed): %d acknowledged facts, %d archived, %d still in the store, tailed %d: %d lost, %d doubled, %d live archived, %d skipped by a reader",
		rounds, figures.archiverKills, figures.serverKills, acked, archived, len(all), len(tailed), lost, doubled, liveArchived, figures.skipped)
}

// wholeStream reads stream whole: its archived runs from the files the
// store names, then what the store holds after them; it returns the
// records in seq order and the runs.
func wholeStream(t *testing.T, s *pgstore.Store, stream journal.Stream) ([]journal.Record, []journal.ArchivedRange) {
	t.Helper()
	ctx := context.Background()
	var recs []journal.Record
	var runs []journal.ArchivedRange
	after := uint64(0)
	for rec, err := range s.ReadStream(ctx, stream, 0) {
		var ae *journal.ArchivedError
		if errors.As(err, &ae) {
			runs, after = ae.Ranges, ae.Through
			break
		}
		if err != nil {
			t.Fatalf("stream %s: %v", stream, err)
		}
		recs = append(recs, rec)
	}
	if len(runs) > 0 {
		recs = nil
		for _, run := range runs {
			file, err := journal.Open(run.Archive)
			if err != nil {
				t.Fatalf("stream %s: the archive of seqs %d to %d: %v", stream, run.First, run.Through, err)
			}
			for rec, err := range file.ReadStream(ctx, stream, run.First-1) {
				if err != nil {
					t.Fatalf("stream %s in %s: %v", stream, run.Archive, err)
				}
				if rec.Seq > run.Through {
					break
				}
				recs = append(recs, rec)
			}
			file.Close(ctx)
		}
		for rec, err := range s.ReadStream(ctx, stream, after) {
			if err != nil {
				t.Fatalf("stream %s after seq %d: %v", stream, after, err)
			}
			recs = append(recs, rec)
		}
	}
	return recs, runs
}

// readAllOf collects the global order.
func readAllOf(t *testing.T, s *pgstore.Store) []journal.Record {
	t.Helper()
	var recs []journal.Record
	for rec, err := range s.ReadAll(context.Background(), journal.Position{}) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// A roundReader is a ReadStream of a long stream that read part of it
// before the round's archive.
type roundReader struct {
	s      *pgstore.Store
	stream journal.Stream
	held   int
	last   uint64
	next   func() (journal.Record, error, bool)
	stop   func()
}

func startRoundReader(ctx context.Context, s *pgstore.Store, stream journal.Stream, held, before int) *roundReader {
	next, stop := iter.Pull2(s.ReadStream(ctx, stream, 0))
	rd := &roundReader{s: s, stream: stream, held: held, next: next, stop: stop}
	for range before {
		rec, err, ok := next()
		if !ok || err != nil || rec.Seq != rd.last+1 {
			panic(fmt.Sprintf("reader of %s before the archive: seq %d after %d, %v, %v", stream, rec.Seq, rd.last, err, ok))
		}
		rd.last = rec.Seq
	}
	return rd
}

// finish reads the rest: every seq in order, then (the stream was
// archived whole) an ArchivedError naming exactly the seqs after the last
// one read, in the round's file. A connection the server's restart broke
// is read again after the last seq, as a reader would. It returns how
// many seqs the reader skipped unsaid: 0, or the check failed.
func (rd *roundReader) finish(t *testing.T, dir string) int {
	t.Helper()
	defer func() { rd.stop() }()
	retries := 0
	for {
		rec, err, ok := rd.next()
		var ae *journal.ArchivedError
		switch {
		case !ok:
			if rd.last < uint64(rd.held) {
				t.Errorf("the reader of %s ended after seq %d of %d, told of no archive", rd.stream, rd.last, rd.held)
				return rd.held - int(rd.last)
			}
			return 0
		case err == nil && rec.Seq != rd.last+1:
			t.Errorf("the reader of %s jumped from seq %d to %d", rd.stream, rd.last, rec.Seq)
			return int(rec.Seq - rd.last - 1)
		case err == nil:
			rd.last = rec.Seq
		case errors.As(err, &ae):
			if ae.After != rd.last || ae.Through != uint64(rd.held) || len(ae.Ranges) != 1 || ae.Ranges[0].First != rd.last+1 ||
				ae.Ranges[0].Through != uint64(rd.held) || filepath.Dir(ae.Ranges[0].Archive) != dir {
				t.Errorf("the reader of %s after seq %d: %v (ranges %+v); want seqs %d to %d named with their archive", rd.stream, rd.last, err, ae.Ranges, rd.last+1, rd.held)
				return int(ae.Through - rd.last)
			}
			if _, _, ok := rd.next(); ok {
				t.Errorf("the reader of %s went on after its ArchivedError", rd.stream)
			}
			return 0
		case errors.Is(err, journal.ErrCorrupt) || retries == 20:
			t.Errorf("the reader of %s after seq %d: %v", rd.stream, rd.last, err)
			return 0
		default:
			// The restart broke its connection: read on after the last seq.
			retries++
			rd.stop()
			rd.next, rd.stop = iter.Pull2(rd.s.ReadStream(context.Background(), rd.stream, rd.last))
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// checkTail checks that the tail delivered each record once, in an order
// that agrees with every stream's, and every record the store still holds.
func checkTail(t *testing.T, tailed, all []journal.Record) {
	t.Helper()
	if t.Failed() {
		return
	}
	seen := map[journal.Position]bool{}
	high := map[journal.Stream]uint64{}
	for i, rec := range tailed {
		if i > 0 && tailed[i-1].Pos.Compare(rec.Pos) >= 0 {
			t.Fatalf("the tail delivered %s after %s", rec.Pos, tailed[i-1].Pos)
		}
		if rec.Seq <= high[rec.Stream] {
			t.Fatalf("the tail delivered %s seq %d after seq %d", rec.Stream, rec.Seq, high[rec.Stream])
		}
		high[rec.Stream] = rec.Seq
		seen[rec.Pos] = true
	}
	for _, rec := range all {
		if !seen[rec.Pos] {
			t.Fatalf("the tail never delivered %s seq %d (%s), which the store holds", rec.Stream, rec.Seq, rec.Pos)
		}
	}
}
