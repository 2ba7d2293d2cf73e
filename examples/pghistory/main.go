// Command pghistory shows two processes sharing one job history in
// PostgreSQL: each runs a registry whose Recorder appends to the same
// journal/pgstore schema, while the parent tails the history live and then
// prints the execution intervals of both hosts' jobs, read back from the
// database by the Go projection and by the SQL of jobhistory/pgsql.
//
//	make demo-pg                      # starts a throwaway server, runs this
//	go run ./examples/pghistory DSN   # against a server of your own
//
// It works in a schema of its own and drops it at the end.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/demo"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhistory/pgsql"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/procjob"
	"github.com/jobgen/jobgen/registry"
)

func main() {
	if host := os.Getenv("PGHISTORY_HOST"); host != "" {
		if err := runHost(context.Background(), os.Getenv("PGHISTORY_DSN"), os.Getenv("PGHISTORY_SCHEMA"), host); err != nil {
			fmt.Fprintf(os.Stderr, "pghistory host %s: %v\n", host, err)
			os.Exit(1)
		}
		return
	}
	dsn := os.Getenv("JOBGEN_TEST_POSTGRES")
	if len(os.Args) > 1 {
		dsn = os.Args[1]
	}
	if dsn == "" {
		fmt.Fprintln(os.Stderr, "usage: pghistory DSN (or set JOBGEN_TEST_POSTGRES; `make demo-pg` starts a server)")
		os.Exit(2)
	}
	demo.Main("pghistory", func() error {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		return run(context.Background(), dsn, self, os.Stdout)
	})
}

// run starts two host processes (exe, as runHost) on a fresh schema, tails
// their shared history to out until both are done, and prints the intervals.
func run(ctx context.Context, dsn, exe string, out io.Writer) error {
	schema := fmt.Sprintf("pghistory_%d", os.Getpid())
	store, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema), pgstore.WithPollInterval(100*time.Millisecond))
	if err != nil {
		return err
	}
	defer func() {
		store.Pool().Exec(context.Background(), "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
		store.Close(context.Background())
	}()

	fmt.Fprintf(out, "== two hosts recording into schema %s; the tail sees both\n", schema)
	tailCtx, stopTail := context.WithCancel(ctx)
	tail := startTail(tailCtx, store, out)
	if err := runHosts(ctx, exe, dsn, schema); err != nil {
		stopTail()
		return err
	}
	// Stop the tail once it delivered everything the hosts committed.
	total, err := countRecords(ctx, store)
	if err != nil {
		stopTail()
		return err
	}
	for deadline := time.Now().Add(10 * time.Second); tail.seen.Load() < total && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	stopTail()
	if err := <-tail.done; err != nil {
		return err
	}
	return printIntervals(ctx, store, schema, out)
}

// A liveTail is the parent's tail of the shared history: how many records it
// has seen, and its outcome once it ends.
type liveTail struct {
	seen atomic.Int64
	done chan error
}

// startTail tails store from the start until ctx ends, printing each job's
// registration and settlement to out.
func startTail(ctx context.Context, store *pgstore.Store, out io.Writer) *liveTail {
	t := &liveTail{done: make(chan error, 1)}
	go func() {
		for rec, err := range store.Tail(ctx, journal.Position{}) {
			if err != nil {
				t.done <- err
				return
			}
			t.seen.Add(1)
			f, err := jobs.DecodeFact(rec.Payload)
			if err != nil {
				continue
			}
			switch f := f.(type) {
			case jobs.JobRegistered:
				fmt.Fprintf(out, "  %-8s seq %d  registered %s-%d %q\n", rec.Stream, rec.Seq, f.Kind, f.Ordinal, f.Label)
			case jobs.JobSettled:
				fmt.Fprintf(out, "  %-8s seq %d  settled    %s-%d %s\n", rec.Stream, rec.Seq, f.Registration.Kind, f.Registration.Ordinal, f.Status)
			}
		}
		t.done <- nil
	}()
	return t
}

// runHosts runs the two host processes side by side and waits for both.
func runHosts(ctx context.Context, exe, dsn, schema string) error {
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, host := range []string{"host-a", "host-b"} {
		wg.Go(func() {
			cmd := exec.CommandContext(ctx, exe)
			cmd.Env = append(os.Environ(), "PGHISTORY_HOST="+host, "PGHISTORY_DSN="+dsn, "PGHISTORY_SCHEMA="+schema)
			cmd.Stderr = os.Stderr
			errs[i] = cmd.Run()
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// countRecords returns how many records the store holds.
func countRecords(ctx context.Context, store *pgstore.Store) (int64, error) {
	var total int64
	for _, err := range store.ReadAll(ctx, journal.Position{}) {
		if err != nil {
			return 0, err
		}
		total++
	}
	return total, nil
}

// printIntervals prints the execution intervals of both hosts' jobs, by the
// Go projection, and how many the SQL of jobhistory/pgsql finds.
func printIntervals(ctx context.Context, store *pgstore.Store, schema string, out io.Writer) error {
	fmt.Fprintln(out, "\n== execution intervals of both hosts, from the shared history")
	if err := jobhistory.WriteIntervals(out, journal.Facts(store.ReadAll(ctx, journal.Position{}), jobs.DecodeFact)); err != nil {
		return err
	}
	ivs, err := pgsql.Intervals(ctx, store.Pool(), schema)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\n== the same in SQL (jobhistory/pgsql): %d intervals\n", len(ivs))
	return nil
}

// runHost is one host process: a registry recording to the shared journal,
// two shell jobs owned by the session named host, an orderly close.
func runHost(ctx context.Context, dsn, schema, host string) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema), pgstore.WithLogger(logger))
	if err != nil {
		return err
	}
	// The job facts' record ids let the recorder retry an append across a
	// server restart without storing a fact twice.
	rec := jobhistory.NewRecorder(store, journal.RetryLogger(logger))
	reg := registry.New(registry.WithRecorder(rec), registry.WithLogger(logger))
	owner := jobs.SessionID(host)
	var ids []jobs.JobID
	for _, job := range []struct{ label, script string }{
		{"build on " + host, "sleep 0.2; echo built"},
		{"test on " + host, "sleep 0.3; echo ok"},
	} {
		snap, err := reg.Start(ctx, procjob.Start(procjob.Options{
			Command: []string{"sh", "-c", job.script}, Kind: "sh", Label: job.label, Owner: owner, Poll: 50 * time.Millisecond,
		}))
		if err != nil {
			return err
		}
		ids = append(ids, snap.ID)
	}
	for _, id := range ids {
		if _, _, err := reg.Wait(ctx, owner, id, 10*time.Second); err != nil {
			return err
		}
	}
	// Registry first (it records the last settlements), then the journal;
	// the recorder's Flush fails if a fact was lost on the way.
	if err := reg.Close(ctx); err != nil {
		return err
	}
	if err := rec.Flush(ctx); err != nil {
		store.Close(ctx)
		return err
	}
	return store.Close(ctx)
}
