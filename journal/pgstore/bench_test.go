package pgstore

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/journal"
)

// The benchmarks compare pgstore with raw pgx on the same schema and the
// same durability (fsync and synchronous_commit on): every fact counted is
// committed. Facts go to 16 streams round-robin; payloads are ~200 bytes, as
// in the reference measurements. Each reports facts/s.

const benchStreams = 16

// benchOpts configures the benchmarked store: the defaults, or
// PGSTORE_BENCH_COMMITTERS transactions in flight to compare settings.
var benchOpts = func() []Option {
	if n, err := strconv.Atoi(os.Getenv("PGSTORE_BENCH_COMMITTERS")); err == nil {
		return []Option{WithCommitters(n)}
	}
	return nil
}()

var benchPayload = []byte(`{"type":"job.settled","v":1,"data":{"job":"0193c0de-7a2b-7cc1-9f43-3b1a5e2d9f10","owner":"session-42","status":"succeeded","cause":"exited","at":1733011200000,"producer_reported":true,"detail":"exit 0 after 12 ms"}}`)

// benchSetup opens a store in a fresh schema with its 16 streams created.
func benchSetup(b *testing.B, opts ...Option) *Store {
	s := openTest(b, opts...)
	ctx := context.Background()
	for i := range benchStreams {
		if _, err := s.Append(ctx, journal.Stream("s"+strconv.Itoa(i)), journal.Entry{Payload: benchPayload}); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// rawInsert is the best a hand-written client does in one round trip: a
// single autocommit statement that raises the counters of the streams
// involved and inserts the facts with seqs from them.
const rawInsert = `WITH n AS (SELECT s, count(*) AS n FROM unnest($1::text[]) AS s GROUP BY s),
up AS (UPDATE %[1]s.stream AS st SET head = st.head + n.n FROM n WHERE st.name = n.s RETURNING st.name, st.head - n.n AS base)
INSERT INTO %[1]s.fact (stream, seq, payload)
SELECT u.s, up.base + row_number() OVER (PARTITION BY u.s ORDER BY u.ord), u.p::json
FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(s, p, ord) JOIN up ON up.name = u.s
ORDER BY u.ord`

// BenchmarkRaw runs one writer committing transactions of 1, 16 or 128 facts
// with raw pgx: the baselines.
func BenchmarkRaw(b *testing.B) {
	for _, perTx := range []int{1, 16, 128} {
		b.Run(fmt.Sprintf("facts_per_tx=%d", perTx), func(b *testing.B) {
			s := benchSetup(b)
			ctx := context.Background()
			sql := fmt.Sprintf(rawInsert, s.sql.schema)
			streams := make([]string, perTx)
			payloads := make([]string, perTx)
			for i := range perTx {
				streams[i] = "s" + strconv.Itoa(i%benchStreams)
				payloads[i] = string(benchPayload)
			}
			b.ResetTimer()
			start := time.Now()
			facts := 0
			for facts < b.N {
				n := min(perTx, b.N-facts)
				if _, err := s.Pool().Exec(ctx, sql, streams[:n], payloads[:n]); err != nil {
					b.Fatal(err)
				}
				facts += n
			}
			b.ReportMetric(float64(facts)/time.Since(start).Seconds(), "facts/s")
			b.StopTimer()
			checkBenchStreams(b, s)
		})
	}
}

// BenchmarkAppendFlush runs 1, 16 or 128 committers, each appending one fact
// and flushing, in a loop: every fact is durable when its Flush returns.
func BenchmarkAppendFlush(b *testing.B) {
	for _, committers := range []int{1, 16, 128} {
		b.Run(fmt.Sprintf("committers=%d", committers), func(b *testing.B) {
			s := benchSetup(b, benchOpts...)
			ctx := context.Background()
			var left atomic.Int64
			left.Store(int64(b.N))
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for c := range committers {
				wg.Go(func() {
					stream := journal.Stream("s" + strconv.Itoa(c%benchStreams))
					for left.Add(-1) >= 0 {
						if _, err := s.Append(ctx, stream, journal.Entry{Payload: benchPayload}); err != nil {
							b.Error(err)
							return
						}
						if err := s.Flush(ctx); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "facts/s")
			b.StopTimer()
			checkBenchStreams(b, s)
		})
	}
}

// BenchmarkTailLatency measures from the return of a committed Append to the
// delivery of its record by a tail on another store (its own LISTEN
// connection), with 1 or 16 writers appending.
func BenchmarkTailLatency(b *testing.B) {
	for _, writers := range []int{1, 16} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			w := benchSetup(b)
			r := openSchema(b, w.Schema())
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var after journal.Position
			for rec, err := range r.ReadAll(ctx, journal.Position{}) {
				if err != nil {
					b.Fatal(err)
				}
				after = rec.Pos
			}
			var committed sync.Map // payload -> time Append returned
			lat := make([]time.Duration, 0, b.N)
			delivered := make(chan struct{})
			go func() {
				defer close(delivered)
				for rec, err := range r.Tail(ctx, after) {
					if err != nil {
						b.Error(err)
						return
					}
					now := time.Now()
					var at any
					for {
						var ok bool
						if at, ok = committed.Load(string(rec.Payload)); ok {
							break
						}
						time.Sleep(10 * time.Microsecond) // Append has not returned yet
					}
					lat = append(lat, now.Sub(at.(time.Time)))
					if len(lat) == b.N {
						return
					}
				}
			}()
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for g := range writers {
				wg.Go(func() {
					stream := journal.Stream("s" + strconv.Itoa(g%benchStreams))
					for {
						i := next.Add(1)
						if i > int64(b.N) {
							return
						}
						p := fmt.Appendf(nil, `{"i":%d}`, i)
						if _, err := w.Append(ctx, stream, journal.Entry{Payload: p}); err != nil {
							b.Error(err)
							return
						}
						committed.Store(string(p), time.Now())
					}
				})
			}
			wg.Wait()
			select {
			case <-delivered:
			case <-time.After(30 * time.Second):
				b.Fatalf("tail delivered %d of %d", len(lat), b.N)
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// checkBenchStreams fails b unless every stream is gap-free (a benchmark
// that lost or doubled facts measured nothing) and reports how many facts a
// transaction carried.
func checkBenchStreams(b *testing.B, s *Store) {
	ctx := context.Background()
	var bad int
	err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM (SELECT stream FROM `+s.sql.table("fact")+
		` GROUP BY stream HAVING max(seq) <> count(*)) g`).Scan(&bad)
	if err != nil || bad != 0 {
		b.Fatalf("%d streams with gaps (%v)", bad, err)
	}
	var perTx float64
	if err := s.Pool().QueryRow(ctx, `SELECT count(*)::float8 / count(DISTINCT xid) FROM `+s.sql.table("fact")).Scan(&perTx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(perTx, "facts/tx")
}
