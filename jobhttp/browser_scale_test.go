package jobhttp_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// Scale: the page keeps only the rows in view in the
// document, so a job of 100,000 lines and a roster of 1,000 jobs stay
// responsive. The figures are measured in Chromium and logged, not asserted
// as timings (the machine is shared and noisy): what is asserted is that the
// document stays small.

func TestPageStaysResponsiveWithAHundredThousandLines(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	const lines = 100_000
	snap, p := s.startRecording("alice", "a very chatty job", 16<<20)
	var b strings.Builder
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&b, "%6d \x1b[32mok\x1b[0m   step %d of the long build\n", i, i)
		if i%5000 == 0 {
			p.job.Append(b.String(), jobs.AppendOptions{Channel: jobs.ChannelStdout})
			b.Reset()
		}
	}
	row := openOutput(t, ctx, s.srv.URL, snap.ID)
	pane := `document.querySelector('` + row + ` .output')`
	waitJS(t, ctx, "every line", pane+`.dataset.lines === "`+itoa(lines)+`"`, 60*time.Second)
	maxMs := js[string](t, ctx, pane+`.dataset.maxRenderMs`)
	rowsInDOM := js[int](t, ctx, pane+`.querySelectorAll(".ln").length`)
	// Scrolling: jump to ten places and time each frame's render.
	scroll, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {
		const pane = `+pane+`, times = [];
		for (let i = 1; i <= 10; i++) {
			const t0 = performance.now();
			pane.scrollTop = pane.scrollHeight * i / 11;
			await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
			times.push(performance.now() - t0);
		}
		times.sort((a, b) => a - b);
		return times[5].toFixed(1) + " ms median, " + times[9].toFixed(1) + " ms max";
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	// Search over every line.
	search, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		const input = document.querySelector('`+row+` .log-search'), t0 = performance.now();
		input.value = "step 99999 "; input.dispatchEvent(new Event("input"));
		return (performance.now() - t0).toFixed(1) + " ms, " + document.querySelector('`+row+` .log-count').textContent;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("100,000 lines: slowest render after a frame arrived %s ms; %d rows in the document; scroll to a new place: %s; search: %s", maxMs, rowsInDOM, scroll, search)
	if rowsInDOM > 200 {
		t.Errorf("%d rows in the document for a pane of about 20 visible: the view is not virtualised", rowsInDOM)
	}
	if !strings.HasSuffix(search, "1 of 1") {
		t.Errorf("search over 100,000 lines: %s", search)
	}
	if got := js[string](t, ctx, `document.querySelector('`+row+` mark.current').closest(".ln").dataset.line`); got != "99999" {
		t.Errorf("the match is on line %s, want 99999", got)
	}
}

func TestPageRendersARosterOfAThousandJobs(t *testing.T) {
	ctx := browser(t)
	s := newServerAs(t, func(*http.Request) (jobs.SessionID, error) { return "alice", nil }, nil, registry.WithLimits(registry.Limits{MaxPerOwner: 2000}))
	const n = 1000
	for i := range n {
		p := &producer{result: make(chan jobs.JobOutcome, 1)}
		kind := []string{"build", "test", "deploy"}[i%3]
		if _, err := s.reg.Start(context.Background(), jobs.PlainJobStart{
			JobStartCommon: jobs.JobStartCommon{Kind: kind, Label: fmt.Sprintf("job number %d", i), Owner: "alice"},
			Run:            func(ctx context.Context, job jobs.RunningJob) (jobs.Hooks, error) { return p.hooks(), nil },
		}); err != nil {
			t.Fatal(err)
		}
		if i%4 == 0 {
			p.finish(jobs.JobStatusCompleted, "done")
		} else {
			t.Cleanup(func() { p.finish(jobs.JobStatusCompleted, "") })
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "1,000 rows", `document.querySelectorAll("li.job").length === 1000`, 30*time.Second)
	first := js[string](t, ctx, `document.getElementById("roster").dataset.maxRenderMs`)
	filter := js[string](t, ctx, `(() => { const t0 = performance.now();
		document.querySelector('#status-tabs .tab[data-status="completed"]').click();
		const ms = performance.now() - t0;
		return ms.toFixed(1) + " ms, " + document.getElementById("roster-shown").textContent; })()`)
	t.Logf("1,000 jobs: roster rendered in at most %s ms (first frame of the roster stream); the completed tab applied in %s", first, filter)
	if !strings.Contains(filter, "250 of 1000") {
		t.Errorf("the completed tab: %s, want 250 of 1000 shown", filter)
	}
}

// TestPageStaysResponsiveWithAHundredThousandLinesInFortyGroups: a job of
// 100,000 lines in 40 GitHub Actions groups shows 40 collapsed headers, a
// click expands one and a search opens the group of its match, with only
// the rows in view in the document throughout. It logs the time to the
// log's first paint and to its last line, to expand a group, and to search
// and open the match, for the closing note; it asserts no time.
func TestPageStaysResponsiveWithAHundredThousandLinesInFortyGroups(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	const groups, perGroup = 40, 2500
	snap, p := s.startRecording("alice", "a build of forty steps", 16<<20)
	n := 0
	for g := 1; g <= groups; g++ {
		var b strings.Builder
		fmt.Fprintf(&b, "::group::step %d of the long build\n", g)
		for range perGroup {
			n++
			fmt.Fprintf(&b, "%6d \x1b[32mok\x1b[0m   line %d of step %d\n", n, n, g)
		}
		b.WriteString("::endgroup::\n")
		p.job.Append(b.String(), jobs.AppendOptions{Channel: jobs.ChannelStdout})
	}
	row := rowSelector(snap.ID)
	pane := `document.querySelector('` + row + ` .output')`
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(row+" button.toggle")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	chromedp.Do(ctx, chromedp.Click(row+" button.toggle"))
	waitJS(t, ctx, "the log's first rows", pane+`?.querySelector(".ln") != null`, 30*time.Second)
	firstPaint := time.Since(start)
	waitJS(t, ctx, "every line", pane+`.dataset.lines === "100000" && `+pane+`.dataset.groups === "40"`, 60*time.Second)
	allLines := time.Since(start)
	heads := js[int](t, ctx, pane+`.querySelectorAll(".group-head").length`)
	if heads != groups {
		t.Errorf("%d group headers in the document; want all 40, collapsed", heads)
	}
	expand := run(t, ctx, chromedp.Evaluate[string](`(async () => {
		const btn = [...`+pane+`.querySelectorAll("button.log-group")][19], t0 = performance.now();
		btn.click();
		await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
		return (performance.now() - t0).toFixed(1);
	})()`, chromedp.EvalAwaitPromise))
	expanded := js[string](t, ctx, `[...`+pane+`.querySelectorAll("button.log-group")][19].getAttribute("aria-expanded")`)
	search := run(t, ctx, chromedp.Evaluate[string](`(async () => {
		const input = document.querySelector('`+row+` .log-search'), t0 = performance.now();
		input.value = "line 87501 of"; input.dispatchEvent(new Event("input"));
		await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
		return (performance.now() - t0).toFixed(1);
	})()`, chromedp.EvalAwaitPromise))
	match := js[string](t, ctx, `document.querySelector('`+row+` mark.current')?.closest(".ln").dataset.line ?? "none"`)
	rowsInDOM := js[int](t, ctx, pane+`.querySelectorAll(".ln").length`)
	maxMs := js[string](t, ctx, pane+`.dataset.maxRenderMs`)
	t.Logf("100,000 lines in 40 groups: first paint of the log %s after the click, every line in %s (slowest render after a frame %s ms); expand a group %s ms; search and open the match %s ms; %d rows in the document",
		firstPaint.Round(time.Millisecond), allLines.Round(time.Millisecond), maxMs, expand, search, rowsInDOM)
	if expanded != "true" {
		t.Errorf("the 20th group's header says aria-expanded=%s after its click", expanded)
	}
	if match != "87501" {
		t.Errorf("the match is shown on line %s; want 87501, in the collapsed 36th group", match)
	}
	if rowsInDOM > 200 {
		t.Errorf("%d rows in the document for a pane of about 20 visible: the view is not virtualised", rowsInDOM)
	}
}
