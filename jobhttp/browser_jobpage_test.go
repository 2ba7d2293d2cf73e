//go:build unix

package jobhttp_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/procjob"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// TestPageJobPageShowsWhatACommandRanAndLinksItsSubagent: a command job's
// page shows its command line quoted as a shell reads it back, its working
// directory and its exit code; a job of a subagent's session, opened from
// the history of every session, says it was killed by SIGTERM and links to
// the subagent, which the link selects in the tree.
func TestPageJobPageShowsWhatACommandRanAndLinksItsSubagent(t *testing.T) {
	ctx := browser(t)
	at := newAgentTree(t)
	at.settledTree(t)
	store := subagenttest.NewMemStore()
	rec := journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)
	s := newServerAs(t, func(*http.Request) (jobs.SessionID, error) { return "alice", nil }, []jobhttp.Option{
		jobhttp.WithHistory(jobhttp.StoreHistory(store)),
		jobhttp.WithAllHistory(jobhttp.StoreAllHistory(store)),
		jobhttp.WithJobFacts(jobhttp.StoreAllJobFacts(store)),
		jobhttp.WithOperator(func(s jobs.SessionID) bool { return s == "alice" }),
		jobhttp.WithSubagents(at.tree),
	}, registry.WithRecorder(rec))
	dir := t.TempDir()
	exited, err := s.reg.Start(t.Context(), procjob.Start(procjob.Options{
		Command: []string{"sh", "-c", "echo started; exit 3", "it's", "\x1b[31mred"}, Dir: dir, Owner: "alice", Recorder: rec, Label: "exits 3"}))
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, s.reg, "alice", exited.ID)
	coder, err := s.reg.Start(t.Context(), procjob.Start(procjob.Options{
		Command: []string{"sh", "-c", "echo started; exec sleep 60"}, Owner: "planner-coder", Recorder: rec, Label: "the coder's build"}))
	if err != nil {
		t.Fatal(err)
	}
	for r, _ := s.reg.Read("planner-coder", coder.ID); !strings.Contains(r.Output, "started"); r, _ = s.reg.Read("planner-coder", coder.ID) {
		if _, _, err := s.reg.Wait(t.Context(), "planner-coder", coder.ID, 20*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.reg.Kill("planner-coder", coder.ID, "enough"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, s.reg, "planner-coder", coder.ID)

	bar := `#timeline rect.bar[data-job="` + exited.ID.String() + `"]`
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(bar), chromedp.WaitVisible(`#subagents button.node[data-child="planner-coder"]`)); err != nil {
		t.Fatalf("the page never drew its bar and tree: %v", err)
	}
	chromedp.Do(ctx, chromedp.Click(bar))
	waitJS(t, ctx, "the job's page with its command", `document.getElementById("job-page").open && document.getElementById("job-page-argv") !== null`, 10*time.Second)
	if got, want := js[string](t, ctx, `document.getElementById("job-page-argv").textContent`), `sh -c 'echo started; exit 3' 'it'\''s' $'\x1b[31mred'`; got != want {
		t.Errorf("the command line reads %s; want %s", got, want)
	}
	if got := js[string](t, ctx, `document.getElementById("job-page-dir").textContent`); got != dir {
		t.Errorf("the directory reads %q; want %q", got, dir)
	}
	if got := js[string](t, ctx, `document.getElementById("job-page-exit").textContent`); got != "exit 3" {
		t.Errorf("the exit reads %q; want exit 3", got)
	}
	if js[int](t, ctx, `document.querySelectorAll("#job-page-subagent").length`) != 0 {
		t.Errorf("alice's own job links to a subagent")
	}
	for _, scheme := range []string{"light", "dark"} {
		emulateScheme(t, ctx, scheme)
		screenshot(t, ctx, "job-page-command-"+scheme)
		bad, passes := axeViolations(t, ctx)
		t.Logf("axe-core on a command job's page (%s): %d rules passed, %d serious or critical", scheme, passes, len(bad))
		for _, b := range bad {
			t.Errorf("axe on a command job's page (%s): %s", scheme, b)
		}
	}
	chromedp.Do(ctx, chromedp.Click(`#job-page-close`))

	chromedp.Do(ctx, chromedp.Click(`#history-all`))
	row := `#history tr[data-job="` + coder.ID.String() + `"] button.open-job`
	waitJS(t, ctx, "the coder's job in every session's history", `document.querySelector('`+row+`') !== null`, 10*time.Second)
	chromedp.Do(ctx, chromedp.Click(row))
	waitJS(t, ctx, "the coder's job page", `document.getElementById("job-page").open && document.getElementById("job-page-subagent") !== null`, 10*time.Second)
	if got := js[string](t, ctx, `document.getElementById("job-page-exit").textContent`); got != "killed by SIGTERM" {
		t.Errorf("the exit reads %q; want killed by SIGTERM", got)
	}
	if got := js[string](t, ctx, `document.getElementById("job-page-subagent").textContent`); got == "" {
		t.Errorf("the subagent link has no text")
	}
	for _, scheme := range []string{"light", "dark"} {
		emulateScheme(t, ctx, scheme)
		screenshot(t, ctx, "job-page-subagent-"+scheme)
		bad, passes := axeViolations(t, ctx)
		t.Logf("axe-core on a subagent's job page (%s): %d rules passed, %d serious or critical", scheme, passes, len(bad))
		for _, b := range bad {
			t.Errorf("axe on a subagent's job page (%s): %s", scheme, b)
		}
	}
	chromedp.Do(ctx, chromedp.Click(`#job-page-subagent`))
	waitJS(t, ctx, "the subagent chosen in the tree", `!document.getElementById("job-page").open && document.querySelector('#subagents button.node[data-child="planner-coder"]').getAttribute("aria-current") === "true" && document.activeElement.dataset.child === "planner-coder"`, 5*time.Second)
}
