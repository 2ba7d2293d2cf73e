package retention_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/retention"
)

// TestChooseKeepsAStreamHoldingAFactOnlyANewerBuildCanJudge: the retention
// rule for what this build does not know (decision 0174). A job or subagent
// fact a newer build wrote (a version, or a value, this build does not know)
// may be the very settlement that ends the stream's history, so the stream
// is kept, with a reason naming the fact, even with AllowUnknown, which
// speaks of other vocabularies only; the other streams are judged as ever.
func TestChooseKeepsAStreamHoldingAFactOnlyANewerBuildCanJudge(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	done := registered("s-done", 1)
	record(t, s, "s-done", done, settled(done))
	r := registered("s-newer", 2)
	record(t, s, "s-newer", r, `{"type":"job/settled","v":9,"data":{"jobId":"`+r.JobID.String()+`","at":2}}`)
	record(t, s, "s-value", `{"type":"subagent/residency-ended","v":1,"data":{"run":"6ba7b812-9dad-11d1-80b4-00c04fd430c8","at":2,"stopReason":"handedOff"}}`)
	time.Sleep(20 * time.Millisecond)
	for _, allow := range []bool{false, true} {
		plan, err := retention.Choose(ctx, s, retention.Options{Before: time.Now(), AllowUnknown: allow})
		if err != nil {
			t.Fatalf("Choose (AllowUnknown %v): %v; a fact of a newer build is no reason to refuse to judge the rest", allow, err)
		}
		if !slices.Equal(plan.Streams(), []journal.Stream{"s-done"}) {
			t.Errorf("AllowUnknown %v: archive %v; want only s-done", allow, plan.Archive)
		}
		why := map[journal.Stream]string{}
		for _, k := range plan.Kept {
			why[k.Stream] = k.Why
		}
		for stream, reason := range map[journal.Stream]string{
			"s-newer": "job/settled v9 (a version this build does not know)",
			"s-value": "subagent/residency-ended v1 (an enum value this build does not know)",
		} {
			if !strings.Contains(why[stream], reason) || !strings.Contains(why[stream], "a newer build") {
				t.Errorf("AllowUnknown %v: %s kept because %q; want it to name %q", allow, stream, why[stream], reason)
			}
		}
	}
}
