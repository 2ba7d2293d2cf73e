package main

import (
	"context"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/url"
	"strings"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
)

// isPostgres reports whether a journal argument is a PostgreSQL DSN rather
// than a file.
func isPostgres(arg string) bool {
	return strings.HasPrefix(arg, "postgres://") || strings.HasPrefix(arg, "postgresql://")
}

// pgSource opens the PostgreSQL journal dsn names for the journal commands.
// The DSN's schema parameter picks the journal's schema (default
// jobgen_journal); the store is opened without migrating, so reading never
// changes the database. The store's warnings (a read that could not wait for
// an older transaction to end, so it lacks the newest commits) go to stderr.
func pgSource(ctx context.Context, dsn string, stderr io.Writer) (journalSource, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return journalSource{}, fmt.Errorf("journal DSN: %w", err)
	}
	q := u.Query()
	schema := q.Get("schema")
	if schema == "" {
		schema = pgstore.DefaultSchema
	}
	q.Del("schema")
	u.RawQuery = q.Encode()
	store, err := pgstore.Open(ctx, u.String(), pgstore.WithSchema(schema), pgstore.WithoutMigrating(),
		pgstore.WithLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	if err != nil {
		return journalSource{}, err
	}
	return journalSource{
		name:    "postgres journal " + schema,
		records: func() iter.Seq2[journal.Record, error] { return store.ReadAll(ctx, journal.Position{}) },
		check: func() (string, error) {
			sum, err := store.Check(ctx)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("postgres journal %s: intact: %s in %s", schema,
				plural(sum.Records, "record"), plural(sum.Streams, "stream")), nil
		},
		close: func() { store.Close(ctx) },
	}, nil
}
