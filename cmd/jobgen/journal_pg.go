package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
)

// A pgJournal is a PostgreSQL journal (journal/pgstore), opened without
// migrating, so reading never changes the database.
type pgJournal struct {
	ctx    context.Context
	schema string
	store  *pgstore.Store
}

// openPGJournal opens the PostgreSQL journal dsn names. The DSN's schema
// parameter picks the journal's schema (default jobgen_journal). A schema
// without a journal is no journal (noJournalError). The store's warnings (a
// read that could not wait for an older transaction to end, so it lacks the
// newest commits) go to stderr.
func openPGJournal(ctx context.Context, dsn string, stderr io.Writer) (journalStore, error) {
	dsn, schema, err := splitDSN(dsn)
	if err != nil {
		return nil, err
	}
	store, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema), pgstore.WithoutMigrate(),
		pgstore.WithLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	if errors.Is(err, journal.ErrNotJournal) {
		return nil, noJournalError{err}
	}
	if err != nil {
		return nil, err
	}
	return &pgJournal{ctx, schema, store}, nil
}

// splitDSN takes the schema parameter out of a journal DSN: the DSN to
// connect with, and the journal's schema (default jobgen_journal).
func splitDSN(dsn string) (conn, schema string, err error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", "", fmt.Errorf("journal DSN: %w", err)
	}
	q := u.Query()
	schema = q.Get("schema")
	if schema == "" {
		schema = pgstore.DefaultSchema
	}
	q.Del("schema")
	u.RawQuery = q.Encode()
	return u.String(), schema, nil
}

// isDSN reports whether a journal argument names a PostgreSQL journal.
func isDSN(arg string) bool {
	return strings.HasPrefix(arg, "postgres://") || strings.HasPrefix(arg, "postgresql://")
}

func (p *pgJournal) name() string { return "postgres journal " + p.schema }

func (p *pgJournal) records() iter.Seq2[journal.Record, error] {
	return p.store.ReadAll(p.ctx, journal.Position{})
}

func (p *pgJournal) jobFacts(decode func([]byte) (jobs.Fact, error)) iter.Seq2[jobs.Fact, error] {
	return journal.Facts(p.records(), decode)
}

func (p *pgJournal) read(ctx context.Context, after journal.Position, follow bool, _ time.Duration) iter.Seq2[journal.Record, error] {
	if follow {
		return p.store.Tail(ctx, after)
	}
	return p.store.ReadAll(ctx, after)
}

func (p *pgJournal) check() (string, error) {
	sum, err := p.store.Check(p.ctx)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("postgres journal %s: intact: %s in %s", p.schema,
		plural(sum.Records, "record"), plural(sum.Streams, "stream")), nil
}

func (p *pgJournal) truncateAt(int64) (string, error) {
	return "", usageError{errors.New("journal repair: a PostgreSQL journal has no torn tail to cut; its rows are immutable and its commits atomic")}
}

func (p *pgJournal) close() { p.store.Close(p.ctx) }
