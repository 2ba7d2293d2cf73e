package jobhttp_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
)

// The browser tests drive the embedded page in headless Chromium (Debian's
// chromium package). Each scenario is one test with jobs of its own; a job a
// test needs alive is held open by its producer until the test finishes it,
// so no stall of the machine can settle it early.

// The scenarios share one Chromium process, started by the first of them
// and ended by TestMain; each runs in a tab of its own with a profile of its
// own (a browser context), so no storage or cookie crosses from one to the
// next. A browser start costs about a second on the 2-core machine, a tab
// a few milliseconds.
var shared struct {
	once   sync.Once
	ctx    context.Context // the browser's
	cancel func()
	err    error
}

// closeBrowser ends the shared browser, if one was started.
func closeBrowser() {
	if shared.cancel != nil {
		shared.cancel()
	}
}

// browser returns a chromedp context on a new tab of the shared headless
// Chromium, at 1024×768, or skips when there is none (and fails under
// CI=true, where .ci/run installs it). -short skips the browser tests, a
// minute of the package's run, in CI too: make test is the quick suite, and
// make test-all and make race (both in make ci) run them.
func browser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("-short (make test) leaves the browser suite out: make test-all runs it")
	}
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium found under CI=true: .ci/run installs Debian's chromium package")
		}
		t.Skip("no Chromium found: install it with `apt-get install -y chromium` to run the browser tests")
	}
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "jobhttp-chromium-")
		if err != nil {
			shared.err = err
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path),
			chromedp.NoSandbox, // the tests run as root in CI
			chromedp.DisableGPU,
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.UserDataDir(dir),
			chromedp.WindowSize(1024, 768),
		)
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(allocCtx)
		shared.ctx = ctx
		shared.cancel = func() { cancelCtx(); cancelAlloc(); os.RemoveAll(dir) }
		shared.err = chromedp.Do(ctx) // start the browser now, so a failure names it
	})
	if shared.err != nil {
		t.Fatalf("starting Chromium at %s: %v", path, shared.err)
	}
	ctx, cancelTab := chromedp.NewContext(shared.ctx, chromedp.WithNewBrowserContext())
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelTab() })
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1024, 768)); err != nil {
		t.Fatalf("opening a tab: %v", err)
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
	return newServerAs(t, func(*http.Request) (jobs.SessionID, error) { return "alice", nil }, nil)
}

// waitJS polls expr, a JavaScript expression, until it is truthy, failing
// the test with what the page shows after within.
func waitJS(t *testing.T, ctx context.Context, what, expr string, within time.Duration) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(within))); err != nil {
		body := run(t, ctx, chromedp.Evaluate[string](`document.body.innerText.slice(0, 2000)`))
		t.Fatalf("%s: never happened (%v); the page says:\n%s", what, err, body)
	}
}

// js evaluates expr and returns its value.
func js[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	return run(t, ctx, chromedp.Evaluate[T](expr))
}

// openOutput navigates to the page and expands the output of the job.
func openOutput(t *testing.T, ctx context.Context, base string, id jobs.JobID) string {
	t.Helper()
	row := rowSelector(id)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(row+" button.toggle"),
		chromedp.Click(row+" button.toggle"),
		chromedp.WaitVisible(row+" .output"),
	); err != nil {
		t.Fatalf("expanding the output of %s: %v", id, err)
	}
	return row
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

func TestPageSaysWhyItCannotConnectAndRecovers(t *testing.T) {
	ctx := browser(t)
	s := newServerAs(t, func(*http.Request) (jobs.SessionID, error) { return "alice", nil }, []jobhttp.Option{
		jobhttp.WithMaxStreamsPerSession(1),
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
