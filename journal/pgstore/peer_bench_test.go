package pgstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// The peer benchmarks pit the store against what a hand-written
// pgx client does on the same server, paired in alternating blocks in one
// run, through the store's public API only:
//
//	go test ./journal/pgstore -run '^$' -bench Peer
//
// Facts go to 16 streams round-robin; every fact counted is committed with
// synchronous_commit on. The peers write a table of the fact table's shape
// (stream, seq, payload json) in the same schema, numbering seqs themselves,
// as a client that owns its streams can.

var peerPayload = []byte(`{"type":"job/settled","v":2,"data":{"jobId":"80cb9440-910a-5db0-925a-ad9575514f6f","at":1700000001501,"status":"completed","detail":"exit status 0","producerReported":true,"registration":{"registeredAt":1700000000001,"owner":"session-a","kind":"bash","label":"job number 1","ordinal":1,"record":false}}}`)

const peerStreams = 16

// peerSetup opens a store in a fresh schema and creates the peers' table
// there, returning the store, a pool on the server and the table's name.
func peerSetup(b *testing.B) (*Store, *pgxpool.Pool, string) {
	ctx := context.Background()
	schema := pgtest.Schema(b)
	s, err := Open(ctx, pgtest.DSN(b), WithSchema(schema))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(context.Background()) })
	pool, err := pgxpool.New(ctx, pgtest.DSN(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	table := pgx.Identifier{schema, "peer_fact"}.Sanitize()
	if _, err := pool.Exec(ctx, `CREATE TABLE `+table+` (stream text NOT NULL, seq bigint NOT NULL,
		pos bigint GENERATED ALWAYS AS IDENTITY, payload json NOT NULL, PRIMARY KEY (stream, seq))`); err != nil {
		b.Fatal(err)
	}
	return s, pool, table
}

// peerSeqs numbers the peers' facts per stream, as a client that owns its
// streams does.
type peerSeqs struct {
	mu   sync.Mutex
	next [peerStreams]int64
	n    int
}

// take returns the stream and seq of the next fact.
func (p *peerSeqs) take() (string, int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := p.n % peerStreams
	p.n++
	p.next[i]++
	return "s" + strconv.Itoa(i), p.next[i]
}

// pairedPeer runs b.N facts through each side in alternating blocks and
// returns the time each took.
func pairedPeer(b *testing.B, block int, store, peer func(k int)) (tStore, tPeer time.Duration) {
	for done, turn := 0, 0; done < b.N; done, turn = done+block, turn+1 {
		k := min(block, b.N-done)
		for side := range 2 {
			start := time.Now()
			if (turn+side)%2 == 0 {
				store(k)
				tStore += time.Since(start)
			} else {
				peer(k)
				tPeer += time.Since(start)
			}
		}
	}
	return tStore, tPeer
}

// storeCommitters runs k facts through the store by n committers, each
// appending one fact and flushing.
func storeCommitters(b *testing.B, s *Store, n, k int) {
	ctx := context.Background()
	var left atomic.Int64
	left.Store(int64(k))
	var wg sync.WaitGroup
	for c := range min(n, k) {
		wg.Go(func() {
			stream := journal.Stream("s" + strconv.Itoa(c%peerStreams))
			for left.Add(-1) >= 0 {
				if _, err := s.Append(ctx, stream, journal.Entry{Payload: peerPayload}); err != nil {
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
}

func reportPeer(b *testing.B, tStore, tPeer time.Duration, peer string) {
	b.ReportMetric(float64(tStore.Nanoseconds())/float64(b.N), "pgstore-ns/fact")
	b.ReportMetric(float64(tPeer.Nanoseconds())/float64(b.N), peer+"-ns/fact")
	b.ReportMetric(float64(tPeer)/float64(tStore), "speedup")
}

// BenchmarkPeerInsert: one committer, each fact committed before the next,
// through the store (Append, Flush) and as a plain autocommit INSERT (one
// round trip, no counter row). speedup is the peer's time over the store's,
// the store's relative throughput (the scoreboard's goal: >= 0.9).
func BenchmarkPeerInsert(b *testing.B) {
	s, pool, table := peerSetup(b)
	ctx := context.Background()
	var seqs peerSeqs
	sql := `INSERT INTO ` + table + ` (stream, seq, payload) VALUES ($1, $2, $3)`
	tStore, tPeer := pairedPeer(b, 64, func(k int) { storeCommitters(b, s, 1, k) }, func(k int) {
		for range k {
			stream, seq := seqs.take()
			if _, err := pool.Exec(ctx, sql, stream, seq, string(peerPayload)); err != nil {
				b.Fatal(err)
			}
		}
	})
	reportPeer(b, tStore, tPeer, "insert")
}

// BenchmarkPeerUnnest: 128 committers through the store against one client
// inserting 128 facts per statement with unnest, the batch it would have if
// 128 facts always arrived together (the scoreboard's goal: >= 0.8).
func BenchmarkPeerUnnest(b *testing.B) {
	const n = 128
	s, pool, table := peerSetup(b)
	ctx := context.Background()
	var seqs peerSeqs
	sql := `INSERT INTO ` + table + ` (stream, seq, payload) SELECT * FROM unnest($1::text[], $2::bigint[], $3::json[])`
	streams, nums, payloads := make([]string, n), make([]int64, n), make([]string, n)
	tStore, tPeer := pairedPeer(b, 8*n, func(k int) { storeCommitters(b, s, n, k) }, func(k int) {
		for done := 0; done < k; done += n {
			m := min(n, k-done)
			for i := range m {
				streams[i], nums[i] = seqs.take()
				payloads[i] = string(peerPayload)
			}
			if _, err := pool.Exec(ctx, sql, streams[:m], nums[:m], payloads[:m]); err != nil {
				b.Fatal(err)
			}
		}
	})
	reportPeer(b, tStore, tPeer, "unnest")
}

// BenchmarkPeerTail measures, for one writer, the time from a committed
// append's return to a tail on another connection delivering it: the
// store's Tail (its own LISTEN connection) against a peer that INSERTs and
// calls pg_notify in one statement and, on each notification, reads back
// what is new by pos. The metrics are each side's median and
// p50-ratio (the store's median over the peer's; the scoreboard's goal: <= 1.2).
func BenchmarkPeerTail(b *testing.B) {
	s, pool, table := peerSetup(b)
	r, err := Open(context.Background(), pgtest.DSN(b), WithSchema(s.Schema()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close(context.Background()) })
	storeLat := tailStore(b, s, r)
	peerLat := tailPeer(b, pool, table)
	b.ReportMetric(float64(storeLat.Microseconds()), "pgstore-p50-µs")
	b.ReportMetric(float64(peerLat.Microseconds()), "notify-p50-µs")
	b.ReportMetric(float64(storeLat)/float64(peerLat), "p50-ratio")
}

// tailStore appends b.N facts one at a time and returns the median time
// from Append's return to r's Tail yielding the fact.
func tailStore(b *testing.B, w, r *Store) time.Duration {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var after journal.Position
	for rec, err := range r.ReadAll(ctx, journal.Position{}) {
		if err != nil {
			b.Fatal(err)
		}
		after = rec.Pos
	}
	got := make(chan time.Time, 1)
	go func() {
		for _, err := range r.Tail(ctx, after) {
			if err != nil {
				return
			}
			got <- time.Now()
		}
	}()
	lat := make([]time.Duration, 0, b.N)
	for i := -1; i < b.N; i++ { // -1 warms the tail up and is not counted
		p := fmt.Appendf(nil, `{"i":%d}`, i)
		if _, err := w.Append(ctx, "tail", journal.Entry{Payload: p}); err != nil {
			b.Fatal(err)
		}
		committed := time.Now()
		select {
		case at := <-got:
			if i >= 0 {
				lat = append(lat, max(at.Sub(committed), 0))
			}
		case <-time.After(10 * time.Second):
			b.Fatalf("the tail did not deliver fact %d", i)
		}
	}
	return median(lat)
}

// tailPeer inserts b.N facts, each with pg_notify in its statement, and
// returns the median time from the statement's return to a listener
// reading the fact back after its notification.
func tailPeer(b *testing.B, pool *pgxpool.Pool, table string) time.Duration {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listen, err := pgx.Connect(ctx, pgtest.DSN(b))
	if err != nil {
		b.Fatal(err)
	}
	defer listen.Close(context.Background())
	channel := "peer_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if _, err := listen.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		b.Fatal(err)
	}
	got := make(chan time.Time, 1)
	go func() {
		var last int64
		for {
			if _, err := listen.WaitForNotification(ctx); err != nil {
				return
			}
			rows, err := listen.Query(ctx, `SELECT pos FROM `+table+` WHERE pos > $1 ORDER BY pos`, last)
			if err != nil {
				return
			}
			n := 0
			for rows.Next() {
				if err := rows.Scan(&last); err != nil {
					return
				}
				n++
			}
			rows.Close()
			for range n {
				got <- time.Now()
			}
		}
	}()
	sql := `WITH i AS (INSERT INTO ` + table + ` (stream, seq, payload) VALUES ('tail', $1, $2)) SELECT pg_notify($3, '')`
	lat := make([]time.Duration, 0, b.N)
	for i := -1; i < b.N; i++ { // -1 warms the listener up and is not counted
		if _, err := pool.Exec(ctx, sql, i+2, fmt.Sprintf(`{"i":%d}`, i), channel); err != nil {
			b.Fatal(err)
		}
		committed := time.Now()
		select {
		case at := <-got:
			if i >= 0 {
				lat = append(lat, max(at.Sub(committed), 0))
			}
		case <-time.After(10 * time.Second):
			b.Fatalf("the listener did not read fact %d back", i)
		}
	}
	return median(lat)
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}
