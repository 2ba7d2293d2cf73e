package journal

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/testjobs"
)

// Each benchmark runs next to a baseline written here, in the same run:
//
//	go test ./journal -run '^$' -bench . -benchmem
//
// Goals: Append without sync at least 0.8x the throughput of a plain bufio
// JSON-lines write of the same records (payload), and of a baseline that
// also frames and checksums them (payload-framed); durable appends at least 1.0x a plain
// leader/follower write+fsync, at 1, 16 and 128 concurrent committers (the
// speedup metric).

// benchFact is a typical settled fact, about 330 bytes encoded.
func benchFact(i int) jobs.Fact {
	f := testjobs.Settled(i, jobs.JobStatusCompleted, true)
	f.Detail = "exit status 0"
	return f
}

// A ringFile writes its data over the first ringBytes of the file again and
// again. Benchmarks without sync write through it on both sides, so that
// gigabytes of dirty page cache, and the kernel throttling them, do not
// decide the comparison.
type ringFile struct {
	*os.File
	off int64
}

const ringBytes = 64 << 20

func (f *ringFile) Write(p []byte) (int, error) {
	n, err := f.WriteAt(p, f.off)
	f.off = (f.off + int64(n)) % ringBytes
	return n, err
}

func openRing(path string) (File, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	return &ringFile{File: f.(*os.File)}, nil
}

// BenchmarkAppend measures appends without sync against a plain bufio
// JSON-lines writer of the same records, both over a ringFile:
//
//   - fact: the journal's Recorder (encode, frame, checksum, buffer) against
//     encoding each fact and writing it as a line;
//   - payload: the Store's Append of encoded facts against writing the same
//     bytes as lines.
//
// Like BenchmarkDurableAppend, the two run paired in alternating blocks;
// each op is one record through each. speedup is baseline time over journal
// time, the journal's relative throughput (the goal is >= 0.8).
func BenchmarkAppend(b *testing.B) {
	facts := make([]jobs.Fact, 1024)
	payloads := make([][]byte, len(facts))
	for i := range facts {
		facts[i] = benchFact(i)
		payloads[i], _ = jobs.EncodeFact(facts[i])
	}
	run := func(b *testing.B, baseline func(w *bufio.Writer, i int) error, journal func(s *FileStore, i int) error) {
		w := bufio.NewWriterSize(&ringFile{File: benchFile(b)}, 64<<10)
		s := benchStore(b, WithOpenFile(openRing))
		b.SetBytes(int64(len(payloads[0])))
		tBase, tJournal := paired(b, 1024, func(k int) {
			for i := range k {
				if err := baseline(w, i); err != nil {
					b.Fatal(err)
				}
			}
		}, func(k int) {
			for i := range k {
				if err := journal(s, i); err != nil {
					b.Fatal(err)
				}
			}
		})
		w.Flush()
		b.ReportMetric(float64(tJournal.Nanoseconds())/float64(b.N), "journal-ns/record")
		b.ReportMetric(float64(tBase.Nanoseconds())/float64(b.N), "baseline-ns/record")
		b.ReportMetric(float64(tBase)/float64(tJournal), "speedup")
	}
	b.Run("fact", func(b *testing.B) {
		var rec *Recorder[jobs.Fact]
		run(b, func(w *bufio.Writer, i int) error {
			p, err := jobs.EncodeFact(facts[i%len(facts)])
			if err != nil {
				return err
			}
			w.Write(p)
			return w.WriteByte('\n')
		}, func(s *FileStore, i int) error {
			if rec == nil {
				rec = NewRecorder(s, jobs.EncodeFact, toTestStream)
			}
			return rec.Record(facts[i%len(facts)])
		})
	})
	b.Run("payload-framed", func(b *testing.B) {
		// The scoreboard's goal: the Store's Append of a pre-encoded payload against a
		// baseline that also frames and checksums it, as the store writes it
		// (without the store's validation, lock and index).
		var line []byte
		run(b, func(w *bufio.Writer, i int) error {
			p := payloads[i%len(payloads)]
			line = appendRecord(line[:0], uint64(i+1), testStream, uint64(i+1), "", p, metaCRC(p, testStream, ""))
			_, err := w.Write(line)
			return err
		}, func(s *FileStore, i int) error {
			_, err := s.append1(payloads[i%len(payloads)])
			return err
		})
	})
	b.Run("payload-encoded", func(b *testing.B) {
		// The scoreboard's goal: AppendEncoded, the path of payloads from a
		// generated encoder, against the same framing baseline.
		var line []byte
		ctx := context.Background()
		run(b, func(w *bufio.Writer, i int) error {
			p := payloads[i%len(payloads)]
			line = appendRecord(line[:0], uint64(i+1), testStream, uint64(i+1), "", p, metaCRC(p, testStream, ""))
			_, err := w.Write(line)
			return err
		}, func(s *FileStore, i int) error {
			_, err := s.AppendEncoded(ctx, testStream, Entry{Payload: payloads[i%len(payloads)]})
			return err
		})
	})
	b.Run("payload", func(b *testing.B) {
		run(b, func(w *bufio.Writer, i int) error {
			w.Write(payloads[i%len(payloads)])
			return w.WriteByte('\n')
		}, func(s *FileStore, i int) error {
			_, err := s.append1(payloads[i%len(payloads)])
			return err
		})
	})
}

// BenchmarkRecorder measures the registry's Recorders (plain and retrying,
// as jobhistory.NewRecorder makes it) over the file store, without sync:
// the same facts through the encoded path the Recorder takes over a
// FileStore (AppendEncoded, no second parse of the encoder's output)
// against the same Recorder over the same kind of store with only Append
// (the payload parsed again). They run paired in alternating blocks, each
// over its own store on a ringFile; speedup is the Append path's time over
// the encoded path's.
//
//	go test ./journal -run '^$' -bench Recorder -count 5
func BenchmarkRecorder(b *testing.B) {
	settled := make([]jobs.JobSettled, 1024)
	for i := range settled {
		settled[i] = benchFact(i).(jobs.JobSettled)
	}
	idOf := func(f jobs.Fact) string { return f.FactType() + "/" + f.(jobs.JobSettled).JobID.String() }
	for _, c := range []struct {
		name string
		make func(Store) *Recorder[jobs.Fact]
	}{
		{"plain", func(s Store) *Recorder[jobs.Fact] { return NewRecorder(s, jobs.EncodeFact, toTestStream) }},
		{"retrying", func(s Store) *Recorder[jobs.Fact] {
			return NewRetryingRecorder(s, jobs.EncodeFact, toTestStream, idOf)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			viaAppend := c.make(appendOnly{benchStore(b, WithOpenFile(openRing))})
			encoded := c.make(benchStore(b, WithOpenFile(openRing)))
			record := func(rec *Recorder[jobs.Fact], n *int) func(k int) {
				return func(k int) {
					for range k {
						f := settled[*n%len(settled)]
						f.JobID = testjobs.ID(*n) // a fact of its own, for the retrying Recorder's ids
						if err := rec.Record(f); err != nil {
							b.Fatal(err)
						}
						*n++
					}
				}
			}
			var n1, n2 int
			b.ReportAllocs()
			tAppend, tEncoded := paired(b, 1024, record(viaAppend, &n1), record(encoded, &n2))
			b.ReportMetric(float64(tEncoded.Nanoseconds())/float64(b.N), "encoded-ns/fact")
			b.ReportMetric(float64(tAppend.Nanoseconds())/float64(b.N), "append-ns/fact")
			b.ReportMetric(float64(tAppend)/float64(tEncoded), "speedup")
		})
	}
}

// BenchmarkDurableAppend measures commits that must be durable before they
// return — Append then Flush — by N concurrent committers, against a plain
// leader/follower group commit that writes JSON lines and fsyncs.
//
// fsync latency drifts with the machine's other I/O, so the two run paired:
// alternating blocks of commits in one loop, each op being one commit of
// each, taking turns to go first. The metrics are journal-ns/commit, baseline-ns/commit and speedup
// (baseline time over journal time; the goal is >= 1).
func BenchmarkDurableAppend(b *testing.B) {
	p, _ := jobs.EncodeFact(benchFact(1))
	for _, n := range []int{1, 16, 128} {
		b.Run(fmt.Sprintf("committers=%d", n), func(b *testing.B) {
			lf := &leaderFollower{f: benchFile(b)}
			lf.cond = sync.NewCond(&lf.mu)
			s := benchStore(b)
			baseline := func() error { return lf.commit(p) }
			journal := func() error {
				if _, err := s.append1(p); err != nil {
					return err
				}
				return s.Flush(context.Background())
			}
			tBase, tJournal := paired(b, max(32, 8*n),
				func(k int) { committers(b, n, k, baseline) },
				func(k int) { committers(b, n, k, journal) })
			b.ReportMetric(float64(tJournal.Nanoseconds())/float64(b.N), "journal-ns/commit")
			b.ReportMetric(float64(tBase.Nanoseconds())/float64(b.N), "baseline-ns/commit")
			b.ReportMetric(float64(tBase)/float64(tJournal), "speedup")
		})
	}
}

// paired runs b.N ops through each of two sides in alternating blocks of up
// to block ops, the sides taking turns to go first, and returns the time
// each side took. run(k) runs k ops of its side. Pairing the sides in one
// loop lets both see the same drift in the machine's speed.
func paired(b *testing.B, block int, run1, run2 func(k int)) (t1, t2 time.Duration) {
	for done, turn := 0, 0; done < b.N; done, turn = done+block, turn+1 {
		k := min(block, b.N-done)
		for side := range 2 {
			start := time.Now()
			if (turn+side)%2 == 0 {
				run1(k)
				t1 += time.Since(start)
			} else {
				run2(k)
				t2 += time.Since(start)
			}
		}
	}
	return t1, t2
}

// committers runs k calls of commit across n goroutines.
func committers(b *testing.B, n, k int, commit func() error) {
	var left atomic.Int64
	left.Store(int64(k))
	var wg sync.WaitGroup
	for range min(n, k) {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := commit(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// leaderFollower is the baseline group commit: the first committer to find
// no sync running writes everything pending and fsyncs; the rest wait.
type leaderFollower struct {
	f       *os.File
	mu      sync.Mutex
	cond    *sync.Cond
	buf     []byte
	pending uint64 // last seq appended
	synced  uint64 // last seq an fsync covered
	syncing bool
}

func (l *leaderFollower) commit(p []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending++
	seq := l.pending
	l.buf = append(append(l.buf, p...), '\n')
	for l.synced < seq {
		if l.syncing {
			l.cond.Wait()
			continue
		}
		l.syncing = true
		data, upto := l.buf, l.pending
		l.buf = nil
		l.mu.Unlock()
		_, err := l.f.Write(data)
		if err == nil {
			err = l.f.Sync()
		}
		l.mu.Lock()
		l.syncing = false
		l.cond.Broadcast()
		if err != nil {
			return err
		}
		l.synced = upto
	}
	return nil
}

func benchFile(b *testing.B) *os.File {
	f, err := os.Create(filepath.Join(b.TempDir(), "baseline.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return f
}

func benchStore(b *testing.B, opts ...Option) *FileStore {
	s, err := Open(filepath.Join(b.TempDir(), "bench.journal"), append(opts, WithLogger(discard()))...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.close() })
	return s
}

// BenchmarkReadStream measures what streams buy: a per-stream read of
// 1,000 records in a 1,000,000-record file against a full scan of the file
// for the same records, both through the same open store. The needle
// stream's records are spread evenly (every 1,000th record; the rest are in
// 100 other streams), so the stream read jumps across the whole file. Each
// op reads the 1,000 records once.
//
//	go test ./journal -run '^$' -bench ReadStream -benchtime 20x -count 3
func BenchmarkReadStream(b *testing.B) {
	const total, every = 1_000_000, 1_000
	path := filepath.Join(b.TempDir(), "million.journal")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(header)
	seqs := map[Stream]uint64{}
	var line []byte
	for pos := uint64(1); pos <= total; pos++ {
		stream := Stream(fmt.Sprintf("hay-%d", pos%100))
		if pos%every == 0 {
			stream = "needle"
		}
		seqs[stream]++
		p := fmt.Appendf(nil, `{"type":"bench/fact","v":1,"data":{"n":%d}}`, pos)
		line = appendRecord(line[:0], pos, stream, seqs[stream], "", p, metaCRC(p, stream, ""))
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	s := open(b, path)
	b.Cleanup(func() { s.close() })
	ctx := context.Background()
	b.Run("stream", func(b *testing.B) {
		for b.Loop() {
			n := 0
			for _, err := range s.ReadStream(ctx, "needle", 0) {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n != total/every {
				b.Fatalf("read %d records", n)
			}
		}
	})
	b.Run("fullscan", func(b *testing.B) {
		for b.Loop() {
			n := 0
			for rec, err := range s.ReadAll(ctx, Position{}) {
				if err != nil {
					b.Fatal(err)
				}
				if rec.Stream == "needle" {
					n++
				}
			}
			if n != total/every {
				b.Fatalf("read %d records", n)
			}
		}
	})
}

// BenchmarkAppendThroughStore measures the cost of the journal.Store
// interface on the append path: the same Append of a pre-encoded payload,
// called on the *FileStore and through a journal.Store holding it, paired in
// alternating blocks over one store writing to a ringFile. ratio is
// interface time over concrete time (the goal is <= 1.05).
func BenchmarkAppendThroughStore(b *testing.B) {
	p, _ := jobs.EncodeFact(benchFact(1))
	s := benchStore(b, WithOpenFile(openRing))
	var iface Store = s
	ctx := context.Background()
	entry := Entry{Payload: p}
	tConcrete, tIface := paired(b, 1024, func(k int) {
		for range k {
			if _, err := s.Append(ctx, "bench", entry); err != nil {
				b.Fatal(err)
			}
		}
	}, func(k int) {
		for range k {
			if _, err := iface.Append(ctx, "bench", entry); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(tConcrete.Nanoseconds())/float64(b.N), "concrete-ns/record")
	b.ReportMetric(float64(tIface.Nanoseconds())/float64(b.N), "interface-ns/record")
	b.ReportMetric(float64(tIface)/float64(tConcrete), "ratio")
}
