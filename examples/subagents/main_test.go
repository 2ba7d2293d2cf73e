package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestDemo runs the demo as `make demo-subagents` does and checks the story
// it tells: the child reports to the lead and settles, the restarted
// process resumes it cold from its stream, and the printed history holds
// both residencies, each started and ended once.
func TestDemo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, t.TempDir(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"host: creating researcher-1 (parent lead, depth 1)",
		"lead got a subagentReport from researcher-1: Background subagent researcher-1 reported: | Halfway",
		"lead got a subagentSettled from researcher-1: Background subagent researcher-1 finished",
		"host: resuming researcher-1 cold from 5 records on its stream",
		"subagent/residency-started  run",
		"(cold resume)",
		"The fix: the pump now resets one timer",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q:\n%s", want, got)
		}
	}
	history := got[strings.Index(got, "== the history"):]
	if s, e := strings.Count(history, "residency-started"), strings.Count(history, "residency-ended"); s != 2 || e != 2 {
		t.Errorf("history has %d residency starts and %d ends, want 2 and 2:\n%s", s, e, history)
	}
}
