package jobhttp_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
)

// The browser tests drive the embedded page in headless Chromium (Debian's
// chromium package). Each scenario is one test with jobs of its own; a job a
// test needs alive is held open by its producer until the test finishes it,
// so no stall of the machine can settle it early.

// browser returns a chromedp context on a fresh headless Chromium, or skips
// when there is none (and fails under CI=true, where .ci/run installs it).
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium found under CI=true: .ci/run installs Debian's chromium package")
		}
		t.Skip("no Chromium found: install it with `apt-get install -y chromium` to run the browser tests")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // the tests run as root in CI
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1024, 768),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // start the browser now, so a failure names it
		t.Fatalf("starting Chromium at %s: %v", path, err)
	}
	return ctx
}

func chromiumPath() string {
	if p := os.Getenv("JOBGEN_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// screenshot saves the page to test-output/jobhttp/NAME.png at the repository
// root, for a person to look at.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := filepath.Join("..", "test-output", "jobhttp")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// pageServer serves a registry whose every request is alice's.
func pageServer(t *testing.T) *server {
	return newServer(t, jobhttp.Options{
		Session: func(*http.Request) (jobs.SessionID, error) { return "alice", nil },
	})
}

// run runs one action that yields a value, failing the test on an error.
func run[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func rowSelector(id jobs.JobID) string { return `li.job[data-job="` + id.String() + `"]` }

func TestPageShowsTheSessionsJobsAsTheyStart(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	first, _ := s.startRecording("alice", "build the app", 0)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(s.srv.URL+"/"),
		chromedp.WaitVisible(rowSelector(first.ID)),
	); err != nil {
		t.Fatalf("the first job's row never appeared: %v", err)
	}
	second, _ := s.startPlain("alice", "index the docs")
	if err := chromedp.Do(ctx, chromedp.WaitVisible(rowSelector(second.ID))); err != nil {
		t.Fatalf("the second job's row never appeared live: %v", err)
	}
	label := run(t, ctx, chromedp.Text(rowSelector(second.ID)+" .label"))
	status := run(t, ctx, chromedp.Text(rowSelector(second.ID)+" .status"))
	toggles := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("li.job[data-job='`+second.ID.String()+`'] button.toggle").length`))
	if label != "index the docs" || status != "running" {
		t.Errorf("plain job row: label %q status %q", label, status)
	}
	if toggles != 0 {
		t.Errorf("a plain job's row can be expanded; only jobs that keep a record can")
	}
	screenshot(t, ctx, "roster")
}

func TestPageStreamsLiveOutputOfAnExpandedRow(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	snap, p := s.startRecording("alice", "compile", 0)
	p.job.Append("compiling main.go\n", jobs.AppendOptions{Channel: jobs.ChannelStdout})
	row := rowSelector(snap.ID)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(s.srv.URL+"/"),
		chromedp.WaitVisible(row+" button.toggle"),
		chromedp.Click(row+" button.toggle"),
		chromedp.WaitVisible(row+" pre.output"),
		chromedp.WaitVisible(row+` pre.output span[data-channel="stdout"]`),
	); err != nil {
		t.Fatalf("expanding the row did not show its output: %v", err)
	}
	expanded := run(t, ctx, chromedp.Evaluate[string](`document.querySelector('`+row+` button.toggle').getAttribute("aria-expanded")`))
	if expanded != "true" {
		t.Errorf("aria-expanded = %q after expanding", expanded)
	}
	// Output written after the page opened arrives live, stderr apart.
	p.job.Append("main.go:3: unused import\n", jobs.AppendOptions{Channel: jobs.ChannelStderr})
	if err := chromedp.Do(ctx, chromedp.WaitVisible(row+` pre.output span.stderr`)); err != nil {
		t.Fatalf("live stderr output never arrived: %v", err)
	}
	stderrText := run(t, ctx, chromedp.Text(row+` pre.output span.stderr`))
	allText := run(t, ctx, chromedp.Text(row+` pre.output`))
	if !strings.Contains(stderrText, "unused import") || !strings.Contains(allText, "compiling main.go") {
		t.Errorf("output pane: stderr %q, all %q", stderrText, allText)
	}
	screenshot(t, ctx, "output")
}

func TestPageKillButtonStopsTheJob(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	snap, _ := s.startRecording("alice", "serve forever", 0)
	row := rowSelector(snap.ID)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(s.srv.URL+"/"),
		chromedp.WaitVisible(row+" button.kill"),
		chromedp.Click(row+" button.kill"),
	); err != nil {
		t.Fatal(err)
	}
	wait, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(wait, chromedp.WaitVisible(row+" .status.status-killed")); err != nil {
		html := run(t, ctx, chromedp.Evaluate[string](`document.querySelector('`+row+`').outerHTML`))
		t.Fatalf("the kill button did not end the job (%v); the row is %s", err, html)
	}
	got, err := s.reg.Get("alice", snap.ID)
	if err != nil || got.Status != jobs.JobStatusKilled {
		t.Fatalf("after the kill button the registry says %s (%v), want killed", got.Status, err)
	}
	screenshot(t, ctx, "killed")
}

func TestPageFitsANarrowScreen(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	snap, p := s.startRecording("alice", "a job with a rather long label that must wrap on a phone", 0)
	p.job.Append(strings.Repeat("a long line of output without spaces ", 8)+"\n", jobs.AppendOptions{Channel: jobs.ChannelStdout})
	row := rowSelector(snap.ID)
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(360, 740),
		chromedp.Navigate(s.srv.URL+"/"),
		chromedp.WaitVisible(row+" button.toggle"),
		chromedp.Click(row+" button.toggle"),
		chromedp.WaitVisible(row+` pre.output span[data-channel="stdout"]`),
	); err != nil {
		t.Fatal(err)
	}
	scrollWidth := run(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	clientWidth := run(t, ctx, chromedp.Evaluate[int](`document.documentElement.clientWidth`))
	if scrollWidth > clientWidth {
		t.Errorf("at 360 px the page scrolls sideways: scrollWidth %d > clientWidth %d", scrollWidth, clientWidth)
	}
	screenshot(t, ctx, "narrow")
}

func TestPageDrawsTheTimelineFromTheJournal(t *testing.T) {
	ctx := browser(t)
	store, err := journal.Open(filepath.Join(t.TempDir(), "jobs.journal"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close(context.Background()) })
	s := newServer(t, jobhttp.Options{
		Session: func(*http.Request) (jobs.SessionID, error) { return "alice", nil },
		History: jobhttp.StoreHistory(store),
	}, registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)))
	done, p := s.startRecording("alice", "finished", 0)
	p.finish(jobs.JobStatusCompleted, "ok")
	if _, _, err := s.reg.Wait(context.Background(), "alice", done.ID, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	s.startRecording("alice", "still running", 0)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(s.srv.URL+"/"),
		chromedp.WaitVisible(`#timeline svg rect.bar-completed`),
		chromedp.WaitVisible(`#timeline svg rect.bar-incomplete`),
	); err != nil {
		t.Fatalf("the timeline never drew a settled and a running job: %v", err)
	}
	bars := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#timeline svg rect").length`))
	if bars != 2 {
		t.Errorf("timeline has %d bars, want 2", bars)
	}
	screenshot(t, ctx, "timeline")
}

// TestPageSaysWhyItCannotConnectAndRecovers: a session at its stream cap gets
// a 429, which EventSource gives up on. The page shows the server's reason,
// which says what to do, and connects by itself once a stream is freed.
func TestPageSaysWhyItCannotConnectAndRecovers(t *testing.T) {
	ctx := browser(t)
	s := newServer(t, jobhttp.Options{
		Session:              func(*http.Request) (jobs.SessionID, error) { return "alice", nil },
		MaxStreamsPerSession: 1,
	})
	held := s.stream("/api/jobs/events", "alice", nil)
	held.mustNext()
	conn := `document.getElementById("connection").textContent`
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	said, err := chromedp.Run(ctx, chromedp.Poll[string](
		conn+`.includes("MaxStreamsPerSession") && `+conn, chromedp.WithPollingTimeout(15*time.Second)))
	if err != nil {
		t.Fatalf("the page never said why it could not connect (%v): %q", err, run(t, ctx, chromedp.Evaluate[string](conn)))
	}
	t.Logf("the page says: %s", said)
	held.res.Body.Close()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](conn+` === "live"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the page did not connect once the stream was freed (%v): %q", err, run(t, ctx, chromedp.Evaluate[string](conn)))
	}
}
