package jobhttp_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// TestPageTimelineOfManyJobsDrawsTheRowsInView: over a history of 400
// settled jobs the timeline keeps its axis and legend, holds every row
// (data-rows) and draws only those in its scroll box's view and a margin; a
// scroll to the end draws the last rows instead of the first; a refetch
// that brings the same intervals is not drawn again; zoom still works; and
// axe-core finds nothing serious in either theme.
func TestPageTimelineOfManyJobsDrawsTheRowsInView(t *testing.T) {
	ctx := browser(t)
	store := subagenttest.NewMemStore()
	var first, last jobs.JobID
	for i := range 400 {
		reg := jobs.JobRegistered{JobID: jobs.NewJobID(), At: int64(1_700_000_000_000 + i*1000), Owner: "alice", Kind: "plain", Label: fmt.Sprint("job ", i), Ordinal: i + 1}
		status := jobs.JobStatusCompleted
		if i%7 == 3 {
			status = jobs.JobStatusFailed
		}
		settled := jobs.JobSettled{JobID: reg.JobID, At: reg.At + 400 + int64(i%5)*300, Status: status, ProducerReported: true, Cause: jobs.SettlementCauseProducer,
			Registration: jobs.JobRegistration{RegisteredAt: reg.At, Owner: "alice", Kind: "plain", Label: reg.Label, Ordinal: reg.Ordinal}}
		for _, f := range []jobs.Fact{reg, settled} {
			p, err := jobs.EncodeFact(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.Append(t.Context(), journal.Stream("alice"), journal.Entry{Payload: p}); err != nil {
				t.Fatal(err)
			}
		}
		if i == 0 {
			first = reg.JobID
		}
		last = reg.JobID
	}
	s := newServerAs(t, func(*http.Request) (jobs.SessionID, error) { return "alice", nil }, []jobhttp.Option{jobhttp.WithHistory(jobhttp.StoreHistory(store))})
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	plot := `document.querySelector("#timeline .timeline-plot")`
	bar := func(id jobs.JobID) string {
		return `document.querySelector('#timeline rect.bar[data-job="` + id.String() + `"]') !== null`
	}
	waitJS(t, ctx, "the timeline's 400 rows", plot+`.dataset.rows === "400" && `+bar(first), 15*time.Second)
	if n := js[int](t, ctx, `document.querySelectorAll("#timeline rect.bar").length`); n >= 100 || n < 10 {
		t.Errorf("the timeline drew %d bars of 400; want the rows in view and a margin", n)
	}
	if n := js[int](t, ctx, `document.querySelectorAll("#timeline .axis text").length`); n < 2 {
		t.Errorf("the axis has %d tick labels", n)
	}
	if n := js[int](t, ctx, `document.querySelectorAll("#timeline .legend li").length`); n != 5 {
		t.Errorf("the legend has %d entries, want 5", n)
	}
	if h := js[float64](t, ctx, `document.querySelector("#timeline .timeline-rows").clientHeight`); h > 460 {
		t.Errorf("the timeline's box is %.0f px tall; it scrolls at twenty rows", h)
	}
	for _, scheme := range []string{"light", "dark"} {
		emulateScheme(t, ctx, scheme)
		screenshot(t, ctx, "timeline-windowed-"+scheme)
		bad, passes := axeViolationsIn(t, ctx, `document.querySelector(".timeline-section")`)
		t.Logf("axe-core on the windowed timeline (%s): %d rules passed, %d serious or critical", scheme, passes, len(bad))
		for _, b := range bad {
			t.Errorf("axe on the windowed timeline (%s): %s", scheme, b)
		}
	}
	// A read of the history that brings the same intervals (new objects, as
	// a refetch decodes them) draws nothing.
	drawn := `document.querySelector("#timeline svg.timeline-bars")`
	js[bool](t, ctx, `(() => { window.drawnBefore = `+drawn+`; const tl = window.jobsTimeline; tl.draw(tl.items.map(iv => ({...iv}))); return true; })()`)
	if !js[bool](t, ctx, plot+`.dataset.skipped === "1" && window.drawnBefore === `+drawn) {
		t.Errorf("the same intervals again drew the plot again")
	}
	js[bool](t, ctx, `(() => { const tl = window.jobsTimeline, c = tl.items.map(iv => ({...iv})); c[0] = {...c[0], status: "failed"}; tl.draw(c); return true; })()`)
	if !js[bool](t, ctx, `document.querySelector('#timeline rect.bar-failed[data-job="`+first.String()+`"]') !== null`) {
		t.Errorf("a changed status was not drawn")
	}
	js[bool](t, ctx, `(b => { b.scrollTop = b.scrollHeight; return true; })(document.querySelector("#timeline .timeline-rows"))`)
	waitJS(t, ctx, "the last rows drawn after a scroll to the end", bar(last)+` && !(`+bar(first)+`)`, 5*time.Second)
	// Focus stays on a bar the scroll draws again.
	js[bool](t, ctx, `document.querySelector('#timeline rect.bar[data-job="`+last.String()+`"]').focus(); true`)
	js[bool](t, ctx, `(b => { b.scrollTop -= 30; return true; })(document.querySelector("#timeline .timeline-rows"))`)
	waitJS(t, ctx, "the focused bar kept after a repaint", `document.activeElement !== null && document.activeElement.getAttribute("data-job") === "`+last.String()+`"`, 5*time.Second)
	// The arrow keys move between rows' bars, drawing a row not drawn yet.
	js[bool](t, ctx, `(b => { b.scrollTop = 0; return true; })(document.querySelector("#timeline .timeline-rows"))`)
	waitJS(t, ctx, "the first rows drawn again", bar(first), 5*time.Second)
	js[bool](t, ctx, `document.querySelector('#timeline rect.bar[data-job="`+first.String()+`"]').focus(); true`)
	for range 40 {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowDown)); err != nil {
			t.Fatal(err)
		}
	}
	if row := js[string](t, ctx, `document.activeElement.getAttribute("data-row") ?? "none"`); row != "40" {
		t.Errorf("after 40 presses of ArrowDown from the first bar the focus is on row %s, want 40", row)
	}
	if !js[bool](t, ctx, `(b => { const r = document.activeElement.getBoundingClientRect(), v = b.getBoundingClientRect(); return r.top >= v.top && r.bottom <= v.bottom; })(document.querySelector("#timeline .timeline-rows"))`) {
		t.Errorf("the focused bar is outside the box's view")
	}
	if c := js[string](t, ctx, `document.querySelector("#timeline .timeline-count").textContent`); !strings.HasPrefix(c, "400 jobs: scroll") {
		t.Errorf("the timeline's count says %q", c)
	}
	before := js[string](t, ctx, `[...document.querySelectorAll("#timeline .timeline-axis text")].map(e => e.textContent).join(",")`)
	if err := chromedp.Do(ctx, chromedp.Click(`#timeline .zoom-in`)); err != nil {
		t.Fatal(err)
	}
	if js[bool](t, ctx, `document.querySelector("#timeline .zoom-reset").disabled`) {
		t.Fatal("Zoom in did not zoom")
	}
	if after := js[string](t, ctx, `[...document.querySelectorAll("#timeline .timeline-axis text")].map(e => e.textContent).join(",")`); after == before {
		t.Errorf("the axis still reads %s after a zoom", after)
	}
	if !js[bool](t, ctx, `document.querySelector('#timeline rect.bar[data-row="40"]') !== null`) {
		t.Errorf("a zoom lost the rows in view")
	}
}

// TestPageTimelineOfARunningJobFollowsTheClock: while a drawn interval is
// incomplete the page reads the history again every 5 s and draws the axis
// up to the new now, so a running bar grows with the clock.
func TestPageTimelineOfARunningJobFollowsTheClock(t *testing.T) {
	ctx := browser(t)
	s := journalServer(t, nil)
	everyOutcome(t, s)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(`#timeline svg rect.bar-incomplete`)); err != nil {
		t.Fatalf("the timeline never drew: %v", err)
	}
	label := `document.querySelector("#timeline svg.timeline-bars").getAttribute("aria-label")`
	before := js[string](t, ctx, label)
	waitJS(t, ctx, "the axis moved with the clock", label+` !== `+strconv.Quote(before), 15*time.Second)
}
