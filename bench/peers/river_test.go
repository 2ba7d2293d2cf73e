package peers

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// settledArgs is a River job carrying what a settled fact carries.
type settledArgs struct {
	JobID            string `json:"jobId"`
	At               int64  `json:"at"`
	Status           string `json:"status"`
	Detail           string `json:"detail"`
	ProducerReported bool   `json:"producerReported"`
	Owner            string `json:"owner"`
	Label            string `json:"label"`
}

func (settledArgs) Kind() string { return "job_settled" }

var riverArgs = settledArgs{JobID: "80cb9440-910a-5db0-925a-ad9575514f6f", At: 1700000001501, Status: "completed",
	Detail: "exit status 0", ProducerReported: true, Owner: "session-a", Label: "job number 1"}

// BenchmarkRiver pits journal/pgstore against River, the PostgreSQL job
// queue a Go user would otherwise pick, on the same server, paired in
// alternating blocks (with JOBGEN_TEST_POSTGRES):
//
//   - insert: one committer, pgstore's Append and Flush against River's
//     Insert, each committed before the next;
//   - insert-many: 128 committers through pgstore against one client
//     calling River's InsertMany with 128 jobs at a time.
//
// speedup is River's time over pgstore's, pgstore's relative throughput.
func BenchmarkRiver(b *testing.B) {
	ctx := context.Background()
	dsn := pgtest.DSN(b)
	store, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(pgtest.Schema(b)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close(context.Background()) })
	client := riverClient(b, dsn)
	p := benchPayload(b)
	appendFlush := func(n, k int) {
		var left atomic.Int64
		left.Store(int64(k))
		var wg sync.WaitGroup
		for c := range min(n, k) {
			wg.Go(func() {
				stream := journal.Stream("s" + strconv.Itoa(c%16))
				for left.Add(-1) >= 0 {
					if _, err := store.Append(ctx, stream, journal.Entry{Payload: p}); err != nil {
						b.Error(err)
						return
					}
					if err := store.Flush(ctx); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	b.Run("insert", func(b *testing.B) {
		took := paired(b, 64, func(k int) { appendFlush(1, k) }, func(k int) {
			for range k {
				if _, err := client.Insert(ctx, riverArgs, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		reportRiver(b, took)
	})
	b.Run("insert-many", func(b *testing.B) {
		const n = 128
		params := make([]river.InsertManyParams, n)
		for i := range params {
			params[i] = river.InsertManyParams{Args: riverArgs}
		}
		took := paired(b, 8*n, func(k int) { appendFlush(n, k) }, func(k int) {
			for done := 0; done < k; done += n {
				if _, err := client.InsertMany(ctx, params[:min(n, k-done)]); err != nil {
					b.Fatal(err)
				}
			}
		})
		reportRiver(b, took)
	})
}

func reportRiver(b *testing.B, took []time.Duration) {
	perOp(b, took[0], "pgstore-ns/fact")
	perOp(b, took[1], "river-ns/fact")
	b.ReportMetric(float64(took[1])/float64(took[0]), "speedup")
}

// riverClient migrates River's tables into a schema of the benchmark's own
// and returns an insert-only client on it.
func riverClient(b *testing.B, dsn string) *river.Client[pgx.Tx] {
	ctx := context.Background()
	schema := pgtest.Schema(b)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		b.Fatal(err)
	}
	driver := riverpgxv5.New(pool)
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Schema: schema})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		b.Fatal(err)
	}
	client, err := river.NewClient(driver, &river.Config{Schema: schema})
	if err != nil {
		b.Fatal(err)
	}
	return client
}
