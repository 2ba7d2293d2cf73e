package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
)

// isPostgres reports whether a journal argument is a PostgreSQL DSN rather
// than a file.
func isPostgres(arg string) bool {
	return strings.HasPrefix(arg, "postgres://") || strings.HasPrefix(arg, "postgresql://")
}

// pgJournal runs the journal command name on the PostgreSQL journal dsn
// names. The DSN's schema parameter picks the journal's schema (default
// jobgen_journal); the store is opened without migrating, so reading never
// changes the database.
func pgJournal(ctx context.Context, name, dsn string, asJSON bool, stdout io.Writer) error {
	u, err := url.Parse(dsn)
	if err != nil {
		return fmt.Errorf("journal DSN: %w", err)
	}
	q := u.Query()
	schema := q.Get("schema")
	if schema == "" {
		schema = pgstore.DefaultSchema
	}
	q.Del("schema")
	u.RawQuery = q.Encode()
	store, err := pgstore.Open(ctx, u.String(), pgstore.WithSchema(schema), pgstore.WithoutMigrating())
	if err != nil {
		return err
	}
	defer store.Close(ctx)
	switch name {
	case "cat":
		return journal.Cat(stdout, store.ReadAll(ctx, journal.Position{}))
	case "intervals":
		return jobhistory.WriteIntervals(stdout, journal.Facts(store.ReadAll(ctx, journal.Position{}), jobs.DecodeFact), asJSON)
	case "check":
		sum, err := store.Check(ctx)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "postgres journal %s: intact: %s in %s\n", schema,
			plural(sum.Records, "record"), plural(sum.Streams, "stream"))
		return err
	case "repair":
		return fmt.Errorf("journal repair: a PostgreSQL journal has no torn tail to cut; its rows are immutable and its commits atomic")
	}
	return fmt.Errorf("journal %s: not a command", name)
}
