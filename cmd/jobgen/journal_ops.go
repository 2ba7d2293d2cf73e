package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/retention"
)

// The operator's commands of a PostgreSQL journal: migrate, status and
// archive. They take a DSN (the schema in its schema parameter), never a
// file; see the pgstore package doc's Schema.

// journalOps holds the flags of the operator's commands.
type journalOps struct {
	dryRun       bool      // migrate --dry-run, archive --dry-run
	before       time.Time // archive --before
	to           string    // archive --to
	allowUnknown bool      // archive --allow-unknown
}

// migrateFlags registers migrate's flags.
func migrateFlags(fs *flag.FlagSet, j *journalRun) {
	fs.BoolVar(&j.ops.dryRun, "dry-run", false, "print the SQL of the pending steps, as one script, and change nothing")
}

// statusFlags registers status's flags.
func statusFlags(fs *flag.FlagSet, j *journalRun) {
	fs.BoolVar(&j.asJSON, "json", false, "print the status as one JSON object")
}

// withPool connects to the PostgreSQL journal j names and runs do with the
// pool and the schema; a file is a usage error.
func (j *journalRun) withPool(cmd string, do func(ctx context.Context, pool *pgxpool.Pool, schema string) (int, error)) int {
	if !isDSN(j.path) {
		return j.fail(usageError{fmt.Errorf("journal %s: %s is not a postgres:// DSN: only a PostgreSQL journal has a schema to %s", cmd, j.path, cmd)})
	}
	dsn, schema, err := splitDSN(j.path)
	if err != nil {
		return j.fail(usageError{err})
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return j.fail(fmt.Errorf("journal %s: connect: %w", cmd, err))
	}
	defer pool.Close()
	code, err := do(ctx, pool, schema)
	if err != nil {
		return j.fail(err)
	}
	return code
}

// journalMigrate applies the pending migrations, or prints them.
func journalMigrate(j *journalRun) int {
	return j.withPool("migrate", func(ctx context.Context, pool *pgxpool.Pool, schema string) (int, error) {
		current, pending, err := pgstore.Pending(ctx, pool, schema)
		if err != nil {
			return 0, err
		}
		name := "postgres journal " + schema
		if j.ops.dryRun {
			fmt.Fprintf(j.stderr, "%s: at version %d, this build writes %d: %s pending\n", name, current, pgstore.SchemaVersion(), plural(len(pending), "step"))
			if len(pending) > 0 {
				fmt.Fprint(j.stdout, pgstore.Script(schema, pending))
			}
			return exitOK, nil
		}
		applied, err := pgstore.Migrate(ctx, pool, schema)
		if err != nil {
			return 0, err
		}
		if len(applied) == 0 {
			fmt.Fprintf(j.stdout, "%s: at version %d, nothing to migrate\n", name, pgstore.SchemaVersion())
			return exitOK, nil
		}
		steps := make([]string, len(applied))
		for i, m := range applied {
			steps[i] = fmt.Sprintf("%04d_%s", m.Version, m.Name)
		}
		fmt.Fprintf(j.stdout, "%s: migrated from version %d to %d: %s\n", name, applied[0].Version-1, applied[len(applied)-1].Version, strings.Join(steps, ", "))
		return exitOK, nil
	})
}

// A statusLine is journal status --json's object.
type statusLine struct {
	Schema       string `json:"schema"`
	Version      int    `json:"version"`
	BuildVersion int    `json:"buildVersion"`
	Streams      int64  `json:"streams"`
	Records      int64  `json:"records"`
	// ArchivedStreams and ArchivedRecords count what retention moved out.
	ArchivedStreams int64  `json:"archivedStreams"`
	ArchivedRecords int64  `json:"archivedRecords"`
	Oldest          string `json:"oldest,omitempty"`
	Newest          string `json:"newest,omitempty"`
	OldestAt        string `json:"oldestAt,omitempty"`
	NewestAt        string `json:"newestAt,omitempty"`
	Bytes           int64  `json:"bytes"`
}

// journalStatus prints what pgstore.Inspect reads of the schema.
func journalStatus(j *journalRun) int {
	return j.withPool("status", func(ctx context.Context, pool *pgxpool.Pool, schema string) (int, error) {
		st, err := pgstore.Inspect(ctx, pool, schema)
		if err != nil {
			return 0, err
		}
		if st.Version == 0 {
			return 0, noJournalError{fmt.Errorf("postgres journal %s: no journal in this schema (jobgen journal migrate creates it)", schema)}
		}
		line := statusLine{Schema: st.Schema, Version: st.Version, BuildVersion: st.BuildVersion,
			Streams: st.Streams, Records: st.Records, Bytes: st.Bytes,
			ArchivedStreams: st.ArchivedStreams, ArchivedRecords: st.ArchivedRecords}
		if st.Records > 0 {
			line.Oldest, line.Newest = st.Oldest.String(), st.Newest.String()
			line.OldestAt, line.NewestAt = st.OldestAt.UTC().Format(time.RFC3339Nano), st.NewestAt.UTC().Format(time.RFC3339Nano)
		}
		if j.asJSON {
			return exitOK, json.NewEncoder(j.stdout).Encode(line)
		}
		printStatus(j, line)
		return exitOK, nil
	})
}

// printStatus writes a status as aligned lines.
func printStatus(j *journalRun, st statusLine) {
	version := fmt.Sprint(st.Version)
	switch {
	case st.Version < st.BuildVersion:
		version += fmt.Sprintf(" (this build writes %d: run jobgen journal migrate)", st.BuildVersion)
	case st.Version == st.BuildVersion:
		version += " (current)"
	}
	rows := [][2]string{
		{"schema", st.Schema},
		{"version", version},
		{"streams", fmt.Sprint(st.Streams)},
		{"records", fmt.Sprint(st.Records)},
	}
	if st.ArchivedStreams > 0 {
		rows = append(rows, [2]string{"archived", fmt.Sprintf("%s of %s (jobgen journal archive)", plural(int(st.ArchivedRecords), "record"), plural(int(st.ArchivedStreams), "stream"))})
	}
	if st.Oldest != "" {
		rows = append(rows, [2]string{"oldest", st.Oldest + " at " + st.OldestAt}, [2]string{"newest", st.Newest + " at " + st.NewestAt})
	}
	rows = append(rows, [2]string{"size", byteSize(st.Bytes)})
	for _, r := range rows {
		fmt.Fprintf(j.stdout, "%-9s %s\n", r[0]+":", r[1])
	}
}

// byteSize writes n bytes in the largest binary unit that keeps it at
// least 1.
func byteSize(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n)/1024, 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %ciB (%d bytes)", f, units[i], n)
}

// archiveFlags registers archive's flags.
func archiveFlags(fs *flag.FlagSet, j *journalRun) {
	fs.Func("before", "archive streams whose last record is older than this: a time (2026-01-02 or RFC 3339) or an age (720h, 30d)", func(v string) error {
		t, err := parseCutoff(v, time.Now())
		j.ops.before = t
		return err
	})
	fs.StringVar(&j.ops.to, "to", "", "the journal file to archive into (created when missing; an existing one is appended to)")
	fs.BoolVar(&j.ops.dryRun, "dry-run", false, "print which streams would be archived and which kept, and why; change nothing")
	fs.BoolVar(&j.ops.allowUnknown, "allow-unknown", false, "archive streams holding facts of a vocabulary jobgen cannot judge, as if those said nothing")
}

// parseCutoff reads --before: a date, an RFC 3339 time, or an age before
// now (a Go duration, or a number of days with d).
func parseCutoff(v string, now time.Time) (time.Time, error) {
	if days, ok := strings.CutSuffix(v, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("want a time (2026-01-02, 2026-01-02T15:04:05Z) or an age (720h, 30d)")
}

// journalArchive moves the streams whose history is over, last appended
// before --before, into --to.
func journalArchive(j *journalRun) int {
	if j.ops.before.IsZero() || j.ops.to == "" {
		fmt.Fprintln(j.stderr, "jobgen journal archive: --before and --to are required")
		j.usage()
		return exitUsage
	}
	return j.withPool("archive", func(ctx context.Context, pool *pgxpool.Pool, schema string) (int, error) {
		store, err := pgstore.OpenPool(ctx, pool, pgstore.WithSchema(schema), pgstore.WithoutMigrate(),
			pgstore.WithLogger(slog.New(slog.NewTextHandler(j.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
		if err != nil {
			return 0, err
		}
		defer store.Close(ctx)
		plan, err := retention.Choose(ctx, store, retention.Options{Before: j.ops.before, AllowUnknown: j.ops.allowUnknown})
		if err != nil {
			return 0, err
		}
		name := "postgres journal " + schema
		fmt.Fprintf(j.stdout, "%s: %s last appended before %s: %s to archive (%s), %s kept\n", name, plural(len(plan.Archive)+len(plan.Kept), "stream"),
			j.ops.before.UTC().Format(time.RFC3339), plural(len(plan.Archive), "stream"), plural(int(plan.Records), "record"), plural(len(plan.Kept), "stream"))
		for _, st := range plan.Archive {
			fmt.Fprintf(j.stdout, "  archive %s through seq %d\n", st.Stream, st.Through)
		}
		for _, k := range plan.Kept {
			fmt.Fprintf(j.stdout, "  keep    %s: %s\n", k.Stream, k.Why)
		}
		if j.ops.dryRun || len(plan.Archive) == 0 {
			if j.ops.dryRun {
				fmt.Fprintln(j.stdout, "dry run: nothing archived")
			}
			return exitOK, nil
		}
		file, err := journal.Open(j.ops.to)
		if err != nil {
			return 0, err
		}
		moved, err := store.Archive(ctx, plan.Archive, file)
		if cerr := file.Close(ctx); err == nil {
			err = cerr
		}
		records := uint64(0)
		for _, a := range moved {
			records += a.Through - a.First + 1
		}
		fmt.Fprintf(j.stdout, "archived %s (%s) into %s\n", plural(len(moved), "stream"), plural(int(records), "record"), j.ops.to)
		for _, a := range moved {
			if a.Later > 0 {
				fmt.Fprintf(j.stdout, "  %s: %s appended since it was judged %s in the store\n", a.Stream, plural(int(a.Later), "record"), map[bool]string{true: "stays", false: "stay"}[a.Later == 1])
			}
		}
		if errors.Is(err, pgstore.ErrArchiveMismatch) {
			return exitFindings, err
		}
		return exitOK, err
	})
}
