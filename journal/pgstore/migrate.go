package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobgen/jobgen/journal"
)

// ErrSchemaTooNew: the database holds a journal schema newer than this build
// knows; Open refuses it rather than write facts an older layout may misplace.
var ErrSchemaTooNew = errors.New("journal schema is newer than this build")

//go:embed migrations/*.sql
var migrationFiles embed.FS

// A migration is one forward step of the schema, NNNN_name.sql.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in version order; their versions
// are 1, 2, 3, … without gaps.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, rest, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(rest, ".sql") {
			return nil, fmt.Errorf("pgstore: migration file %q: want NNNN_name.sql", e.Name())
		}
		body, err := fs.ReadFile(migrationFiles, "migrations/"+e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: strings.TrimSuffix(rest, ".sql"), sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("pgstore: migration %04d_%s: want version %d", m.version, m.name, i+1)
		}
	}
	return ms, nil
}

// SchemaVersion is the version of the newest embedded migration: the schema
// this build writes.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// migrate brings schema up to the newest embedded migration in one
// transaction, under a transaction-scoped advisory lock keyed by the schema's
// name, so that concurrent Opens apply each step once and see it whole. A
// schema whose version table names a version past the newest one is refused
// with ErrSchemaTooNew and left untouched.
func migrate(ctx context.Context, pool *pgxpool.Pool, schema string) (applied []int, err error) {
	ms, err := migrations()
	if err != nil {
		return nil, err
	}
	ident := pgx.Identifier{schema}.Sanitize()
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('jobgen.pgstore'), hashtext($1))`, schema); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+ident); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
		if _, err := tx.Exec(ctx, `SET LOCAL search_path TO `+ident); err != nil {
			return fmt.Errorf("search_path: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
			version    int PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return fmt.Errorf("version table: %w", err)
		}
		var current int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&current); err != nil {
			return fmt.Errorf("read version: %w", err)
		}
		if newest := len(ms); current > newest {
			return fmt.Errorf("schema version %d, this build knows up to %d: %w", current, newest, ErrSchemaTooNew)
		}
		for _, m := range ms[current:] {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %04d_%s: %w", m.version, m.name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_version (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
				return fmt.Errorf("migration %04d_%s: record version: %w", m.version, m.name, err)
			}
			applied = append(applied, m.version)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore %s: migrate: %w", schema, err)
	}
	return applied, nil
}

// checkVersion reports whether schema holds a journal at this build's
// version, changing nothing.
func checkVersion(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, pgx.Identifier{schema, "schema_version"}.Sanitize()).Scan(&exists); err != nil {
		return fmt.Errorf("pgstore %s: read version: %w", schema, err)
	}
	if !exists {
		return fmt.Errorf("pgstore %s: no journal in this schema: %w", schema, journal.ErrNotJournal)
	}
	var current int
	if err := pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+pgx.Identifier{schema, "schema_version"}.Sanitize()).Scan(&current); err != nil {
		return fmt.Errorf("pgstore %s: read version: %w", schema, err)
	}
	switch newest := SchemaVersion(); {
	case current > newest:
		return fmt.Errorf("pgstore %s: schema version %d, this build knows up to %d: %w", schema, current, newest, ErrSchemaTooNew)
	case current < newest:
		return fmt.Errorf("pgstore %s: schema version %d, this build reads %d: open it once without WithoutMigrating to migrate it", schema, current, newest)
	}
	return nil
}
