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

// ErrSchemaBehind: the database holds a journal schema older than this build
// writes (or none), and the store was opened WithoutMigrate, so Open left it
// as it is. Run `jobgen journal migrate DSN` (or Migrate) first.
var ErrSchemaBehind = errors.New("journal schema is behind this build")

//go:embed migrations/*.sql
var migrationFiles embed.FS

// A Migration is one forward step of the journal schema, embedded as
// migrations/NNNN_name.sql. It runs inside the migration transaction with
// search_path set to the store's schema.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations returns the embedded migrations in version order; their
// versions are 1, 2, 3, … without gaps.
func Migrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []Migration
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
		ms = append(ms, Migration{Version: v, Name: strings.TrimSuffix(rest, ".sql"), SQL: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("pgstore: migration %04d_%s: want version %d", m.Version, m.Name, i+1)
		}
	}
	return ms, nil
}

// SchemaVersion is the version of the newest embedded migration: the schema
// this build writes.
func SchemaVersion() int {
	ms, err := Migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
}

// Migrate brings the journal in schema up to this build's version, creating
// the schema when it is missing, and returns the migrations it applied (none
// when the schema was current). It is what Open does unless WithoutMigrate:
// every step in one transaction, under a transaction-scoped advisory lock
// keyed by the schema's name, so that concurrent migrators apply each step
// once and every reader sees the schema before or after, whole. A schema
// newer than this build is refused with ErrSchemaTooNew and left untouched.
// Script prints the same statements.
func Migrate(ctx context.Context, pool *pgxpool.Pool, schema string) (applied []Migration, err error) {
	ms, err := Migrations()
	if err != nil {
		return nil, err
	}
	return migrate(ctx, pool, schema, ms)
}

// migrate is Migrate by the migrations ms, versions 1 to len(ms): what a
// build that knows only those would do.
func migrate(ctx context.Context, pool *pgxpool.Pool, schema string, ms []Migration) (applied []Migration, err error) {
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for _, stmt := range prelude(schema) {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", firstLine(stmt), err)
			}
		}
		var current int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&current); err != nil {
			return fmt.Errorf("read version: %w", err)
		}
		if newest := len(ms); current > newest {
			return fmt.Errorf("schema version %d, this build knows up to %d: %w", current, newest, ErrSchemaTooNew)
		}
		for _, m := range ms[current:] {
			for _, stmt := range m.statements() {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
				}
			}
			applied = append(applied, m)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore %s: migrate: %w", schema, err)
	}
	return applied, nil
}

// prelude is what the migration transaction runs before it reads the
// schema's version: the lock, the schema, its search_path and the version
// table.
func prelude(schema string) []string {
	ident := pgx.Identifier{schema}.Sanitize()
	return []string{
		`SELECT pg_advisory_xact_lock(hashtext('jobgen.pgstore'), hashtext(` + quoteLiteral(schema) + `))`,
		`CREATE SCHEMA IF NOT EXISTS ` + ident,
		`SET LOCAL search_path TO ` + ident,
		versionTableSQL,
	}
}

// statements are what applying m runs: its SQL, and its row in the version
// table.
func (m Migration) statements() []string {
	return []string{m.SQL, fmt.Sprintf(`INSERT INTO schema_version (version, name) VALUES (%d, %s)`, m.Version, quoteLiteral(m.Name))}
}

// Script returns, as one SQL script, what Migrate runs to apply pending
// (from Pending) to schema: for an operator to read before migrating, or to
// run by hand.
func Script(schema string, pending []Migration) string {
	var b strings.Builder
	b.WriteString("BEGIN;\n")
	for _, stmt := range prelude(schema) {
		b.WriteString(strings.TrimSpace(stmt) + ";\n")
	}
	for _, m := range pending {
		fmt.Fprintf(&b, "\n-- migration %04d_%s\n", m.Version, m.Name)
		for _, stmt := range m.statements() {
			b.WriteString(strings.TrimRight(strings.TrimSpace(stmt), ";") + ";\n")
		}
	}
	b.WriteString("COMMIT;\n")
	return b.String()
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// firstLine is the first line of a statement, to name it in an error.
func firstLine(stmt string) string {
	line, _, _ := strings.Cut(stmt, "\n")
	return line
}

// versionTableSQL creates the table that records the applied migrations.
const versionTableSQL = `CREATE TABLE IF NOT EXISTS schema_version (
	version    int PRIMARY KEY,
	name       text NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now())`

// Pending returns the schema's version (0 when it holds no journal) and the
// migrations Migrate would apply to it, in order, changing nothing: what
// `jobgen journal migrate --dry-run` lists. A schema newer than this build
// is ErrSchemaTooNew.
func Pending(ctx context.Context, pool *pgxpool.Pool, schema string) (current int, pending []Migration, err error) {
	ms, err := Migrations()
	if err != nil {
		return 0, nil, err
	}
	current, err = readVersion(ctx, pool, schema)
	if err != nil {
		return 0, nil, err
	}
	if current > len(ms) {
		return current, nil, fmt.Errorf("pgstore %s: schema version %d, this build knows up to %d: %w", schema, current, len(ms), ErrSchemaTooNew)
	}
	return current, ms[current:], nil
}

// readVersion returns the version of the journal schema holds, 0 when it
// holds none (no version table), changing nothing.
func readVersion(ctx context.Context, pool *pgxpool.Pool, schema string) (int, error) {
	table := pgx.Identifier{schema, "schema_version"}.Sanitize()
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&exists); err != nil {
		return 0, fmt.Errorf("pgstore %s: read version: %w", schema, err)
	}
	if !exists {
		return 0, nil
	}
	var current int
	if err := pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+table).Scan(&current); err != nil {
		return 0, fmt.Errorf("pgstore %s: read version: %w", schema, err)
	}
	return current, nil
}

// checkVersion reports whether schema holds a journal at this build's
// version, changing nothing: ErrSchemaBehind (with journal.ErrNotJournal
// when there is no journal at all) or ErrSchemaTooNew otherwise.
func checkVersion(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	current, err := readVersion(ctx, pool, schema)
	if err != nil {
		return err
	}
	switch newest := SchemaVersion(); {
	case current == 0:
		return fmt.Errorf("pgstore %s: no journal in this schema (%w): create it with `jobgen journal migrate` or an Open without WithoutMigrate: %w",
			schema, journal.ErrNotJournal, ErrSchemaBehind)
	case current > newest:
		return fmt.Errorf("pgstore %s: schema version %d, this build knows up to %d: %w", schema, current, newest, ErrSchemaTooNew)
	case current < newest:
		return fmt.Errorf("pgstore %s: schema version %d, this build writes %d: migrate it with `jobgen journal migrate` (or pgstore.Migrate) before opening it WithoutMigrate: %w",
			schema, current, newest, ErrSchemaBehind)
	}
	return nil
}
