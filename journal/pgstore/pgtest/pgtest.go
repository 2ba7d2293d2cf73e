// Package pgtest is what the tests that need PostgreSQL share: the server
// they run against and a schema of each test's own. `make pg-up` starts a
// throwaway server and prints the JOBGEN_TEST_POSTGRES to export.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DSN returns the server the tests run against: JOBGEN_TEST_POSTGRES.
// Without it a test skips locally and fails under CI=true, where .ci/run
// starts a server.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("JOBGEN_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("JOBGEN_TEST_POSTGRES is not set under CI=true: .ci/run must start PostgreSQL (.ci/pg.sh start)")
		}
		t.Skip("no PostgreSQL: run `make pg-up` and export the JOBGEN_TEST_POSTGRES it prints")
	}
	return dsn
}

var nonIdent = regexp.MustCompile(`[^a-z0-9_]+`)

// Schema returns a schema name of t's own, made of its name and a random
// suffix, and drops the schema, if it was created, when t ends.
func Schema(t testing.TB) string {
	t.Helper()
	dsn := DSN(t)
	var b [4]byte
	rand.Read(b[:])
	name := nonIdent.ReplaceAllString(strings.ToLower(t.Name()), "_")
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	schema := "t_" + name + "_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return schema
}

// OlderTransaction opens a transaction on the test server and gives it a
// transaction id, so that it holds the cluster's snapshot horizon back — as
// another application's long transaction would — until the returned func
// commits it. It is rolled back when t ends, if still open.
func OlderTransaction(t testing.TB) (commit func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, DSN(t))
	if err != nil {
		t.Fatalf("older transaction: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatalf("older transaction: %v", err)
	}
	t.Cleanup(func() { tx.Rollback(context.Background()) })
	if _, err := tx.Exec(ctx, "SELECT pg_current_xact_id()"); err != nil {
		t.Fatalf("older transaction: %v", err)
	}
	return func() {
		t.Helper()
		if err := tx.Commit(ctx); err != nil {
			t.Fatalf("older transaction: commit: %v", err)
		}
	}
}
