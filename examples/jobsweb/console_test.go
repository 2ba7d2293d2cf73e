package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDemoShowsEveryConsoleFeature runs the demo as `make demo-web` does, at
// a quicker pace, in headless Chromium, and checks that its jobs and
// subagents give every part of the console something to show: coloured
// output with a progress line, a failed job, a timed-out one on the
// timeline, a killable server, and the subagent tree settling. It saves
// test-output/jobsweb/console.png (docs/console.png is a copy of it). It
// skips without Chromium, and fails under CI=true.
func TestDemoShowsEveryConsoleFeature(t *testing.T) {
	ctx := demoBrowser(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- runAt(runCtx, ln, t.TempDir(), nil, &strings.Builder{}, pace{agents: agentPace{research: 600 * time.Millisecond, code: 4 * time.Second}, deploy: 1500 * time.Millisecond})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("the demo did not shut down")
		}
	})
	wait := func(what, expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText.slice(0, 1500)`))
			t.Fatalf("%s: never happened (%v); the page says:\n%s", what, err, body)
		}
	}
	build := `[...document.querySelectorAll("li.job")].find(li => li.querySelector(".label").textContent === "build")`
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate("http://"+ln.Addr().String()+"/")); err != nil {
		t.Fatal(err)
	}
	wait("the demo's jobs", `document.querySelectorAll("li.job").length === 5`)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](build+`.querySelector("button.toggle").click() ?? true`)); err != nil {
		t.Fatal(err)
	}
	wait("the build's coloured output, its progress line redrawn in place", build+`?.querySelector(".ln .f2") !== null && [...`+build+`.querySelectorAll(".ln .txt")].some(e => e.textContent.includes("100%"))`)
	wait("a failed job", `document.querySelector('#status-tabs .tab[data-status="failed"]').textContent === "failed 1"`)
	wait("the subagent tree", `document.querySelectorAll("#subagents button.node").length === 3`)
	wait("the researcher's report in the planner's history", `document.querySelector("#subagents .events")?.textContent.includes("report from planner-researcher")`)
	wait("the coder still at work", `document.querySelector('#subagents button.node[data-child="planner-coder"] .state').textContent === "running"`)
	dir := filepath.Join("..", "..", "test-output", "jobsweb")
	os.MkdirAll(dir, 0o755)
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "console.png"), png, 0o644)
	wait("the timed-out deploy on the timeline", `document.querySelector("#timeline rect.bar-timeout") !== null && document.querySelector("#timeline rect.bar-failed") !== null && document.querySelectorAll("#timeline .axis text").length >= 2`)
	wait("the tree settles", `[...document.querySelectorAll("#subagents .node .state")].every(s => s.textContent === "settled")`)
}

// demoBrowser returns a chromedp context on a headless Chromium, or skips
// without one (failing under CI=true); -short (make test) leaves it out.
func demoBrowser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("-short (make test) leaves the browser suite out: make test-all runs it")
	}
	path := os.Getenv("JOBGEN_CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path != "" {
			break
		}
		path, _ = exec.LookPath(name)
	}
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium found under CI=true: .ci/run installs Debian's chromium package")
		}
		t.Skip("no Chromium found: install it with `apt-get install -y chromium` to run the demo's browser test")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium at %s: %v", path, err)
	}
	return ctx
}
