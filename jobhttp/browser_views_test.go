package jobhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
)

// The timeline, the subagent tree, themes, accessibility, small screens and
// scale.

// journalServer is a page server for alice whose registry records to a
// journal the history route reads, with subagents when given.
func journalServer(t *testing.T, subagents jobhttp.Subagents) *server {
	t.Helper()
	store, err := journal.Open(filepath.Join(t.TempDir(), "jobs.journal"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close(context.Background()) })
	return newServerAs(t, func(*http.Request) (jobs.SessionID, error) { return "alice", nil }, []jobhttp.Option{
		jobhttp.WithHistory(jobhttp.StoreHistory(store)),
		jobhttp.WithSubagents(subagents),
	}, registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)))
}

// everyOutcome starts, for alice, a job that completes, one that fails,
// one killed, one whose deadline passes, and one that runs on.
func everyOutcome(t *testing.T, s *server) {
	t.Helper()
	ctx := context.Background()
	ok, pok := s.startRecording("alice", "build", 0)
	bad, pbad := s.startRecording("alice", "test", 0)
	killed, _ := s.startRecording("alice", "serve", 0)
	slow := &producer{result: make(chan jobs.JobOutcome, 1)}
	late, err := s.reg.Start(ctx, jobs.PlainJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "deploy", Label: "deploy (times out)", Owner: "alice", Timeout: 300 * time.Millisecond},
		Run:            func(ctx context.Context, job jobs.RunningJob) (jobs.Hooks, error) { return slow.hooks(), nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond) // the bars get some length
	pok.finish(jobs.JobStatusCompleted, "built")
	time.Sleep(100 * time.Millisecond)
	pbad.finish(jobs.JobStatusFailed, "2 tests failed")
	if _, err := s.reg.Kill("alice", killed.ID, "enough"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []jobs.JobID{ok.ID, bad.ID, killed.ID, late.ID} {
		if _, _, err := s.reg.Wait(ctx, "alice", id, 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	s.startRecording("alice", "watch", 0)
}

func TestPageTimelineHasAnAxisALegendAndATooltip(t *testing.T) {
	ctx := browser(t)
	s := journalServer(t, nil)
	everyOutcome(t, s)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(`#timeline svg rect.bar-incomplete`)); err != nil {
		t.Fatalf("the timeline never drew: %v", err)
	}
	waitJS(t, ctx, "five bars", `document.querySelectorAll("#timeline rect.bar").length === 5`, 5*time.Second)
	classes := js[string](t, ctx, `[...document.querySelectorAll("#timeline rect.bar")].map(b => b.getAttribute("class").replace("bar ", "")).join(",")`)
	if classes != "bar-completed,bar-failed,bar-killed,bar-timeout,bar-incomplete" {
		t.Errorf("bar classes %q: want one per outcome", classes)
	}
	fills := js[string](t, ctx, `[...new Set([...document.querySelectorAll("#timeline rect.bar")].map(b => getComputedStyle(b).fill))].length + ""`)
	if fills != "5" {
		t.Errorf("%s distinct fills, want 5", fills)
	}
	if n := js[int](t, ctx, `document.querySelectorAll("#timeline .axis text").length`); n < 2 {
		t.Errorf("the axis has %d labelled ticks", n)
	}
	if n := js[int](t, ctx, `document.querySelectorAll("#timeline .legend li").length`); n != 5 {
		t.Errorf("the legend has %d entries", n)
	}
	if n := js[int](t, ctx, `document.querySelectorAll("#timeline path.open-end").length`); n != 1 {
		t.Errorf("%d open-ended bars, want the running one", n)
	}
	js[bool](t, ctx, `document.querySelector("#timeline rect.bar-timeout").focus(); true`)
	tip := js[string](t, ctx, `(t => t.hidden ? "" : t.textContent)(document.getElementById("timeline-tip"))`)
	for _, want := range []string{"deploy (times out)", "Start", "End", "Duration", "timed out", "timeout"} {
		if !strings.Contains(tip, want) {
			t.Errorf("the tooltip %q lacks %q", tip, want)
		}
	}
	screenshot(t, ctx, "timeline")
	// Zoom to a dragged range, then back.
	span := `(() => { const t = [...document.querySelectorAll("#timeline .axis text")].map(e => e.textContent); return t[0] + "-" + t[t.length-1]; })()`
	before := js[string](t, ctx, span)
	js[bool](t, ctx, `(() => { const svg = document.querySelector("#timeline svg"); const r = svg.getBoundingClientRect();
		const ev = (type, x) => svg.dispatchEvent(new PointerEvent(type, {clientX: r.left + x, clientY: r.top + 30, button: 0, pointerId: 1, bubbles: true}));
		ev("pointerdown", r.width * 0.3); ev("pointermove", r.width * 0.5); ev("pointerup", r.width * 0.5); return true; })()`)
	if js[bool](t, ctx, `document.querySelector("#timeline .zoom-reset").disabled`) {
		t.Fatalf("dragging across the plot did not zoom")
	}
	if after := js[string](t, ctx, span); after == before {
		t.Errorf("the axis still reads %s after a zoom", after)
	}
	chromedp.Do(ctx, chromedp.Click(`#timeline .zoom-reset`))
	if !js[bool](t, ctx, `document.querySelector("#timeline .zoom-reset").disabled`) {
		t.Errorf("reset did not unzoom")
	}
}

func TestPageShowsTheSubagentTreeLive(t *testing.T) {
	ctx := browser(t)
	at := newAgentTree(t)
	at.settledTree(t)
	s := journalServer(t, at.tree)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(`#subagents button.node[data-child="planner-coder"]`)); err != nil {
		t.Fatalf("the tree never showed: %v", err)
	}
	nested := js[string](t, ctx, `[...document.querySelectorAll("#subagents button.node")].map(b => b.dataset.child + "<" + (b.closest("ul").closest("li")?.querySelector("button.node").dataset.child ?? "")).join(",")`)
	if nested != "planner<,planner-researcher<planner,planner-coder<planner" {
		t.Errorf("tree %q: want the two children under the planner", nested)
	}
	if js[int](t, ctx, `document.querySelectorAll('#subagents button.node[data-child="bobs-helper"]').length`) != 0 {
		t.Errorf("alice's page shows bob's subagent")
	}
	state := func(id string) string {
		return js[string](t, ctx, `document.querySelector('#subagents button.node[data-child="`+id+`"] .state').textContent`)
	}
	if a, b, c := state("planner"), state("planner-researcher"), state("planner-coder"); a != "waiting" || b != "settled" || c != "running" {
		t.Errorf("states %s, %s, %s; want waiting, settled, running", a, b, c)
	}
	chromedp.Do(ctx, chromedp.Click(`#subagents button.node[data-child="planner"]`))
	waitJS(t, ctx, "the planner's history with the researcher's report", `document.querySelector("#subagents .events")?.textContent.includes("report from planner-researcher")`, 5*time.Second)
	if js[int](t, ctx, `document.querySelectorAll("#subagents .events .ev-text .bold").length`) == 0 {
		t.Errorf("the report's bold text is not rendered")
	}
	screenshot(t, ctx, "subagents")
	close(at.release)
	waitJS(t, ctx, "the coder and the planner settle, live", `[...document.querySelectorAll("#subagents .node .state")].every(s => s.textContent === "settled")`, 10*time.Second)
	waitJS(t, ctx, "the change announced", `document.getElementById("announce").textContent.includes("settled")`, 5*time.Second)
}

// emulateScheme makes the page see prefers-color-scheme: scheme.
func emulateScheme(t *testing.T, ctx context.Context, scheme string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	})); err != nil {
		t.Fatal(err)
	}
}

const pageBackground = `getComputedStyle(document.documentElement).backgroundColor`

func TestPageFollowsTheColourSchemeAndKeepsTheChosenTheme(t *testing.T) {
	ctx := browser(t)
	s := journalServer(t, nil)
	snap, p := s.startRecording("alice", "build", 0)
	for _, c := range colouredOutput {
		p.job.Append(c.text, jobs.AppendOptions{Channel: jobs.ChannelStdout})
	}
	emulateScheme(t, ctx, "dark")
	openOutput(t, ctx, s.srv.URL, snap.ID)
	waitJS(t, ctx, "the output and the timeline", `document.querySelectorAll(".ln").length > 5 && document.querySelector("#timeline svg") !== null`, 5*time.Second)
	if bg := js[string](t, ctx, pageBackground); bg != "rgb(13, 17, 23)" {
		t.Errorf("with a dark system scheme the page is %s", bg)
	}
	screenshot(t, ctx, "dark")
	// The toggle goes auto → dark → light, and the choice outlives a reload.
	chromedp.Do(ctx, chromedp.Click(`#theme`), chromedp.Click(`#theme`))
	if bg := js[string](t, ctx, pageBackground); bg != "rgb(255, 255, 255)" {
		t.Errorf("after choosing light the page is %s", bg)
	}
	chromedp.Do(ctx, chromedp.Reload())
	waitJS(t, ctx, "reloaded light", `document.getElementById("theme").textContent === "Theme: light"`, 5*time.Second)
	if bg := js[string](t, ctx, pageBackground); bg != "rgb(255, 255, 255)" {
		t.Errorf("after a reload the chosen light theme is lost: %s", bg)
	}
	waitJS(t, ctx, "the output and the timeline again", `document.querySelectorAll(".ln").length > 5 && document.querySelector("#timeline svg") !== null`, 5*time.Second)
	screenshot(t, ctx, "light")
}

func TestPageSpeaksOnlyOfStatusChanges(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	snap, p := s.startRecording("alice", "compile", 0)
	p.job.Append("compiling\n", jobs.AppendOptions{Channel: jobs.ChannelStdout})
	openOutput(t, ctx, s.srv.URL, snap.ID)
	live := js[string](t, ctx, `[...document.querySelectorAll('[aria-live]:not([aria-live="off"]), [role="status"]:not([aria-live="off"]), [role="alert"], [role="log"]:not([aria-live="off"])')].map(e => e.id).join(",")`)
	if live != "connection,announce" {
		t.Errorf("live regions %q: want only the connection and the status announcements", live)
	}
	p.finish(jobs.JobStatusCompleted, "done")
	waitJS(t, ctx, "the completion announced", `document.getElementById("announce").textContent.includes("completed")`, 10*time.Second)
}

// axeViolations runs axe-core (tools/ts/node_modules, a pinned dev
// dependency) in the page and returns its serious and critical violations,
// and how many rules passed.
func axeViolations(t *testing.T, ctx context.Context) (bad []string, passes int) {
	t.Helper()
	return axeViolationsIn(t, ctx, "document")
}

// axeViolationsIn is axeViolations over the part of the page the
// JavaScript expression within names (a page of thousands of elements
// would take axe minutes).
func axeViolationsIn(t *testing.T, ctx context.Context, within string) (bad []string, passes int) {
	t.Helper()
	root, _ := filepath.Abs("..")
	src, err := os.ReadFile(filepath.Join(root, "tools/ts/node_modules/axe-core/axe.min.js"))
	if err != nil {
		msg := "axe-core is not installed: run `make ts-deps`"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	js[bool](t, ctx, string(src)+"\n;true")
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(`+within+`, {resultTypes: ["violations"]}).then(r => JSON.stringify({
		passes: r.passes.length,
		violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 4).map(n => n.target.join(" "))}))}))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Passes     int
		Violations []struct {
			ID, Impact, Help string
			Nodes            []string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Violations {
		line := v.Impact + " " + v.ID + ": " + v.Help + " at " + strings.Join(v.Nodes, "; ")
		if v.Impact == "serious" || v.Impact == "critical" {
			bad = append(bad, line)
		} else {
			t.Logf("axe (minor): %s", line)
		}
	}
	return bad, res.Passes
}

func TestPageHasNoSeriousAccessibilityViolations(t *testing.T) {
	ctx := browser(t)
	at := newAgentTree(t)
	at.settledTree(t)
	s := journalServer(t, at.tree)
	everyOutcome(t, s)
	snap, p := s.startRecording("alice", "build", 0)
	for _, c := range colouredOutput {
		p.job.Append(c.text, jobs.AppendOptions{Channel: jobs.ChannelStdout})
	}
	for _, scheme := range []string{"light", "dark"} {
		emulateScheme(t, ctx, scheme)
		row := openOutput(t, ctx, s.srv.URL, snap.ID)
		waitJS(t, ctx, "the page filled", `document.querySelectorAll("#timeline rect.bar").length >= 6 && document.querySelectorAll("#subagents .events li").length > 0 && document.querySelectorAll('`+row+` .ln').length > 5`, 10*time.Second)
		chromedp.Do(ctx, chromedp.SendKeys(row+" .log-search", "ok"))
		bad, passes := axeViolations(t, ctx)
		t.Logf("axe-core in the %s scheme: %d rules passed, %d serious or critical violations", scheme, passes, len(bad))
		for _, b := range bad {
			t.Errorf("axe (%s scheme): %s", scheme, b)
		}
	}
}

func TestPageFitsANarrowScreen(t *testing.T) {
	ctx := browser(t)
	at := newAgentTree(t)
	at.settledTree(t)
	s := journalServer(t, at.tree)
	snap, p := s.startRecording("alice", "a job with a rather long label that must wrap on a phone", 0)
	for _, c := range colouredOutput {
		p.job.Append(c.text, jobs.AppendOptions{Channel: jobs.ChannelStdout})
	}
	p.job.Append(strings.Repeat("a long line of output without spaces ", 8)+"\n", jobs.AppendOptions{Channel: jobs.ChannelStdout})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 740)); err != nil {
		t.Fatal(err)
	}
	openOutput(t, ctx, s.srv.URL, snap.ID)
	waitJS(t, ctx, "the output, the tree and the timeline", `document.querySelectorAll(".ln").length > 5 && document.querySelector("#subagents .events") !== null && document.querySelector("#timeline svg") !== null`, 10*time.Second)
	scrollWidth := js[int](t, ctx, `document.documentElement.scrollWidth`)
	clientWidth := js[int](t, ctx, `document.documentElement.clientWidth`)
	if scrollWidth > clientWidth {
		t.Errorf("at 360 px the page scrolls sideways: scrollWidth %d > clientWidth %d", scrollWidth, clientWidth)
	}
	screenshot(t, ctx, "narrow")
}

// TestPageSubagentPanelLeavesTheTimelineAboveTheFold: at a 900 px tall
// viewport, one column or two, the subagent panel with a child's history
// open scrolls within itself, and the timeline's heading and plot start
// on the first screen.
func TestPageSubagentPanelLeavesTheTimelineAboveTheFold(t *testing.T) {
	ctx := browser(t)
	at := newAgentTree(t)
	at.settledTree(t)
	s := journalServer(t, at.tree)
	s.startRecording("alice", "serve the docs", 0)
	for _, width := range []int64{1024, 1280} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(s.srv.URL+"/")); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, "the tree's history and the timeline", `document.querySelector("#subagents .events li") !== null && document.querySelector("#timeline svg") !== null`, 10*time.Second)
		top := js[float64](t, ctx, `(() => { window.scrollTo(0, 0); return document.querySelector("#timeline svg").getBoundingClientRect().top; })()`)
		if top > 900-60 {
			t.Errorf("at %d×900 the timeline's plot starts at %.0f px: the subagent panel pushed it below the fold", width, top)
		}
		viewportShot(t, ctx, fmt.Sprintf("subagents-fold-%d", width))
	}
}

// TestPageSubagentEventLabelsStayBesideTheirTimes: in a child's history,
// each event's label starts on the line of its time, however narrow the
// screen; a long label wraps within its own column.
func TestPageSubagentEventLabelsStayBesideTheirTimes(t *testing.T) {
	ctx := browser(t)
	at := newAgentTree(t)
	at.settledTree(t)
	s := journalServer(t, at.tree)
	for _, width := range []int64{320, 1024} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(s.srv.URL+"/")); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, "the planner's history", `document.querySelector("#subagents .events")?.textContent.includes("report from planner-researcher")`, 10*time.Second)
		apart := js[string](t, ctx, `[...document.querySelectorAll("#subagents .ev")].filter(ev => {
			const ts = ev.querySelector(".ts").getBoundingClientRect(), kind = ev.querySelector(".ev-kind").getBoundingClientRect();
			return Math.abs(kind.top - ts.top) > 2 || kind.left < ts.right;
		}).map(ev => ev.querySelector(".ev-kind").textContent).join(" | ")`)
		if apart != "" {
			t.Errorf("at %d px these event labels wrapped away from their times: %s", width, apart)
		}
		if width == 320 {
			for _, scheme := range []string{"light", "dark"} {
				emulateScheme(t, ctx, scheme)
				viewportShot(t, ctx, "subagent-events-narrow-"+scheme)
				bad, passes := axeViolationsIn(t, ctx, `document.getElementById("subagents")`)
				t.Logf("axe-core on the subagent panel at 320 px (%s): %d rules passed, %d serious or critical", scheme, passes, len(bad))
				for _, b := range bad {
					t.Errorf("axe on the subagent panel (%s): %s", scheme, b)
				}
			}
		}
	}
}
