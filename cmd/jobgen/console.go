package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/registry"
)

const consoleSummary = `Console serves the jobs console read-only over a journal that no runtime
serves any more, or serves elsewhere: a journal file, an archive file that
jobgen journal archive wrote (the same format), or a PostgreSQL history. It
shows every session's execution intervals (timeline, history search, each
job's facts as its intervals hold them) and the subagent tree, but no live
output and no kill: its registry is empty. A file is read from a copy, so
the file itself is never opened for writing, not even to repair a torn tail;
a PostgreSQL journal is opened without migrating. It prints the address it
serves on and serves until interrupted.`

// cmdConsole is jobgen console.
func cmdConsole(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("console", consoleSummary, stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: jobgen console [flags] FILE|postgres://DSN\n\n%s\n\nFlags:\n", consoleSummary)
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:0", "the loopback `address` to serve on (port 0 picks a free one)")
	flagArgs, rest := splitFiles(fs, args)
	if code, stop := parse(fs, flagArgs, stdout); stop {
		return code
	}
	if len(rest) != 1 {
		fmt.Fprintln(stderr, "jobgen console: name one journal: FILE or postgres://DSN")
		fs.Usage()
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := serveConsole(ctx, rest[0], *addr, stderr, func(url string) { fmt.Fprintf(stdout, "jobgen console: serving %s on %s\n", rest[0], url) })
	if err != nil {
		fmt.Fprintf(stderr, "jobgen console: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// consoleSession is the one session the console answers as: it reads
// every session's history, as the operator it serves is allowed to.
const consoleSession jobs.SessionID = "jobgen-console"

// serveConsole serves the console over the journal at path (a file or a
// DSN) on addr until ctx ends, calling ready with its URL once it listens
// (decision 0214).
func serveConsole(ctx context.Context, path, addr string, stderr io.Writer, ready func(url string)) error {
	store, closeStore, err := openConsoleStore(ctx, path, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	all := jobhttp.StoreAllHistory(store)
	reg := registry.New()
	defer reg.Close(context.Background())
	h, err := jobhttp.New(reg, func(*http.Request) (jobs.SessionID, error) { return consoleSession, nil },
		// The timeline shows every session's intervals: the console has no
		// session of its own to fence them by.
		jobhttp.WithHistory(func(ctx context.Context, _ jobs.SessionID) (wire.History, error) {
			ivs, err := all(ctx)
			return wire.History{Intervals: ivs}, err
		}),
		jobhttp.WithAllHistory(all),
		jobhttp.WithJobFacts(jobhttp.StoreAllJobFacts(store)),
		jobhttp.WithOperator(func(jobs.SessionID) bool { return true }),
		jobhttp.WithSubagents(jobhttp.NewJournalSubagents(store, nil)),
		jobhttp.WithLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))),
	)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Close(shut)
		srv.Shutdown(shut)
	}()
	ready("http://" + ln.Addr().String() + "/")
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// openConsoleStore opens the journal the console reads: a PostgreSQL
// journal without migrating, or a copy of a file, opened as a store in a
// directory of its own that closing removes.
func openConsoleStore(ctx context.Context, path string, stderr io.Writer) (journal.Store, func(), error) {
	if isDSN(path) {
		dsn, schema, err := splitDSN(path)
		if err != nil {
			return nil, nil, err
		}
		s, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema), pgstore.WithoutMigrate(),
			pgstore.WithLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
		if errors.Is(err, journal.ErrNotJournal) {
			return nil, nil, noJournalError{err}
		}
		if err != nil {
			return nil, nil, err
		}
		return s, func() { s.Close(context.Background()) }, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, noJournalError{err}
	}
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "jobgen-console-")
	if err != nil {
		return nil, nil, err
	}
	cp := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(cp, data, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	s, err := journal.Open(cp, journal.WithLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, func() { s.Close(context.Background()); os.RemoveAll(dir) }, nil
}
