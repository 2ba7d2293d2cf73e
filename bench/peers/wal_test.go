package peers

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"go.etcd.io/etcd/server/v3/storage/wal"
	"go.etcd.io/raft/v3/raftpb"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/testjobs"
	"github.com/jobgen/jobgen/journal"
)

// benchPayload is a typical settled fact as jobgen encodes it, about 300
// bytes: the record both sides write.
func benchPayload(tb testing.TB) []byte {
	f := testjobs.Settled(1, jobs.JobStatusCompleted, true)
	f.Detail = "exit status 0"
	p, err := jobs.EncodeFact(f)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkDurable is the scoreboard's durable append: n committers, each
// committing one record that must be durable before it returns, through
//
//   - jobgen: a journal.FileStore, AppendEncoded then Flush (group commit);
//   - etcd-writer: etcd's WAL behind a writer goroutine, the way raft's
//     Ready loop feeds it: committers hand their entry to the writer, which
//     takes every entry waiting, calls Save once (one fdatasync) and
//     releases them;
//   - etcd-saveN: one goroutine calling Save with n entries at a time, the
//     batch a writer would get if n committers always arrived together: the
//     ceiling of batching, with no coordination at all.
//
// The three run paired in alternating blocks. Each op is one commit of each;
// the metrics are ns per commit of each side and speedup-writer and
// speedup-saveN, etcd's time over jobgen's (jobgen's relative throughput;
// the goals are >= 1.0 and >= 0.8).
func BenchmarkDurable(b *testing.B) {
	p := benchPayload(b)
	for _, n := range []int{1, 16, 128} {
		b.Run(fmt.Sprintf("committers=%d", n), func(b *testing.B) {
			store := openJournal(b)
			ctx := context.Background()
			jobgen := func(k int) {
				committers(b, n, k, func() error {
					if _, err := store.AppendEncoded(ctx, "bench", journal.Entry{Payload: p}); err != nil {
						return err
					}
					return store.Flush(ctx)
				})
			}
			writer := newWALWriter(b, createWAL(b))
			etcdWriter := func(k int) { committers(b, n, k, func() error { return writer.commit(p) }) }
			saver := &walSaver{w: createWAL(b)}
			etcdSaveN := func(k int) {
				for done := 0; done < k; done += n {
					if err := saver.save(p, min(n, k-done)); err != nil {
						b.Fatal(err)
					}
				}
			}
			took := paired(b, 32*n, jobgen, etcdWriter, etcdSaveN)
			perOp(b, took[0], "jobgen-ns/commit")
			perOp(b, took[1], "etcd-writer-ns/commit")
			perOp(b, took[2], "etcd-saveN-ns/commit")
			b.ReportMetric(float64(took[1])/float64(took[0]), "speedup-writer")
			b.ReportMetric(float64(took[2])/float64(took[0]), "speedup-saveN")
		})
	}
}

func openJournal(b *testing.B) *journal.FileStore {
	s, err := journal.Open(filepath.Join(b.TempDir(), "bench.journal"), journal.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// createWAL creates an etcd WAL in a directory of its own, as etcd's server
// does: 64 MB segments, preallocated.
func createWAL(b *testing.B) *wal.WAL {
	w, err := wal.Create(zap.NewNop(), filepath.Join(b.TempDir(), "wal"), []byte("bench"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	return w
}

// A walSaver appends entries with consecutive indexes, one Save (and so one
// fdatasync) per call, with a HardState that commits them.
type walSaver struct {
	w     *wal.WAL
	index uint64
	ents  []*raftpb.Entry
}

func (s *walSaver) save(p []byte, n int) error {
	s.ents = s.ents[:0]
	for range n {
		s.index++
		s.ents = append(s.ents, &raftpb.Entry{Term: proto.Uint64(1), Index: proto.Uint64(s.index), Data: p})
	}
	return s.w.Save(&raftpb.HardState{Term: proto.Uint64(1), Vote: proto.Uint64(1), Commit: proto.Uint64(s.index)}, s.ents)
}

// A walWriter is the goroutine that owns a WAL: committers send it their
// entry and wait; it saves every entry waiting in one Save.
type walWriter struct {
	reqs chan walReq
}

type walReq struct {
	p    []byte
	done chan error
}

func newWALWriter(b *testing.B, w *wal.WAL) *walWriter {
	ww := &walWriter{reqs: make(chan walReq, 1024)}
	stop := make(chan struct{})
	b.Cleanup(func() { close(stop) })
	go ww.run(&walSaver{w: w}, stop)
	return ww
}

func (ww *walWriter) commit(p []byte) error {
	done := make(chan error, 1)
	ww.reqs <- walReq{p, done}
	return <-done
}

func (ww *walWriter) run(s *walSaver, stop chan struct{}) {
	var batch []walReq
	for {
		select {
		case r := <-ww.reqs:
			batch = append(batch[:0], r)
		case <-stop:
			return
		}
	drain:
		for {
			select {
			case r := <-ww.reqs:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		s.ents = s.ents[:0]
		for _, r := range batch {
			s.index++
			s.ents = append(s.ents, &raftpb.Entry{Term: proto.Uint64(1), Index: proto.Uint64(s.index), Data: r.p})
		}
		err := s.w.Save(&raftpb.HardState{Term: proto.Uint64(1), Vote: proto.Uint64(1), Commit: proto.Uint64(s.index)}, s.ents)
		for _, r := range batch {
			r.done <- err
		}
	}
}

// BenchmarkBatch pits the file journal's AppendBatch, n facts handed over
// in one call and durable when it returns, against etcd's WAL Save with the
// same n entries, paired in alternating blocks in one run: the caller that
// holds many facts at once, on both sides. Each op is one commit of n; the
// metrics are ns per commit of each side and speedup-saveN, etcd's time
// over jobgen's (the goal is >= 1.0).
func BenchmarkBatch(b *testing.B) {
	p := benchPayload(b)
	for _, n := range []int{16, 128} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			store := openJournal(b)
			ctx := context.Background()
			entries := make([]journal.Entry, n)
			for i := range entries {
				entries[i] = journal.Entry{Payload: p}
			}
			jobgen := func(k int) {
				for range k {
					if _, err := store.AppendBatch(ctx, journal.Batch{Stream: "bench", Entries: entries}); err != nil {
						b.Fatal(err)
					}
				}
			}
			saver := &walSaver{w: createWAL(b)}
			etcdSaveN := func(k int) {
				for range k {
					if err := saver.save(p, n); err != nil {
						b.Fatal(err)
					}
				}
			}
			took := paired(b, 32, jobgen, etcdSaveN)
			perOp(b, took[0], "jobgen-ns/commit")
			perOp(b, took[1], "etcd-saveN-ns/commit")
			b.ReportMetric(float64(took[1])/float64(took[0]), "speedup-saveN")
		})
	}
}
