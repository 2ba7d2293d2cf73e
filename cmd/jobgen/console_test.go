package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/wire"
)

// startConsole serves the console over path and returns its URL; the test's
// end stops it.
func startConsole(t *testing.T, path string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	urls, done := make(chan string, 1), make(chan error, 1)
	var stderr bytes.Buffer
	go func() { done <- serveConsole(ctx, path, "127.0.0.1:0", &stderr, func(u string) { urls <- u }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("console: %v (%s)", err, &stderr)
		}
	})
	select {
	case u := <-urls:
		return u
	case err := <-done:
		t.Fatalf("console did not serve: %v (%s)", err, &stderr)
	}
	return ""
}

func getJSON[T any](t *testing.T, url string) T {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v T
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return v
}

func TestConsoleServesTheJobsOfAnArchiveFile(t *testing.T) {
	schema := writePGJournal(t) // s1 holds a settled job, s2 one still running
	dsn := schemaDSN(t, schema)
	file := filepath.Join(t.TempDir(), "archive.journal")
	if code, stdout, stderr := jobgen(t, "journal", "archive", "--before", "0s", "--to", file, dsn); code != exitOK || !strings.Contains(stdout, "archived 1 stream") {
		t.Fatalf("archive: exit %d:\n%s%s", code, stdout, stderr)
	}
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	url := startConsole(t, file)

	hist := getJSON[[]wire.Interval](t, url+"api/history")
	if len(hist) != 1 || hist[0].Label != "make test" || hist[0].Owner != "s1" || !hist[0].Complete {
		t.Fatalf("the console's history of the archive = %+v; want its one settled job", hist)
	}
	page := getJSON[wire.HistoryPage](t, url+"api/history/search?all=true")
	if page.Total != 1 || page.Intervals[0].JobID != hist[0].JobID {
		t.Fatalf("search of every session = %+v; want the archived job", page)
	}
	if roster := getJSON[[]json.RawMessage](t, url+"api/jobs"); len(roster) != 0 {
		t.Fatalf("the console's roster = %s; want none: it runs nothing", roster)
	}
	res, err := http.Get(url)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("the page: %v %v", res, err)
	}
	res.Body.Close()
	if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
		t.Fatal("the console changed the archive file; it must read a copy")
	}

	live := startConsole(t, dsn)
	if page := getJSON[wire.HistoryPage](t, live+"api/history/search?all=true"); page.Total != 1 || page.Intervals[0].Label != "sleep" {
		t.Fatalf("the console over the PostgreSQL history = %+v; want the job the archive left", page)
	}
}

func TestConsoleRefusesWhatNamesNoJournal(t *testing.T) {
	if code, _, stderr := jobgen(t, "console"); code != exitUsage || !strings.Contains(stderr, "name one journal") {
		t.Fatalf("console without a journal: exit %d: %s", code, stderr)
	}
	if code, _, stderr := jobgen(t, "console", filepath.Join(t.TempDir(), "none.journal")); code != exitFailure || !strings.Contains(stderr, "no such file") {
		t.Fatalf("console of a missing file: exit %d: %s", code, stderr)
	}
}
