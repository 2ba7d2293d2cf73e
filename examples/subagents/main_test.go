package main

import (
	"bytes"
	"context"
	"os"
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
		"host: resuming researcher-1 cold from its stream",
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

// TestTheRuntimesAgentAndProviderFitInThirtyLines holds the example to the
// agent kit's promise: with QueueAgent, HostFunc and Continuable, the agent
// and the provider a runtime writes before its model take at most 30 lines.
func TestTheRuntimesAgentAndProviderFitInThirtyLines(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(src), "// runtime: the agent and the provider")
	region, _, ok2 := strings.Cut(rest, "// end of the runtime.")
	if !ok || !ok2 {
		t.Fatal("main.go lost the markers around the runtime's agent and provider")
	}
	if n := strings.Count(strings.TrimSpace(region), "\n"); n > 30 {
		t.Fatalf("the runtime's agent and provider take %d lines, want at most 30:\n%s", n, region)
	} else {
		t.Logf("the runtime's agent and provider take %d lines", n)
	}
}
