package pgstore

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// A privateServer is a PostgreSQL cluster of one test's own, run by .ci/pg.sh,
// which the test may SIGKILL without disturbing the others.
type privateServer struct {
	t      *testing.T
	script string
	env    []string
	dsn    string
}

var exportLine = regexp.MustCompile(`export JOBGEN_TEST_POSTGRES='([^']+)'`)

func startPrivateServer(t *testing.T) *privateServer {
	t.Helper()
	pgtest.DSN(t) // the same gate as every server test: skip locally, fail under CI
	script, err := filepath.Abs("../../.ci/pg.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "jobgen-crash-pg-")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ps := &privateServer{t: t, script: script, env: append(os.Environ(), "JOBGEN_PG_DIR="+dir, "JOBGEN_PG_PORT="+strconv.Itoa(port))}
	t.Cleanup(func() {
		ps.run("stop")
		os.RemoveAll(dir)
	})
	out := ps.run("start")
	m := exportLine.FindSubmatch(out)
	if m == nil {
		t.Fatalf("pg.sh start printed no DSN: %s", out)
	}
	ps.dsn = string(m[1])
	return ps
}

func (ps *privateServer) run(cmd string) []byte {
	ps.t.Helper()
	c := exec.Command(ps.script, cmd)
	c.Env = ps.env
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		ps.t.Fatalf("pg.sh %s: %v\n%s%s", cmd, err, out, stderr.Bytes())
	}
	return out
}

func TestServerKilledMidAppendLosesNothingAcknowledgedAndDoublesNothing(t *testing.T) {
	t0 := time.Now()
	srv := startPrivateServer(t)
	t.Logf("server up in %v", time.Since(t0))
	ctx := context.Background()
	s, err := Open(ctx, srv.dsn, WithSchema("crash"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)

	// Writers 0-5 append with ids and retry a failed append until it
	// succeeds; writers 6-7 append without ids and never retry.
	const writers, withIDs = 8, 6
	var stop atomic.Bool
	acked := make([][]string, writers)  // payload tags whose Append and Flush returned nil
	failed := make([][]string, writers) // tags of id-less appends that failed
	var failures atomic.Int64
	var mu sync.Mutex // guards acked and failed
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			stream := journal.Stream(fmt.Sprintf("w%d", w))
			for i := 0; !stop.Load(); i++ {
				tag := fmt.Sprintf("w%d-%d", w, i)
				e := journal.Entry{Payload: fact("%s", tag)}
				if w < withIDs {
					e.ID = tag
				}
				for {
					_, err := s.Append(ctx, stream, e)
					if err == nil {
						err = s.Flush(ctx)
					}
					if err == nil {
						mu.Lock()
						acked[w] = append(acked[w], tag)
						mu.Unlock()
						break
					}
					failures.Add(1)
					time.Sleep(20 * time.Millisecond)
					if w >= withIDs {
						mu.Lock()
						failed[w] = append(failed[w], tag)
						mu.Unlock()
						break
					}
				}
			}
		})
	}
	time.Sleep(400 * time.Millisecond)
	srv.run("kill")
	killedAt := time.Now()
	time.Sleep(300 * time.Millisecond)
	srv.run("start") // crash recovery from the WAL
	t.Logf("server down %v", time.Since(killedAt).Round(time.Millisecond))
	// Keep writing until every writer has been acknowledged since the restart.
	before := make([]int, writers)
	mu.Lock()
	for w := range writers {
		before[w] = len(acked[w])
	}
	mu.Unlock()
	time.Sleep(500 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	t.Logf("writers done at %v", time.Since(t0))
	if failures.Load() == 0 {
		t.Fatal("no append failed: the kill did not land during the loop")
	}
	if err := s.Close(ctx); err != nil {
		t.Logf("Close after the crash: %v", err)
	}

	r, err := Open(ctx, srv.dsn, WithSchema("crash"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	total := 0
	for w := range writers {
		stream := journal.Stream(fmt.Sprintf("w%d", w))
		recs := readGapFree(t, r, stream)
		count := map[string]int{}
		for _, rec := range recs {
			count[string(rec.Payload)]++
		}
		for p, n := range count {
			if n > 1 {
				t.Errorf("stream %s: %s stored %d times", stream, p, n)
			}
		}
		for _, tag := range acked[w] {
			if count[string(fact("%s", tag))] != 1 {
				t.Errorf("stream %s: acknowledged %s is missing", stream, tag)
			}
		}
		if w < withIDs && len(recs) != len(acked[w]) {
			t.Errorf("stream %s: %d records, %d acknowledged (every failure was retried with its id)", stream, len(recs), len(acked[w]))
		}
		if len(acked[w]) <= before[w] {
			t.Errorf("writer %d was not acknowledged again after the restart", w)
		}
		total += len(recs)
	}
	t.Logf("checked at %v", time.Since(t0))
	t.Logf("%d records, %d failed attempts across the crash", total, failures.Load())
}
