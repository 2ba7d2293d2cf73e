package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// TestMain runs a host process when run re-executes this test binary as one.
func TestMain(m *testing.M) {
	if host := os.Getenv("PGHISTORY_HOST"); host != "" {
		if err := runHost(context.Background(), os.Getenv("PGHISTORY_DSN"), os.Getenv("PGHISTORY_SCHEMA"), host); err != nil {
			fmt.Fprintf(os.Stderr, "host %s: %v\n", host, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestTwoProcessesShareOneHistory(t *testing.T) {
	dsn := pgtest.DSN(t)
	var out bytes.Buffer
	if err := run(context.Background(), dsn, os.Args[0], &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := out.String()
	for _, host := range []string{"host-a", "host-b"} {
		for _, want := range []string{host + "   seq 4  settled", "build on " + host, "test on " + host} {
			if !strings.Contains(got, want) {
				t.Errorf("output lacks %q:\n%s", want, got)
			}
		}
	}
	if strings.Count(got, "completed  producer") != 4 || !strings.Contains(got, "(jobhistory/pgsql): 4 intervals") {
		t.Errorf("want four completed intervals, in Go and in SQL:\n%s", got)
	}
}
