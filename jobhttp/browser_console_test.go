package jobhttp_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// The roster as a console: filters, counts, live
// durations, permalinks, kill with a confirmation, and the keyboard.

// mixedRoster starts jobs of every status for alice, two kinds, and one of
// bob's, and waits until the settled ones have settled.
func mixedRoster(t *testing.T, s *server) (running, failed jobs.JobSnapshot, p *producer) {
	t.Helper()
	running, p = s.startRecording("alice", "serve the docs", 0)
	done, pd := s.startRecording("alice", "build the app", 0)
	failed, pf := s.startRecording("alice", "test the app", 0)
	s.startPlain("alice", "index the docs")
	s.startPlain("bob", "bob's job")
	pd.finish(jobs.JobStatusCompleted, "built")
	pf.finish(jobs.JobStatusFailed, "2 tests failed")
	for _, id := range []jobs.JobID{done.ID, failed.ID} {
		if _, _, err := s.reg.Wait(context.Background(), "alice", id, 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	return running, failed, p
}

// shownNames are the names of the roster rows the filters show.
const shownNames = `[...document.querySelectorAll("li.job:not([hidden]) .name")].map(e => e.textContent).join(",")`

func TestPageFiltersTheRosterAndCountsEachStatus(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	running, failed, _ := mixedRoster(t, s)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(rowSelector(failed.ID))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "four rows", `document.querySelectorAll("li.job").length === 4`, 5*time.Second)
	tabs := js[string](t, ctx, `[...document.querySelectorAll("#status-tabs .tab")].map(b => b.textContent).join(",")`)
	if tabs != "All 4,running 2,stopping 0,completed 1,failed 1,killed 0" {
		t.Errorf("status tabs %q", tabs)
	}
	chromedp.Do(ctx, chromedp.Click(`#status-tabs .tab[data-status="failed"]`))
	if got := js[string](t, ctx, shownNames); got != failed.Name {
		t.Errorf("the failed tab shows %q, want %s", got, failed.Name)
	}
	if !strings.Contains(js[string](t, ctx, `location.hash`), "status=failed") {
		t.Errorf("the filter is not in the URL: %q", js[string](t, ctx, `location.hash`))
	}
	chromedp.Do(ctx, chromedp.Click(`#status-tabs .tab[data-status=""]`))
	setField(t, ctx, "filter-kind", "plain", "change")
	if got := js[string](t, ctx, shownNames); got != "plain-1" {
		t.Errorf("kind plain shows %q", got)
	}
	setField(t, ctx, "filter-kind", "", "change")
	chromedp.Do(ctx, chromedp.SendKeys(`#filter-text`, "the app"))
	if got := js[string](t, ctx, shownNames); got != "test-2,test-3" {
		t.Errorf("the text filter 'the app' shows %q", got)
	}
	owners := js[string](t, ctx, `[...document.querySelectorAll("#filter-owner option")].map(o => o.value).join(",")`)
	if owners != ",alice" {
		t.Errorf("owner choices %q: a session sees only its own", owners)
	}
	// A running job's duration ticks.
	dur := `document.querySelector('` + rowSelector(running.ID) + ` .dur').textContent`
	first := js[string](t, ctx, dur)
	waitJS(t, ctx, "the running duration ticks", dur+` !== `+quote(first), 5*time.Second)
	setField(t, ctx, "filter-text", "", "input")
	screenshot(t, ctx, "roster-filters")
}

// setField sets the value of the element with id and fires the event the
// page listens for.
func setField(t *testing.T, ctx context.Context, id, value, event string) {
	t.Helper()
	js[bool](t, ctx, `(e => { e.value = `+quote(value)+`; return e.dispatchEvent(new Event("`+event+`")); })(document.getElementById("`+id+`"))`)
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

func TestPagePermalinksSurviveReloadAndHistory(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	snap, p := s.startRecording("alice", "long log", 0)
	var b strings.Builder
	for i := 1; i <= 500; i++ {
		b.WriteString("line " + itoa(i) + "\n")
	}
	p.job.Append(b.String(), jobs.AppendOptions{Channel: jobs.ChannelStdout})
	row := openOutput(t, ctx, s.srv.URL, snap.ID)
	if h := js[string](t, ctx, `location.hash`); h != "#job="+snap.ID.String() {
		t.Errorf("opening the output made the URL %q", h)
	}
	// A link to line 123, opened in a fresh load, shows that line marked.
	link := s.srv.URL + "/#job=" + snap.ID.String() + "&line=123"
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(link)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "line 123 marked after a load", `document.querySelector('`+row+` .ln.target[data-line="123"]') !== null`, 10*time.Second)
	top := js[float64](t, ctx, `document.querySelector('`+row+` .ln.target').getBoundingClientRect().top - document.querySelector('`+row+` .output').getBoundingClientRect().top`)
	if top < 0 || top > 400 {
		t.Errorf("line 123 is %v px from the pane's top, not in view", top)
	}
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "line 123 marked after a reload", `document.querySelector('`+row+` .ln.target[data-line="123"]') !== null`, 10*time.Second)
	// Closing the output is a history entry; back opens it again.
	chromedp.Do(ctx, chromedp.Click(row+" button.toggle"))
	waitJS(t, ctx, "closed", `document.querySelector('`+row+` .log').hidden`, 5*time.Second)
	chromedp.Do(ctx, chromedp.NavigateBack())
	waitJS(t, ctx, "open again after back", `!document.querySelector('`+row+` .log').hidden`, 5*time.Second)
	chromedp.Do(ctx, chromedp.NavigateForward())
	waitJS(t, ctx, "closed again after forward", `document.querySelector('`+row+` .log').hidden`, 5*time.Second)
	// The pane kept its place, and a click on a line number is a link to it.
	chromedp.Do(ctx, chromedp.Click(row+" button.toggle"))
	waitJS(t, ctx, "rows", `document.querySelector('`+row+` .ln .num') !== null`, 5*time.Second)
	js[bool](t, ctx, `document.querySelector('`+row+` .ln[data-line="130"] .num').click(); true`)
	waitJS(t, ctx, "the line's link in the URL", `location.hash.endsWith("line=130")`, 5*time.Second)
}

func TestPageAsksBeforeAKillAndSendsTheReason(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	snap, _ := s.startRecording("alice", "serve forever", 0)
	row := rowSelector(snap.ID)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(row+" button.kill"), chromedp.Click(row+" button.kill")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the confirmation", `document.getElementById("kill-dialog").open`, 5*time.Second)
	chromedp.Do(ctx, chromedp.Click(`#kill-cancel`))
	waitJS(t, ctx, "the dialog closed", `!document.getElementById("kill-dialog").open`, 5*time.Second)
	time.Sleep(200 * time.Millisecond)
	if got, _ := s.reg.Get("alice", snap.ID); got.Status != jobs.JobStatusRunning {
		t.Fatalf("cancelling the confirmation killed the job: %s", got.Status)
	}
	chromedp.Do(ctx, chromedp.Click(row+" button.kill"))
	waitJS(t, ctx, "the confirmation again", `document.getElementById("kill-dialog").open`, 5*time.Second)
	if what := js[string](t, ctx, `document.getElementById("kill-what").textContent`); !strings.Contains(what, "serve forever") {
		t.Errorf("the dialog names %q", what)
	}
	chromedp.Do(ctx, chromedp.SetValue(`#kill-reason`, "the demo is over"))
	screenshot(t, ctx, "kill-confirm")
	chromedp.Do(ctx, chromedp.Click(`#kill-confirm`))
	waitJS(t, ctx, "killed", `document.querySelector('`+row+` .status.status-killed') !== null`, 15*time.Second)
	got, err := s.reg.Get("alice", snap.ID)
	if err != nil || got.Status != jobs.JobStatusKilled || !strings.Contains(got.Detail, "the demo is over") {
		t.Fatalf("after the kill the registry says %s %q (%v), want killed with the reason", got.Status, got.Detail, err)
	}
	if d := js[string](t, ctx, `document.querySelector('`+row+` .detail').textContent`); !strings.Contains(d, "the demo is over") {
		t.Errorf("the row's detail %q does not show the reason", d)
	}
}

func TestPageRowsAndPanesWorkFromTheKeyboard(t *testing.T) {
	ctx := browser(t)
	s := pageServer(t)
	first, p := s.startRecording("alice", "first", 0)
	p.job.Append("hello\n", jobs.AppendOptions{Channel: jobs.ChannelStdout})
	second, _ := s.startRecording("alice", "second", 0)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(rowSelector(second.ID))); err != nil {
		t.Fatal(err)
	}
	focused := `document.activeElement.closest("li.job")?.dataset.job ?? ""`
	js[bool](t, ctx, `document.querySelector('`+rowSelector(first.ID)+` .job-head').focus(); true`)
	if tabbable := js[int](t, ctx, `document.querySelectorAll('.job-head[tabindex="0"]').length`); tabbable != 1 {
		t.Errorf("%d rows are in the tab order, want one (a roving tabindex)", tabbable)
	}
	chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowDown))
	if got := js[string](t, ctx, focused); got != second.ID.String() {
		t.Errorf("ArrowDown focused %q, want the second row", got)
	}
	chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowUp))
	chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter))
	waitJS(t, ctx, "Enter opened the output and focused it", `document.activeElement.classList.contains("output")`, 5*time.Second)
	chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape))
	if got := js[string](t, ctx, focused); got != first.ID.String() || !js[bool](t, ctx, `document.activeElement.classList.contains("job-head")`) {
		t.Errorf("Escape in the pane should return to its row; focus is on %q", js[string](t, ctx, `document.activeElement.outerHTML.slice(0, 80)`))
	}
	chromedp.Do(ctx, chromedp.KeyEvent("/"))
	if id := js[string](t, ctx, `document.activeElement.id`); id != "filter-text" {
		t.Errorf("/ focused %q, want the roster's filter", id)
	}
}

// TestPageOfOneHostNeverAsksForTheFleet: one host's page knows from the
// document it loaded that it is no fleet view, so it makes no api/fleet
// request (counted by the browser's own resource timing) and shows no
// Host filter.
func TestPageOfOneHostNeverAsksForTheFleet(t *testing.T) {
	ctx := browser(t)
	s := newServerAs(t, func(*http.Request) (jobs.SessionID, error) { return "alice", nil }, nil)
	s.startRecording("alice", "serve the docs", 0)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(`li.job`)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the page has loaded its views", `document.getElementById("connection").textContent !== "connecting…"`, 10*time.Second)
	requests := js[string](t, ctx, `performance.getEntriesByType("resource").map(e => new URL(e.name).pathname).join(" ")`)
	if strings.Contains(requests, "/api/fleet") {
		t.Errorf("one host's page asked for the fleet: %s", requests)
	}
	if !strings.Contains(requests, "/api/") {
		t.Errorf("the resource timing saw no api request at all (%q): the count would prove nothing", requests)
	}
	if js[bool](t, ctx, `!document.getElementById("filter-host").closest("label").hidden`) {
		t.Errorf("one host's page shows the Host filter")
	}
}

// TestFleetPageFiltersTheHistoryByHost: served by a fleet, the history
// section offers a Host filter (and no "every session"), and choosing a
// host keeps that host's jobs only; axe finds nothing serious in either
// theme.
func TestFleetPageFiltersTheHistoryByHost(t *testing.T) {
	schema := pgtest.Schema(t)
	lease := 1500 * time.Millisecond
	a, b := newFleetHost(t, schema, "host-a", lease), newFleetHost(t, schema, "host-b", lease)
	fleet := newTestFleetFor(t, schema, lease, func(*http.Request) (jobs.SessionID, error) { return "alice", nil }, peersOf(a, b))
	ctx := browser(t)
	onA, _ := a.startRecording("alice", "build on a", 0)
	onB, _ := b.startRecording("alice", "test on b", 0)
	if err := chromedp.Do(ctx, chromedp.Navigate(fleet.srv.URL+"/"), chromedp.WaitVisible(rowSelector(onA.ID)), chromedp.WaitVisible(rowSelector(onB.ID))); err != nil {
		t.Fatalf("the fleet page never showed both hosts' jobs: %v", err)
	}
	historyRows := `[...document.querySelectorAll("#history tbody tr")].map(tr => tr.dataset.job).sort().join(",")`
	both := strings.Join(sortedIDs(onA.ID, onB.ID), ",")
	waitJS(t, ctx, "both hosts' jobs in the history", historyRows+` === "`+both+`" && document.getElementById("history-host").options.length === 3`, 10*time.Second)
	if js[bool](t, ctx, `document.getElementById("history-host").closest("label").hidden || document.getElementById("history-all") !== null`) {
		t.Errorf("the fleet's history section should offer a Host filter and no every-session box")
	}
	setField(t, ctx, "history-host", "host-b", "change")
	waitJS(t, ctx, "host-b's job alone", historyRows+` === "`+onB.ID.String()+`"`, 10*time.Second)
	// The fleet declines job pages: its row says so rather than "no such job".
	chromedp.Do(ctx, chromedp.Click(`#history tbody button.open-job`))
	waitJS(t, ctx, "the declined job page says why", `document.getElementById("job-page").open && document.getElementById("job-page").textContent.includes("keeps no job pages")`, 10*time.Second)
	chromedp.Do(ctx, chromedp.Click(`#job-page-close`))
	for _, scheme := range []string{"light", "dark"} {
		emulateScheme(t, ctx, scheme)
		chromedp.Do(ctx, chromedp.ScrollIntoView(`#history`))
		viewportShot(t, ctx, "fleet-history-host-"+scheme)
		bad, passes := axeViolationsIn(t, ctx, `document.getElementById("history")`)
		t.Logf("axe-core on the fleet's history (%s): %d rules passed, %d serious or critical", scheme, passes, len(bad))
		for _, b := range bad {
			t.Errorf("axe on the fleet's history (%s): %s", scheme, b)
		}
	}
}

func sortedIDs(ids ...jobs.JobID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	slices.Sort(out)
	return out
}
