package agenttools_test

import (
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
)

// A job's result comes with the call that returns the last of its final
// output, once; the calls before it (the output cut to their budget) and
// after it carry none.
func TestJobOutputShowsTheResultWithTheFinalOutputOnce(t *testing.T) {
	for _, consuming := range []bool{true, false} {
		f := newFixture(t)
		j := f.start(jobSpec{owner: "a", consuming: consuming})
		final := "the answer follows"
		if consuming {
			j.write(final)
			final = ""
		}
		j.face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Output: final, Result: "42"}, nil)
		ts := f.tools.For("a")
		first := decode[tools.JobOutputResult](t, call(t, ts, "job_output", map[string]any{"jobId": j.snap.ID, "maxBytes": 8}))
		if first.Result != "" || !first.Truncated {
			t.Errorf("consuming=%v: the first call, cut to 8 bytes = %+v; want no result yet", consuming, first)
		}
		last := decode[tools.JobOutputResult](t, call(t, ts, "job_output", map[string]any{"jobId": j.snap.ID}))
		if last.Result != "42" || first.Output+last.Output != "the answer follows" {
			t.Errorf("consuming=%v: the last call = %+v; want the rest of the output and the result", consuming, last)
		}
		again := decode[tools.JobOutputResult](t, call(t, ts, "job_output", map[string]any{"jobId": j.snap.ID}))
		if again.Result != "" || again.Output != "" {
			t.Errorf("consuming=%v: a call after that = %+v; want nothing handed again", consuming, again)
		}
	}
}
