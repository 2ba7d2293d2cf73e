package jobhttp_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// Served by a fleet, the page shows the session's jobs of every host with
// their host, filters by host, follows a job's output through the fleet,
// and shows a dead host's unsettled job as lost, with no kill offered; axe
// finds no serious or critical violation on it.
func TestFleetPageShowsEveryHostAndADeadHostsJobsLost(t *testing.T) {
	schema := pgtest.Schema(t)
	lease := 1500 * time.Millisecond
	a, b := newFleetHost(t, schema, "host-a", lease), newFleetHost(t, schema, "host-b", lease)
	fleet := newTestFleetFor(t, schema, lease, func(*http.Request) (jobs.SessionID, error) { return "alice", nil }, peersOf(a, b))
	ctx := browser(t)

	onA, pa := a.startRecording("alice", "build on a", 0)
	onB, _ := b.startRecording("alice", "test on b", 0)
	b.startRecording("bob", "bob's job", 0)
	pa.job.Append("hello through the fleet\n", jobs.AppendOptions{})
	if err := chromedp.Do(ctx,
		chromedp.Navigate(fleet.srv.URL+"/"),
		chromedp.WaitVisible(rowSelector(onA.ID)),
		chromedp.WaitVisible(rowSelector(onB.ID)),
	); err != nil {
		t.Fatalf("the fleet page never showed both hosts' jobs: %v", err)
	}
	if title, rows := js[string](t, ctx, `document.getElementById("title").textContent`), js[int](t, ctx, `document.querySelectorAll("li.job").length`); title != "Fleet jobs" || rows != 2 {
		t.Fatalf("fleet page: title %q, %d rows; want Fleet jobs and alice's 2", title, rows)
	}
	if host := run(t, ctx, chromedp.Text(rowSelector(onB.ID)+" .host")); host != "host-b" {
		t.Fatalf("host of the job on host-b: %q", host)
	}
	setField(t, ctx, "filter-host", "host-a", "change")
	waitJS(t, ctx, "the host filter", `document.querySelector(`+quote(rowSelector(onB.ID))+`).hidden && !document.querySelector(`+quote(rowSelector(onA.ID))+`).hidden`, 5*time.Second)
	setField(t, ctx, "filter-host", "", "change")

	row := openOutput(t, ctx, fleet.srv.URL, onA.ID)
	waitJS(t, ctx, "output followed through the fleet", `document.querySelector(`+quote(row+" .output")+`).textContent.includes("hello through the fleet")`, 10*time.Second)

	b.beat() // host-b stops beating, as a host SIGKILLed does
	waitJS(t, ctx, "host-b's job shown lost", `document.querySelector(`+quote(rowSelector(onB.ID)+" .status")+`).textContent === "lost"`, 10*time.Second)
	if js[bool](t, ctx, `!document.querySelector(`+quote(rowSelector(onB.ID)+" button.kill")+`).disabled`) {
		t.Fatal("a lost job's row offers a kill")
	}
	if st := run(t, ctx, chromedp.Text(rowSelector(onA.ID)+" .status")); st != "running" {
		t.Fatalf("host-a's job after host-b died: %q, want running", st)
	}
	if n := js[string](t, ctx, `document.querySelector('[data-status="lost"]').textContent`); n == "" {
		t.Fatal("no lost tab")
	}
	waitJS(t, ctx, "host-b's job drawn lost in the timeline, with a legend entry", `document.querySelector('#timeline rect.bar-lost[data-job="`+onB.ID.String()+`"]') !== null && [...document.querySelectorAll("#timeline .legend li")].some(li => li.textContent === "lost with its host")`, 15*time.Second)
	bad, passes := axeViolations(t, ctx)
	t.Logf("axe-core on the fleet page: %d rules passed, %d serious or critical violations", passes, len(bad))
	for _, b := range bad {
		t.Errorf("axe (fleet page): %s", b)
	}
	screenshot(t, ctx, "fleet")
}
