package agenttools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
)

// kept fails the test unless the tools keep exactly cursors output
// cursors, waiting bytes waiting and parents parent sessions.
func kept(t *testing.T, ts *agenttools.Tools, cursors, waiting, parents int) {
	t.Helper()
	c, w, p := ts.Kept()
	if c != cursors || w != waiting || p != parents {
		t.Errorf("the tools keep %d cursors holding %d bytes and %d parents' subagents, want %d, %d and %d", c, w, p, cursors, waiting, parents)
	}
}

// What job_output read and did not show yet ends with the job's session:
// once DisposeOwner removed the session's jobs, nothing of them is kept,
// though the session never calls a tool again.
func TestJobOutputStateEndsWithTheSession(t *testing.T) {
	f := newFixture(t)
	j := f.start(jobSpec{owner: "a", consuming: true})
	j.write(strings.Repeat("x", 256<<10))
	output(t, f.tools.For("a"), j.snap.ID, 4)
	kept(t, f.tools, 1, 256<<10-4, 0)
	if err := f.reg.DisposeOwner(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	kept(t, f.tools, 0, 0, 0)
}

// What job_output kept for a job ends when the job is removed.
func TestJobOutputStateEndsWithTheJob(t *testing.T) {
	f := newFixture(t)
	j := f.start(jobSpec{owner: "a", consuming: true})
	other := f.start(jobSpec{owner: "a", consuming: true})
	j.write("0123456789")
	other.write("abcdefghij")
	output(t, f.tools.For("a"), j.snap.ID, 4)
	output(t, f.tools.For("a"), other.snap.ID, 4)
	j.settle(jobs.JobStatusCompleted, "", "")
	if err := f.reg.Remove("a", j.snap.ID); err != nil {
		t.Fatal(err)
	}
	kept(t, f.tools, 1, 6, 0)
	if got := output(t, f.tools.For("a"), other.snap.ID, 0); got.Output != "efghij" {
		t.Errorf("the other job's rest reads %q, want efghij", got.Output)
	}
}

// The subagents job_list remembers for a parent end with the parent's
// session.
func TestSubagentListEndsWithTheParentsSession(t *testing.T) {
	sf := newSubFixture(t)
	lead := sf.tools.ForAgent(sf.lead)
	call(t, lead, "subagent_start", map[string]any{"label": "look", "prompt": "look around"})
	next(t, sf.received) // its settlement notice
	kept(t, sf.tools, 0, 0, 1)
	if err := sf.reg.DisposeOwner(context.Background(), "lead"); err != nil {
		t.Fatal(err)
	}
	kept(t, sf.tools, 0, 0, 0)
}
