package jobhttp_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
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
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// The bulk stop, the labels and the waiting starts on the page, in both
// themes, with axe-core on each.

func TestPageStopsSelectedAndMatchingJobsWithOneReason(t *testing.T) {
	ctx := browser(t)
	s := newServerAs(t, func(*http.Request) (jobs.SessionID, error) { return "alice", nil }, nil,
		registry.WithLimits(registry.Limits{MaxPerOwner: 4}))
	var ids []jobs.JobID
	for i, label := range []string{"nightly build", "nightly test", "lint", "serve"} {
		p := &producer{result: make(chan jobs.JobOutcome, 1)}
		start := jobs.PlainJobStart{
			JobStartCommon: jobs.JobStartCommon{Kind: "plain", Label: label, Owner: "alice"},
			Run:            func(context.Context, jobs.RunningJob) (jobs.Hooks, error) { return p.hooks(), nil },
		}
		if i < 2 {
			start.Labels = map[string]string{"ci": "nightly", "team": "infra"}
		}
		snap, err := s.reg.Start(t.Context(), start)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.finish(jobs.JobStatusCompleted, "") })
		ids = append(ids, snap.ID)
	}
	// A fifth start waits for one of alice's four slots.
	waited := make(chan error, 1)
	go func() {
		_, err := s.reg.StartWait(t.Context(), jobs.PlainJobStart{
			JobStartCommon: jobs.JobStartCommon{Kind: "plain", Label: "queued deploy", Owner: "alice"},
			Run: func(context.Context, jobs.RunningJob) (jobs.Hooks, error) {
				p := &producer{result: make(chan jobs.JobOutcome, 1)}
				return p.hooks(), nil
			},
		})
		waited <- err
	}()
	for len(s.reg.Waiting("alice")) == 0 {
		time.Sleep(time.Millisecond)
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(rowSelector(ids[3])+" input.select")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the waiting start listed", `document.querySelector("#waiting:not([hidden]) .waiting-start .label")?.textContent === "queued deploy"`, 10*time.Second)
	if labels := js[string](t, ctx, `document.querySelector('`+rowSelector(ids[0])+` .labels').textContent`); labels != "ci=nightly team=infra" {
		t.Errorf("the row shows labels %q; want ci=nightly team=infra", labels)
	}
	for _, scheme := range []string{"light", "dark"} {
		emulateScheme(t, ctx, scheme)
		screenshot(t, ctx, "bulk-waiting-"+scheme)
		bad, passes := axeViolations(t, ctx)
		t.Logf("axe-core on the bulk stop and waiting list (%s): %d rules passed, %d serious or critical", scheme, passes, len(bad))
		for _, b := range bad {
			t.Errorf("axe (%s): %s", scheme, b)
		}
	}

	// Select two rows and stop them.
	chromedp.Do(ctx, chromedp.Click(rowSelector(ids[2])+" input.select"), chromedp.Click(rowSelector(ids[3])+" input.select"))
	waitJS(t, ctx, "two selected", `document.getElementById("bulk-selected").textContent === "Stop selected (2)"`, 5*time.Second)
	chromedp.Do(ctx, chromedp.Click(`#bulk-selected`))
	waitJS(t, ctx, "one confirmation", `document.getElementById("bulk-dialog").open && document.getElementById("bulk-what").textContent === "2 jobs"`, 5*time.Second)
	chromedp.Do(ctx, chromedp.SetValue(`#bulk-reason`, "freeze"))
	for _, scheme := range []string{"light", "dark"} {
		emulateScheme(t, ctx, scheme)
		screenshot(t, ctx, "bulk-confirm-"+scheme)
		bad, _ := axeViolations(t, ctx)
		for _, b := range bad {
			t.Errorf("axe on the bulk dialog (%s): %s", scheme, b)
		}
	}
	chromedp.Do(ctx, chromedp.Click(`#bulk-confirm`))
	for _, id := range ids[2:] {
		waitJS(t, ctx, "the selected job killed", `document.querySelector('`+rowSelector(id)+` .status.status-killed') !== null`, 10*time.Second)
		if got, _ := s.reg.Get("alice", id); got.Status != jobs.JobStatusKilled || !strings.Contains(got.Detail, "freeze") {
			t.Errorf("%s is %s %q; want killed with the one reason", got.Name, got.Status, got.Detail)
		}
	}
	if err := <-waited; err != nil {
		t.Fatalf("the waiting start was not admitted once slots freed: %v", err)
	}
	waitJS(t, ctx, "the waiting list emptied", `document.getElementById("waiting").hidden`, 10*time.Second)

	// Filter to the nightly jobs by their label, and stop every match.
	chromedp.Do(ctx, chromedp.SendKeys(`#filter-text`, "ci=nightly"))
	waitJS(t, ctx, "the filter applied", `document.getElementById("bulk-matching").textContent === "Stop all matching (2)"`, 5*time.Second)
	chromedp.Do(ctx, chromedp.Click(`#bulk-matching`))
	waitJS(t, ctx, "the confirmation", `document.getElementById("bulk-dialog").open`, 5*time.Second)
	chromedp.Do(ctx, chromedp.Click(`#bulk-confirm`))
	waitJS(t, ctx, "announced", `document.getElementById("announce").textContent.includes("Asked 2 jobs to stop")`, 10*time.Second)
	for _, id := range ids[:2] {
		if got := waitStatus(t, s.reg, "alice", id); got.Status != jobs.JobStatusKilled {
			t.Errorf("%s is %s; the matching stop should kill it", got.Name, got.Status)
		}
	}
	screenshot(t, ctx, "bulk-done")
}

// TestPageBulkStopOf500Jobs times one bulk stop of 500 running jobs from the
// page (every row matches the empty filter, one reason, one confirmation):
// the click on "Stop all matching" to the last row shown stopping or
// killed, and to the last shown killed. It logs them, for the closing note.
func TestPageBulkStopOf500Jobs(t *testing.T) {
	if testing.Short() {
		t.Skip("a timing of 500 jobs")
	}
	ctx := browser(t)
	s := newServerAs(t, func(*http.Request) (jobs.SessionID, error) { return "alice", nil }, nil,
		registry.WithLimits(registry.Limits{MaxPerOwner: 600}))
	for i := range 500 {
		s.startPlain("alice", fmt.Sprint("job ", i))
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "500 rows", `document.getElementById("bulk-matching").textContent === "Stop all matching (500)"`, 30*time.Second)
	start := time.Now()
	chromedp.Do(ctx, chromedp.Click(`#bulk-matching`))
	waitJS(t, ctx, "the confirmation", `document.getElementById("bulk-dialog").open`, 5*time.Second)
	chromedp.Do(ctx, chromedp.Click(`#bulk-confirm`))
	waitJS(t, ctx, "every row stopping or killed", `document.querySelectorAll("li.job .status-killed, li.job .status-stopping").length === 500`, 60*time.Second)
	stopping := time.Since(start)
	waitJS(t, ctx, "every row killed", `document.querySelectorAll("li.job .status-killed").length === 500`, 60*time.Second)
	t.Logf("bulk stop of 500 jobs from the page: %s from the click to the last row shown stopping or killed, %s to the last killed", stopping, time.Since(start))
}

// TestPageOfOneHostHidesTheHostFilter: the Host filter is a fleet view's;
// on one host's page it takes no room.
func TestPageOfOneHostHidesTheHostFilter(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	s.startPlain("alice", "one job")
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(`li.job`)); err != nil {
		t.Fatal(err)
	}
	if shown := js[bool](t, ctx, `document.getElementById("filter-host").closest("label").getBoundingClientRect().width > 0`); shown {
		t.Fatal("the Host filter shows on one host's page; it is a fleet view's")
	}
}

// TestPageHistoryOf10000JobsPagesAndFilters: the history section over a
// journal of 10,000 settled jobs shows the newest 50 first, pages on, and
// filters by label; every session's only for the operator. It logs the
// first paint, the timeline's, and the next page's once the timeline is
// drawn, for the closing note.
func TestPageHistoryOf10000JobsPagesAndFilters(t *testing.T) {
	ctx := browser(t)
	store := subagenttest.NewMemStore()
	for i := range 10_000 {
		owner := jobs.SessionID("alice")
		if i%10 == 9 {
			owner = "bob"
		}
		reg := jobs.JobRegistered{JobID: jobs.NewJobID(), At: int64(1_700_000_000_000 + i*1000), Owner: owner, Kind: "plain", Label: fmt.Sprint("job ", i), Ordinal: i + 1}
		if i%100 == 0 {
			reg.Labels = map[string]string{"ci": "nightly"}
		}
		settled := jobs.JobSettled{JobID: reg.JobID, At: reg.At + 500, Status: jobs.JobStatusCompleted, ProducerReported: true, Cause: jobs.SettlementCauseProducer,
			Registration: jobs.JobRegistration{RegisteredAt: reg.At, Owner: owner, Kind: "plain", Label: reg.Label, Ordinal: reg.Ordinal}}
		for _, f := range []jobs.Fact{reg, settled} {
			p, err := jobs.EncodeFact(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.Append(t.Context(), journal.Stream(owner), journal.Entry{Payload: p}); err != nil {
				t.Fatal(err)
			}
		}
	}
	s := newServerAs(t, func(r *http.Request) (jobs.SessionID, error) {
		return jobs.SessionID(r.URL.Query().Get("as") + "alice"), nil
	}, []jobhttp.Option{
		jobhttp.WithHistory(jobhttp.StoreHistory(store)),
		jobhttp.WithAllHistory(jobhttp.StoreAllHistory(store)),
		jobhttp.WithOperator(func(s jobs.SessionID) bool { return s == "alice" }),
	})
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	waitJS(t, ctx, "the first page", `document.querySelectorAll("#history tbody tr").length === 50`, 30*time.Second)
	firstPaint := time.Since(start)
	if note := js[string](t, ctx, `document.getElementById("history-note").textContent`); note != "Jobs 1–50 of 9000, newest first" {
		t.Errorf("the first page says %q", note)
	}
	if first := js[string](t, ctx, `document.querySelector("#history tbody tr td.name").textContent`); first != "plain-9999" {
		t.Errorf("the first row is %s; want alice's newest, plain-9999", first)
	}
	// The timeline holds every interval of the history the page can see
	// (9,000 rows) and draws the rows in its box's view, and no others.
	waitJS(t, ctx, "the timeline's rows", `(p => p !== null && p.dataset.rows === "9000" && p.querySelectorAll("rect.bar").length > 0)(document.querySelector("#timeline .timeline-plot"))`, 30*time.Second)
	timelinePaint := time.Since(start)
	if bars := js[int](t, ctx, `document.querySelectorAll("#timeline rect.bar").length`); bars > 100 {
		t.Errorf("the timeline drew %d of its 9,000 bars; want only those in view and a margin", bars)
	}
	js[bool](t, ctx, `window.jobsHistory.onPaint = (ms) => { window.pagedIn = ms; }; true`)
	chromedp.Do(ctx, chromedp.Click(`#history-older`))
	waitJS(t, ctx, "the next page", `window.pagedIn !== undefined && document.getElementById("history-note").textContent.startsWith("Jobs 51–100")`, 30*time.Second)
	nextPage := js[float64](t, ctx, `window.pagedIn`)
	tl := measureTimeline(t, ctx)
	chromedp.Do(ctx, chromedp.SetValue(`#history-label`, "ci=nightly"))
	js[bool](t, ctx, `document.getElementById("history-label").dispatchEvent(new Event("change")); true`)
	waitJS(t, ctx, "the label filter", `document.getElementById("history-note").textContent === "Jobs 1–50 of 100, newest first"`, 30*time.Second)
	chromedp.Do(ctx, chromedp.Click(`#history-all`))
	waitJS(t, ctx, "every session's", `document.getElementById("history-note").textContent === "Jobs 1–50 of 100, newest first" && [...document.querySelectorAll("#history tbody tr td:nth-child(2)")].some(td => td.textContent === "bob") === false`, 30*time.Second)
	// axe on the history in both themes runs in TestPageTimelineBarOpensTheJobsPage,
	// on the windowed timeline of many jobs in TestPageTimelineOfManyJobsDrawsTheRowsInView.
	chromedp.Do(ctx, chromedp.ScrollIntoView(`#timeline`))
	viewportShot(t, ctx, "timeline-9000")
	chromedp.Do(ctx, chromedp.ScrollIntoView(`#history`))
	viewportShot(t, ctx, "history-10000")
	t.Logf("history of 10,000 jobs: first page painted %s after navigation, the timeline's 9,000 rows %s after navigation; next page painted %.0f ms after the click's request", firstPaint, timelinePaint, nextPage)
	t.Logf("timeline of 9,000 jobs (median of 3, with layout): first draw %.1f ms, a redraw of the same intervals %.1f ms, a redraw with one interval changed %.1f ms; %d <rect> elements in its plot", tl.First, tl.Same, tl.Changed, tl.Rects)
	busy := run(t, ctx, chromedp.Evaluate[map[string]float64](`new Promise(done => {
		let sum = 0, n = 0;
		const o = new PerformanceObserver(l => { for (const e of l.getEntries()) { sum += e.duration; n++; } });
		o.observe({type: "longtask"});
		setTimeout(() => { o.disconnect(); done({busy: sum, tasks: n}); }, 15000);
	})`, chromedp.EvalAwaitPromise))
	t.Logf("an idle page of 10,000 jobs over 15 s: %.0f ms of long tasks (%.0f of them, each over 50 ms); the timeline's last read of the history (fetch, decode, draw) took %s ms", busy["busy"], busy["tasks"], js[string](t, ctx, `document.getElementById("timeline").dataset.loadMs ?? "?"`))
}

// timelineCost is what the timeline's drawing costs, in milliseconds, the
// median of three runs, each with the style and layout it forces.
type timelineCost struct {
	First, Same, Changed float64
	Rects                int
}

// measureTimeline times the page's timeline over the intervals it holds: a
// first draw (from none), a redraw of the same intervals as a refetch brings
// them (new objects, same content), and a redraw with one interval's end
// changed.
func measureTimeline(t *testing.T, ctx context.Context) timelineCost {
	t.Helper()
	return js[timelineCost](t, ctx, `(() => {
		const tl = window.jobsTimeline, items = tl.items, now = Date.now();
		const copy = () => items.map(iv => ({...iv}));
		const time = (f) => { const t0 = performance.now(); f(); document.getElementById("timeline").getBoundingClientRect(); document.body.offsetHeight; return performance.now() - t0; };
		const median = (xs) => xs.sort((a, b) => a - b)[1];
		const first = [], same = [], changed = [];
		for (let i = 0; i < 3; i++) {
			tl.draw([], now);
			first.push(time(() => tl.draw(copy(), now)));
			same.push(time(() => tl.draw(copy(), now)));
			const c = copy(); c[5] = {...c[5], settledAt: c[5].settledAt + 100 + i};
			changed.push(time(() => tl.draw(c, now)));
		}
		tl.draw(copy(), now);
		return {First: median(first), Same: median(same), Changed: median(changed), Rects: document.querySelectorAll("#timeline rect").length};
	})()`)
}

// viewportShot saves what the viewport shows, for a page too long for a
// full screenshot, to test-output/jobhttp/NAME.png.
func viewportShot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join("..", "test-output", "jobhttp", name+".png")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// TestPageTimelineBarOpensTheJobsPage: a click on a job's timeline bar
// opens its page: owner, labels, absolute start and end, status, cause, and
// its facts from the journal in order.
func TestPageTimelineBarOpensTheJobsPage(t *testing.T) {
	ctx := browser(t)
	store := subagenttest.NewMemStore()
	s := newServerAs(t, func(*http.Request) (jobs.SessionID, error) { return "alice", nil }, []jobhttp.Option{
		jobhttp.WithHistory(jobhttp.StoreHistory(store)),
		jobhttp.WithJobFacts(jobhttp.StoreJobFacts(store)),
	}, registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)))
	p := &producer{result: make(chan jobs.JobOutcome, 1)}
	snap, err := s.reg.Start(t.Context(), jobs.PlainJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "deploy", Label: "ship it", Owner: "alice", Labels: map[string]string{"team": "infra"}},
		Run:            func(context.Context, jobs.RunningJob) (jobs.Hooks, error) { return p.hooks(), nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := s.reg.Kill("alice", snap.ID, "release freeze"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, s.reg, "alice", snap.ID)
	bar := `#timeline rect.bar[data-job="` + snap.ID.String() + `"]`
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(bar)); err != nil {
		t.Fatalf("the bar never drew: %v", err)
	}
	waitJS(t, ctx, "the history section", `document.querySelectorAll("#history tbody tr").length === 1`, 10*time.Second)
	for _, scheme := range []string{"light", "dark"} {
		emulateScheme(t, ctx, scheme)
		screenshot(t, ctx, "history-"+scheme)
		bad, passes := axeViolationsIn(t, ctx, `document.getElementById("history")`)
		t.Logf("axe-core on the history section (%s): %d rules passed, %d serious or critical", scheme, passes, len(bad))
		for _, b := range bad {
			t.Errorf("axe on the history (%s): %s", scheme, b)
		}
	}
	chromedp.Do(ctx, chromedp.Click(bar))
	waitJS(t, ctx, "the job's page", `document.getElementById("job-page").open && document.querySelectorAll("#job-page .job-facts li").length === 2`, 10*time.Second)
	text := js[string](t, ctx, `document.getElementById("job-page").innerText`)
	for _, want := range []string{"deploy-1 ship it", "team=infra", "killed", "kill", "release freeze", "job/registered v3", "job/settled v3", "UTC"} {
		if !strings.Contains(text, want) {
			t.Errorf("the job's page lacks %q:\n%s", want, text)
		}
	}
	for _, scheme := range []string{"light", "dark"} {
		emulateScheme(t, ctx, scheme)
		screenshot(t, ctx, "job-page-"+scheme)
		bad, passes := axeViolations(t, ctx)
		t.Logf("axe-core on the job's page (%s): %d rules passed, %d serious or critical", scheme, passes, len(bad))
		for _, b := range bad {
			t.Errorf("axe on the job's page (%s): %s", scheme, b)
		}
	}
}
