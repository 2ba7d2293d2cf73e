package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// TestDemoServesTheSessionsJobsAndShutsDown runs the demo as `make demo-web`
// does, reads the roster and the page over HTTP, and stops it.
func TestDemoServesTheSessionsJobsAndShutsDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out strings.Builder
	done := make(chan error, 1)
	go func() { done <- run(ctx, ln, t.TempDir(), &out) }()
	base := "http://" + ln.Addr().String()

	var list []jobs.JobSnapshot
	deadline := time.Now().Add(10 * time.Second)
	for len(list) < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("roster never held the four demo jobs: %+v", list)
		}
		time.Sleep(20 * time.Millisecond)
		res, err := http.Get(base + "/api/jobs")
		if err != nil {
			continue
		}
		json.NewDecoder(res.Body).Decode(&list)
		res.Body.Close()
	}
	res, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(page), `<script type="module" src="app.js">`) {
		t.Fatalf("GET / did not serve the page: %.200s", page)
	}
	res, err = http.Get(base + "/api/history")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("history: %v %v", res.Status, err)
	}
	res.Body.Close()

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the demo did not shut down")
	}
	if !strings.Contains(out.String(), "serving the jobs page on "+base) {
		t.Errorf("the demo did not print its URL: %q", out.String())
	}
}
