package subagent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent"
)

// TestAColdResumeRefusesAHistoryHoldingASubagentFactANewerBuildWrote: the
// cold resume's rule for what this build does not know (decision 0174). A
// child's stream that holds a subagent fact of a newer build — a version, or
// an enum value, this build does not know — is not resumed from the rest:
// the follow-up is refused with ErrNotResumable naming the fact and this
// build, and nothing is appended; a record of another vocabulary (the
// runtime's own) is skipped as before.
func TestAColdResumeRefusesAHistoryHoldingASubagentFactANewerBuildWrote(t *testing.T) {
	for _, c := range []struct{ why, payload, names string }{
		{"a newer version", `{"type":"subagent/message-accepted","v":2,"data":{"message":"6ba7b811-9dad-11d1-80b4-00c04fd430c8","at":5,"source":{"kind":"user"},"content":[],"priority":3}}`,
			"subagent/message-accepted v2 (a version this build does not know)"},
		{"an enum value", `{"type":"subagent/residency-ended","v":1,"data":{"run":"6ba7b812-9dad-11d1-80b4-00c04fd430c8","at":5,"stopReason":"handedOff"}}`,
			"subagent/residency-ended v1 (an enum value this build does not know)"},
	} {
		t.Run(c.why, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, nil)
				f.residencies(1)
				ctx := context.Background()
				if _, err := f.store.Append(ctx, "c1", journal.Entry{Payload: []byte(`{"type":"runtime/noted","v":1,"data":{}}`)}, journal.Entry{Payload: []byte(c.payload)}); err != nil {
					t.Fatal(err)
				}
				before := records(t, f, "c1")
				_, err := f.svc.Followup(ctx, f.root, "c1", text("more"), subagent.FollowupOptions{})
				if !errors.Is(err, subagent.ErrNotResumable) || !strings.Contains(err.Error(), c.names) || !strings.Contains(err.Error(), "this build (") {
					t.Fatalf("Followup = %v; want ErrNotResumable naming %q and this build", err, c.names)
				}
				if after := records(t, f, "c1"); after != before {
					t.Fatalf("the refused resume appended %d records", after-before)
				}
			})
		})
	}
}

// records counts the records of the stream id.
func records(t *testing.T, f *fixture, id journal.Stream) int {
	t.Helper()
	n := 0
	for _, err := range f.store.ReadStream(context.Background(), id, 0) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}
